/**
 * The snapshot string (DESIGN §4): a versioned JSON envelope around the machine's state. The
 * transcript is plain JSON, written once by `JSON.stringify`; only the application `context` goes
 * through superjson. With a secret the exact bytes are HMAC-signed, and verified before parsing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import SuperJSON, { type SuperJSONResult } from 'superjson';
import { z } from 'zod';
import { SnapshotError, TurnkitError } from './errors.js';
import type { LoopContext, LoopStateName } from './machine.js';

/** The only snapshot format version this release writes and reads. */
export const SNAPSHOT_VERSION = 1;
const FORMAT = 'turnkit.snapshot';

/** A snapshot decoded for inspection (see {@link parseSnapshot}). */
export interface DecodedSnapshot {
  format: typeof FORMAT;
  version: typeof SNAPSHOT_VERSION;
  agent: string;
  agentVersion: string;
  runId: string;
  /** Turns (calls of runTurn, answerQuestion…) so far. */
  turn: number;
  /** The last event sequence number used. */
  seq: number;
  createdAt: string;
  /** The machine's persisted state: its state name and context (transcript, current step…). */
  state: { value: LoopStateName; context: LoopContext };
  /** The application context, serialized by superjson; null when there is none. */
  context: SuperJSONResult | null;
  /** Set by sessions while a worker holds the run. */
  lease?: { owner: string; expiresAt: string };
}

/** `,"sig":"<64 hex>"}`: what signing puts in place of the envelope's final `}`. */
const SIGNATURE_TAIL = /^,"sig":"([0-9a-f]{64})"\}$/;
const SIGNATURE_TAIL_LENGTH = 74;

function hmac(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex');
}

/** Serializes a decoded snapshot to its string form, signed when `secret` is given. */
export function encodeSnapshot(decoded: DecodedSnapshot, secret?: string): string {
  const text = JSON.stringify(decoded);
  if (!secret) return text;
  return `${text.slice(0, -1)},"sig":"${hmac(secret, text)}"}`;
}

/**
 * Checks the signature over the exact unsigned bytes (the text before the tail, then `}`), before
 * anything is parsed. The bytes are fed to the HMAC in two pieces rather than copied into one string.
 */
function verifySignature(snapshot: string, secret: string): void {
  const cut = snapshot.length - SIGNATURE_TAIL_LENGTH;
  const match = cut > 0 ? SIGNATURE_TAIL.exec(snapshot.slice(cut)) : null;
  if (!match) {
    throw new SnapshotError(
      'SNAPSHOT_TAMPERED',
      'The snapshot is not signed, but this agent requires signed snapshots: pass the snapshot string exactly as TurnKit returned it.',
    );
  }
  const expected = createHmac('sha256', secret).update(snapshot.slice(0, cut)).update('}').digest();
  if (!timingSafeEqual(expected, Buffer.from(match[1]!, 'hex'))) {
    throw new SnapshotError(
      'SNAPSHOT_TAMPERED',
      'The snapshot signature does not match: it was edited, or signed with another secret. Use the snapshot exactly as TurnKit returned it, with the same `snapshot.secret`.',
    );
  }
}

const stateNames = [
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

const envelopeSchema = z.object({
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
function checkTranscripts(context: LoopContext, value: LoopStateName): string | null {
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

function invalid(detail: string, cause?: unknown): SnapshotError {
  return new SnapshotError(
    'SNAPSHOT_INVALID',
    `This is not a readable TurnKit snapshot (${detail}). Pass the \`snapshot\` string of a TurnResult, unchanged.`,
    { cause },
  );
}

/** Signature and format/version checks; returns the parsed, not yet shape-checked envelope. */
export function readEnvelope(snapshot: unknown, secret?: string): Record<string, unknown> {
  if (typeof snapshot !== 'string') throw invalid(`expected a string, got ${typeof snapshot}`);
  if (secret) verifySignature(snapshot, secret);
  // The signed text parses to the unsigned envelope plus `sig`, which is dropped below.
  let parsed: unknown;
  try {
    parsed = JSON.parse(snapshot);
  } catch (error) {
    throw invalid('not JSON', error);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalid('not a JSON object');
  const envelope = parsed as Record<string, unknown>;
  if (envelope.format !== FORMAT) throw invalid(`format is ${JSON.stringify(envelope.format)}`);
  if (envelope.version !== SNAPSHOT_VERSION) {
    throw new SnapshotError(
      'SNAPSHOT_VERSION',
      `Snapshot format version ${JSON.stringify(envelope.version)} is not supported: this TurnKit reads version ${SNAPSHOT_VERSION}. Resume it with the TurnKit release that wrote it, or upgrade.`,
    );
  }
  delete envelope.sig;
  return envelope;
}

/** Shape check of an envelope (after signature, format and any migration). */
export function checkShape(envelope: unknown): DecodedSnapshot {
  const result = envelopeSchema.safeParse(envelope);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw invalid(`${issue.path.join('.') || 'envelope'}: ${issue.message}`);
  }
  const problem = checkTranscripts(
    result.data.state.context as unknown as LoopContext,
    result.data.state.value,
  );
  if (problem) throw invalid(problem);
  // zod returns fresh objects holding only the known keys; messages keep their parsed elements.
  return { ...result.data, format: FORMAT, version: SNAPSHOT_VERSION } as unknown as DecodedSnapshot;
}

/**
 * Validates a snapshot string and returns it decoded, for inspection (status, transcript, pending
 * interactions). With `secret`, the signature is checked first.
 */
export function parseSnapshot(snapshot: string, options: { secret?: string } = {}): DecodedSnapshot {
  return checkShape(readEnvelope(snapshot, options.secret));
}

const BUILT_IN = [Date, RegExp, Map, Set, Error, URL] as const;
const HOSTILE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Throws `CONTEXT_UNSERIALIZABLE` unless `value` survives a superjson round trip: superjson
 * silently drops functions and turns unregistered class instances into plain objects.
 */
export function assertSerializable(
  value: unknown,
  serializer: SuperJSON | undefined,
  path = 'context',
): void {
  const fail = (what: string) => {
    throw new TurnkitError(
      'CONTEXT_UNSERIALIZABLE',
      `${path} holds ${what}, which a snapshot cannot keep. Keep only data in the run context (objects, arrays, Dates, Maps, Sets, bigints…), or register the class with superjson.`,
    );
  };
  const seen = new Set<object>();
  const visit = (current: unknown, at: string): void => {
    path = at;
    if (typeof current === 'function') fail('a function');
    if (typeof current === 'symbol') fail('a symbol');
    if (typeof current !== 'object' || current === null || seen.has(current)) return;
    seen.add(current);
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index++) visit(current[index], `${at}[${index}]`);
      return;
    }
    if (current instanceof Map) {
      for (const [key, item] of current) {
        visit(key, `${at}<key>`);
        visit(item, `${at}.get(${String(key)})`);
      }
      return;
    }
    if (current instanceof Set) {
      for (const item of current) visit(item, `${at}<item>`);
      return;
    }
    if (BUILT_IN.some((type) => current instanceof type)) return;
    for (const key of Object.keys(current)) {
      if (HOSTILE_KEYS.has(key))
        fail(`a key named ${JSON.stringify(key)} (superjson refuses it as a prototype-pollution risk)`);
    }
    const prototype = Object.getPrototypeOf(current);
    if (prototype !== Object.prototype && prototype !== null) {
      const registry = serializer ?? (SuperJSON as unknown as { defaultInstance: SuperJSON }).defaultInstance;
      if (registry.classRegistry.getIdentifier(prototype.constructor) !== undefined) return;
      if (registry.customTransformerRegistry.findApplicable(current)) return;
      fail(
        `an instance of ${prototype.constructor?.name ?? 'an unknown class'} that superjson does not know`,
      );
    }
    for (const key of Object.keys(current)) visit((current as Record<string, unknown>)[key], `${at}.${key}`);
  };
  visit(value, path);
}

/** Serializes the application context with superjson (null for none). */
export function serializeContext(value: unknown, serializer: SuperJSON | undefined): SuperJSONResult | null {
  if (value === undefined) return null;
  assertSerializable(value, serializer);
  try {
    return serializer ? serializer.serialize(value as never) : SuperJSON.serialize(value as never);
  } catch (error) {
    throw new TurnkitError(
      'CONTEXT_UNSERIALIZABLE',
      `superjson cannot serialize the run context: ${(error as Error).message}. Keep only plain data in it.`,
      { cause: error },
    );
  }
}

/** superjson refuses these keys when writing, so a snapshot that holds them was not written by TurnKit. */
function hasHostileKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(hasHostileKey);
  return Object.keys(value).some(
    (key) => HOSTILE_KEYS.has(key) || hasHostileKey((value as Record<string, unknown>)[key]),
  );
}

/** Restores the application context. */
export function deserializeContext(
  value: SuperJSONResult | null,
  serializer: SuperJSON | undefined,
): unknown {
  if (value === null) return undefined;
  if (hasHostileKey(value.json)) throw invalid('its context holds a __proto__, constructor or prototype key');
  try {
    return serializer ? serializer.deserialize(value) : SuperJSON.deserialize(value);
  } catch (error) {
    throw invalid('its context cannot be deserialized', error);
  }
}
