import { randomUUID } from 'node:crypto';
import { ConflictError, runTurn, TurnkitError } from '@turnkit/core';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisStore } from '../src/stores/redis-store.js';
import { partsHead } from './helpers/store-fixtures.js';
import { approvalAgent, expectResumedAsLayout2, priorMessages } from './helpers/store-resume.js';
import { describeStoreContract, freshRunId, serverClock, serverUrl } from './store-contract.js';
import { expectKeepsLatestTwo } from './store-contract-forks.js';

const url = serverUrl('TURNKIT_REDIS_URL', 'Redis');

/** A client and a key prefix of its own, so parallel test runs never see each other's keys. */
async function connect(): Promise<{ client: Redis; prefix: string; teardown: () => Promise<void> }> {
  const client = new Redis(url!, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  const prefix = `turnkit-test:${randomUUID()}:`;
  const teardown = async () => {
    const keys = await client.keys(`${prefix}*`);
    if (keys.length > 0) await client.del(...keys);
    await client.quit();
  };
  return { client, prefix, teardown };
}

describe.skipIf(!url)('redisStore', () => {
  describeStoreContract('redisStore', async () => {
    const first = await connect();
    // A second connection to the same keys: the client whose host clock differs in the skew test.
    const second = await connect();
    return {
      store: redisStore(first.client, { prefix: first.prefix }),
      peer: redisStore(second.client, { prefix: first.prefix }),
      clock: serverClock(),
      teardown: async () => {
        await second.client.quit();
        await first.teardown();
      },
    };
  });

  describe('layout and options', () => {
    let connection: Awaited<ReturnType<typeof connect>>;
    beforeAll(async () => {
      connection = await connect();
    });
    afterAll(async () => {
      await connection.teardown();
    });

    it('keeps a run as a hash { version, snapshot, expiresAt, leaseOwner, leaseUntil } and indexes its expiry', async () => {
      const { client, prefix } = connection;
      const store = redisStore(client, { prefix });
      const runId = freshRunId('layout');
      await store.put(runId, '{"a":1}', { expectedVersion: null, expiresAt: '2030-01-01T00:00:00.000Z' });
      expect(await client.hgetall(`${prefix}${runId}`)).toEqual({
        version: '1',
        snapshot: '{"a":1}',
        expiresAt: '2030-01-01T00:00:00.000Z',
      });
      const [seconds] = await client.time();
      await store.put(runId, '{"a":2}', {
        expectedVersion: 1,
        expiresAt: '2030-01-01T00:00:00.000Z',
        lease: { owner: 'worker-a', ms: 60_000 },
      });
      const { leaseOwner, leaseUntil } = await client.hgetall(`${prefix}${runId}`);
      expect(leaseOwner).toBe('worker-a');
      // Redis's own clock, in epoch ms.
      expect(Number(leaseUntil) - Number(seconds) * 1000).toBeGreaterThanOrEqual(59_000);
      expect(Number(leaseUntil) - Number(seconds) * 1000).toBeLessThan(62_000);
      expect(await client.zscore(`${prefix}__expiry__`, runId)).toBe(
        String(Date.parse('2030-01-01T00:00:00.000Z')),
      );
      await store.delete(runId);
      expect(await client.exists(`${prefix}${runId}`)).toBe(0);
      expect(await client.zscore(`${prefix}__expiry__`, runId)).toBeNull();
    });

    it('runs its scripts by SHA (EVALSHA), and sends a script again after the server lost them (issue 49)', async () => {
      const { client, prefix } = connection;
      const sent: string[] = [];
      const counted = new Proxy(client, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver);
          if (property !== 'eval' && property !== 'evalsha')
            return typeof value === 'function' ? value.bind(target) : value;
          return (...args: unknown[]) => {
            sent.push(property);
            return (value as (...given: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      const store = redisStore(counted, { prefix });
      const runId = freshRunId('sha');
      await store.put(runId, '{"a":1}', { expectedVersion: null });
      sent.length = 0;
      expect((await store.get(runId))?.snapshot).toBe('{"a":1}');
      expect(sent).toEqual(['evalsha']);
      await client.script('FLUSH');
      sent.length = 0;
      await store.put(runId, '{"a":2}', { expectedVersion: 1 });
      expect(sent).toEqual(['evalsha', 'eval']);
      sent.length = 0;
      expect((await store.get(runId))?.snapshot).toBe('{"a":2}');
      expect(sent).toEqual(['evalsha', 'eval']);
    });

    it('reads and updates a hash written by the first release, which has no lease fields', async () => {
      const { client, prefix } = connection;
      const store = redisStore(client, { prefix });
      const runId = freshRunId('old');
      // Exactly what the first release's PUT_SCRIPT wrote.
      await client.hset(
        `${prefix}${runId}`,
        'version',
        3,
        'snapshot',
        '{"old":true}',
        'expiresAt',
        '2001-01-01T00:00:00.000Z',
      );
      await client.zadd(`${prefix}__expiry__`, Date.parse('2001-01-01T00:00:00.000Z'), runId);
      expect(await store.get(runId)).toMatchObject({ snapshot: '{"old":true}', version: 3, lease: null });
      expect(await store.listExpired(new Date('2001-01-02T00:00:00.000Z'))).toContain(runId);
      await store.renew(runId, { owner: 'worker-a', version: 3, ms: 1000 }).then(
        () => expect.fail('expected a ConflictError'),
        (error: unknown) => expect(error).toBeInstanceOf(ConflictError),
      );
      expect(
        await store.put(runId, '{"new":true}', {
          expectedVersion: 3,
          lease: { owner: 'worker-a', ms: 60_000 },
        }),
      ).toMatchObject({
        version: 4,
      });
      expect(await store.get(runId)).toMatchObject({
        snapshot: '{"new":true}',
        version: 4,
        lease: { owner: 'worker-a', live: true },
      });
    });

    it.each(['1e18', '-1', '1.5', 'x', '100000'])(
      'refuses a run whose chunk count was corrupted to %s with SNAPSHOT_INVALID, and Redis stays free',
      async (chunks) => {
        const { client, prefix } = connection;
        const store = redisStore(client, { prefix });
        const runId = freshRunId('corrupt');
        await store.putParts!(
          runId,
          { head: partsHead('c'), mode: 'rewrite', messages: '1', resolved: '' },
          { expectedVersion: null },
        );
        await client.hset(`${prefix}${runId}`, 'chunks', chunks);
        const error = await store.getParts!(runId).catch((caught: unknown) => caught);
        expect(TurnkitError.isInstance(error) && error.code).toBe('SNAPSHOT_INVALID');
        expect(await client.ping()).toBe('PONG');
      },
    );

    it('keeps the latest points only, with keepHistory (issue 32)', async () => {
      const { client, prefix } = connection;
      await expectKeepsLatestTwo(redisStore(client, { prefix, keepHistory: 2 }));
    });

    it('reads a hash whose chunks predate a<i> whole, even with a window, until its next rewrite (issue 33)', async () => {
      const { client, prefix } = connection;
      const store = redisStore(client, { prefix });
      const runId = freshRunId('legacy-offsets');
      const head = (label: string) => `{"layout":2,"at":[0,0],"messages":0,"resolved":0}\n${label}`;
      await store.putParts!(
        runId,
        { head: head('a'), mode: 'rewrite', messages: '1,2', resolved: '' },
        {
          expectedVersion: null,
        },
      );
      // As an earlier release left it: no offsets in the hash.
      await client.hdel(`${prefix}${runId}`, 'mlen', 'wat', 'a1');
      await store.putParts!(
        runId,
        { head: head('b'), mode: 'append', messages: '3', resolved: '', windowAt: 4 },
        {
          expectedVersion: 1,
        },
      );
      const read = await store.getParts!(runId, { transcript: 'window' });
      expect(read).toMatchObject({ messages: '1,2,3', version: 2 });
      expect(read).not.toHaveProperty('messagesAt');
      expect(await client.hexists(`${prefix}${runId}`, 'a2')).toBe(0);
      // A rewrite records offsets again: the next append's window read skips the first chunk.
      await store.putParts!(
        runId,
        { head: head('c'), mode: 'rewrite', messages: '1,2', resolved: '' },
        {
          expectedVersion: 2,
        },
      );
      await store.putParts!(
        runId,
        { head: head('d'), mode: 'append', messages: '3', resolved: '', windowAt: 4 },
        {
          expectedVersion: 3,
        },
      );
      expect(await store.getParts!(runId, { transcript: 'window' })).toMatchObject({
        messages: '3',
        messagesAt: 4,
      });
    });

    it('keeps a run in row layout 2 as { version, head, chunks, m<i>, r<i> }: one chunk per write that appended', async () => {
      const { client, prefix } = connection;
      const store = redisStore(client, { prefix, ttlSeconds: 60 });
      const runId = freshRunId('layout2');
      const write = (mode: 'append' | 'rewrite', messages: string, resolved = '') => ({
        head: partsHead(mode),
        mode,
        messages,
        resolved,
      });
      await store.putParts!(runId, write('rewrite', '1'), { expectedVersion: null });
      await store.putParts!(runId, write('append', ''), { expectedVersion: 1 });
      await store.putParts!(runId, write('append', '', '"r"'), { expectedVersion: 2 });
      expect(await client.hgetall(`${prefix}${runId}`)).toEqual({
        version: '3',
        head: partsHead('append'),
        chunks: '2',
        m1: '1',
        r2: '"r"',
        expiresAt: '',
        // Partial reads (DESIGN §22): where chunk 1's text starts, the log's length, the window's start.
        a1: '0',
        mlen: '1',
        wat: '0',
        // History (DESIGN §21): each version's point, `<server ms>:<chunks>:<head>`, oldest kept in pfrom.
        pfrom: '1',
        p1: expect.stringMatching(new RegExp(`^\\d+:1:${literal(partsHead('rewrite'))}$`)),
        p2: expect.stringMatching(new RegExp(`^\\d+:1:${literal(partsHead('append'))}$`)),
        p3: expect.stringMatching(new RegExp(`^\\d+:2:${literal(partsHead('append'))}$`)),
      });
      expect(await client.ttl(`${prefix}${runId}`)).toBeGreaterThan(50);
      await store.put(runId, 'whole', { expectedVersion: 3 });
      expect(await client.hgetall(`${prefix}${runId}`)).toEqual({
        version: '4',
        snapshot: 'whole',
        expiresAt: '',
      });
    });

    it('resumes a hash the previous release wrote and rewrites it as layout 2', async () => {
      const { client, prefix } = connection;
      const store = redisStore(client, { prefix });
      const agent = approvalAgent(20);
      const paused = await runTurn(agent, { input: priorMessages(20), runId: freshRunId('previous') });
      // Exactly what the previous release's PUT_SCRIPT wrote for a run without a lease.
      await client.hset(
        `${prefix}${paused.runId}`,
        'version',
        1,
        'snapshot',
        paused.snapshot,
        'expiresAt',
        '',
      );
      await expectResumedAsLayout2(store, agent, paused.runId);
      expect(await client.hexists(`${prefix}${paused.runId}`, 'snapshot')).toBe(0);
    });

    it('drops index entries of vanished runs and still returns limit live ones', async () => {
      const { client, prefix } = connection;
      const store = redisStore(client, { prefix });
      const at = (minute: number) => `1980-01-01T00:0${minute}:00.000Z`;
      const runIds = Array.from({ length: 6 }, (_, index) => freshRunId(`vanish-${index}`));
      for (const [index, runId] of runIds.entries()) {
        await store.put(runId, 'x', { expectedVersion: null, expiresAt: at(index) });
      }
      // The three earliest hashes vanish, as with ttlSeconds.
      await client.del(...runIds.slice(0, 3).map((runId) => `${prefix}${runId}`));
      expect(await store.listExpired(new Date(at(9)), 2)).toEqual(runIds.slice(3, 5));
      expect(await client.zscore(`${prefix}__expiry__`, runIds[0]!)).toBeNull();
      expect(await store.listExpired(new Date(at(9)))).toEqual(runIds.slice(3));
    });

    it('sets a TTL on every write when ttlSeconds is given, and forgets expired index entries', async () => {
      const { client, prefix } = connection;
      const store = redisStore(client, { prefix, ttlSeconds: 60 });
      const runId = freshRunId('ttl');
      await store.put(runId, 'x', { expectedVersion: null, expiresAt: '2000-01-01T00:00:00.000Z' });
      const ttl = await client.ttl(`${prefix}${runId}`);
      expect(ttl).toBeGreaterThan(50);
      expect(ttl).toBeLessThanOrEqual(60);
      const late = { id: 'late-1', messages: JSON.stringify([{ role: 'user', content: 'and log it' }]) };
      expect(await store.queueMessage!(runId, late)).toEqual({ live: false });
      // As if Redis had expired the hash: the index entry must not come back as a run, and the
      // message queued on it (DESIGN §30) goes with it.
      await client.del(`${prefix}${runId}`);
      expect(await store.listExpired(new Date())).not.toContain(runId);
      expect(await client.zscore(`${prefix}__expiry__`, runId)).toBeNull();
      expect(await client.hexists(`${prefix}__queued__`, runId)).toBe(0);
    });

    it('leaves out of the inbox the entries of a run whose key expired (ttlSeconds)', async () => {
      const { client, prefix } = connection;
      const store = redisStore(client, { prefix, ttlSeconds: 60 });
      const [kept, expired] = [freshRunId('ttl-inbox'), freshRunId('ttl-inbox')];
      const principal = freshRunId('owner');
      const entry = (askedAt: string) => ({
        id: 'q',
        kind: 'question',
        agentPath: ['inventory'],
        summary: 'Which line?',
        askedAt,
        principal,
      });
      await store.put(expired, 'x', { expectedVersion: null, pending: [entry('2030-01-01T00:00:00.000Z')] });
      await store.put(kept, 'x', { expectedVersion: null, pending: [entry('2030-01-01T00:01:00.000Z')] });
      // A message queued on each while their asks wait (DESIGN §30).
      const late = { id: 'late-1', messages: JSON.stringify([{ role: 'user', content: 'and log it' }]) };
      for (const runId of [expired, kept]) await store.queueMessage!(runId, late);
      await client.del(`${prefix}${expired}`);
      const page = await store.listPending!({ principal }, 10, null);
      expect(page.items.map((item) => item.runId)).toEqual([kept]);
      // The expired run's queued message went with it; the live run keeps its own.
      expect(await client.hexists(`${prefix}__queued__`, expired)).toBe(0);
      expect((await store.get(kept))?.queued).toEqual([late]);
    });

    it('lists by kind from its own sorted set, and indexes once the entries an earlier version wrote without one', async () => {
      const { client } = connection;
      // Its own prefix, so its inbox holds only the asks written here.
      const prefix = `${connection.prefix}kinds:`;
      const inbox = `${prefix}__pending__`;
      const entry = (kind: string, askedAt: string) => ({
        id: 'ask',
        kind,
        agentPath: ['inventory'],
        summary: 'Thaw?',
        askedAt,
      });
      const runs = [freshRunId('kind'), freshRunId('kind'), freshRunId('kind')];
      const kinds = ['question', 'approval', 'question'];
      const writer = redisStore(client, { prefix });
      for (const [i, runId] of runs.entries()) {
        const askedAt = `2031-01-01T00:00:0${i}.000Z`;
        await writer.put(runId, 'x', { expectedVersion: null, pending: [entry(kinds[i]!, askedAt)] });
      }
      const approvals = await writer.listPending!({ kind: 'approval' }, 10, null);
      expect(approvals.items.map((item) => item.runId)).toEqual([runs[1]]);
      expect(await client.zcard(`${inbox}:k:question`)).toBe(2);

      // As an earlier version left them: no kind sets, no marker, runs listing no kind scope.
      await client.del(`${inbox}:k:question`, `${inbox}:k:approval`, `${inbox}:kinds`);
      for (const runId of runs) {
        const listed = JSON.parse((await client.hget(`${prefix}${runId}`, 'pending'))!) as [
          string,
          string[],
        ][];
        const old = listed.map(([key, scopes]) => [key, scopes.filter((scope) => !scope.startsWith(':k:'))]);
        await client.hset(`${prefix}${runId}`, 'pending', JSON.stringify(old));
      }
      const upgraded = redisStore(client, { prefix });
      const questions = await upgraded.listPending!({ kind: 'question' }, 10, null);
      expect(questions.items.map((item) => item.runId)).toEqual([runs[0], runs[2]]);
      expect(await client.get(`${inbox}:kinds`)).toBe('1');

      // The write that drops an old entry leaves it in its kind's set: the next listing prunes it.
      const [key] = await client.zrange(`${inbox}:k:question`, 0, 0);
      await upgraded.put(runs[0]!, 'y', { expectedVersion: 1, pending: [] });
      expect(await client.zscore(`${inbox}:k:question`, key!)).not.toBeNull();
      const after = await upgraded.listPending!({ kind: 'question' }, 10, null);
      expect(after.items.map((item) => item.runId)).toEqual([runs[2]]);
      expect(await client.zscore(`${inbox}:k:question`, key!)).toBeNull();
    });

    it('refuses bad options and run ids with TurnkitError CONFIG_INVALID', async () => {
      const { client, prefix } = connection;
      expect(() => redisStore(client, { ttlSeconds: 0 })).toThrow(TurnkitError);
      expect(() => redisStore(client, { ttlSeconds: 1.5 })).toThrow(/positive integer/);
      const store = redisStore(client, { prefix });
      await expect(store.get('')).rejects.toThrow(TurnkitError);
      await expect(store.put('__expiry__', 'x', { expectedVersion: null })).rejects.toThrow(/expiry index/);
      await expect(store.put('bad-date', 'x', { expectedVersion: null, expiresAt: 'soon' })).rejects.toThrow(
        /not an ISO date/,
      );
    });
  });
});

/** `text` as a literal inside a RegExp. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
