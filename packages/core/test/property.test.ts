/**
 * Properties of the public API under hostile input (fast-check): whatever a caller sends as an
 * answer, and however a stored snapshot string was damaged or edited, TurnKit either refuses with a
 * `TurnkitError` (and nothing changes) or goes on with a consistent run. It never throws anything
 * else, and never pollutes a prototype. With a snapshot secret, every edit is refused as tampered.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Agent,
  type Answers,
  answerQuestion,
  approve,
  type DecodedSnapshot,
  type InteractionResponse,
  parseSnapshot,
  type QuestionPayload,
  respond,
  runTurn,
  SnapshotError,
  TurnkitError,
  type TurnResult,
} from '../src/index.js';
import { stateNames } from '../src/snapshot/index.js';
import {
  FIRST_INPUT,
  FIXTURE_NOW,
  FIXTURE_SECRET,
  HEADER,
  inventoryAgent,
  LABELS,
  SECOND_INPUT,
} from './fixtures/inventory-agent.js';

const NUM_RUNS = 150;
const options = { now: FIXTURE_NOW };
const agent = inventoryAgent();
const signedAgent = inventoryAgent({ secret: FIXTURE_SECRET });
const END_EVENT_OF: Record<string, string> = {
  completed: 'turn_completed',
  needs_input: 'turn_paused',
  failed: 'turn_failed',
  max_steps: 'turn_max_steps',
  aborted: 'turn_aborted',
};
const STATUSES = Object.keys(END_EVENT_OF);
const END_EVENTS = Object.values(END_EVENT_OF);
const STATE_NAMES = [...stateNames];

const prototypeKeys = {
  object: Object.getOwnPropertyNames(Object.prototype).sort(),
  array: Object.getOwnPropertyNames(Array.prototype).sort(),
};

function expectUnpolluted(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys.object);
  expect(Object.getOwnPropertyNames(Array.prototype).sort()).toEqual(prototypeKeys.array);
}

type Attempt<T> = { ok: true; value: T } | { ok: false; error: unknown };

async function attempt<T>(work: () => T | Promise<T>): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    return { ok: false, error };
  }
}

function expectTurnkitError(error: unknown): void {
  if (!TurnkitError.isInstance(error)) {
    throw new Error(`expected a TurnkitError, got ${String(error)}`, { cause: error });
  }
}

function toolContent(result: TurnResult, toolCallId: string): string | undefined {
  for (const message of result.messages) {
    if (message.role === 'tool' && message.tool_call_id === toolCallId) return message.content;
  }
  return undefined;
}

/** What every TurnResult must satisfy, whatever snapshot it came from. */
function expectConsistentResult(result: TurnResult): void {
  expect(STATUSES).toContain(result.status);
  expect(result.needsInput).toBe(result.status === 'needs_input');
  expect(result.pending.length > 0).toBe(result.needsInput);
  expect(result.pendingQuestion).toEqual(result.pending[0] ?? null);
  expect(result.output === null).toBe(result.status !== 'completed');
  expect(result.error === null).toBe(result.status !== 'failed');
  expect(result.messages.some((message) => message.role === 'system')).toBe(false);
  if (result.events.length > 0) {
    const ends = result.events.filter((event) => END_EVENTS.includes(event.type));
    expect(ends.map((event) => event.type)).toEqual([END_EVENT_OF[result.status]]);
    expect(result.events.at(-1)).toBe(ends[0]);
    const seqs = result.events.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  }
  const stillPending = new Set(result.pending.map((interaction) => interaction.id));
  for (const event of result.events) {
    if (event.type === 'interaction_resolved') expect(stillPending.has(event.interactionId)).toBe(false);
  }
  const decoded = parseSnapshot(result.snapshot);
  expect(decoded.runId).toBe(result.runId);
  expect(decoded.state.context.messages).toEqual(result.messages);
}

/** An object whose keys are all own, enumerable data properties, `__proto__` included. */
function ownObject(entries: [string, unknown][]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return object;
}

const hostileValues: unknown[] = [
  Object.defineProperty({}, HEADER, {
    enumerable: true,
    get() {
      throw new Error('getter');
    },
  }),
  new Proxy(
    {},
    {
      ownKeys() {
        throw new Error('proxy');
      },
    },
  ),
  Object.assign(Object.create(null), { [HEADER]: LABELS[0] }),
  new Map([[HEADER, LABELS[0]]]),
  { [HEADER]: { selected: [LABELS[0]], other: '€'.repeat(5500) } },
  { [HEADER]: { other: 'x'.repeat(16 * 1024 + 1) } },
  JSON.parse(`{"__proto__":{"polluted":true},"${HEADER}":"${LABELS[0]}"}`),
  JSON.parse(`{"constructor":{"prototype":{"polluted":true}},"0":"${LABELS[1]}"}`),
  () => LABELS[0],
  Symbol('answer'),
  10n,
];

const label = fc.constantFrom<string>(...LABELS, 'k562-wt', 'Other', '', ' K562-WT ');
const answerKey = fc.oneof(
  fc.constantFrom(
    HEADER,
    'Which K562 line should I thaw?',
    'q0',
    '0',
    '1',
    '__proto__',
    'constructor',
    'prototype',
  ),
  fc.constantFrom('selected', 'other', 'note', 'skipped', 'toString', 'hasOwnProperty', '-1', '00'),
  fc.string({ maxLength: 12 }),
);
const leaf = fc.oneof(
  label,
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(undefined, null, true, Number.NaN, -0, Number.POSITIVE_INFINITY),
  fc.constantFrom(...hostileValues),
);
const { answer } = fc.letrec<{
  answer: unknown;
  object: Record<string, unknown>;
  choice: Record<string, unknown>;
}>((tie) => ({
  answer: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(fc.oneof(label, leaf), { maxLength: 4 }),
    tie('object'),
    tie('choice'),
  ),
  object: fc.array(fc.tuple(answerKey, tie('answer')), { maxLength: 3 }).map(ownObject),
  choice: fc
    .record(
      {
        selected: fc.oneof(fc.array(label, { maxLength: 3 }), leaf),
        other: fc.oneof(fc.string({ maxLength: 20 }), leaf),
        note: fc.oneof(fc.string({ maxLength: 20 }), leaf),
        skipped: fc.oneof(fc.constant(true), leaf),
      },
      { requiredKeys: [] },
    )
    .map((value) => ownObject(Object.entries(value))),
}));
const interactionId = fc.oneof(
  fc.constant(undefined),
  fc.constant('inventory:1'),
  fc.constantFrom('inventory:0', 'inventory:2', '__proto__', 'constructor', ''),
  fc.string({ maxLength: 12 }),
);

/** Answers every pending interaction of `result` as a user would (first options; approvals approved). */
function validResponses(result: TurnResult): InteractionResponse[] {
  return result.pending.map((interaction): InteractionResponse => {
    if (interaction.kind === 'approval') return { id: interaction.id, type: 'approve' };
    // An edited snapshot may hold anything here: read it defensively.
    const questions: unknown[] = Array.isArray((interaction.payload as QuestionPayload).questions)
      ? (interaction.payload as QuestionPayload).questions
      : [];
    const firstLabel = (question: unknown) =>
      (question as { options?: { label?: unknown }[] } | null)?.options?.[0]?.label;
    return { id: interaction.id, type: 'answer', answers: questions.map((q) => String(firstLabel(q) ?? '')) };
  });
}

/**
 * Uses a snapshot the way an application would: inspect it, continue it, answer what it waits for,
 * send it a new message. Each step either refuses with a TurnkitError or returns a consistent result.
 */
async function exercise(runAgent: Agent, snapshot: string): Promise<void> {
  const parsed = await attempt(() => parseSnapshot(snapshot));
  const outcomes = [await attempt(() => runTurn(runAgent, { snapshot }, options))];
  outcomes.push(await attempt(() => runTurn(runAgent, { snapshot, input: 'and one HeLa' }, options)));
  if (!parsed.ok) {
    expectTurnkitError(parsed.error);
    expect(
      outcomes.some((outcome) => outcome.ok),
      'a snapshot that parseSnapshot refuses was resumed',
    ).toBe(false);
  }
  for (const outcome of outcomes) {
    if (!outcome.ok) {
      expectTurnkitError(outcome.error);
      continue;
    }
    expectConsistentResult(outcome.value);
    if (!outcome.value.needsInput) continue;
    const answered = await attempt(() => respond(runAgent, snapshot, validResponses(outcome.value), options));
    if (answered.ok) expectConsistentResult(answered.value);
    else expectTurnkitError(answered.error);
  }
  expectUnpolluted();
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Edit =
  | { kind: 'flip' | 'insert'; at: number; text: string }
  | { kind: 'delete' | 'truncate'; at: number }
  | {
      kind: 'json';
      at: number;
      op: 'delete' | 'replace' | 'proto' | 'constructor' | 'stringify';
      value: Json;
    }
  | { kind: 'state'; value: string };

const position = fc.nat({ max: 1_000_000 });
const character = fc.oneof(
  fc.constantFrom('"', '{', '}', '[', ']', ',', ':', '\\', '0', '9', '-', 'e', ' ', 'n', '\u0000', '\ud800'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 2 }),
);
const numberLike: fc.Arbitrary<Json> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(-1, 0, 0.5, 2 ** 53, 1e21),
);
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constantFrom('flip' as const, 'insert' as const), at: position, text: character }),
  fc.record({ kind: fc.constantFrom('delete' as const, 'truncate' as const), at: position }),
  fc.record({
    kind: fc.constant('json' as const),
    at: position,
    op: fc.constantFrom(
      'delete' as const,
      'replace' as const,
      'proto' as const,
      'constructor' as const,
      'stringify' as const,
    ),
    value: fc.oneof(numberLike, fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>),
  }),
  fc.record({ kind: fc.constant('state' as const), value: fc.constantFrom(...STATE_NAMES, 'running', '') }),
);

/** Every (container, key) pair of a parsed JSON value, depth first. */
function slots(root: Json): [Json[] | { [key: string]: Json }, string | number][] {
  const found: [Json[] | { [key: string]: Json }, string | number][] = [];
  const visit = (value: Json): void => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        found.push([value, index]);
        visit(item);
      });
    } else if (typeof value === 'object' && value !== null) {
      for (const key of Object.keys(value)) {
        found.push([value, key]);
        visit(value[key]!);
      }
    }
  };
  visit(root);
  return found;
}

function editJson(text: string, change: Extract<Edit, { kind: 'json' | 'state' }>): string {
  let root: Json;
  try {
    root = JSON.parse(text) as Json;
  } catch {
    return text;
  }
  if (change.kind === 'state') {
    const state = (root as { state?: { value?: Json } }).state;
    if (state && typeof state === 'object') state.value = change.value;
    return JSON.stringify(root);
  }
  const all = slots(root);
  if (all.length === 0) return text;
  const [container, key] = all[change.at % all.length]!;
  const current = (container as Record<string | number, Json>)[key]!;
  const set = (value: unknown) =>
    Object.defineProperty(container, key, { value, enumerable: true, writable: true, configurable: true });
  switch (change.op) {
    case 'delete':
      if (Array.isArray(container)) container.splice(key as number, 1);
      else delete container[key as string];
      break;
    case 'replace':
      set(change.value);
      break;
    case 'stringify':
      set(typeof current === 'string' ? [current] : JSON.stringify(current));
      break;
    case 'proto':
    case 'constructor': {
      const payload = change.op === 'proto' ? { polluted: true } : { prototype: { polluted: true } };
      const target =
        typeof current === 'object' && current !== null && !Array.isArray(current) ? current : {};
      Object.defineProperty(target, change.op === 'proto' ? '__proto__' : 'constructor', {
        value: payload,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      set(target);
      break;
    }
  }
  return JSON.stringify(root);
}

function applyEdit(text: string, change: Edit): string {
  const at = text.length === 0 ? 0 : change.kind === 'state' ? 0 : change.at % text.length;
  switch (change.kind) {
    case 'flip':
      return text.slice(0, at) + change.text + text.slice(at + 1);
    case 'insert':
      return text.slice(0, at) + change.text + text.slice(at);
    case 'delete':
      return text.slice(0, at) + text.slice(at + 1);
    case 'truncate':
      return text.slice(0, at);
    default:
      return editJson(text, change);
  }
}

const edits = fc.array(edit, { minLength: 1, maxLength: 3 });

const mutate = (text: string, changes: Edit[]) => changes.reduce(applyEdit, text);

describe('answers to a paused question (property)', () => {
  let paused: TurnResult;
  let baseline: TurnResult;

  beforeAll(async () => {
    paused = await runTurn(agent, { input: FIRST_INPUT, runId: 'run_property' }, options);
    baseline = await answerQuestion(agent, paused.snapshot, { answers: { [HEADER]: LABELS[1] } }, options);
    expect(baseline.status).toBe('completed');
  });

  it('refuse anything invalid with a TurnkitError only, and the snapshot still resumes as before', async () => {
    await fc.assert(
      fc.asyncProperty(answer, interactionId, async (answers, id) => {
        const outcome = await attempt(() =>
          answerQuestion(agent, paused.snapshot, { id, answers: answers as Answers }, options),
        );
        if (outcome.ok) {
          expectConsistentResult(outcome.value);
          expect(toolContent(outcome.value, 'call_ask')).toMatch(/^\{"answers":\{"Cell line":"/);
        } else {
          expectTurnkitError(outcome.error);
          const { code, message } = outcome.error as TurnkitError;
          // An answer that cannot be read is refused where it enters, before its id is looked up.
          const expected =
            id === undefined || id === 'inventory:1' || message.includes('could not be read')
              ? 'ANSWER_INVALID'
              : 'INTERACTION_NOT_FOUND';
          expect(code).toBe(expected);
        }
        expectUnpolluted();
        const resumed = await answerQuestion(
          agent,
          paused.snapshot,
          { answers: { [HEADER]: LABELS[1] } },
          options,
        );
        expect(resumed).toEqual(baseline);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('refuse an invalid edited input of an approval with a TurnkitError only', async () => {
    const completed = await answerQuestion(agent, paused.snapshot, { answers: LABELS[0] }, options);
    const approval = await runTurn(agent, { snapshot: completed.snapshot, input: SECOND_INPUT }, options);
    expect(approval.pendingQuestion?.kind).toBe('approval');
    await fc.assert(
      fc.asyncProperty(
        answer,
        fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        async (editedInput, rationale) => {
          const outcome = await attempt(() =>
            approve(agent, approval.snapshot, { editedInput, rationale }, options),
          );
          if (outcome.ok) {
            expectConsistentResult(outcome.value);
            expect(outcome.value.status).toBe('completed');
          } else {
            expectTurnkitError(outcome.error);
          }
          expectUnpolluted();
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('damaged or edited snapshots (property)', () => {
  const bases: Record<string, string> = {};

  beforeAll(async () => {
    const question = await runTurn(
      agent,
      {
        input: FIRST_INPUT,
        runId: 'run_mutation',
        context: { stock: new Map([[LABELS[0], 7]]), countedAt: FIXTURE_NOW },
      },
      options,
    );
    const completed = await answerQuestion(agent, question.snapshot, { answers: LABELS[0] }, options);
    const approval = await runTurn(agent, { snapshot: completed.snapshot, input: SECOND_INPUT }, options);
    Object.assign(bases, {
      question: question.snapshot,
      completed: completed.snapshot,
      approval: approval.snapshot,
    });
  });

  it('are refused by parseSnapshot with a SnapshotError only, never polluting a prototype', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('question', 'completed', 'approval'), edits, async (base, changes) => {
        const outcome = await attempt(() => parseSnapshot(mutate(bases[base]!, changes)));
        if (!outcome.ok) {
          expect(outcome.error).toBeInstanceOf(SnapshotError);
          expect(['SNAPSHOT_INVALID', 'SNAPSHOT_VERSION']).toContain((outcome.error as SnapshotError).code);
        }
        expectUnpolluted();
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('are refused with a TurnkitError or load into a consistent run, never polluting a prototype', async () => {
    const mutated = fc
      .tuple(fc.constantFrom('question', 'completed', 'approval'), edits)
      .map(([base, changes]) => mutate(bases[base]!, changes));
    await fc.assert(
      fc.asyncProperty(mutated, (text) => exercise(agent, text)),
      { numRuns: NUM_RUNS },
    );
  });

  it('are all refused as SNAPSHOT_TAMPERED when the agent signs its snapshots', async () => {
    const signed = (await runTurn(signedAgent, { input: FIRST_INPUT, runId: 'run_signed' }, options))
      .snapshot;
    await fc.assert(
      fc.asyncProperty(
        edits.map((changes) => mutate(signed, changes)).filter((mutated) => mutated !== signed),
        async (mutated) => {
          expect(() => parseSnapshot(mutated, { secret: FIXTURE_SECRET })).toThrow(
            expect.objectContaining({ code: 'SNAPSHOT_TAMPERED' }),
          );
          await expect(
            answerQuestion(signedAgent, mutated, { answers: LABELS[0] }, options),
          ).rejects.toMatchObject({
            code: 'SNAPSHOT_TAMPERED',
          });
          expectUnpolluted();
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});

/** Edits a committed fixture snapshot (unsigned) the way a hand or a bug in storage might. */
function edited(name: string, edit: (envelope: DecodedSnapshot) => void): string {
  const envelope = JSON.parse(readFileSync(new URL(`./fixtures/snapshots/${name}`, import.meta.url), 'utf8'));
  edit(envelope);
  return JSON.stringify(envelope);
}

describe('edited snapshots found by the properties', () => {
  it('refuses an approval input that is not JSON with SNAPSHOT_INVALID', async () => {
    const snapshot = edited('v1-paused-approval.txt', (envelope) => {
      envelope.state.context.step![0]!.interaction!.input = '{"cellLine":';
    });
    await expect(runTurn(agent, { snapshot }, options)).rejects.toMatchObject({ code: 'SNAPSHOT_INVALID' });
  });

  it('refuses a run waiting for input with nothing pending with SNAPSHOT_INVALID', async () => {
    const snapshot = edited('v1-completed.txt', (envelope) => {
      envelope.state.value = 'waitingInput';
    });
    await expect(runTurn(agent, { snapshot }, options)).rejects.toMatchObject({ code: 'SNAPSHOT_INVALID' });
  });

  it('refuses a stored context with a constructor or __proto__ key with SNAPSHOT_INVALID', async () => {
    const snapshot = edited('v1-superjson-context-paused-question.txt', (envelope) => {
      envelope.context = {
        json: JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'),
      };
    });
    await expect(answerQuestion(agent, snapshot, { answers: LABELS[0] }, options)).rejects.toMatchObject({
      code: 'SNAPSHOT_INVALID',
    });
    expectUnpolluted();
  });
});

/** Bugs the properties above found in src, kept as regression tests of the behaviour DESIGN asks for. */
describe('regressions found by the properties', () => {
  // Before the fix, the check before the turn (assertSerializable) lets these keys through: the model is
  // called and tools run, and only writing the snapshot fails (CONTEXT_UNSERIALIZABLE), so the
  // turn's work is lost after its side effects happened.
  it('refuses a context with a constructor, __proto__ or prototype key before anything runs', async () => {
    for (const context of [
      { constructor: 'lab' },
      JSON.parse('{"__proto__":{"x":1}}'),
      { cart: { prototype: 1 } },
    ]) {
      const events: string[] = [];
      const run = runTurn(
        agent,
        { input: FIRST_INPUT, context },
        { ...options, onEvent: (event) => events.push(event.type) },
      );
      await expect(run).rejects.toMatchObject({ code: 'CONTEXT_UNSERIALIZABLE' });
      expect(events).toEqual([]);
    }
  });

  // Before the fix, a snapshot in `idle` or `settling` (never written by TurnKit) loads: `idle` + input
  // returns status 'running' with a turn_aborted event and the message dropped.
  it('refuses an edited snapshot in a state no snapshot is written in with SNAPSHOT_INVALID', async () => {
    for (const value of ['idle', 'settling'] as const) {
      const snapshot = edited('v1-paused-question.txt', (envelope) => {
        envelope.state.value = value;
      });
      await expect(runTurn(agent, { snapshot, input: 'hi' }, options)).rejects.toMatchObject({
        code: 'SNAPSHOT_INVALID',
      });
    }
  });

  // Before the fix, a step whose calls are not the last assistant message's tool_calls (or whose interaction
  // names another call) loads: an answer is then recorded and reported as interaction_resolved while
  // the interaction stays pending, and the call's result goes out under an id the model never sent.
  it('refuses an edited snapshot whose step does not match its tool calls with SNAPSHOT_INVALID', async () => {
    const renamed = edited('v1-paused-question.txt', (envelope) => {
      envelope.state.context.step![0]!.toolCallId = 'call_other';
    });
    await expect(runTurn(agent, { snapshot: renamed }, options)).rejects.toMatchObject({
      code: 'SNAPSHOT_INVALID',
    });
  });

  // A session claim is stored in callingModel / executingTools, and sessions.get() returns it. Before the fix,
  // USER_MESSAGE is ignored in those states: the input vanishes, and interaction_resolved events
  // report as superseded interactions that stay pending.
  it('never drops a user message sent with the snapshot of a working run (a session claim)', async () => {
    const working = edited('v1-completed.txt', (envelope) => {
      envelope.state.value = 'callingModel';
    });
    const outcome = await attempt(() => runTurn(agent, { snapshot: working, input: SECOND_INPUT }, options));
    if (outcome.ok) expect(outcome.value.messages).toContainEqual({ role: 'user', content: SECOND_INPUT });
    else expectTurnkitError(outcome.error);
  });
});
