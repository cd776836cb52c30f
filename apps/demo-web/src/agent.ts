/** The LN2 inventory agent of the web demo, on the offline scripted model unless given a model. */
import {
  type Agent,
  type AnyHook,
  agentTool,
  askUserQuestion,
  type BudgetLimits,
  defineAgent,
  type ModelAdapter,
} from '@turnkit/core';
import { deskScript, labDesk, ThawPlan, type ThawPlanValue } from '@turnkit/demo-models';
import { countVials } from './count.js';
import { queryInventory, thawVials } from './freezer.js';
import { AGENT_NAME } from './names.js';
import { demoModel } from './script.js';
import { createStorageAgent } from './storage.js';

export { AGENT_NAME } from './names.js';

/** Options of {@link createDemoAgent}. */
export interface DemoAgentOptions {
  /** Delay between streamed words, in ms (default 35). */
  paceMs?: number;
  /** Delay before each model answer, in ms (default 300). */
  thinkMs?: number;
  /** How long the assistant's questions wait for an answer, in ms (default five minutes; 0: no limit). */
  questionTimeoutMs?: number;
  /** A model in place of the script (`--model provider:model`), for the agent and its storage sub-agent. */
  model?: ModelAdapter;
  /**
   * What one run may spend across its turns (default {@link DEFAULT_BUDGET}); past it the run asks
   * for more with a `budget` card. `null`: no budget.
   */
  budget?: BudgetLimits | null;
  /** How long `count_vials` takes to count, in ms (default 2000). */
  countMs?: number;
  /** Hooks of the agent (DESIGN §26): e.g. a policy that has thaws reviewed (a review card). */
  hooks?: AnyHook[];
}

/** The demo's budget per run: 12 model calls, so the third story or so asks before going on. */
export const DEFAULT_BUDGET: BudgetLimits = { steps: 12 };

/** The seed's question timeout: five minutes. */
export const DEFAULT_QUESTION_TIMEOUT_MS = 300_000;

/** Who the demo's visitor is (it has no login): every caller, and an assignee of escalated asks. */
export const DEMO_USER = 'you';
/** Who a question left waiting half its time is escalated to, besides the visitor (DESIGN §30). */
export const LAB_MANAGER = 'lab-manager';

/**
 * A waiting question is kept (DESIGN §30): escalated to the lab manager halfway through its time
 * (the visitor stays an assignee, so the demo goes on), reminded when a fifth of it is left.
 */
function keptQuestion(timeoutMs: number) {
  return {
    timeoutMs,
    remindBeforeMs: Math.max(1, Math.floor(timeoutMs / 5)),
    escalate: [{ afterMs: Math.max(1, Math.floor(timeoutMs / 2)), assignees: [DEMO_USER, LAB_MANAGER] }],
  };
}

/**
 * The demo agent: looks vials up, asks which to thaw (a question that times out), asks approval to
 * thaw them, reports; hands requests to store new vials to its storage sub-agent, whose question
 * and approval bubble up. Its final answer is a typed thaw plan (`output: ThawPlan`): the script
 * writes it as JSON, a real model is asked for it as structured output.
 */
export function createDemoAgent(options: DemoAgentOptions = {}): Agent<ThawPlanValue> {
  const storage = createStorageAgent({
    thinkMs: options.thinkMs ?? 300,
    ...(options.model ? { model: options.model } : {}),
  });
  const timeoutMs = options.questionTimeoutMs ?? DEFAULT_QUESTION_TIMEOUT_MS;
  // The lab desk takes incubator questions (a handoff, DESIGN §27) and hands the run back for vials.
  const deskModel = options.model ?? deskScript({ leadName: AGENT_NAME, delayMs: options.thinkMs ?? 300 });
  const desk = labDesk({ model: deskModel, lead: () => lead });
  const lead: Agent<ThawPlanValue> = defineAgent({
    name: AGENT_NAME,
    instructions: [
      'You are an LN2 freezer inventory assistant for a cell-culture lab.',
      'Look vials up with query_inventory before acting; ask with AskUserQuestion when a choice is the user’s;',
      'thaw only with thaw_vials, which the user approves, edits or rejects (it asks which box when a line is in several);',
      'a question left unanswered times out: then thaw nothing;',
      'hand requests to store new vials to the storage agent; count_vials counts every box (slow);',
      'questions about the CO2 incubators are the lab desk’s: hand the conversation over to it.',
      'Your final answer is a JSON thaw plan: summary (what you tell the user), thawed (each box thawed from in this turn: cellLine, box, positions, and vialsLeft as thaw_vials reports it; empty when none), medium (or null), followUps and nextSteps (lists, may be empty).',
    ].join(' '),
    model: options.model ?? demoModel({ paceMs: options.paceMs ?? 35, thinkMs: options.thinkMs ?? 300 }),
    tools: [
      queryInventory,
      thawVials,
      countVials(options.countMs),
      askUserQuestion(timeoutMs > 0 ? keptQuestion(timeoutMs) : {}),
      agentTool(storage, { description: 'Store new vials: pass the user’s request.', questions: 'bubble' }),
    ],
    output: ThawPlan,
    maxSteps: 8,
    ...(options.budget === null ? {} : { budget: options.budget ?? DEFAULT_BUDGET }),
    handoffs: [desk],
    ...(options.hooks ? { hooks: options.hooks } : {}),
  });
  return lead;
}
