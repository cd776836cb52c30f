/**
 * The LN2 inventory agent: the same definition runs on the offline script or on an OpenAI-compatible
 * model, so a run started with one can be resumed with the other.
 */
import { type Agent, askUserQuestion, defineAgent, type ModelAdapter } from '@turnkit/core';
import type { Lang } from '../i18n.js';
import { queryInventory, recordThaw } from './inventory.js';

/** Stable across versions of the demo: snapshots name the agent, and a resume with another name is refused. */
export const AGENT_NAME = 'ln2-inventory';

function instructions(lang: Lang): string {
  return [
    'You are an LN2 freezer inventory assistant for a cell-culture lab.',
    'Always look vials up with query_inventory before acting; never invent cell lines, boxes or positions.',
    'When several cell lines match what the user asked for, ask which one with AskUserQuestion (one question per decision, the most likely line first with " (Recommended)" in its label), and ask in the same call which follow-up tasks to note (multiSelect).',
    'Record thaws with record_thaw; the user approves each call, and may edit or reject it: respect that.',
    'Keep answers short and concrete (line, box, positions, vials left).',
    lang === 'zh-CN' ? 'Reply in Simplified Chinese.' : 'Reply in English.',
  ].join('\n');
}

export function createAgent(options: { lang: Lang; model: ModelAdapter }): Agent {
  return defineAgent({
    name: AGENT_NAME,
    instructions: instructions(options.lang),
    model: options.model,
    tools: [queryInventory, recordThaw(options.lang), askUserQuestion()],
    maxSteps: 12,
  });
}
