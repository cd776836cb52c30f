/**
 * The LN2 inventory agent: the same definition runs on the offline script or on a real model
 * (`--model provider:model`), so a run started with one can be resumed with the other. Its questions expire after
 * `questionTimeoutMs` (the CLI's `--timeout-seconds`): the model is then told `question_timeout`
 * and goes on. Its final answer is a thaw plan (`output: ThawPlan` of `@turnkit/demo-models`): JSON
 * the scripted model writes and a real model is asked for as structured output.
 */
import {
  type Agent,
  type AnyHook,
  agentTool,
  askUserQuestion,
  type BudgetLimits,
  defineAgent,
  type ModelAdapter,
} from '@turnkit/core';
import { labDesk, ThawPlan, type ThawPlanValue } from '@turnkit/demo-models';
import type { Lang } from '../i18n.js';
import { queryInventory, recordThaw } from './inventory.js';
import { AGENT_NAME } from './names.js';
import { createStorageAgent } from './storage.js';

export { AGENT_NAME } from './names.js';

function instructions(lang: Lang): string {
  return [
    'You are an LN2 freezer inventory assistant for a cell-culture lab.',
    'Always look vials up with query_inventory before acting; never invent cell lines, boxes or positions.',
    'When several cell lines match what the user asked for, ask which one with AskUserQuestion (one question per decision, the most likely line first with " (Recommended)" in its label), and ask in the same call which follow-up tasks to note (multiSelect).',
    'Record thaws with record_thaw; the user approves each call, and may edit or reject it: respect that. When several boxes hold the line, record_thaw asks the user which box itself.',
    'A question the user leaves unanswered times out: then do nothing irreversible and say what you did not do.',
    'To put new vials into the freezer, hand the user’s request to the storage agent and report what it says.',
    'Questions about the CO2 incubators are the lab desk’s: hand the conversation over to it.',
    'Keep answers short and concrete (line, box, positions, vials left).',
    'Your final answer is a JSON thaw plan: summary (what you tell the user), thawed (each thaw recorded in this turn: cellLine, box, positions, vialsLeft; empty when none), medium (or null), followUps and nextSteps (lists, may be empty).',
    lang === 'zh-CN' ? 'Reply in Simplified Chinese.' : 'Reply in English.',
  ].join('\n');
}

/** Options of {@link createAgent}. */
export interface AgentOptions {
  lang: Lang;
  model: ModelAdapter;
  storageModel: ModelAdapter;
  /** The lab desk's model (DESIGN §27: the lead hands incubator questions to it, and it hands back). */
  deskModel: ModelAdapter;
  /** How long the lead's questions wait for an answer; no limit when unset or 0. */
  questionTimeoutMs?: number;
  /** What one run may spend across its turns (DESIGN §20; default {@link DEFAULT_BUDGET}, null: none). */
  budget?: BudgetLimits | null;
  /** Hooks of the agent (DESIGN §26), e.g. the thaw review of `TURNKIT_REVIEW_THAWS`. */
  hooks?: AnyHook[];
}

/** The demo's budget per run: 30 model calls; past them the run asks before spending more. */
export const DEFAULT_BUDGET: BudgetLimits = { steps: 30 };

/**
 * The agent on `model`; its storage sub-agent runs on `storageModel` (the offline storage script,
 * or the same model as the lead). Its questions and approvals bubble up to the person.
 */
export function createAgent(options: AgentOptions): Agent<ThawPlanValue> {
  const storage = createStorageAgent({ lang: options.lang, model: options.storageModel });
  const timeoutMs = options.questionTimeoutMs ? { timeoutMs: options.questionTimeoutMs } : {};
  const desk = labDesk({ model: options.deskModel, lead: () => lead });
  const lead: Agent<ThawPlanValue> = defineAgent({
    name: AGENT_NAME,
    instructions: instructions(options.lang),
    model: options.model,
    tools: [
      queryInventory,
      recordThaw(options.lang),
      askUserQuestion(timeoutMs),
      agentTool(storage, {
        description: 'Put new vials into the freezer: pass the user’s request; returns what was stored.',
        questions: 'bubble',
      }),
    ],
    // The final answer is a typed thaw plan: result.output is a ThawPlanValue (issue 30).
    output: ThawPlan,
    maxSteps: 12,
    ...(options.budget === null ? {} : { budget: options.budget ?? DEFAULT_BUDGET }),
    handoffs: [desk],
    ...(options.hooks ? { hooks: options.hooks } : {}),
  });
  return lead;
}
