/** The LN2 inventory agent of the web demo, on the offline scripted model. */
import { type Agent, askUserQuestion, defineAgent } from '@turnkit/core';
import { queryInventory, thawVials } from './freezer.js';
import { demoModel } from './script.js';

/** Stable: stored snapshots name the agent, and a resume with another name is refused. */
export const AGENT_NAME = 'ln2-web';

/** Options of {@link createDemoAgent}. */
export interface DemoAgentOptions {
  /** Delay between streamed words, in ms (default 35). */
  paceMs?: number;
  /** Delay before each model answer, in ms (default 300). */
  thinkMs?: number;
}

/** The demo agent: looks vials up, asks which to thaw, asks approval to thaw them, reports. */
export function createDemoAgent(options: DemoAgentOptions = {}): Agent {
  return defineAgent({
    name: AGENT_NAME,
    instructions: [
      'You are an LN2 freezer inventory assistant for a cell-culture lab.',
      'Look vials up with query_inventory before acting; ask with AskUserQuestion when a choice is the user’s;',
      'thaw only with thaw_vials, which the user approves, edits or rejects.',
    ].join(' '),
    model: demoModel({ paceMs: options.paceMs ?? 35, thinkMs: options.thinkMs ?? 300 }),
    tools: [queryInventory, thawVials, askUserQuestion()],
    maxSteps: 8,
  });
}
