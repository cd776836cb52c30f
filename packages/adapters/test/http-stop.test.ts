/**
 * `POST /runs/:id/stop` (route `stop`, DESIGN §20), over HTTP: a turn another handler plays (another
 * process, on every store) ends `aborted` before its next model call, its running tool's result
 * kept, and over the Redis and PostgreSQL hubs a stream served elsewhere hears `turn_aborted`; a
 * paused run's asks are cancelled; a run at rest is left alone; a caller who did not start the run
 * gets 404. And stop is not disconnect: a client that closes its event stream never stops a turn.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { memoryStore } from '@turnkit/core';
import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { EventHub } from '../src/events/hub.js';
import { postgresEventHub } from '../src/events/hubs/postgres.js';
import { redisEventHub } from '../src/events/hubs/redis.js';
import { createHandler, type RouteInfo } from '../src/http/public.js';
import { bump, slowApprovalAgent, THAW_CALL_ID } from './helpers/lease-agent.js';
import { findServers, type StoreKind, sharedStores } from './helpers/lease-stores.js';
import { inventoryAgent, listen, readSse, SECRET, send } from './http-fixtures.js';

const servers = findServers();

/** Two clients of one shared event hub (Redis or PostgreSQL), as two processes would hold them; none for the others. */
async function sharedHubs(kind: StoreKind): Promise<{ hubs: EventHub[]; close(): Promise<void> } | null> {
  const tag = randomBytes(6).toString('hex');
  if (kind === 'redis') {
    const clients = [new Redis(servers.urls.redis!), new Redis(servers.urls.redis!)];
    const hubs = clients.map((client) => redisEventHub(client, { prefix: `turnkit-stop-${tag}:events:` }));
    return {
      hubs,
      async close() {
        await Promise.all(hubs.map((hub) => hub.close()));
        const keys = await clients[0]!.keys(`turnkit-stop-${tag}:*`);
        if (keys.length > 0) await clients[0]!.del(...keys);
        await Promise.all(clients.map((client) => client.quit()));
      },
    };
  }
  if (kind === 'postgres') {
    const table = `turnkit_stop_events_${tag}`;
    const pools = [0, 1].map(() => new pg.Pool({ connectionString: servers.urls.postgres!, max: 3 }));
    const hubs = pools.map((pool) => postgresEventHub(pool, { table, channel: table }));
    await (hubs[0] as ReturnType<typeof postgresEventHub>).migrate();
    return {
      hubs,
      async close() {
        await Promise.all(hubs.map((hub) => hub.close()));
        await pools[0]!.query(`DROP TABLE IF EXISTS ${table}`);
        await Promise.all(pools.map((pool) => pool.end()));
      },
    };
  }
  return null;
}

/** What a stream heard, until the run's state says `status`: event types, and `state:<status>`. */
async function heardUntil(body: ReadableStream<Uint8Array>, status: string): Promise<string[]> {
  const heard: string[] = [];
  for await (const event of readSse(body)) {
    if (event.event === 'comment') continue;
    heard.push(event.event === 'state' ? `state:${event.data.status}` : event.data.type);
    if (event.event === 'state' && event.data.status === status) break;
  }
  return heard;
}

describe('POST /runs/:id/stop: a turn played by another handler', () => {
  for (const kind of ['memory', 'file', 'redis', 'postgres'] as const) {
    it.skipIf(servers.missing(kind))(
      `${kind}: ends aborted before its next model call; the running tool's result is kept; a new message continues`,
      async () => {
        const backend = await sharedStores(kind, 'http-stop', 2, servers.urls[kind]);
        const shared = await sharedHubs(kind);
        const executions: Record<string, number> = {};
        const finishing: string[] = [];
        let executing: () => void = () => undefined;
        const toolStarted = new Promise<void>((resolve) => {
          executing = resolve;
        });
        const agent = slowApprovalAgent({
          toolMs: 600,
          onExecute: (key) => {
            bump(executions, key);
            executing();
          },
          onFinish: (key) => finishing.push(key),
        });
        const [here, there] = [0, 1].map((index) =>
          createHandler({
            agent,
            store: backend.stores[index]!,
            ...(shared ? { eventHub: shared.hubs[index]! } : {}),
          }),
        );
        try {
          const started = await send(here!, 'POST', '/runs', { input: 'Thaw one K562 vial' });
          const { runId } = started.body;
          const stream = shared ? await here!(new Request(`http://test.local/runs/${runId}/events`)) : null;
          // The turn plays in the other handler (another process, sharing only the store and hub).
          const playing = send(there!, 'POST', `/runs/${runId}/approve`, {});
          await toolStarted;
          const stopped = await send(here!, 'POST', `/runs/${runId}/stop`, { reason: 'wrong vial' });
          expect(stopped.status).toBe(200);
          expect(stopped.body).toMatchObject({ runId, stop: 'requested', status: 'running' });

          const played = await playing;
          expect(played.status).toBe(200);
          expect(played.body.status).toBe('aborted');
          // The tool finished and its result is in the transcript; the model was not called again.
          const results = played.body.messages.filter(
            (message: { role: string; tool_call_id?: string }) =>
              message.role === 'tool' && message.tool_call_id === THAW_CALL_ID,
          );
          expect(results).toHaveLength(1);
          expect(JSON.parse(results[0].content)).toEqual({ recorded: `${runId}:${THAW_CALL_ID}` });
          expect(finishing).toEqual([]);
          expect(executions).toEqual({ [`${runId}:${THAW_CALL_ID}`]: 1 });
          expect((await send(here!, 'GET', `/runs/${runId}`)).body.status).toBe('aborted');

          if (stream) {
            // Served here, the stream heard the turn the other handler played, and its end.
            const heard = await heardUntil(stream.body!, 'aborted');
            expect(heard[0]).toBe('state:needs_input');
            expect(heard).toContain('tool_finished');
            expect(heard.filter((type) => type === 'turn_aborted')).toHaveLength(1);
            expect(heard).not.toContain('model_started');
          }

          const next = await send(here!, 'POST', `/runs/${runId}/messages`, { input: 'go on' });
          expect(next.body).toMatchObject({
            status: 'completed',
            output: `Recorded ${runId}:${THAW_CALL_ID}.`,
          });
          expect(executions).toEqual({ [`${runId}:${THAW_CALL_ID}`]: 1 });
        } finally {
          await shared?.close();
          await backend.teardown();
        }
      },
      30_000,
    );
  }
});

describe('POST /runs/:id/stop', () => {
  const who = (request: Request) => ({ principal: request.headers.get('x-user') ?? 'anonymous' });

  it('cancels a paused run’s asks and rests it aborted; a second stop changes nothing', async () => {
    const routes: RouteInfo[] = [];
    const handler = createHandler({
      agent: inventoryAgent(),
      store: memoryStore(),
      authorize: (request, route) => {
        routes.push(route);
        return who(request);
      },
    });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw one K562 vial' });
    expect(started.body.status).toBe('needs_input');
    const { runId } = started.body;
    const stopped = await send(handler, 'POST', `/runs/${runId}/stop`, { reason: 'not today' });
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ runId, stop: 'stopped', status: 'aborted', pending: [] });
    expect(routes.at(-1)).toEqual({ name: 'stop', runId });
    const again = await send(handler, 'POST', `/runs/${runId}/stop`, {});
    expect(again.body).toMatchObject({
      stop: 'not_running',
      status: 'aborted',
      version: stopped.body.version,
    });
  });

  it('hides the run from a caller who did not start it (404), and changes nothing', async () => {
    const handler = createHandler({ agent: inventoryAgent(), store: memoryStore(), authorize: who });
    const started = await send(
      handler,
      'POST',
      '/runs',
      { input: 'Thaw one K562 vial' },
      { 'x-user': 'ada' },
    );
    const { runId } = started.body;
    const refused = await send(handler, 'POST', `/runs/${runId}/stop`, {}, { 'x-user': 'mallory' });
    expect(refused.status).toBe(404);
    expect(refused.body.code).toBe('RUN_NOT_FOUND');
    const read = await send(handler, 'GET', `/runs/${runId}`, undefined, { 'x-user': 'ada' });
    expect(read.body.status).toBe('needs_input');
  });

  it('refuses a body that does not fit (400), and an unknown run (404)', async () => {
    const handler = createHandler({ agent: inventoryAgent(), store: memoryStore() });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw one K562 vial' });
    const { runId } = started.body;
    const bad = await send(handler, 'POST', `/runs/${runId}/stop`, { reason: 42 });
    expect(bad.status).toBe(400);
    expect(bad.body.detail ?? bad.body.message).toMatch(/reason/);
    const typo = await send(handler, 'POST', `/runs/${runId}/stop`, { reasons: 'x' });
    expect(typo.status).toBe(400);
    expect((await send(handler, 'GET', `/runs/${runId}`)).body.status).toBe('needs_input');
    expect((await send(handler, 'POST', '/runs/run_missing/stop', {})).status).toBe(404);
  });

  it('does not exist in client-held mode (no worker holds such a run): 404', async () => {
    const handler = createHandler({ agent: inventoryAgent(), secret: SECRET });
    expect((await send(handler, 'POST', '/runs/run_any/stop', {})).status).toBe(404);
  });
});

describe('stop is not disconnect', () => {
  it('a client that closes its event stream mid-turn never stops the turn: it completes', async () => {
    let executing: () => void = () => undefined;
    const toolStarted = new Promise<void>((resolve) => {
      executing = resolve;
    });
    const handler = createHandler({
      agent: slowApprovalAgent({ toolMs: 400, onExecute: () => executing() }),
      store: memoryStore(),
    });
    const server = await listen(handler);
    try {
      const started = await send(handler, 'POST', '/runs', { input: 'Thaw one K562 vial' });
      const { runId } = started.body;
      const opened = new Promise<import('node:http').ClientRequest>((resolve, reject) => {
        const request = httpRequest(`${server.url}/runs/${runId}/events`, (response) => {
          expect(response.statusCode).toBe(200);
          response.once('data', () => resolve(request));
        });
        request.on('error', reject);
        request.end();
      });
      const stream = await opened;
      const playing = send(handler, 'POST', `/runs/${runId}/approve`, {});
      await toolStarted;
      // The client goes away mid-turn: its socket is destroyed.
      const closed = new Promise((resolve) => stream.once('close', resolve));
      stream.destroy();
      await closed;
      const played = await playing;
      expect(played.body).toMatchObject({
        status: 'completed',
        output: `Recorded ${runId}:${THAW_CALL_ID}.`,
      });
      expect((await send(handler, 'GET', `/runs/${runId}`)).body.status).toBe('completed');
    } finally {
      await server.close();
    }
  });
});
