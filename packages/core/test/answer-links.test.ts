import { describe, expect, it } from 'vitest';
import { createSessions, LinkError, memoryStore, TurnkitError } from '../src/index.js';
import { ask, makeAgent } from './helpers.js';

const SECRET = 'answer-link-secret-at-least-32-characters';
const authQuestion = { question: 'Which auth method?', header: 'Auth', options: ['JWT', 'OAuth'] };
const thaw = { name: 'record_thaw', arguments: { cellLine: 'K562', vials: 2 } };

/** Sessions over an agent that asks for approval to thaw (or asks a question), then finishes. */
function linkSessions(first: 'approval' | 'question' = 'approval', secret: string | null = SECRET) {
  const log: string[] = [];
  const agent = makeAgent(
    [{ toolCalls: [first === 'approval' ? thaw : ask([authQuestion])] }, 'done'],
    secret ? { snapshot: { secret } } : {},
    log,
  );
  return { sessions: createSessions({ agent, store: memoryStore() }), log };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) =>
      error instanceof LinkError
        ? `${error.code} ${error.forged ? 'forged' : 'gone'}`
        : error instanceof TurnkitError
          ? error.code
          : String(error),
  );

describe('answer links', () => {
  it('approves once with a one-click link; a second use is LINK_INVALID and changes nothing', async () => {
    const { sessions, log } = linkSessions();
    const paused = await sessions.start('thaw');
    const token = await sessions.answerLink(paused.runId, paused.pending[0]!.id, {
      ttlMs: 60_000,
      response: { type: 'approve', rationale: 'ok by mail' },
    });
    const done = await sessions.answerWithLink(token);
    expect(done.status).toBe('completed');
    expect(log).toEqual(['K562x2']);
    expect(await refusal(sessions.answerWithLink(token))).toBe('LINK_INVALID gone');
    expect((await sessions.get(paused.runId)).version).toBe(done.version);
    expect(log).toEqual(['K562x2']);
  });

  it('takes the response from the use when the link carries none (the type follows from a question)', async () => {
    const { sessions } = linkSessions('question');
    const paused = await sessions.start('ask');
    const token = await sessions.answerLink(paused.runId, paused.pending[0]!.id, { ttlMs: 60_000 });
    expect((await sessions.answerWithLink(token, { answers: 'JWT' })).status).toBe('completed');
    expect(await refusal(sessions.answerWithLink(token, { answers: 'OAuth' }))).toBe('LINK_INVALID gone');
  });

  it('lets exactly one of two racing uses answer', async () => {
    const { sessions, log } = linkSessions();
    const paused = await sessions.start('thaw');
    const token = await sessions.answerLink(paused.runId, paused.pending[0]!.id, {
      ttlMs: 60_000,
      response: { type: 'approve' },
    });
    const outcomes = await Promise.all([
      refusal(sessions.answerWithLink(token)),
      refusal(sessions.answerWithLink(token)),
    ]);
    expect(outcomes.sort()).toEqual(['LINK_INVALID gone', 'resolved']);
    expect(log).toEqual(['K562x2']);
  });

  it('refuses a forged, altered or expired link, and one for an agent without a secret', async () => {
    const { sessions } = linkSessions();
    const paused = await sessions.start('thaw');
    const id = paused.pending[0]!.id;
    const token = await sessions.answerLink(paused.runId, id, {
      ttlMs: 1_000,
      response: { type: 'approve' },
    });
    const [prefix, payload, sig] = token.split('.');
    const altered = `${prefix}.${payload!.slice(0, -2)}${payload!.endsWith('A') ? 'B' : 'A'}${payload!.slice(-1)}.${sig}`;
    expect(await refusal(sessions.answerWithLink(altered))).toBe('LINK_INVALID forged');
    expect(await refusal(sessions.answerWithLink('not a link'))).toBe('LINK_INVALID forged');
    const other = linkSessions('approval', 'another-secret-that-is-32-characters-long');
    const elsewhere = await other.sessions.start('thaw');
    const foreign = await other.sessions.answerLink(elsewhere.runId, elsewhere.pending[0]!.id, {
      ttlMs: 1_000,
    });
    expect(await refusal(sessions.answerWithLink(foreign))).toBe('LINK_INVALID forged');
    const later = new Date(Date.now() + 5_000);
    expect(await refusal(sessions.answerWithLink(token, undefined, { now: later }))).toBe(
      'LINK_INVALID gone',
    );
    expect((await sessions.get(paused.runId)).status).toBe('needs_input');
    const unsigned = linkSessions('approval', null).sessions;
    const run = await unsigned.start('thaw');
    expect(await refusal(unsigned.answerLink(run.runId, run.pending[0]!.id, { ttlMs: 1_000 }))).toBe(
      'CONFIG_INVALID',
    );
  });

  it('refuses to make a link for what is not pending, or with a response that could never fit', async () => {
    const { sessions } = linkSessions();
    const paused = await sessions.start('thaw');
    expect(await refusal(sessions.answerLink(paused.runId, 'nope', { ttlMs: 1_000 }))).toBe(
      'INTERACTION_NOT_FOUND',
    );
    expect(
      await refusal(
        sessions.answerLink(paused.runId, paused.pending[0]!.id, {
          ttlMs: 1_000,
          response: { type: 'answer', answers: 'JWT' },
        }),
      ),
    ).not.toBe('resolved');
    expect(await refusal(sessions.answerLink(paused.runId, paused.pending[0]!.id, { ttlMs: 0 }))).toBe(
      'CONFIG_INVALID',
    );
  });
});
