/**
 * The agent loop as a pure XState v5 machine (DESIGN §3). It holds the transcript and the state of
 * the current step and decides what comes next; it performs nothing. The interpreter (`loop.ts`)
 * reads the state, performs the effect (call the model, run tools) outside the machine and sends
 * the outcome back as an event, so every snapshot is taken between effects.
 *
 *   idle ─START→ callingModel ─tool calls→ executingTools ─TOOLS_SETTLED→ settling
 *   settling → executingTools (calls left to run) | waitingInput (a human is needed) | callingModel
 *   waitingInput ─RESPOND→ settling;  completed / failed / maxSteps / aborted rest until
 *   USER_MESSAGE (all) or RETRY (failed, maxSteps, aborted).
 */
import { assign, setup } from 'xstate';
import type {
  LoopContext,
  LoopEvent,
  ParkedChild,
  Resolution,
  ResolvedRecord,
  StepCall,
  StepOutcome,
  StoredInteraction,
} from './loop-state.js';
import { toolErrorResult } from './results.js';
import type { ToolMessage } from './types.js';

export type * from './loop-state.js';

/** The result of a call whose pending interaction a new user message replaced. */
export const SUPERSEDED_RESULT = toolErrorResult(
  'superseded_by_user_message',
  'The user sent a new message instead of answering; this call was dropped. Read the new message and continue from it.',
);

/** Interactions waiting for a human, in call order, including those of paused sub-agents. */
export function pendingInteractions(context: LoopContext): StoredInteraction[] {
  const pending: StoredInteraction[] = [];
  for (const call of context.step ?? []) {
    if (call.status !== 'pending') continue;
    if (call.child) pending.push(...pendingInteractions(call.child.context));
    else if (call.interaction) pending.push(call.interaction);
  }
  return pending;
}

function withOutcome(call: StepCall, outcome: StepOutcome): StepCall {
  if ('result' in outcome) {
    const { child: _dropped, ...rest } = call;
    return { ...rest, status: 'done', result: outcome.result };
  }
  if ('child' in outcome) return { ...call, status: 'pending', child: outcome.child };
  return { ...call, status: 'pending', interaction: outcome.interaction };
}

function withParked(parked: ParkedChild[] | undefined, outcomes: StepOutcome[]): ParkedChild[] | undefined {
  let next = parked;
  for (const outcome of outcomes) {
    if (!('park' in outcome) || !outcome.park) continue;
    const { key, entry } = outcome.park;
    next = (next ?? []).filter((item) => item.key !== key);
    if (entry) next = next.concat(entry);
  }
  return next && next.length > 0 ? next : undefined;
}

function withResolution(call: StepCall, resolution: Resolution): StepCall {
  if (resolution.child) {
    return {
      ...call,
      status: resolution.child.value === 'waitingInput' ? 'pending' : 'resuming',
      child: resolution.child,
    };
  }
  if (resolution.result !== undefined) {
    const { interaction: _resolved, ...rest } = call;
    return { ...rest, status: 'done', result: resolution.result };
  }
  // An approved call keeps its interaction until it runs: a resume checks the tool's schema hash.
  return { ...call, status: 'approved', approvedInput: resolution.runInput, edited: resolution.edited };
}

/**
 * The pure machine of the loop. Create snapshots with `initialTransition(agentMachine)` and advance
 * them with `transition(agentMachine, snapshot, event)`; it never invokes or spawns anything.
 */
export const agentMachine = setup({
  types: { context: {} as LoopContext, events: {} as LoopEvent },
  guards: {
    hasToolCalls: ({ event }) =>
      event.type === 'MODEL_RESPONDED' && (event.message.tool_calls?.length ?? 0) > 0,
    stepBudgetExhausted: ({ context }) => context.modelCalls >= context.maxSteps,
    hasRunnableCalls: ({ context }) =>
      context.step?.some(
        (call) => call.status === 'queued' || call.status === 'approved' || call.status === 'resuming',
      ) ?? false,
    hasPendingInteractions: ({ context }) => context.step?.some((call) => call.status === 'pending') ?? false,
  },
  actions: {
    resetStepBudget: assign(({ event }) =>
      'maxSteps' in event ? { modelCalls: 0, maxSteps: event.maxSteps } : {},
    ),
    clearError: assign({ error: null, output: null }),
    appendMessages: assign({
      messages: ({ context, event }) =>
        event.type === 'START' || event.type === 'USER_MESSAGE'
          ? context.messages.concat(event.messages)
          : context.messages,
      output: null,
      error: null,
    }),
    appendAssistantMessage: assign({
      messages: ({ context, event }) =>
        event.type === 'MODEL_RESPONDED' ? context.messages.concat(event.message) : context.messages,
      modelCalls: ({ context }) => context.modelCalls + 1,
    }),
    startStep: assign({
      step: ({ event }) =>
        event.type === 'MODEL_RESPONDED'
          ? (event.message.tool_calls ?? []).map(
              (call): StepCall => ({ toolCallId: call.id, toolName: call.function.name, status: 'queued' }),
            )
          : null,
    }),
    recordOutput: assign({
      output: ({ event }) => (event.type === 'MODEL_RESPONDED' ? (event.message.content ?? '') : null),
    }),
    recordError: assign({
      error: ({ event }) => (event.type === 'MODEL_FAILED' ? event.error : null),
    }),
    recordOutcomes: assign(({ context, event }) => {
      if (event.type !== 'TOOLS_SETTLED' || !context.step) return {};
      const byCall = new Map(event.outcomes.map((outcome) => [outcome.toolCallId, outcome]));
      const created = event.outcomes.filter((outcome) => 'interaction' in outcome).length;
      return {
        step: context.step.map((call) => {
          const outcome = byCall.get(call.toolCallId);
          return outcome ? withOutcome(call, outcome) : call;
        }),
        interactionCount: context.interactionCount + created,
        parked: withParked(context.parked, event.outcomes),
      };
    }),
    applyResolutions: assign(({ context, event }) => {
      if (event.type !== 'RESPOND' || !context.step) return {};
      const byCall = new Map(event.resolutions.map((resolution) => [resolution.toolCallId, resolution]));
      return {
        step: context.step.map((call) => {
          const resolution = byCall.get(call.toolCallId);
          return resolution && call.status === 'pending' ? withResolution(call, resolution) : call;
        }),
        resolved: context.resolved.concat(event.resolutions.flatMap((resolution) => resolution.records)),
      };
    }),
    supersedeOpenCalls: assign(({ context, event }) => {
      if (event.type !== 'USER_MESSAGE' || !context.step) return {};
      const records: ResolvedRecord[] = [];
      const step = context.step.map((call): StepCall => {
        if (call.status === 'done') return call;
        const open = call.child
          ? pendingInteractions(call.child.context)
          : call.interaction
            ? [call.interaction]
            : [];
        for (const { id, kind, toolCallId } of call.status === 'pending' ? open : []) {
          records.push({ id, kind, toolCallId, resolution: 'superseded', at: event.at });
        }
        return {
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          status: 'done',
          result: SUPERSEDED_RESULT,
        };
      });
      return { step, resolved: context.resolved.concat(records) };
    }),
    flushStepResults: assign(({ context }) => {
      if (!context.step) return {};
      const results = context.step.map(
        (call): ToolMessage => ({ role: 'tool', tool_call_id: call.toolCallId, content: call.result ?? '' }),
      );
      return { messages: context.messages.concat(results), step: null };
    }),
  },
}).createMachine({
  id: 'turnkit-agent',
  initial: 'idle',
  context: {
    messages: [],
    step: null,
    resolved: [],
    interactionCount: 0,
    modelCalls: 0,
    maxSteps: 1,
    output: null,
    error: null,
  },
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
        MODEL_FAILED: { target: 'failed', actions: 'recordError' },
        ABORT: 'aborted',
      },
    },
    executingTools: {
      on: {
        TOOLS_SETTLED: { target: 'settling', actions: 'recordOutcomes' },
        ABORT: 'aborted',
      },
    },
    settling: {
      always: [
        { guard: 'hasRunnableCalls', target: 'executingTools' },
        { guard: 'hasPendingInteractions', target: 'waitingInput' },
        { target: 'callingModel', actions: 'flushStepResults' },
      ],
    },
    waitingInput: {
      on: {
        RESPOND: { target: 'settling', actions: ['resetStepBudget', 'applyResolutions'] },
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
  },
});
