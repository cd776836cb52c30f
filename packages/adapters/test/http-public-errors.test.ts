/**
 * Public errors (DESIGN §13): a model call refused by the provider reaches clients as a public
 * message only. The real OpenAI adapter talks to a loopback server answering 401 with a key
 * fragment; every response body, SSE event and stored or held snapshot is scanned for the
 * provider's text, the base URL, the model id, the key and stack traces, and the handler's
 * `onError` is checked to receive the full error.
 */
import { defineAgent, ModelError, memoryStore } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { toProblem } from '../src/http/problem.js';
import { createHandler } from '../src/http/public.js';
import { openAIModel } from '../src/models/openai/openai.js';
import { sendJson, startChatServer } from './helpers/chat-server.js';
import { jsonRequest, readSse, SECRET, type SseEvent } from './http-fixtures.js';

const MODEL = 'gpt-private-deployment-7';
const API_KEY = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvwxyz';
const PROVIDER_TEXT = 'Incorrect API key provided: sk-proj-AbCd****wxyz';

type Reported = { error: unknown; run?: { runId: string; agentPath: string[] } };

async function refusingProvider() {
  const server = await startChatServer();
  server.respond = (_request, response) =>
    sendJson(response, 401, {
      error: {
        message: `${PROVIDER_TEXT}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      },
    });
  const agent = defineAgent({
    name: 'assistant',
    instructions: 'You are terse.',
    model: openAIModel({ model: MODEL, baseURL: server.baseURL, apiKey: API_KEY, maxRetries: 0 }),
    tools: [],
  });
  return { server, agent };
}

/** Everything a client or the store could show, checked for what only `onError` may see. */
function expectPublic(texts: string[], baseURL: string): void {
  const forbidden = [
    'Incorrect API key',
    'sk-proj',
    'AbCd',
    'wxyz',
    MODEL,
    baseURL,
    new URL(baseURL).host,
    'platform.openai.com',
  ];
  for (const text of texts) {
    for (const secret of forbidden) expect(text, `leaks ${secret}`).not.toContain(secret);
    expect(text).not.toMatch(/\n\s+at |\bat .+:\d+:\d+/);
  }
}

async function call(
  handler: (request: Request) => Promise<Response>,
  method: string,
  path: string,
  body?: unknown,
) {
  const response = await handler(jsonRequest(method, path, body));
  return { status: response.status, text: await response.text() };
}

/** Collects SSE events until the first `state` after `count` turn ends. */
async function collect(stream: AsyncGenerator<SseEvent>, turnEnds: number): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  let ends = 0;
  for await (const event of stream) {
    events.push(event);
    if (event.event.startsWith('turn_') && event.event !== 'turn_started') ends++;
    if (event.event === 'state' && ends >= turnEnds) break;
  }
  return events;
}

describe('public errors over HTTP, with the OpenAI adapter refused by its provider', () => {
  it('store mode: responses, SSE events and the stored snapshot carry only the public message', async () => {
    const { server, agent } = await refusingProvider();
    try {
      const reported: Reported[] = [];
      const store = memoryStore();
      const handler = createHandler({
        agent,
        store,
        onError: (error, _request, run) => reported.push(run ? { error, run } : { error }),
      });
      const started = await call(handler, 'POST', '/runs', { input: 'Hello' });
      expect(started.status).toBe(201);
      const view = JSON.parse(started.text);
      expect(view).toMatchObject({
        status: 'failed',
        error: { code: 'MODEL_ERROR', message: 'The model provider refused the credentials (401).' },
      });
      const runId = view.runId as string;
      const stream = await handler(jsonRequest('GET', `/runs/${runId}/events`));
      const events = collect(readSse(stream.body!), 1);
      const retried = await call(handler, 'POST', `/runs/${runId}/retry`, {});
      expect(JSON.parse(retried.text).status).toBe('failed');
      const sse = await events;
      expect(sse.map((event) => event.event)).toContain('turn_failed');
      const read = await call(handler, 'GET', `/runs/${runId}`);
      const stored = (await store.get(runId))!.snapshot;
      expectPublic(
        [started.text, retried.text, read.text, stored, ...sse.map((event) => JSON.stringify(event))],
        server.baseURL,
      );
      expect(reported).toHaveLength(2);
      for (const { error, run } of reported) {
        expect(String((error as Error).message)).toContain(PROVIDER_TEXT);
        expect(run).toEqual({ runId, agentPath: ['assistant'] });
      }
    } finally {
      await server.close();
    }
  });

  it('client-held mode: responses, SSE events and the held snapshot carry only the public message', async () => {
    const { server, agent } = await refusingProvider();
    try {
      const reported: unknown[] = [];
      const handler = createHandler({ agent, secret: SECRET, onError: (error) => reported.push(error) });
      const started = await call(handler, 'POST', '/runs', { input: 'Hello' });
      const view = JSON.parse(started.text);
      expect(view.error).toEqual({
        code: 'MODEL_ERROR',
        message: 'The model provider refused the credentials (401).',
      });
      const stream = await handler(
        jsonRequest('GET', `/runs/${view.runId}/events`, undefined, {
          'turnkit-events-token': view.eventsToken,
        }),
      );
      const events = collect(readSse(stream.body!), 1);
      const retried = await call(handler, 'POST', `/runs/${view.runId}/retry`, { snapshot: view.snapshot });
      expect(JSON.parse(retried.text).status).toBe('failed');
      const sse = await events;
      expect(sse.map((event) => event.event)).toContain('turn_failed');
      expectPublic(
        [started.text, retried.text, ...sse.map((event) => JSON.stringify(event))],
        server.baseURL,
      );
      expect(reported).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});

describe('toProblem', () => {
  it('answers a thrown model error with its public message, and reports the full error', () => {
    const error = new ModelError(`The API key was refused (401): ${PROVIDER_TEXT} at http://10.0.0.7/v1`, {
      status: 401,
    });
    const { body, report } = toProblem(error, true);
    expect(body).toMatchObject({ status: 502, code: 'MODEL_ERROR', detail: error.publicMessage });
    expectPublic([JSON.stringify(body)], 'http://10.0.0.7/v1');
    expect(report).toBe(true);
  });
});
