/**
 * DESIGN §18, proven on the real runtimes: the handler's whole client-held scenario (start →
 * needs_input → SSE events → answer → completed; a tampered snapshot → 403; an `encrypt: true`
 * run) on workerd without `nodejs_compat` at compatibility date 2025-09-01, edge-runtime, Deno with
 * `--allow-net` only, Bun and Node; and a snapshot started on each runtime answered on every other.
 * Each server is started once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, sseResults, userMessage } from './a2a-calls.js';
import { handler as lambda } from './app/lambda.js';
import { POST } from './app/next-route.js';
import { buildApps, RUNTIMES, type Served, serve } from './servers.js';

const served = new Map<string, Served>();

beforeAll(async () => {
  await buildApps();
  for (const server of await Promise.all(RUNTIMES.map((runtime) => serve(runtime)))) {
    served.set(server.runtime, server);
  }
}, 120_000);

afterAll(() => {
  for (const server of served.values()) server.stop();
});

const answer = { answers: { 'Cell line': { selected: ['K562'] } } };

/** A JSON request to a runtime; its status and parsed body. */
async function call(runtime: string, path: string, body: unknown) {
  const response = await fetch(`${served.get(runtime)!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Reads an SSE stream until an event named `until`; every event's name and parsed data. */
async function readEvents(response: Response, until: string) {
  const events: { event: string; data: { status?: string } }[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  while (!events.some((event) => event.event === until)) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += value;
    let end = buffered.indexOf('\n\n');
    for (; end >= 0; end = buffered.indexOf('\n\n')) {
      const lines = buffered.slice(0, end).split('\n');
      buffered = buffered.slice(end + 2);
      const event = lines
        .find((line) => line.startsWith('event:'))
        ?.slice(6)
        .trim();
      const data = lines
        .find((line) => line.startsWith('data:'))
        ?.slice(5)
        .trim();
      if (event && data) events.push({ event, data: JSON.parse(data) });
    }
  }
  await reader.cancel();
  return events;
}

describe.each(RUNTIMES.map((runtime) => runtime.name))('the client-held handler on %s', (runtime) => {
  it('plays start → needs_input → SSE events → answer → completed', async () => {
    const started = await call(runtime, '/plain/runs', { input: 'Thaw one' });
    expect(started.status).toBe(200);
    expect(started.body.status).toBe('needs_input');
    const { runId, snapshot, eventsToken } = started.body;
    const stream = await fetch(`${served.get(runtime)!.url}/plain/runs/${runId}/events`, {
      headers: { 'turnkit-events-token': eventsToken },
    });
    expect(stream.status).toBe(200);
    const reading = readEvents(stream, 'state');
    const answered = await call(runtime, `/plain/runs/${runId}/answer`, { ...answer, snapshot });
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('completed');
    expect(answered.body.output).toContain('K562');
    const events = await reading;
    expect(events[0]!.event).toBe('ready');
    expect(events.at(-1)!.data.status).toBe('completed');
  });

  it('refuses a tampered snapshot with 403 SNAPSHOT_TAMPERED', async () => {
    const started = await call(runtime, '/plain/runs', { input: 'Thaw one' });
    const snapshot = started.body.snapshot.replace('Thaw one', 'Thaw all');
    const answered = await call(runtime, `/plain/runs/${started.body.runId}/answer`, { ...answer, snapshot });
    expect(answered.status).toBe(403);
    expect(answered.body.code).toBe('SNAPSHOT_TAMPERED');
  });

  it('plays an encrypt: true run whose snapshot shows no transcript', async () => {
    const started = await call(runtime, '/sealed/runs', { input: 'Thaw one' });
    expect(started.body.status).toBe('needs_input');
    expect(started.body.snapshot).not.toContain('Thaw one');
    const answered = await call(runtime, `/sealed/runs/${started.body.runId}/answer`, {
      ...answer,
      snapshot: started.body.snapshot,
    });
    expect(answered.body.status).toBe('completed');
    expect(answered.body.output).toContain('K562');
  });
});

describe.each(RUNTIMES.map((runtime) => runtime.name))('the A2A mount on %s', (runtime) => {
  it('serves the card, a task through input-required to completed, and JSON-RPC errors', async () => {
    const base = served.get(runtime)!.url;
    const card = await (
      await fetch(`${base}/a2a-agent/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
    ).json();
    expect(card.supportedInterfaces[0]).toMatchObject({ protocolBinding: 'JSONRPC', protocolVersion: '1.0' });

    const asked = JSON.parse((await rpc(base, 'SendMessage', userMessage('Thaw one'))).text).result.task;
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(JSON.stringify(asked.status.message)).toContain('Which cell line should I thaw?');
    const done = JSON.parse((await rpc(base, 'SendMessage', userMessage('K562', asked.id))).text).result.task;
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.stringify(done.artifacts)).toContain('K562');

    const unknown = await rpc(base, 'GetTask', { id: 'no-such-task' });
    expect(unknown.status).toBe(200);
    expect(JSON.parse(unknown.text).error.code).toBe(-32001);
  });

  it('streams a task over SSE (SendStreamingMessage) to its pause', async () => {
    const streamed = await rpc(served.get(runtime)!.url, 'SendStreamingMessage', userMessage('Thaw one'));
    expect(streamed.type).toContain('text/event-stream');
    const last = sseResults(streamed.text).at(-1);
    expect(last?.statusUpdate?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });
});

describe('a snapshot started on one runtime, answered on another', () => {
  it.each(['plain', 'sealed'])('completes for every pair of runtimes (%s)', async (mode) => {
    const names = RUNTIMES.map((runtime) => runtime.name);
    const started = await Promise.all(
      names.map((name) => call(name, `/${mode}/runs`, { input: 'Thaw one' })),
    );
    const outcomes: string[] = [];
    for (const [index, from] of names.entries()) {
      const { runId, snapshot } = started[index]!.body;
      for (const to of names) {
        const answered = await call(to, `/${mode}/runs/${runId}/answer`, { ...answer, snapshot });
        outcomes.push(`${from} → ${to}: ${answered.status} ${answered.body.status}`);
      }
    }
    expect(outcomes).toEqual(names.flatMap((from) => names.map((to) => `${from} → ${to}: 200 completed`)));
  });
});

describe('the guides that need no separate runtime', () => {
  it('serves a Next.js App Router route from the handler', async () => {
    const response = await POST(
      new Request('http://localhost/plain/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'Thaw one' }),
      }),
    );
    expect(response.status).toBe(200);
    expect((await response.json()).status).toBe('needs_input');
  });

  it('answers a synthetic API Gateway v2 event through hono/aws-lambda', async () => {
    const event: Parameters<typeof lambda>[0] = {
      version: '2.0',
      routeKey: '$default',
      rawPath: '/plain/runs',
      rawQueryString: '',
      headers: { 'content-type': 'application/json', host: 'agent.example.com' },
      requestContext: {
        accountId: '123456789012',
        authentication: null,
        authorizer: {},
        apiId: 'api',
        domainName: 'agent.example.com',
        domainPrefix: 'agent',
        http: {
          method: 'POST',
          path: '/plain/runs',
          protocol: 'HTTP/1.1',
          sourceIp: '192.0.2.1',
          userAgent: 'test',
        },
        requestId: 'request',
        routeKey: '$default',
        stage: '$default',
        time: '26/Nov/2026:15:00:00 +0000',
        timeEpoch: 0,
      },
      body: JSON.stringify({ input: 'Thaw one' }),
      isBase64Encoded: false,
    };
    const result = await lambda(event, {} as Parameters<typeof lambda>[1]);
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body).status).toBe('needs_input');
  });
});
