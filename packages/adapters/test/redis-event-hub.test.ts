/**
 * redisEventHub (DESIGN §17): the shared hub contract on a real Redis, then what is Redis's own —
 * the stream layout, trimming and expiry, and a reading connection that is killed and comes back.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventHub } from '../src/events/hub.js';
import { redisEventHub } from '../src/events/hubs/redis.js';
import { describeSharedHubContract } from './event-hub-contract.js';
import { collector, event, hubRunId, names, seqs, state } from './helpers/hub-fixtures.js';
import { serverUrl } from './store-servers.js';

const url = serverUrl('TURNKIT_REDIS_URL', 'Redis');

/** Clients on one key prefix of their own; the teardown removes its keys and closes them. */
function redisBackend() {
  const prefix = `turnkit-test-events:${randomUUID()}:`;
  const clients: Redis[] = [];
  const connect = () => {
    const client = new Redis(url!, { maxRetriesPerRequest: 1 });
    clients.push(client);
    return client;
  };
  const teardown = async () => {
    const admin = connect();
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await Promise.all(clients.map((client) => client.quit()));
  };
  return { prefix, connect, teardown };
}

describe.skipIf(!url)('redisEventHub', () => {
  describeSharedHubContract('redisEventHub', async () => {
    const backend = redisBackend();
    return {
      open: async (errors) =>
        redisEventHub(backend.connect(), { prefix: backend.prefix, onError: (error) => errors.push(error) }),
      teardown: backend.teardown,
    };
  });

  describe('storage', () => {
    const backend = redisBackend();
    const errors: unknown[] = [];
    let client: Redis;
    const hubs: EventHub[] = [];
    const open = (options: { maxLength?: number; retainMs?: number } = {}) => {
      const hub = redisEventHub(backend.connect(), {
        prefix: backend.prefix,
        onError: (error) => errors.push(error),
        ...options,
      });
      hubs.push(hub);
      return hub;
    };
    beforeAll(() => {
      client = backend.connect();
    });
    afterAll(async () => {
      await Promise.all(hubs.map((hub) => hub.close()));
      await backend.teardown();
      expect(errors).toEqual([]);
    });

    it('keeps a run as the stream <prefix><runId>, ids <seq>-0 for events and <seq>-1 for states, expiring', async () => {
      const hub = open({ retainMs: 600_000 });
      const runId = hubRunId('layout');
      await hub.publish(runId, event(runId, 1, 'turn_started'));
      await hub.publish(runId, event(runId, 2, 'turn_paused'));
      await hub.publish(runId, state(runId, 2));
      const entries = await client.xrange(`${backend.prefix}${runId}`, '-', '+');
      expect(entries.map(([id]) => id)).toEqual(['1-0', '2-0', '2-1']);
      expect(entries[2]![1]).toEqual(['event', 'state', 'data', JSON.stringify(state(runId, 2).data)]);
      const ttl = await client.pttl(`${backend.prefix}${runId}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(600_000);
    });

    it('trims a run to about maxLength entries: a resume from a trimmed event says so', async () => {
      const hub = open({ maxLength: 10 });
      const runId = hubRunId('trim');
      for (const seq of seqs(1, 999)) void hub.publish(runId, event(runId, seq));
      await hub.publish(runId, event(runId, 1000));
      expect(await client.xlen(`${backend.prefix}${runId}`)).toBeLessThan(500);
      const got = collector();
      const old = await open().subscribe(runId, got.listener, { after: 1 });
      expect(old.resumed).toBe(false);
      old.unsubscribe();
      const recent = await open().subscribe(runId, () => {}, { after: 999 });
      expect(recent.resumed).toBe(true);
      recent.unsubscribe();
    });

    it('reads on, from where it was, after its reading connection is killed', async () => {
      const seen: unknown[] = [];
      const reader = redisEventHub(backend.connect(), {
        prefix: backend.prefix,
        onError: (e) => seen.push(e),
      });
      hubs.push(reader);
      const writer = open();
      const runId = hubRunId('killed');
      const got = collector();
      await reader.subscribe(runId, got.listener, { after: 0 });
      await writer.publish(runId, event(runId, 1));
      await got.until(1);
      const blocked = (await client.client('LIST')) as string;
      const ids = blocked
        .split('\n')
        .filter((line) => line.includes('cmd=xread'))
        .map((line) => /\bid=(\d+)/.exec(line)![1]!);
      expect(ids.length).toBeGreaterThan(0);
      for (const id of ids) await client.client('KILL', 'ID', id);
      for (const seq of seqs(2, 5)) void writer.publish(runId, event(runId, seq));
      await writer.publish(runId, state(runId, 5));
      await got.until(6);
      expect(got.seen()).toEqual(names(seqs(1, 5), [5]));
    });
  });

  it('survives an XREAD reply of a shape it does not read: reports it to onError, backs off, reads on', async () => {
    const backend = redisBackend();
    const client = backend.connect();
    const duplicate = client.duplicate.bind(client);
    // The reading connection answers its first XREAD flat, as ioredis 6's call('XREAD') does.
    client.duplicate = () => {
      const reader = duplicate();
      const xread = reader.xread.bind(reader) as (...args: unknown[]) => Promise<unknown>;
      let first = true;
      reader.xread = (async (...args: unknown[]) => {
        if (!first) return xread(...args);
        first = false;
        return ['stream', [['1-0', ['event', 'x']]]];
      }) as typeof reader.xread;
      return reader;
    };
    const errors: unknown[] = [];
    const reader = redisEventHub(client, { prefix: backend.prefix, onError: (error) => errors.push(error) });
    const writer = redisEventHub(backend.connect(), { prefix: backend.prefix });
    const runId = hubRunId('odd-reply');
    const got = collector();
    const subscription = await reader.subscribe(runId, got.listener, { after: 0 });
    await writer.publish(runId, event(runId, 1));
    await got.until(1);
    expect(got.seen()).toEqual(['model_delta@1']);
    expect(errors).toEqual([expect.objectContaining({ code: 'CONFIG_INVALID' })]);
    expect(String((errors[0] as Error).message)).toMatch(/^redisEventHub: XREAD answered \["stream"/);
    subscription.unsubscribe();
    await Promise.all([reader.close(), writer.close()]);
    await backend.teardown();
  });

  it('works on clients that have a keyPrefix of their own', async () => {
    const backend = redisBackend();
    const connect = () => new Redis(url!, { maxRetriesPerRequest: 1, keyPrefix: backend.prefix });
    const [writer, reader] = [connect(), connect()];
    const hubs = [writer, reader].map((client) => redisEventHub(client, { prefix: 'events:' }));
    const runId = hubRunId('key-prefix');
    const got = collector();
    const subscription = await hubs[1]!.subscribe(runId, got.listener, { after: 0 });
    await hubs[0]!.publish(runId, event(runId, 1));
    await hubs[0]!.publish(runId, { event: 'state', id: '1', data: undefined });
    await got.until(2);
    expect(got.seen()).toEqual(['model_delta@1', 'state@1']);
    expect(got.messages[1]!.data).toBeNull();
    subscription.unsubscribe();
    await Promise.all(hubs.map((hub) => hub.close()));
    await Promise.all([writer.quit(), reader.quit()]);
    await backend.teardown();
  });

  it('refuses options that cannot work', () => {
    const client = new Redis(url!, { lazyConnect: true });
    expect(() => redisEventHub(client, { maxLength: 0 })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(() => redisEventHub(client, { retainMs: -1 })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    client.disconnect();
  });
});
