import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryStore } from '@turnkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandler } from '../src/http/public.js';
import { fileStore } from '../src/stores/file-store.js';
import { inventoryAgent, type Listening, listen, readSse, SECRET, type SseEvent } from './http-fixtures.js';

const open: Listening[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function serveHandler(handler: (request: Request) => Promise<Response>): Promise<string> {
  const server = await listen(handler);
  open.push(server);
  return server.url;
}

async function post(url: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const answer = { answers: { 'Cell lines': { selected: ['K562', 'HEK293T'], other: 'Jurkat' } } };

describe('createHandler over a real node:http server', () => {
  it('plays a full run in store mode with a file store', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'turnkit-http-'));
    dirs.push(dir);
    const thawed: string[][] = [];
    const url = await serveHandler(
      createHandler({ agent: inventoryAgent({ thawed }), store: fileStore(dir) }),
    );
    const started = await post(`${url}/runs`, { input: 'Thaw one' });
    expect(started.status).toBe(201);
    const { runId } = started.body;
    expect((await post(`${url}/runs/${runId}/answer`, answer)).body.pending[0].kind).toBe('approval');
    const read = await fetch(`${url}/runs/${runId}`).then((response) => response.json());
    expect(read.pending[0].kind).toBe('approval');
    const done = await post(`${url}/runs/${runId}/approve`, {
      editedInput: { cellLines: ['HeLa'], count: 2 },
    });
    expect(done.body.status).toBe('completed');
    expect(thawed).toEqual([['HeLa']]);
    expect(done.body.output).toContain('input_edited_by_user');
  });

  it('plays a full run in client-held mode', async () => {
    const url = await serveHandler(createHandler({ agent: inventoryAgent(), secret: SECRET }));
    const started = await post(`${url}/runs`, { input: 'Thaw one' });
    const { runId } = started.body;
    const answered = await post(`${url}/runs/${runId}/answer`, {
      ...answer,
      snapshot: started.body.snapshot,
    });
    const done = await post(`${url}/runs/${runId}/approve`, { snapshot: answered.body.snapshot });
    expect(done.body).toMatchObject({ runId, status: 'completed' });
    const tampered = answered.body.snapshot.replace('K562', 'K999');
    expect((await post(`${url}/runs/${runId}/approve`, { snapshot: tampered })).status).toBe(403);
  });

  it('lets one of two different concurrent answers win (200) and refuses the other (409)', async () => {
    const url = await serveHandler(
      createHandler({ agent: inventoryAgent({ delayMs: 40 }), store: memoryStore() }),
    );
    const started = await post(`${url}/runs`, { input: 'Thaw one' });
    const path = `${url}/runs/${started.body.runId}/answer`;
    const id = started.body.pending[0].id;
    const results = await Promise.all([
      post(path, { id, answers: ['K562'] }),
      post(path, { id, answers: ['HeLa'] }),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual([200, 409]);
    expect(results.find((result) => result.status === 409)!.body.code).toBe('CONFLICT');
  });

  it('runs an approved tool once when the same approval arrives three times at once', async () => {
    const thawed: string[][] = [];
    const url = await serveHandler(
      createHandler({ agent: inventoryAgent({ delayMs: 40, thawed }), store: memoryStore() }),
    );
    const started = await post(`${url}/runs`, { input: 'Thaw one' });
    const runId = started.body.runId;
    const answered = await post(`${url}/runs/${runId}/answer`, answer);
    const id = answered.body.pending[0].id;
    const results = await Promise.all([1, 2, 3].map(() => post(`${url}/runs/${runId}/approve`, { id })));
    for (const result of results) {
      expect([200, 409]).toContain(result.status);
      if (result.status === 200) expect(['running', 'completed']).toContain(result.body.status);
    }
    expect(results.some((result) => result.status === 200)).toBe(true);
    expect(thawed).toEqual([['K562']]);
  });

  it('refuses oversize bodies with 413, with and without Content-Length', async () => {
    const url = await serveHandler(
      createHandler({ agent: inventoryAgent(), store: memoryStore(), maxBodyBytes: 4096 }),
    );
    const declared = await post(`${url}/runs`, { input: 'x'.repeat(10_000) });
    expect(declared).toMatchObject({ status: 413, body: { code: 'BODY_TOO_LARGE' } });
    const chunk = new TextEncoder().encode(`{"input":"${'y'.repeat(1000)}`);
    let sent = 0;
    const streamed = await fetch(`${url}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          if (++sent > 20) return controller.close();
          controller.enqueue(chunk);
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await streamed.json()).code).toBe('BODY_TOO_LARGE');
  });

  it('answers malformed JSON with 400 and unknown routes with 404, as problem+json', async () => {
    const url = await serveHandler(createHandler({ agent: inventoryAgent(), store: memoryStore() }));
    const malformed = await post(`${url}/runs`, '{"input":');
    expect(malformed).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    const unknown = await fetch(`${url}/v2/whatever`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toBe('application/problem+json');
  });

  it('streams the live events of a run over SSE: model deltas, tool calls, interactions, state', async () => {
    const url = await serveHandler(
      createHandler({ agent: inventoryAgent({ delayMs: 20 }), store: memoryStore(), heartbeatMs: 30 }),
    );
    const started = await post(`${url}/runs`, { input: 'Thaw one' });
    const runId = started.body.runId;
    const abort = new AbortController();
    const response = await fetch(`${url}/runs/${runId}/events`, { signal: abort.signal });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events: SseEvent[] = [];
    const reading = (async () => {
      for await (const event of readSse(response.body!)) {
        events.push(event);
        if (event.event === 'turn_completed') break;
      }
    })();
    await until(() => events.some((event) => event.event === 'comment'));
    const answered = await post(`${url}/runs/${runId}/answer`, answer);
    await post(`${url}/runs/${runId}/approve`, { id: answered.body.pending[0].id });
    await reading;
    abort.abort();
    const names = events.map((event) => event.event).filter((name) => name !== 'comment');
    expect(names[0]).toBe('state');
    expect(events[0]!.data).toMatchObject({ runId, status: 'needs_input' });
    expect(events[0]!.data.snapshot).toBeUndefined();
    for (const name of ['interaction_resolved', 'model_delta', 'interaction_requested', 'turn_paused']) {
      expect(names).toContain(name);
    }
    expect(names.indexOf('tool_started')).toBeLessThan(names.indexOf('turn_completed'));
    const deltas = events.filter((event) => event.event === 'model_delta').map((event) => event.data.text);
    expect(deltas.join('')).toContain('Done: ');
    const states = events.filter((event) => event.event === 'state');
    expect(states.at(-1)!.data.status).toBe('needs_input');
    const seqs = events.filter((event) => event.id !== undefined).map((event) => Number(event.id));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(answered.body.lastSeq).toBe(
      Number(events.filter((event) => event.event === 'turn_paused').at(-1)!.id),
    );
  });
});

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
