import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  askUserQuestion,
  createSessions,
  defineAgent,
  defineTool,
  type InteractionNotice,
  LinkError,
  memoryStore,
  type PendingInteraction,
  type SnapshotStore,
  TurnkitError,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { ask } from './helpers.js';

const SECRET = 'kept-asks-secret-at-least-32-characters!';
const T0 = Date.parse('2026-03-02T09:00:00.000Z');
const HOUR = 3_600_000;
const at = (ms: number) => new Date(T0 + ms);
const authQuestion = { question: 'Which auth method?', header: 'Auth', options: ['JWT', 'OAuth'] };
const thaw = { name: 'record_thaw', arguments: { cellLine: 'K562', vials: 2 } };

/** A question kept 10 h for alice: escalated to bob after 2 h and to carol after 4 h, reminded 1 h before it expires. */
const keptQuestion = askUserQuestion({
  timeoutMs: 10 * HOUR,
  remindBeforeMs: HOUR,
  assignees: ['alice'],
  escalate: [
    { afterMs: 2 * HOUR, assignees: ['bob'] },
    { afterMs: 4 * HOUR, assignees: ['carol'] },
  ],
});

/** The same kept ask as a tool's approval: counts its runs in `runs`. */
function thawTool(runs: string[]) {
  return defineTool({
    name: 'record_thaw',
    description: 'Record that vials were thawed',
    input: z.object({ cellLine: z.string(), vials: z.number() }),
    needsApproval: true,
    approvalTimeoutMs: 10 * HOUR,
    approval: {
      assignees: ['alice'],
      remindBeforeMs: HOUR,
      escalate: [{ afterMs: 2 * HOUR, assignees: ['bob'] }],
    },
    execute: ({ cellLine, vials }) => {
      runs.push(`${cellLine}x${vials}`);
      return { recorded: true };
    },
  });
}

type Notice = { id: string; reason: InteractionNotice['reason']; assignees: string[] | undefined };

function keptSessions(first: 'question' | 'approval', store: SnapshotStore = memoryStore()) {
  const runs: string[] = [];
  const notices: Notice[] = [];
  const agent = defineAgent({
    name: 'inventory',
    instructions: 'LN2 inventory.',
    model: scriptedModel([{ toolCalls: [first === 'question' ? ask([authQuestion]) : thaw] }, 'done']),
    tools: [keptQuestion, thawTool(runs)],
    snapshot: { secret: SECRET },
  });
  const onInteraction = (pending: PendingInteraction, _run: unknown, notice: InteractionNotice) => {
    notices.push({ id: pending.id, reason: notice.reason, assignees: pending.assignees });
  };
  const sessions = createSessions({ agent, store, onInteraction });
  return { sessions, store, agent, runs, notices, onInteraction };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof TurnkitError ? error.code : String(error)),
  );

afterEach(() => {
  vi.useRealTimers();
});

describe('reminders and escalation (sessions.sweep)', () => {
  it('calls onInteraction with asked, then escalated per step, then reminder, each once', async () => {
    const { sessions, notices } = keptSessions('question');
    const paused = await sessions.start('ask', { now: at(0) });
    const id = paused.pending[0]!.id;
    expect(notices).toEqual([{ id, reason: 'asked', assignees: ['alice'] }]);
    await sessions.sweep({ now: at(HOUR) });
    expect(notices).toHaveLength(1);
    await sessions.sweep({ now: at(2 * HOUR) });
    await sessions.sweep({ now: at(3 * HOUR) });
    expect(notices.slice(1)).toEqual([{ id, reason: 'escalated', assignees: ['bob'] }]);
    // A sweeper that was down past two steps applies both, in order.
    await sessions.sweep({ now: at(9.5 * HOUR) });
    await sessions.sweep({ now: at(9.6 * HOUR) });
    expect(notices.slice(2)).toEqual([
      { id, reason: 'escalated', assignees: ['carol'] },
      { id, reason: 'reminder', assignees: ['carol'] },
    ]);
    expect((await sessions.get(paused.runId)).status).toBe('needs_input');
  });

  it('replaces the assignees: the inbox shows the new ones, an earlier assignee is NOT_ASSIGNEE and changes nothing', async () => {
    const { sessions, runs } = keptSessions('approval');
    const paused = await sessions.start('thaw', { now: at(0) });
    await sessions.sweep({ now: at(2 * HOUR) });
    const inbox = await sessions.inbox({ assignee: 'bob' });
    expect(inbox.items.map((item) => [item.id, item.assignees])).toEqual([[paused.pending[0]!.id, ['bob']]]);
    expect((await sessions.inbox({ assignee: 'alice' })).items).toEqual([]);
    const before = (await sessions.get(paused.runId)).version;
    expect(
      await codeOf(sessions.approve(paused.runId, {}, { principal: 'alice', now: at(2.5 * HOUR) })),
    ).toBe('NOT_ASSIGNEE');
    expect((await sessions.get(paused.runId)).version).toBe(before);
    const done = await sessions.approve(paused.runId, {}, { principal: 'bob', now: at(2.5 * HOUR) });
    expect(done.status).toBe('completed');
    expect(runs).toEqual(['K562x2']);
  });

  it('fires each reminder and escalation once when two sweepers in two processes sweep at once', async () => {
    const store = memoryStore();
    const first = keptSessions('question', store);
    const second = keptSessions('question', store);
    const paused = await first.sessions.start('ask', { now: at(0) });
    for (const hours of [2, 4, 9.5]) {
      await Promise.all([
        first.sessions.sweep({ now: at(hours * HOUR) }),
        second.sessions.sweep({ now: at(hours * HOUR) }),
        second.sessions.sweep({ now: at(hours * HOUR) }),
      ]);
    }
    const fired = [...first.notices, ...second.notices].filter((notice) => notice.reason !== 'asked');
    expect(fired.map((notice) => `${notice.reason}:${notice.assignees}`).sort()).toEqual([
      'escalated:bob',
      'escalated:carol',
      'reminder:carol',
    ]);
    expect((await first.sessions.get(paused.runId)).status).toBe('needs_input');
  });

  it('still expires the ask at its expiry, after its reminders', async () => {
    const { sessions, notices } = keptSessions('question');
    const paused = await sessions.start('ask', { now: at(0) });
    const swept = await sessions.sweep({ now: at(10 * HOUR) });
    expect(swept.swept[0]?.status).toBe('completed');
    // Past its expiry nothing is reminded or escalated: the expiry resolves the ask.
    expect(notices.map((notice) => notice.reason)).toEqual(['asked']);
    expect((await sessions.get(paused.runId)).status).toBe('completed');
  });

  it('judges what is due by the store’s clock, not a skewed host’s', async () => {
    let storeClock = T0;
    const { sessions, notices } = keptSessions('question', memoryStore({ now: () => storeClock }));
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    const paused = await sessions.start('ask', { now: at(0) });
    // The sweeping host runs 3 hours fast: the store's clock says nothing is due yet.
    vi.setSystemTime(T0 + 3 * HOUR);
    await sessions.sweep();
    expect(notices.map((notice) => notice.reason)).toEqual(['asked']);
    storeClock = T0 + 2 * HOUR;
    await sessions.sweep();
    expect(notices.map((notice) => notice.reason)).toEqual(['asked', 'escalated']);
    expect((await sessions.get(paused.runId)).pending[0]!.assignees).toEqual(['bob']);
  });

  it('refuses a link made for an earlier assignee after escalation (LINK_INVALID); the new assignee’s works', async () => {
    const { sessions, runs } = keptSessions('approval');
    const paused = await sessions.start('thaw', { now: at(0) });
    const id = paused.pending[0]!.id;
    const aliceLink = await sessions.answerLink(paused.runId, id, {
      principal: 'alice',
      ttlMs: 100 * HOUR,
      response: { type: 'approve' },
    });
    await sessions.sweep({ now: at(2 * HOUR) });
    const refused = await sessions
      .answerWithLink(aliceLink, undefined, { now: at(3 * HOUR) })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(LinkError);
    expect(refused).toMatchObject({ code: 'LINK_INVALID', forged: false });
    expect(runs).toEqual([]);
    const bobLink = await sessions.answerLink(paused.runId, id, {
      principal: 'bob',
      ttlMs: 100 * HOUR,
      response: { type: 'approve' },
    });
    expect((await sessions.answerWithLink(bobLink, undefined, { now: at(3 * HOUR) })).status).toBe(
      'completed',
    );
    expect(runs).toEqual(['K562x2']);
  });

  it('passes reason asked to the first call (existing two-argument handlers still fit)', async () => {
    const seen: unknown[] = [];
    const agent = defineAgent({
      name: 'inventory',
      instructions: 'LN2 inventory.',
      model: scriptedModel([{ toolCalls: [ask([authQuestion])] }, 'done']),
      tools: [askUserQuestion()],
    });
    const sessions = createSessions({
      agent,
      store: memoryStore(),
      onInteraction: (pending, run) => {
        seen.push([pending.kind, run.status]);
      },
    });
    await sessions.start('ask');
    expect(seen).toEqual([['question', 'needs_input']]);
  });
});

describe('sessions.extend', () => {
  it('moves the expiry later for an assignee; the reminder is due again before the new expiry', async () => {
    const { sessions, notices } = keptSessions('question');
    const paused = await sessions.start('ask', { now: at(0) });
    const id = paused.pending[0]!.id;
    await sessions.sweep({ now: at(9.5 * HOUR) });
    expect(notices.filter((notice) => notice.reason === 'reminder')).toHaveLength(1);
    const extended = await sessions.extend(
      paused.runId,
      id,
      { ms: 24 * HOUR },
      { principal: 'carol', now: at(9.6 * HOUR) },
    );
    expect(extended.pending[0]!.expiresAt).toBe(at(34 * HOUR).toISOString());
    // Not expired at the old expiry; reminded once more before the new one, then expired.
    expect(
      (await sessions.sweep({ now: at(10 * HOUR) })).swept.every((run) => run.status === 'needs_input'),
    ).toBe(true);
    await sessions.sweep({ now: at(33.5 * HOUR) });
    await sessions.sweep({ now: at(33.6 * HOUR) });
    expect(notices.filter((notice) => notice.reason === 'reminder')).toHaveLength(2);
    expect((await sessions.sweep({ now: at(34 * HOUR) })).swept[0]?.status).toBe('completed');
  });

  it('lets the run’s principal extend; a non-assignee gets NOT_ASSIGNEE and nothing changes', async () => {
    const { sessions } = keptSessions('approval');
    const paused = await sessions.start('thaw', { now: at(0), principal: 'owner' });
    const id = paused.pending[0]!.id;
    const before = await sessions.get(paused.runId, { principal: 'owner' });
    expect(await codeOf(sessions.extend(paused.runId, id, { ms: HOUR }, { principal: 'mallory' }))).toBe(
      'RUN_NOT_FOUND',
    );
    // Bob sees the run only once it is escalated to him; before that, alice may extend, bob may not.
    expect(await codeOf(sessions.extend(paused.runId, id, { ms: HOUR }, { principal: 'bob' }))).toBe(
      'RUN_NOT_FOUND',
    );
    expect((await sessions.get(paused.runId, { principal: 'owner' })).version).toBe(before.version);
    const byOwner = await sessions.extend(paused.runId, id, { ms: HOUR }, { principal: 'owner', now: at(1) });
    expect(byOwner.pending[0]!.expiresAt).toBe(at(11 * HOUR).toISOString());
    await sessions.sweep({ now: at(2 * HOUR) });
    // Escalated to bob: alice, who could answer before, may no longer extend it.
    expect(await codeOf(sessions.extend(paused.runId, id, { ms: HOUR }, { principal: 'alice' }))).toBe(
      'RUN_NOT_FOUND',
    );
    const byBob = await sessions.extend(
      paused.runId,
      id,
      { ms: HOUR },
      { principal: 'bob', now: at(2 * HOUR) },
    );
    expect(byBob.pending[0]!.expiresAt).toBe(at(12 * HOUR).toISOString());
  });

  it('refuses bad requests with a code and changes nothing', async () => {
    const { sessions } = keptSessions('question');
    const paused = await sessions.start('ask', { now: at(0) });
    const id = paused.pending[0]!.id;
    const { version } = await sessions.get(paused.runId);
    for (const ms of [0, -5, 1.5, Number.NaN, '3600000']) {
      expect(await codeOf(sessions.extend(paused.runId, id, { ms } as never))).toBe('ANSWER_INVALID');
    }
    expect(await codeOf(sessions.extend(paused.runId, 'nope', { ms: HOUR }))).toBe('INTERACTION_NOT_FOUND');
    expect(await codeOf(sessions.extend(paused.runId, id, { ms: HOUR }, { now: at(10 * HOUR) }))).toBe(
      'NOT_WAITING',
    );
    expect(await codeOf(sessions.extend('missing', id, { ms: HOUR }))).toBe('RUN_NOT_FOUND');
    expect((await sessions.get(paused.runId)).version).toBe(version);
  });

  it('refuses to extend an ask that never expires (WRONG_KIND)', async () => {
    const agent = defineAgent({
      name: 'inventory',
      instructions: 'LN2 inventory.',
      model: scriptedModel([{ toolCalls: [ask([authQuestion])] }, 'done']),
      tools: [askUserQuestion()],
    });
    const sessions = createSessions({ agent, store: memoryStore() });
    const paused = await sessions.start('ask');
    expect(await codeOf(sessions.extend(paused.runId, paused.pending[0]!.id, { ms: HOUR }))).toBe(
      'WRONG_KIND',
    );
  });
});

describe('kept-ask options', () => {
  it('are refused where they could never work (CONFIG_INVALID)', () => {
    const refused = (make: () => unknown) => {
      try {
        make();
        return 'built';
      } catch (error) {
        return error instanceof TurnkitError ? error.code : String(error);
      }
    };
    expect(refused(() => askUserQuestion({ remindBeforeMs: HOUR }))).toBe('CONFIG_INVALID');
    expect(refused(() => askUserQuestion({ timeoutMs: HOUR, remindBeforeMs: 0 }))).toBe('CONFIG_INVALID');
    expect(
      refused(() =>
        askUserQuestion({
          escalate: [
            { afterMs: 2, assignees: ['a'] },
            { afterMs: 1, assignees: ['b'] },
          ],
        }),
      ),
    ).toBe('CONFIG_INVALID');
    expect(refused(() => askUserQuestion({ escalate: [{ afterMs: 2, assignees: [] }] }))).toBe(
      'CONFIG_INVALID',
    );
    const tool = (approval: object, approvalTimeoutMs?: number) => () =>
      defineTool({
        name: 't',
        description: 't',
        input: z.object({}),
        needsApproval: true,
        ...(approvalTimeoutMs !== undefined ? { approvalTimeoutMs } : {}),
        approval,
        execute: () => 'ok',
      });
    expect(refused(tool({ remindBeforeMs: HOUR }))).toBe('CONFIG_INVALID');
    expect(refused(tool({ remindBeforeMs: HOUR }, 2 * HOUR))).toBe('built');
    expect(refused(tool({ escalate: [{ afterMs: HOUR, assignees: [''] }] }))).toBe('CONFIG_INVALID');
  });

  it('gives a ctx.ask that reminds without an expiry a tool_error; a valid one escalates', async () => {
    const resumed: string[] = [];
    const askTool = (request: object) =>
      defineTool({
        name: 'wire',
        description: 'Wire money',
        input: z.object({}),
        execute: (_input, ctx) => ctx.ask({ approval: { reason: 'Wire it' }, ...request }, null),
        resume: (_input, response) => {
          resumed.push(response.kind);
          return 'wired';
        },
      });
    const play = async (request: object) => {
      const agent = defineAgent({
        name: 'bank',
        instructions: 'Bank.',
        model: scriptedModel([{ toolCalls: [{ name: 'wire', arguments: {} }] }, 'done']),
        tools: [askTool(request)],
      });
      const sessions = createSessions({ agent, store: memoryStore() });
      return { sessions, started: await sessions.start('go', { now: at(0) }) };
    };
    const bad = await play({ remindBeforeMs: HOUR });
    expect(bad.started.status).toBe('completed');
    expect(bad.started.messages.find((message) => message.role === 'tool')?.content).toContain(
      'remindBeforeMs needs an expiry',
    );
    const good = await play({ timeoutMs: 5 * HOUR, escalate: [{ afterMs: HOUR, assignees: ['bob'] }] });
    expect(good.started.pending[0]!.assignees).toBeUndefined();
    await good.sessions.sweep({ now: at(HOUR) });
    const escalated = await good.sessions.get(good.started.runId);
    expect(escalated.pending[0]!.assignees).toEqual(['bob']);
    expect(
      await codeOf(good.sessions.approve(good.started.runId, {}, { principal: 'eve', now: at(HOUR) })),
    ).toBe('NOT_ASSIGNEE');
    const done = await good.sessions.approve(good.started.runId, {}, { principal: 'bob', now: at(2 * HOUR) });
    expect(done.status).toBe('completed');
    expect(resumed).toEqual(['approval']);
  });
});
