/**
 * The shape a snapshot must have, and the consistency rules between its state, its step and its
 * transcript. Checked by small hand-written checks that copy nothing (a zod schema cost a twentieth
 * of a short resume); the transcript, the bulk of a snapshot, message by message, so a resume costs
 * little more than the JSON parse.
 */
import type { LoopContext, LoopStateName } from '../machine/index.js';

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
  'budgetExceeded',
  'blocked',
] as const;

/**
 * Checks one value: null when it fits, else what is wrong, starting with where below the value
 * (`.key`, `[index]`, or nothing for the value itself) then `: `. The path is built only on the
 * way back up from a problem, so a snapshot that fits allocates nothing here (it used to build a
 * path string for every field it checked). Nothing is copied.
 */
type Check = (value: unknown) => string | null;

const kind = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);
const fail = (expected: string, value: unknown) => `: expected ${expected}, got ${kind(value)}`;

const string: Check = (value) => (typeof value === 'string' ? null : fail('a string', value));
const boolean: Check = (value) => (typeof value === 'boolean' ? null : fail('a boolean', value));
const count =
  (min: number): Check =>
  (value) =>
    Number.isSafeInteger(value) && (value as number) >= min ? null : fail(`an integer >= ${min}`, value);
const oneOf =
  (...allowed: readonly unknown[]): Check =>
  (value) =>
    allowed.includes(value)
      ? null
      : `: expected one of ${allowed.map((item) => JSON.stringify(item)).join(', ')}`;
const nullable =
  (check: Check): Check =>
  (value) =>
    value === null ? null : check(value);
const optional =
  (check: Check): Check =>
  (value) =>
    value === undefined ? null : check(value);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const object = (fields: Record<string, Check>): Check => {
  // Two flat lists walked by index: no entry pair destructured per field on every resume.
  const keys = Object.keys(fields);
  const checks = keys.map((key) => fields[key]!);
  return (value) => {
    if (!isObject(value)) return fail('an object', value);
    for (let index = 0; index < keys.length; index++) {
      const problem = checks[index]!(value[keys[index]!]);
      if (problem) return `.${keys[index]}${problem}`;
    }
    return null;
  };
};
const arrayOf =
  (item: Check): Check =>
  (value) => {
    if (!Array.isArray(value)) return fail('an array', value);
    for (let index = 0; index < value.length; index++) {
      const problem = item(value[index]);
      if (problem) return `[${index}]${problem}`;
    }
    return null;
  };
const recordOf =
  (item: Check): Check =>
  (value) => {
    if (!isObject(value)) return fail('an object', value);
    for (const key of Object.keys(value)) {
      const problem = item(value[key]);
      if (problem) return `.${key}${problem}`;
    }
    return null;
  };
const number: Check = (value) => (typeof value === 'number' ? null : fail('a number', value));
const any: Check = () => null;

/** A superjson result (`{ json, meta? }`), as the application context and a tool's ask state are kept. */
const superjson = object({ json: any, meta: any });

const question = object({
  id: string,
  question: string,
  header: string,
  // Empty for a free-text question (format 2).
  options: arrayOf(object({ label: string, description: string, preview: optional(string) })),
  multiSelect: boolean,
});

const nonNegative: Check = (value) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0
    ? null
    : fail('a finite number >= 0', value);

/** Budget limits (DESIGN §20): each optional. */
const limits = object({
  tokens: optional(nonNegative),
  costUsd: optional(nonNegative),
  toolCalls: optional(nonNegative),
  steps: optional(nonNegative),
});

const spend = object({
  steps: count(0),
  inputTokens: count(0),
  outputTokens: count(0),
  tokens: count(0),
  toolCalls: count(0),
  costUsd: nonNegative,
});

const approval = object({ principal: string, rationale: optional(string), at: string });

const hookPoint = oneOf('beforeModel', 'afterModel', 'beforeTool', 'afterTool');

/** What a hook's ask holds (DESIGN §26). */
const review = object({ hook: string, point: hookPoint, index: count(0), subject: string });

/** Where a model point's hooks go on (DESIGN §26). */
const hookResume = object({
  point: hookPoint,
  hook: string,
  from: count(0),
  subject: string,
  answer: optional(string),
  deny: optional(string),
});

const interaction = object({
  id: string,
  kind: oneOf('question', 'approval', 'input', 'budget', 'in_doubt', 'review'),
  toolCallId: string,
  toolName: string,
  agentPath: arrayOf(string),
  createdAt: string,
  expiresAt: nullable(string),
  // Function tools' input schema hash; questions written by version 1 carry one too, never compared.
  schemaHash: optional(string),
  questions: optional(arrayOf(question)),
  limits: optional(recordOf(number)),
  onExpire: optional(oneOf('timeout', 'recommended')),
  input: optional(string),
  reason: optional(string),
  form: optional(object({ message: string, schema: recordOf(any) })),
  ask: optional(object({ state: nullable(superjson) })),
  assignees: optional(arrayOf(string)),
  quorum: optional(count(1)),
  allowRequester: optional(boolean),
  approvals: optional(arrayOf(approval)),
  budget: optional(object({ spent: spend, limit: limits })),
  // DESIGN §30: reminders and escalation, with the sweeper's marks.
  keep: optional(
    object({
      remindBeforeMs: optional(count(1)),
      remindedFor: optional(string),
      escalate: optional(arrayOf(object({ at: string, assignees: arrayOf(string) }))),
      escalated: optional(count(0)),
    }),
  ),
  review: optional(review),
});

// Declared before use through a function, because a sub-agent's state holds a whole loop context.
const childState: Check = (value) => childStateCheck(value);

const stepCall = object({
  toolCallId: string,
  toolName: string,
  status: oneOf('queued', 'approved', 'pending', 'resuming', 'done'),
  result: optional(string),
  interaction: optional(interaction),
  approvedInput: optional(string),
  edited: optional(boolean),
  askResponse: optional(string),
  child: optional(childState),
});

const loopContext = object({
  // Checked element by element in checkMessages: the transcript is most of a snapshot.
  messages: (value) => (Array.isArray(value) ? null : fail('an array', value)),
  step: nullable(arrayOf(stepCall)),
  resolved: arrayOf(
    object({
      id: string,
      toolCallId: string,
      span: optional(object({ turn: count(0), askedAt: string, toolName: string, agent: optional(string) })),
    }),
  ),
  interactionCount: count(0),
  modelCalls: count(0),
  maxSteps: count(1),
  output: nullable(string),
  error: nullable(object({ code: string, message: string })),
  parked: optional(arrayOf(object({ key: string, toolName: string, toolCallId: string, state: childState }))),
  spent: optional(spend),
  extended: optional(limits),
  budgetPause: optional(interaction),
  // DESIGN §22: where a compacted window starts in the full transcript.
  window: optional(object({ from: count(0), summary: count(0) })),
  hookResume: optional(hookResume),
  remembered: optional(arrayOf(string)),
});

const childStateCheck = object({ value: oneOf(...stateNames), context: loopContext });

/**
 * The envelope of a snapshot (after its signature or decryption, and its format and version): null
 * when it fits, else `<path>: expected …` (the path from the envelope, `envelope` for itself).
 */
export function checkEnvelope(envelope: unknown): string | null {
  const problem = envelopeCheck(envelope);
  if (problem === null) return null;
  return problem.startsWith('.') ? problem.slice(1) : `envelope${problem}`;
}

const envelopeCheck: Check = object({
  version: oneOf(1, 2),
  agent: string,
  agentVersion: string,
  runId: (value) => (typeof value === 'string' && value !== '' ? null : fail('a non-empty string', value)),
  turn: count(0),
  seq: count(0),
  row: optional(count(1)),
  createdAt: string,
  principal: optional(string),
  trace: optional(object({ traceId: string, spanId: string, traceFlags: count(0) })),
  notified: optional(arrayOf(string)),
  usedLinks: optional(arrayOf(string)),
  forkedFrom: optional(object({ runId: string, version: count(1) })),
  activeAgent: optional(object({ name: string, from: string })),
  state: childState,
  // Version 1 sessions kept a `lease` here; leases now live beside the snapshot in the store.
  context: nullable(superjson),
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
  for (const call of context.step ?? []) {
    if (
      call.status === 'resuming' &&
      !call.child &&
      (call.askResponse === undefined || !(call.interaction?.ask || call.interaction?.review))
    ) {
      return `step call ${call.toolCallId} resumes with nothing to resume`;
    }
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
    if (call.interaction?.kind === 'input' && (!call.interaction.form || !call.interaction.ask)) {
      return `the input call ${call.toolCallId} has no form`;
    }
    if (call.child && call.child.value !== 'waitingInput')
      return `the sub-agent of ${call.toolCallId} is not waiting`;
    waiting++;
  }
  if (context.budgetPause) {
    const pause = context.budgetPause;
    if (pause.kind === 'budget' ? !pause.budget : !pause.review || pause.toolCallId !== '') {
      return 'the budget pause is not a budget interaction or a model point review';
    }
    if (value !== 'waitingInput') return `state ${value} cannot wait on a budget`;
    waiting++;
  }
  if (value === 'waitingInput' && waiting === 0) return 'the run waits for input, but nothing is pending';
  if (value === 'idle' || value === 'settling') return `state ${value} is never written to a snapshot`;
  if ((value === 'executingTools' || value === 'waitingInput') && !context.step && !context.budgetPause) {
    return `state ${value} has no step`;
  }
  // A hook failure in a step leaves it open in `failed` (DESIGN §26).
  const open = ['executingTools', 'waitingInput', 'aborted', 'budgetExceeded', 'failed'];
  if (context.step && !open.includes(value)) {
    return `state ${value} cannot have an open step`;
  }
  return null;
}

/** Checks the transcript and step of a run and of every sub-agent held inside it. */
export function checkTranscripts(context: LoopContext, value: LoopStateName): string | null {
  const problem =
    checkMessages(context.messages) ??
    (context.window && context.window.summary > context.messages.length
      ? 'the window counts more summary messages than the transcript holds'
      : null) ??
    checkStep(value, context);
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
