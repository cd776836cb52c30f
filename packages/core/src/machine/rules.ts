/**
 * The rules of the loop's machine (DESIGN §3), as plain functions of its context and events: the
 * guards that choose a transition and the updates (assignments) transitions make. `machine.ts`
 * builds the XState machine from them, and `transition.ts` follows the same chart with them, so
 * the two can never disagree on what a rule does.
 *
 * They run on every step of every turn, so they stay cheap: arrays grow by spreading into a new
 * literal (`concat` and `flatMap` cost three to six times as much on V8 11), and nothing is built
 * that the context does not keep.
 */
import type { BudgetLimits, ToolMessage } from '../types.js';
import { isInDoubtCall, supersededStep, withOutcome, withParked, withResolution } from './calls.js';
import type { LoopContext, LoopEvent, Resolution, ResolvedRecord, StepCall } from './state.js';

/** The machine's guards: which transition of a state an event (or no event) takes. */
export const guards = {
  hasToolCalls: (_context: LoopContext, event: LoopEvent) =>
    event.type === 'MODEL_RESPONDED' && (event.message.tool_calls?.length ?? 0) > 0,
  stepBudgetExhausted: (context: LoopContext) => context.modelCalls >= context.maxSteps,
  hasRunnableCalls: (context: LoopContext) =>
    context.step?.some(
      (call) => call.status === 'queued' || call.status === 'approved' || call.status === 'resuming',
    ) ?? false,
  hasPendingInteractions: (context: LoopContext) =>
    context.budgetPause !== undefined || (context.step?.some((call) => call.status === 'pending') ?? false),
  awaitsBudget: (context: LoopContext) => context.budgetPause !== undefined,
  hasCallsInDoubt: (context: LoopContext) => context.step?.some(isInDoubtCall) ?? false,
  budgetRefused: (_context: LoopContext, event: LoopEvent) =>
    event.type === 'RESPOND' &&
    event.resolutions.some((resolution) => resolution.budget?.decision === 'refuse'),
} satisfies Record<string, (context: LoopContext, event: LoopEvent) => boolean>;

/** The machine's updates: each returns the fields of the context it changes. */
export const updates = {
  resetStepBudget: (_context: LoopContext, event: LoopEvent): Partial<LoopContext> =>
    'maxSteps' in event ? { modelCalls: 0, maxSteps: event.maxSteps } : {},
  clearError: (): Partial<LoopContext> => ({ error: null, output: null }),
  appendMessages: (context: LoopContext, event: LoopEvent): Partial<LoopContext> =>
    withoutHookResume(context, {
      messages:
        event.type === 'START' || event.type === 'USER_MESSAGE'
          ? [...context.messages, ...event.messages]
          : context.messages,
      output: null,
      error: null,
    }),
  appendAssistantMessage: (context: LoopContext, event: LoopEvent): Partial<LoopContext> =>
    withoutHookResume(context, {
      messages: event.type === 'MODEL_RESPONDED' ? [...context.messages, event.message] : context.messages,
      modelCalls: context.modelCalls + 1,
    }),
  rejectOutput: (context: LoopContext, event: LoopEvent): Partial<LoopContext> =>
    event.type === 'OUTPUT_REJECTED'
      ? withoutHookResume(context, {
          messages: [...context.messages, event.message, event.feedback],
          modelCalls: context.modelCalls + 1,
        })
      : {},
  startStep: (_context: LoopContext, event: LoopEvent): Partial<LoopContext> => ({
    step:
      event.type === 'MODEL_RESPONDED'
        ? (event.message.tool_calls ?? []).map(
            (call): StepCall => ({ toolCallId: call.id, toolName: call.function.name, status: 'queued' }),
          )
        : null,
  }),
  recordOutput: (_context: LoopContext, event: LoopEvent): Partial<LoopContext> => ({
    output: event.type === 'MODEL_RESPONDED' ? (event.message.content ?? '') : null,
  }),
  recordError: (_context: LoopContext, event: LoopEvent): Partial<LoopContext> => {
    if (event.type === 'MODEL_FAILED' && event.hookResume)
      return { error: event.error, hookResume: event.hookResume };
    return {
      error:
        event.type === 'MODEL_FAILED' || event.type === 'HOOK_FAILED' || event.type === 'BLOCKED'
          ? event.error
          : null,
    };
  },
  recordOutcomes: (context: LoopContext, event: LoopEvent): Partial<LoopContext> => {
    if ((event.type !== 'TOOLS_SETTLED' && event.type !== 'HOOK_FAILED') || !context.step) return {};
    const byCall = new Map(event.outcomes.map((outcome) => [outcome.toolCallId, outcome]));
    const created = event.outcomes.filter((outcome) => 'interaction' in outcome).length;
    const parked = withParked(context.parked, event.outcomes);
    return {
      step: context.step.map((call) => {
        const outcome = byCall.get(call.toolCallId);
        return outcome ? withOutcome(call, outcome) : call;
      }),
      interactionCount: context.interactionCount + created,
      // Only when it changed: a context that never parked a sub-agent gets no `parked` key.
      ...(parked !== context.parked ? { parked } : {}),
    };
  },
  applyResolutions: (context: LoopContext, event: LoopEvent): Partial<LoopContext> => {
    if (event.type !== 'RESPOND') return {};
    let budget: Resolution['budget'];
    const byCall = new Map<string, Resolution>();
    const resolved = [...context.resolved];
    const changes: Partial<LoopContext> = {};
    for (const resolution of event.resolutions) {
      if (resolution.budget) budget ??= resolution.budget;
      else byCall.set(resolution.toolCallId, resolution);
      resolved.push(...resolution.records);
      // Hooks (DESIGN §26): a model point's review goes on from here; an approval remembered.
      if (resolution.hookResume) changes.hookResume = resolution.hookResume;
      if (resolution.remember)
        changes.remembered = [...(changes.remembered ?? context.remembered ?? []), resolution.remember];
    }
    changes.resolved = resolved;
    if (context.step) {
      changes.step = context.step.map((call) => {
        const resolution = byCall.get(call.toolCallId);
        return resolution && call.status === 'pending' ? withResolution(call, resolution) : call;
      });
    }
    if (budget) {
      changes.budgetPause = undefined;
      if (budget.decision === 'extend' && budget.extend) {
        changes.extended = addLimits(context.extended, budget.extend);
      }
    }
    return changes;
  },
  // A model point's review waits here too (DESIGN §26): it replaces where that point's hooks went on.
  pauseForBudget: (context: LoopContext, event: LoopEvent): Partial<LoopContext> =>
    event.type === 'BUDGET_REACHED'
      ? {
          budgetPause: event.interaction,
          interactionCount: context.interactionCount + 1,
          ...(event.interaction.kind === 'budget' ? {} : { hookResume: undefined }),
        }
      : {},
  supersedeOpenCalls: (context: LoopContext, event: LoopEvent): Partial<LoopContext> =>
    event.type === 'USER_MESSAGE' ? superseding(context, event.at, false, event.results) : {},
  /** The message waits while the step's calls in doubt settle; every other open call is superseded. */
  holdMessages: (context: LoopContext, event: LoopEvent): Partial<LoopContext> =>
    event.type === 'USER_MESSAGE'
      ? {
          ...superseding(context, event.at, true, event.results),
          held: [...(context.held ?? []), ...event.messages],
        }
      : {},
  flushStepResults: (context: LoopContext): Partial<LoopContext> => {
    if (!context.step) return {};
    const results = context.step.map(
      (call): ToolMessage => ({ role: 'tool', tool_call_id: call.toolCallId, content: call.result ?? '' }),
    );
    if (!context.held) return { messages: [...context.messages, ...results], step: null };
    return { messages: [...context.messages, ...results, ...context.held], step: null, held: undefined };
  },
} satisfies Record<string, (context: LoopContext, event: LoopEvent) => Partial<LoopContext>>;

/** `changes`, and the model point's hook resume dropped when there is one (a model call or message moved past it). */
function withoutHookResume(context: LoopContext, changes: Partial<LoopContext>): Partial<LoopContext> {
  if (context.hookResume !== undefined) changes.hookResume = undefined;
  return changes;
}

/** The context after a user message superseded what was open: the budget pause, and the step's open calls. */
function superseding(
  context: LoopContext,
  at: string,
  keepInDoubt: boolean,
  results: Record<string, string> | undefined,
): Partial<LoopContext> {
  const pause = context.budgetPause;
  const records: ResolvedRecord[] = pause
    ? [{ id: pause.id, kind: pause.kind, toolCallId: '', resolution: 'superseded', at }]
    : [];
  if (!context.step) {
    return pause ? { budgetPause: undefined, resolved: [...context.resolved, ...records] } : {};
  }
  const superseded = supersededStep(context.step, at, keepInDoubt, results);
  return {
    step: superseded.step,
    resolved: [...context.resolved, ...records, ...superseded.records],
    budgetPause: undefined,
  };
}

/** Limits plus an extension, per limit (a limit only extended counts from zero). */
function addLimits(base: BudgetLimits | undefined, extra: BudgetLimits): BudgetLimits {
  const sum: BudgetLimits = { ...base };
  for (const key of ['tokens', 'costUsd', 'toolCalls', 'steps'] as const) {
    if (extra[key] !== undefined) sum[key] = (sum[key] ?? 0) + extra[key];
  }
  return sum;
}

/** A guard's name. */
export type GuardName = keyof typeof guards;
/** An update's name. */
export type UpdateName = keyof typeof updates;

/** The context of a run before its first event. */
export const INITIAL_CONTEXT: LoopContext = Object.freeze({
  messages: [],
  step: null,
  resolved: [],
  interactionCount: 0,
  modelCalls: 0,
  maxSteps: 1,
  output: null,
  error: null,
}) as LoopContext;
