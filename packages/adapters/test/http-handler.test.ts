import { memoryStore, type SnapshotStore } from '@turnkit/core';
import { describe, expect, it, vi } from 'vitest';
import { createHandler } from '../src/http/public.js';
import { inventoryAgent, send, streamingPost } from './http-fixtures.js';

function storeHandler(options: Parameters<typeof inventoryAgent>[0] = {}, extra = {}) {
  const thawed: string[][] = [];
  const handler = createHandler({
    agent: inventoryAgent({ ...options, thawed }),
    store: memoryStore(),
    ...extra,
  });
  return { handler, thawed };
}

async function startPaused(handler: (request: Request) => Promise<Response>) {
  const started = await send(handler, 'POST', '/runs', { input: 'Thaw a vial for tomorrow' });
  expect(started.status).toBe(201);
  return started.body.runId as string;
}

const multiAnswer = { answers: { 'Cell lines': { selected: ['K562', 'HeLa'], other: 'Jurkat' } } };

describe('createHandler in store mode', () => {
  it('plays a full run over HTTP: question → answer → approval → completed', async () => {
    const { handler, thawed } = storeHandler();
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw a vial for tomorrow' });
    expect(started.status).toBe(201);
    const runId = started.body.runId;
    expect(runId).toMatch(/^run_[A-Za-z0-9_-]{22}$/);
    expect(started.headers.get('location')).toBe(`/runs/${runId}`);
    expect(started.body).toMatchObject({
      status: 'needs_input',
      needsInput: true,
      output: null,
      error: null,
    });
    expect(started.body.pending[0].payload.questions[0].header).toBe('Cell lines');
    expect(started.body.snapshot).toBeUndefined();
    expect(started.body.version).toBe(2);
    expect(started.body.lastSeq).toBeGreaterThan(0);

    const answered = await send(handler, 'POST', `/runs/${runId}/answer`, multiAnswer);
    expect(answered.status).toBe(200);
    expect(answered.body.pending[0]).toMatchObject({ kind: 'approval', toolName: 'thaw_vials' });
    expect(answered.body.pending[0].payload.reason).toBe('Thawing cannot be undone.');
    const toolMessage = answered.body.messages.find((m: { role: string }) => m.role === 'tool');
    expect(toolMessage.content).toContain('K562, HeLa, Other (custom: Jurkat)');

    const approved = await send(handler, 'POST', `/runs/${runId}/approve`, { rationale: 'ok' });
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('completed');
    expect(approved.body.output).toContain('"thawed":["K562"]');
    expect(thawed).toEqual([['K562']]);

    const read = await send(handler, 'GET', `/runs/${runId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ runId, status: 'completed', output: approved.body.output });
    expect(read.body.messages).toEqual(approved.body.messages);

    const next = await send(handler, 'POST', `/runs/${runId}/messages`, { input: 'Thanks!' });
    expect(next.body).toMatchObject({ status: 'completed', output: 'You are welcome.' });
  });

  it('rejects an approval and cancels a question', async () => {
    const { handler, thawed } = storeHandler();
    const runId = await startPaused(handler);
    const cancelled = await send(handler, 'POST', `/runs/${runId}/cancel`, { reason: 'not now' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.pending[0].kind).toBe('approval');
    const rejected = await send(handler, 'POST', `/runs/${runId}/reject`, { rationale: 'too early' });
    expect(rejected.status).toBe(200);
    expect(rejected.body.output).toContain('rejected_by_user');
    expect(thawed).toEqual([]);
  });

  it('treats a repeated identical answer as a read and a different one as a 409 CONFLICT', async () => {
    const { handler } = storeHandler();
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw a vial for tomorrow' });
    const { runId } = started.body;
    const answer = { id: started.body.pending[0].id, ...multiAnswer };
    const first = await send(handler, 'POST', `/runs/${runId}/answer`, answer);
    const again = await send(handler, 'POST', `/runs/${runId}/answer`, answer);
    expect(again.status).toBe(200);
    expect(again.body.version).toBe(first.body.version);
    expect(again.body.pending).toEqual(first.body.pending);
    expect(again.body.lastSeq).toBeNull();
    const other = await send(handler, 'POST', `/runs/${runId}/answer`, { ...answer, answers: ['HeLa'] });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('CONFLICT');
  });

  it('maps TurnKit errors to problem details with the right status', async () => {
    const { handler } = storeHandler();
    const runId = await startPaused(handler);
    const invalid = await send(handler, 'POST', `/runs/${runId}/answer`, {
      answers: { 'Cell lines': ['Yeast'] },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('content-type')).toBe('application/problem+json');
    expect(invalid.body).toMatchObject({
      type: 'urn:turnkit:problem:answer-invalid',
      title: 'Unprocessable Content',
      status: 422,
      code: 'ANSWER_INVALID',
    });
    expect(invalid.body.issues[0].message).toMatch(/Yeast/);
    const wrongKind = await send(handler, 'POST', `/runs/${runId}/approve`, {});
    expect(wrongKind).toMatchObject({ status: 409, body: { code: 'WRONG_KIND' } });
    const unknownId = await send(handler, 'POST', `/runs/${runId}/answer`, { id: 'nope', answers: 'K562' });
    expect(unknownId).toMatchObject({ status: 409, body: { code: 'INTERACTION_NOT_FOUND' } });
    await send(handler, 'POST', `/runs/${runId}/answer`, multiAnswer);
    const approved = await send(handler, 'POST', `/runs/${runId}/approve`, {});
    const repeated = await send(handler, 'POST', `/runs/${runId}/approve`, {});
    expect(repeated).toMatchObject({
      status: 200,
      body: { status: 'completed', version: approved.body.version },
    });
    const retry = await send(handler, 'POST', `/runs/${runId}/retry`, {});
    expect(retry).toMatchObject({ status: 409, body: { code: 'NOT_WAITING' } });
  });

  it('answers 404 RUN_NOT_FOUND for unknown and unusable run ids', async () => {
    const { handler } = storeHandler();
    for (const path of ['/runs/run_unknown', '/runs/run_unknown/events', '/runs/..%2Fetc']) {
      const response = await send(handler, 'GET', path);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('RUN_NOT_FOUND');
    }
    const answer = await send(handler, 'POST', '/runs/run_unknown/answer', multiAnswer);
    expect(answer).toMatchObject({ status: 404, body: { code: 'RUN_NOT_FOUND' } });
  });

  it('answers 410 INTERACTION_EXPIRED, with the new state, when the answer comes after expiresAt', async () => {
    let clock = new Date('2030-01-01T00:00:00Z');
    const { handler } = storeHandler({ questionTimeoutMs: 60_000 }, { now: () => clock });
    const runId = await startPaused(handler);
    clock = new Date('2030-01-01T00:05:00Z');
    const late = await send(handler, 'POST', `/runs/${runId}/answer`, multiAnswer);
    expect(late.status).toBe(410);
    expect(late.body.code).toBe('INTERACTION_EXPIRED');
    expect(late.body.run.pending[0].kind).toBe('approval');
    const toolMessage = late.body.run.messages.find((m: { role: string }) => m.role === 'tool');
    expect(toolMessage.content).toContain('question_timeout');
  });

  it('refuses bodies that are not JSON, not an object of the route, or not sent as JSON', async () => {
    const { handler } = storeHandler();
    const malformed = await send(handler, 'POST', '/runs', '{"input": "hi"');
    expect(malformed).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    expect(malformed.body.detail).toMatch(/not valid JSON/);
    const notUtf8 = await handler(
      new Request('http://test.local/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: new Uint8Array([0x7b, 0xff, 0x7d]),
      }),
    );
    expect(notUtf8.status).toBe(400);
    const typo = await send(handler, 'POST', '/runs', { input: 'hi', answer: 'x' });
    expect(typo.status).toBe(400);
    expect(typo.body.issues).toEqual([{ path: [], message: expect.stringMatching(/answer/) }]);
    const missing = await send(handler, 'POST', '/runs', {});
    expect(missing.body.detail).toMatch(/- input: /);
    const asText = await send(handler, 'POST', '/runs', '{"input":"hi"}', { 'content-type': 'text/plain' });
    expect(asText).toMatchObject({ status: 415, body: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    const noType = await handler(new Request('http://test.local/runs/run_x/approve', { method: 'POST' }));
    expect(noType.status).toBe(415);
    const proto = await send(handler, 'POST', '/runs/run_x/answer', '{"answers":{"constructor":"K562"}}');
    expect(proto.status).toBe(400);
    const snapshotInStoreMode = await send(handler, 'POST', '/runs/run_x/retry', { snapshot: 'x' });
    expect(snapshotInStoreMode.status).toBe(400);
  });

  it('refuses an oversize body while reading it, with or without Content-Length', async () => {
    const { handler } = storeHandler({}, { maxBodyBytes: 1000 });
    const big = JSON.stringify({ input: 'x'.repeat(2000) });
    const declared = await send(handler, 'POST', '/runs', big);
    expect(declared).toMatchObject({ status: 413, body: { code: 'BODY_TOO_LARGE' } });
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode(' '.repeat(400)));
        if (pulled > 100) controller.close();
      },
    });
    const chunked = await handler(streamingPost('http://test.local/runs', stream));
    expect(chunked.status).toBe(413);
    expect(pulled).toBeLessThan(10);
    const lying = await handler(
      new Request('http://test.local/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': '10' },
        body: big,
      }),
    );
    expect(lying.status).toBe(413);
  });

  it('answers unknown routes with a 404 problem and never leaks a stack trace', async () => {
    const onError = vi.fn();
    const failing: SnapshotStore = {
      get: async () => {
        throw new Error('disk on fire at /secret/path');
      },
      put: async () => {
        throw new Error('disk on fire');
      },
      renew: async () => {},
      listExpired: async () => [],
      delete: async () => {},
    };
    const handler = createHandler({ agent: inventoryAgent(), store: failing, onError });
    const unknown = await send(handler, 'GET', '/nowhere');
    expect(unknown).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    const wrongMethod = await send(handler, 'DELETE', '/runs/run_x');
    expect(wrongMethod.status).toBe(404);
    const broken = await send(handler, 'GET', '/runs/run_x');
    expect(broken.status).toBe(500);
    expect(broken.body.code).toBe('INTERNAL');
    expect(JSON.stringify(broken.body)).not.toMatch(/fire|secret|at /);
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it('serves under basePath, can leave out messages, and builds the run context from the request', async () => {
    const seen: unknown[] = [];
    const handler = createHandler({
      agent: inventoryAgent(),
      store: memoryStore(),
      basePath: '/api/agent/',
      messages: false,
      context: (request) => ({ user: request.headers.get('x-user') }),
      onEvent: (event) => seen.push(event.type),
    });
    const started = await send(handler, 'POST', '/api/agent/runs', { input: 'hi' }, { 'x-user': 'ada' });
    expect(started.status).toBe(201);
    expect(started.headers.get('location')).toBe(`/api/agent/runs/${started.body.runId}`);
    expect(started.body.messages).toBeUndefined();
    expect(seen).toContain('turn_paused');
    expect((await send(handler, 'POST', '/runs', { input: 'hi' })).status).toBe(404);
  });
});
