/**
 * Late input (DESIGN §30): `sessions.send(runId, message, { mode: 'queue' })` while a turn plays,
 * while asks wait, at rest, across a worker that died mid-tool, and landing after the worker's
 * last look. Each model request is recorded, so "delivered once" is counted, not assumed.
 */
import { describe, expect, it } from 'vitest';
import {
  type ChatMessage,
  createSessions,
  memoryStore,
  type SessionResult,
  type SnapshotStore,
  TurnkitError,
} from '../src/index.js';
import type { ScriptedStep } from '../src/testing/index.js';
import { gatedTool, landingStore } from './fixtures/late-input.js';
import { ask, makeAgent } from './helpers.js';

const LATE = 'also thaw one HeLa vial';
const leaseMs = 30;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How many user messages saying `text` each model request held. */
const seen = (requests: ChatMessage[][], text = LATE) =>
  requests.map(
    (messages) => messages.filter((message) => message.role === 'user' && message.content === text).length,
  );

const eventTypes = (result: SessionResult, ...types: string[]) =>
  result.events.filter((event) => types.includes(event.type)).map((event) => event.type);

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof TurnkitError ? error.code : String(error)),
  );

/** Model steps that record each request's messages. */
function recorded(requests: ChatMessage[][], steps: ScriptedStep[]): ScriptedStep[] {
  return steps.map((step) => (request: { messages: ChatMessage[] }) => {
    requests.push(request.messages);
    return typeof step === 'function' ? (step as (r: unknown) => never)(request) : step;
  }) as ScriptedStep[];
}

/** An agent that scans the freezer (a gated tool), then answers: its requests and the tool's runs recorded. */
function scanAgent() {
  const requests: ChatMessage[][] = [];
  const runs: string[] = [];
  const gated = gatedTool(runs);
  const agent = makeAgent(
    recorded(requests, [{ toolCalls: [{ name: 'scan_freezer', arguments: {} }] }, 'done', 'again']),
    { tools: [gated.tool] },
  );
  return { requests, runs, gated, agent };
}

describe("send with mode 'queue'", () => {
  it('while a turn plays: the worker adds it before its next model call, once', async () => {
    const { requests, runs, gated, agent } = scanAgent();
    const store = memoryStore();
    const worker = createSessions({ agent, store, leaseMs });
    const other = createSessions({ agent, store, leaseMs });
    const playing = worker.start({ input: 'scan', runId: 'run_late_playing' });
    await gated.inside;
    const queued = await other.send('run_late_playing', LATE, { mode: 'queue', messageId: 'msg-1' });
    expect(queued.status).toBe('running');
    expect(queued.queued).toEqual({ messageId: 'msg-1' });
    await sleep(5);
    gated.release();
    const done = await playing;
    expect(done.status).toBe('completed');
    expect(seen(requests)).toEqual([0, 1]);
    // The worker announced it once it held it, then delivered it, in the run's own sequence.
    const late = done.events.filter((event) => event.type.startsWith('message_'));
    expect(late).toMatchObject([
      { type: 'message_queued', messageId: 'msg-1' },
      { type: 'message_delivered', messageId: 'msg-1' },
    ]);
    expect(late[1]!.seq).toBeGreaterThan(late[0]!.seq);
    // The tool's result comes first, then the message: every call keeps its one result.
    expect(done.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
    ]);
    expect((await store.get('run_late_playing'))?.queued).toBeUndefined();
    expect(runs).toHaveLength(1);
  });

  it('while asks wait: kept until they are answered, then delivered once by that turn', async () => {
    const requests: ChatMessage[][] = [];
    const authQuestion = { question: 'Which line?', header: 'Line', options: ['K562', 'HeLa'] };
    const agent = makeAgent(recorded(requests, [{ toolCalls: [ask([authQuestion])] }, 'done']));
    const store = memoryStore();
    const sessions = createSessions({ agent, store });
    const paused = await sessions.start('thaw');
    const queued = await sessions.send(paused.runId, LATE, { mode: 'queue', messageId: 'm' });
    expect(queued.status).toBe('needs_input');
    expect(queued.version).toBe(paused.version);
    // The same id again adds nothing.
    await sessions.send(paused.runId, LATE, { mode: 'queue', messageId: 'm' });
    expect((await store.get(paused.runId))?.queued).toHaveLength(1);
    const answered = await sessions.answer(paused.runId, { answers: 'K562' });
    expect(answered.status).toBe('completed');
    expect(seen(requests)).toEqual([0, 1]);
    expect(eventTypes(answered, 'message_delivered')).toEqual(['message_delivered']);
    expect((await store.get(paused.runId))?.queued).toBeUndefined();
  });

  it('at rest with nothing to wait for: plays a turn with it now', async () => {
    const requests: ChatMessage[][] = [];
    const agent = makeAgent(recorded(requests, ['first', 'second']));
    const sessions = createSessions({ agent, store: memoryStore() });
    const done = await sessions.start('hello');
    const again = await sessions.send(done.runId, LATE, { mode: 'queue' });
    expect(again.status).toBe('completed');
    expect(again.output).toBe('second');
    expect(seen(requests)).toEqual([0, 1]);
  });

  it('a message that lands after the worker’s last look is played once the turn rests', async () => {
    const requests: ChatMessage[][] = [];
    const { store, arm } = landingStore('late', LATE);
    const agent = makeAgent(recorded(requests, ['first', 'second']));
    const sessions = createSessions({ agent, store });
    arm();
    const result = await sessions.start('hello');
    expect(result.output).toBe('second');
    expect(seen(requests)).toEqual([0, 1]);
    expect(eventTypes(result, 'message_delivered')).toEqual(['message_delivered']);
    expect((await store.get(result.runId))?.queued).toBeUndefined();
  });

  it('a worker that dies mid-tool while a message is queued: the worker that takes over delivers it once', async () => {
    const { requests, runs, gated, agent } = scanAgent();
    const store = memoryStore();
    // The first worker's renewals never reach the store: once inside the tool it is as good as dead.
    const dead: SnapshotStore = { ...store, renew: () => Promise.reject(new Error('ETIMEDOUT')) };
    void createSessions({ agent, store: dead, leaseMs })
      .start({ input: 'scan', runId: 'run_late_dead' })
      .catch(() => undefined);
    await gated.inside;
    const sessions = createSessions({ agent, store, leaseMs });
    const queued = await sessions.send('run_late_dead', LATE, { mode: 'queue', messageId: 'once' });
    expect(queued.status).toBe('running');
    await sleep(leaseMs * 3);
    gated.release();
    const recovered = await sessions.retry('run_late_dead');
    expect(recovered.status).toBe('completed');
    // The takeover ran the tool again (same key), then the model saw the message once.
    expect(runs).toHaveLength(2);
    expect(new Set(runs).size).toBe(1);
    expect(seen(requests).slice(1)).toEqual([1]);
    expect(eventTypes(recovered, 'message_delivered')).toEqual(['message_delivered']);
    expect((await store.get('run_late_dead'))?.queued).toBeUndefined();
    // Nothing left to deliver: a later look plays nothing more.
    const later = await sessions.get('run_late_dead');
    expect(later.version).toBe(recovered.version);
    expect(seen(requests)).toEqual([0, 1]);
  });

  it('keeps the supersede default, and refuses a bad mode or a store that cannot queue', async () => {
    const authQuestion = { question: 'Which line?', header: 'Line', options: ['K562', 'HeLa'] };
    const agent = makeAgent([{ toolCalls: [ask([authQuestion])] }, 'done', 'done']);
    const sessions = createSessions({ agent, store: memoryStore() });
    const paused = await sessions.start('thaw');
    expect(await codeOf(sessions.send(paused.runId, LATE, { mode: 'later' as never }))).toBe(
      'CONFIG_INVALID',
    );
    const { queueMessage: _none, ...plain } = memoryStore();
    const old = createSessions({ agent, store: plain });
    const oldPaused = await old.start('thaw');
    expect(await codeOf(old.send(oldPaused.runId, LATE, { mode: 'queue' }))).toBe('CONFIG_INVALID');
    const superseded = await sessions.send(paused.runId, LATE);
    expect(superseded.status).toBe('completed');
    expect(superseded.messages.find((message) => message.role === 'tool')?.content).toContain(
      'superseded_by_user_message',
    );
  });
});
