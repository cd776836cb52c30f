/**
 * SSE clients that never read (issue 26, item 6), over real sockets: a client that opens
 * `GET /runs/:id/events` and then reads nothing fills the kernel's buffers, then its stream's queue;
 * past `maxQueuedBytes` it is cut, and cutting it must free everything at once — the server closes
 * (destroys) its connection, the hub holds no subscriber for it, the queued bytes are dropped — while
 * a client that reads keeps getting the run's events.
 */
import type { Server, Socket } from 'node:net';
import { connect } from 'node:net';
import { serve } from '@hono/node-server';
import { memoryStore } from '@turnkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createEventHub } from '../src/events/hub.js';
import { createHandler } from '../src/http/public.js';
import { inventoryAgent, readSse } from './http-fixtures.js';

const MAX_QUEUED = 64 * 1024;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Serves `handler` on loopback, keeping the server side of every connection. */
async function serveTracked(handler: (request: Request) => Promise<Response>) {
  const sockets: Socket[] = [];
  const { server, port } = await new Promise<{ server: Server; port: number }>((resolve) => {
    const started = serve({ fetch: handler, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve({ server: started as unknown as Server, port: info.port }),
    );
  });
  server.on('connection', (socket: Socket) => sockets.push(socket));
  cleanups.push(
    () =>
      new Promise<void>((done) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => done());
      }),
  );
  return { port, sockets };
}

/** A client that sends the request, then never reads: its socket stays paused. */
function silentClient(port: number, path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => {
      socket.pause();
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
      resolve(socket);
    });
    socket.on('error', () => {});
    socket.once('error', reject);
    cleanups.push(() => {
      socket.destroy();
    });
  });
}

/** Polls `check` until it holds or `tries` rounds of the event loop (with a short sleep) pass. */
async function eventually(check: () => boolean, tries = 200): Promise<boolean> {
  for (let round = 0; round < tries; round++) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return check();
}

describe('SSE clients that never read, over real sockets', () => {
  it('are cut: the server destroys their connections and their hub subscriptions, and readers go on', async () => {
    const hub = createEventHub({ maxLength: 0 });
    const handler = createHandler({
      agent: inventoryAgent(),
      store: memoryStore(),
      eventHub: hub,
      maxQueuedBytes: MAX_QUEUED,
    });
    const { port, sockets } = await serveTracked(handler);
    const base = `http://127.0.0.1:${port}`;
    const started = await fetch(`${base}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'Thaw one vial' }),
    });
    const { runId } = (await started.json()) as { runId: string };
    const path = `/runs/${runId}/events`;

    const silent = await Promise.all([0, 1, 2].map(() => silentClient(port, path)));
    const reader = await fetch(`${base}${path}`, { headers: { accept: 'text/event-stream' } });
    const events = readSse(reader.body!);
    const state = (await events.next()).value!;
    expect(state).toMatchObject({ event: 'state' });
    expect(await eventually(() => hub.listeners(runId) === 4)).toBe(true);
    // The server side of the silent connections (the reader's is the last one opened).
    const serverSide = sockets.filter((socket) =>
      silent.some((client) => client.localPort === socket.remotePort),
    );
    expect(serverSide).toHaveLength(3);

    // Large events until every silent client is cut (kernel buffers absorb a few MiB first).
    const text = 'x'.repeat(32 * 1024);
    // Event ids go on after the run's own: the hub drops a message that is not after the last one.
    const first = Number(state.id) + 1;
    let seq = first;
    let read = 0;
    while (hub.listeners(runId) > 1 && seq < 4000) {
      hub.publish(runId, { event: 'model_delta', id: String(seq++), data: { text } });
      const next = await events.next();
      if (!next.done) read++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(hub.listeners(runId)).toBe(1);
    expect(read).toBe(seq - first);

    // Cut means closed at once: the server destroyed each silent connection, without waiting for
    // the client to read or to close its end.
    expect(await eventually(() => serverSide.every((socket) => socket.destroyed))).toBe(true);
    expect(silent.every((client) => !client.destroyed)).toBe(true);

    // The reader still gets the run's events.
    hub.publish(runId, { event: 'model_delta', id: String(seq), data: { text: 'still here' } });
    expect((await events.next()).value).toMatchObject({ event: 'model_delta', data: { text: 'still here' } });
    await events.return(undefined);
  });
});
