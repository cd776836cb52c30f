/**
 * The agent loop as a pure XState v5 machine (DESIGN §3). It holds the transcript and the state of
 * the current step and decides what comes next; it performs nothing. The interpreter (`loop.ts`)
 * reads the state, performs the effect (call the model, run tools) outside the machine and sends
 * the outcome back as an event, so every snapshot is taken between effects. Its guards and updates
 * are the plain functions of `rules.ts`; `transition.ts` follows this same chart.
 *
 *   idle ─START→ callingModel ─tool calls→ executingTools ─TOOLS_SETTLED→ settling
 *   callingModel ─OUTPUT_REJECTED→ callingModel (a final answer its `output` schema refused)
 *   settling → executingTools (calls left to run) | waitingInput (a human is needed) | callingModel
 *   waitingInput ─RESPOND→ settling;  completed / failed / maxSteps / aborted rest until
 *   USER_MESSAGE (all) or RETRY (failed, maxSteps, aborted, budgetExceeded).
 *   callingModel / executingTools ─BUDGET_REACHED→ waitingInput (the run's budget, DESIGN §20);
 *   waitingInput ─RESPOND refusing more budget→ budgetExceeded.
 */
import { assign, setup } from 'xstate';
import { guards, INITIAL_CONTEXT, updates } from './rules.js';
import type { LoopContext, LoopEvent } from './state.js';

/**
 * The pure machine of the loop. Create snapshots with `initialTransition(agentMachine)` and advance
 * them with `transition(agentMachine, snapshot, event)`; it never invokes or spawns anything.
 */
export const agentMachine = setup({
  types: { context: {} as LoopContext, events: {} as LoopEvent },
  guards: {
    hasToolCalls: ({ context, event }) => guards.hasToolCalls(context, event),
    stepBudgetExhausted: ({ context }) => guards.stepBudgetExhausted(context),
    hasRunnableCalls: ({ context }) => guards.hasRunnableCalls(context),
    hasPendingInteractions: ({ context }) => guards.hasPendingInteractions(context),
    awaitsBudget: ({ context }) => guards.awaitsBudget(context),
    budgetRefused: ({ context, event }) => guards.budgetRefused(context, event),
  },
  actions: {
    resetStepBudget: assign(({ context, event }) => updates.resetStepBudget(context, event)),
    clearError: assign(() => updates.clearError()),
    appendMessages: assign(({ context, event }) => updates.appendMessages(context, event)),
    appendAssistantMessage: assign(({ context, event }) => updates.appendAssistantMessage(context, event)),
    rejectOutput: assign(({ context, event }) => updates.rejectOutput(context, event)),
    startStep: assign(({ context, event }) => updates.startStep(context, event)),
    recordOutput: assign(({ context, event }) => updates.recordOutput(context, event)),
    recordError: assign(({ context, event }) => updates.recordError(context, event)),
    recordOutcomes: assign(({ context, event }) => updates.recordOutcomes(context, event)),
    applyResolutions: assign(({ context, event }) => updates.applyResolutions(context, event)),
    pauseForBudget: assign(({ context, event }) => updates.pauseForBudget(context, event)),
    supersedeOpenCalls: assign(({ context, event }) => updates.supersedeOpenCalls(context, event)),
    flushStepResults: assign(({ context }) => updates.flushStepResults(context)),
  },
}).createMachine({
  id: 'turnkit-agent',
  initial: 'idle',
  context: INITIAL_CONTEXT,
  states: {
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
        BUDGET_REACHED: { target: 'waitingInput', actions: 'pauseForBudget' },
        ABORT: 'aborted',
      },
    },
    executingTools: {
      on: {
        TOOLS_SETTLED: { target: 'settling', actions: 'recordOutcomes' },
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
        USER_MESSAGE: {
          target: 'callingModel',
          actions: ['resetStepBudget', 'supersedeOpenCalls', 'flushStepResults', 'appendMessages'],
        },
      },
    },
    completed: {
      on: { USER_MESSAGE: { target: 'callingModel', actions: ['resetStepBudget', 'appendMessages'] } },
    },
    failed: {
      on: {
        USER_MESSAGE: { target: 'callingModel', actions: ['resetStepBudget', 'appendMessages'] },
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
        USER_MESSAGE: {
          target: 'callingModel',
          actions: ['resetStepBudget', 'supersedeOpenCalls', 'flushStepResults', 'appendMessages'],
        },
        RETRY: { target: 'settling', actions: 'resetStepBudget' },
      },
    },
    // Like aborted: an open step stays open until a new message supersedes it or a retry runs it.
    budgetExceeded: {
      on: {
        USER_MESSAGE: {
          target: 'callingModel',
          actions: ['resetStepBudget', 'supersedeOpenCalls', 'flushStepResults', 'appendMessages'],
        },
        RETRY: { target: 'settling', actions: 'resetStepBudget' },
      },
    },
  },
});
