/**
 * The shape a snapshot must have, and the consistency rules between its state, its step and its
 * transcript. The transcript, the bulk of a snapshot, is checked message by message rather than by
 * a schema, so a resume costs little more than the JSON parse.
 */
import { z } from 'zod';
import type { LoopContext, LoopStateName } from './machine.js';

export const stateNames = [
  'idle',
  'callingModel',
  'executingTools',
  'settling',
  'waitingInput',
  'completed',
  'failed',
  'maxSteps',
  'aborted',
] as const;

const interactionSchema = z.object({
  id: z.string(),
  kind: z.enum(['question', 'approval']),
  toolCallId: z.string(),
  toolName: z.string(),
  agentPath: z.array(z.string()),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  schemaHash: z.string(),
  questions: z
    .array(
      z.object({
        id: z.string(),
        question: z.string(),
        header: z.string(),
        options: z
          .array(z.object({ label: z.string(), description: z.string(), preview: z.string().optional() }))
          .min(1),
        multiSelect: z.boolean(),
      }),
    )
    .optional(),
  onExpire: z.enum(['timeout', 'recommended']).optional(),
  input: z.string().optional(),
  reason: z.string().optional(),
});

const childStateSchema = z.object({
  value: z.enum(stateNames),
  get context() {
    return loopContextSchema;
  },
});

const stepCallSchema = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  status: z.enum(['queued', 'approved', 'pending', 'resuming', 'done']),
  result: z.string().optional(),
  interaction: interactionSchema.optional(),
  approvedInput: z.string().optional(),
  edited: z.boolean().optional(),
  child: childStateSchema.optional(),
});

const loopContextSchema = z.object({
  // Checked element by element in checkMessages; an array schema would walk and copy it once more.
  messages: z.custom<unknown[]>((value) => Array.isArray(value), 'expected an array'),
  step: z.array(stepCallSchema).nullable(),
  resolved: z.array(z.object({ id: z.string(), toolCallId: z.string() }).loose()),
  interactionCount: z.number().int().nonnegative(),
  modelCalls: z.number().int().nonnegative(),
  maxSteps: z.number().int().positive(),
  output: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  parked: z
    .array(
      z.object({ key: z.string(), toolName: z.string(), toolCallId: z.string(), state: childStateSchema }),
    )
    .optional(),
});

export const envelopeSchema = z.object({
  agent: z.string(),
  agentVersion: z.string(),
  runId: z.string().min(1),
  turn: z.number().int().nonnegative(),
  seq: z.number().int().nonnegative(),
  createdAt: z.string(),
  context: z.object({ json: z.unknown(), meta: z.any().optional() }).nullable(),
  lease: z.object({ owner: z.string(), expiresAt: z.string() }).optional(),
  state: childStateSchema,
});

/**
 * Checks the transcript cheaply, message by message, instead of running a schema over the
 * largest part of the snapshot: the role and the types the loop relies on.
 */
function checkMessages(messages: unknown[]): string | null {
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Record<string, unknown> | null;
    if (typeof message !== 'object' || message === null)
      return `state.context.messages[${index}] is not an object`;
    const { role, content } = message;
    if (role === 'user' || role === 'system') {
      if (typeof content !== 'string') return `state.context.messages[${index}].content is not a string`;
    } else if (role === 'tool') {
      if (typeof content !== 'string' || typeof message.tool_call_id !== 'string') {
        return `state.context.messages[${index}] is not a valid tool message`;
      }
    } else if (role === 'assistant') {
      if (content !== null && typeof content !== 'string')
        return `state.context.messages[${index}].content is invalid`;
      const calls = message.tool_calls;
      if (calls !== undefined && !Array.isArray(calls))
        return `state.context.messages[${index}].tool_calls is invalid`;
      for (const call of (calls as Array<Record<string, unknown>> | undefined) ?? []) {
        const fn = call?.function as Record<string, unknown> | undefined;
        if (
          typeof call?.id !== 'string' ||
          typeof fn?.name !== 'string' ||
          typeof fn.arguments !== 'string'
        ) {
          return `state.context.messages[${index}].tool_calls holds an invalid call`;
        }
      }
    } else {
      return `state.context.messages[${index}].role is not a chat role`;
    }
  }
  return null;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The state must agree with its step: waiting needs something pending, pending calls need what they wait on. */
function checkStep(value: LoopStateName, context: LoopContext): string | null {
  if (context.step) {
    const last = context.messages[context.messages.length - 1];
    const calls = last?.role === 'assistant' ? (last.tool_calls ?? []) : [];
    const matches =
      calls.length === context.step.length &&
      context.step.every(
        (call, index) =>
          call.toolCallId === calls[index]!.id &&
          call.toolName === calls[index]!.function.name &&
          (!call.interaction || call.interaction.toolCallId === call.toolCallId),
      );
    if (!matches) return 'the open step does not match the tool calls of the last assistant message';
  }
  let waiting = 0;
  for (const call of context.step ?? []) {
    if (call.status !== 'pending') continue;
    if (!call.interaction && !call.child) return `step call ${call.toolCallId} is pending on nothing`;
    if (call.interaction?.kind === 'approval' && !isJson(call.interaction.input ?? '')) {
      return `the approval input of ${call.toolCallId} is not JSON`;
    }
    if (call.interaction?.kind === 'question' && !call.interaction.questions?.length) {
      return `the question call ${call.toolCallId} has no questions`;
    }
    if (call.child && call.child.value !== 'waitingInput')
      return `the sub-agent of ${call.toolCallId} is not waiting`;
    waiting++;
  }
  if (value === 'waitingInput' && waiting === 0) return 'the run waits for input, but nothing is pending';
  if (value === 'idle' || value === 'settling') return `state ${value} is never written to a snapshot`;
  if ((value === 'executingTools' || value === 'waitingInput') && !context.step) {
    return `state ${value} has no step`;
  }
  if (context.step && value !== 'executingTools' && value !== 'waitingInput' && value !== 'aborted') {
    return `state ${value} cannot have an open step`;
  }
  return null;
}

/** Checks the transcript and step of a run and of every sub-agent held inside it. */
export function checkTranscripts(context: LoopContext, value: LoopStateName): string | null {
  const problem = checkMessages(context.messages) ?? checkStep(value, context);
  if (problem) return problem;
  for (const call of context.step ?? []) {
    const nested = call.child ? checkTranscripts(call.child.context, call.child.value) : null;
    if (nested) return `a sub-agent's ${nested}`;
  }
  for (const parked of context.parked ?? []) {
    const nested = checkTranscripts(parked.state.context, parked.state.value);
    if (nested) return `a sub-agent's ${nested}`;
  }
  return null;
}
