/**
 * The agent loop as a pure XState v5 machine (DESIGN §3). It holds the transcript and the state of
 * the current step and decides what comes next; it performs nothing. The interpreter (`loop.ts`)
 * reads the state, performs the effect (call the model, run tools) outside the machine and sends
 * the outcome back as an event, so every snapshot is taken between effects. Its guards and updates
 * are the plain functions of `rules.ts`; its chart is `chart.ts`, which `transition.ts` follows
 * directly, so the loop itself never loads XState: this machine is for tools (inspection, the
 * model-based tests) and whoever imports it.
 */
import { assign, setup } from 'xstate';
import { CHART } from './chart.js';
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
    hasCallsInDoubt: ({ context }) => guards.hasCallsInDoubt(context),
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
    holdMessages: assign(({ context, event }) => updates.holdMessages(context, event)),
    flushStepResults: assign(({ context }) => updates.flushStepResults(context)),
  },
}).createMachine({
  id: 'turnkit-agent',
  initial: 'idle',
  context: INITIAL_CONTEXT,
  states: CHART,
});
