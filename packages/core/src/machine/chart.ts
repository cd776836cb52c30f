/**
 * The loop's chart (DESIGN §3) as plain data: `agentMachine` (machine.ts) is XState's machine of it,
 * and `transition.ts` follows it directly, so running a turn never loads XState nor builds the
 * machine. Guards and updates are named here and defined in `rules.ts`; the model-based tests check
 * that the machine and `transition` agree on every edge.
 *
 *   idle ─START→ callingModel ─tool calls→ executingTools ─TOOLS_SETTLED→ settling
 *   callingModel ─OUTPUT_REJECTED→ callingModel (a final answer its `output` schema refused)
 *   settling → executingTools (calls left to run) | waitingInput (a human is needed) | callingModel
 *   waitingInput ─RESPOND→ settling;  completed / failed / maxSteps / aborted rest until
 *   USER_MESSAGE (all) or RETRY (failed, maxSteps, aborted, budgetExceeded).
 *   callingModel / executingTools ─BUDGET_REACHED→ waitingInput (the run's budget, DESIGN §20);
 *   waitingInput ─RESPOND refusing more budget→ budgetExceeded.
 *   callingModel ─BLOCKED→ blocked (a beforeModel hook denied the call, DESIGN §26);
 *   executingTools ─HOOK_FAILED→ failed (a hook failed; the step's other outcomes are kept).
 */
import type { GuardName, UpdateName } from './rules.js';
import type { LoopEvent, LoopStateName } from './state.js';

/** One transition: the first whose guard passes is taken, its updates applied in order. */
export type ChartEdge =
  | LoopStateName
  | { guard?: GuardName; target: LoopStateName; actions?: UpdateName | UpdateName[] };

/** A state of the chart: its transitions by event type, and its eventless (`always`) ones. */
export interface ChartState {
  on?: Partial<Record<LoopEvent['type'], ChartEdge | ChartEdge[]>>;
  always?: ChartEdge | ChartEdge[];
}

/**
 * A user message where a step may be open: calls in doubt (DESIGN §21) settle first, the message
 * held until their results are in; otherwise every open call is superseded and the model reads it.
 */
const SUPERSEDING: ChartEdge[] = [
  { guard: 'hasCallsInDoubt', target: 'settling', actions: ['resetStepBudget', 'holdMessages'] },
  {
    target: 'callingModel',
    actions: ['resetStepBudget', 'supersedeOpenCalls', 'flushStepResults', 'appendMessages'],
  },
];

/** The chart of the loop, by state. */
export const CHART: Record<LoopStateName, ChartState> = {
  idle: {
    on: { START: { target: 'callingModel', actions: ['resetStepBudget', 'appendMessages'] } },
  },
  callingModel: {
    always: { guard: 'stepBudgetExhausted', target: 'maxSteps' },
    on: {
      MODEL_RESPONDED: [
        {
          guard: 'hasToolCalls',
          target: 'executingTools',
          actions: ['appendAssistantMessage', 'startStep'],
        },
        { target: 'completed', actions: ['appendAssistantMessage', 'recordOutput'] },
      ],
      // The answer and its issues join the transcript; the model tries again (within the budget).
      OUTPUT_REJECTED: { target: 'callingModel', actions: 'rejectOutput' },
      MODEL_FAILED: { target: 'failed', actions: 'recordError' },
      // A beforeModel hook denied the call (DESIGN §26).
      BLOCKED: { target: 'blocked', actions: 'recordError' },
      BUDGET_REACHED: { target: 'waitingInput', actions: 'pauseForBudget' },
      ABORT: 'aborted',
    },
  },
  executingTools: {
    on: {
      TOOLS_SETTLED: { target: 'settling', actions: 'recordOutcomes' },
      // A hook failed (DESIGN §26): the other calls' outcomes are kept; a retry runs its point again.
      HOOK_FAILED: { target: 'failed', actions: ['recordOutcomes', 'recordError'] },
      BUDGET_REACHED: { target: 'waitingInput', actions: 'pauseForBudget' },
      ABORT: 'aborted',
    },
  },
  settling: {
    always: [
      // Nothing starts while the run waits for more budget, whatever else was answered.
      { guard: 'awaitsBudget', target: 'waitingInput' },
      { guard: 'hasRunnableCalls', target: 'executingTools' },
      { guard: 'hasPendingInteractions', target: 'waitingInput' },
      { target: 'callingModel', actions: 'flushStepResults' },
    ],
  },
  waitingInput: {
    on: {
      RESPOND: [
        { guard: 'budgetRefused', target: 'budgetExceeded', actions: 'applyResolutions' },
        { target: 'settling', actions: ['resetStepBudget', 'applyResolutions'] },
      ],
      USER_MESSAGE: SUPERSEDING,
    },
  },
  completed: {
    on: { USER_MESSAGE: { target: 'callingModel', actions: ['resetStepBudget', 'appendMessages'] } },
  },
  failed: {
    on: {
      // A hook failure may leave a step open (DESIGN §26): a message supersedes its open calls.
      USER_MESSAGE: SUPERSEDING,
      RETRY: { target: 'settling', actions: ['resetStepBudget', 'clearError'] },
    },
  },
  maxSteps: {
    on: {
      USER_MESSAGE: { target: 'callingModel', actions: ['resetStepBudget', 'appendMessages'] },
      RETRY: { target: 'settling', actions: 'resetStepBudget' },
    },
  },
  aborted: {
    on: {
      USER_MESSAGE: SUPERSEDING,
      RETRY: { target: 'settling', actions: 'resetStepBudget' },
    },
  },
  // A beforeModel hook denied the model call (DESIGN §26): a message or a retry goes on.
  blocked: {
    on: {
      USER_MESSAGE: { target: 'callingModel', actions: ['resetStepBudget', 'appendMessages'] },
      RETRY: { target: 'settling', actions: ['resetStepBudget', 'clearError'] },
    },
  },
  // Like aborted: an open step stays open until a new message supersedes it or a retry runs it.
  budgetExceeded: {
    on: {
      USER_MESSAGE: SUPERSEDING,
      RETRY: { target: 'settling', actions: 'resetStepBudget' },
    },
  },
};
