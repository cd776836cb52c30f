/**
 * A loopback HTTP server speaking the three provider protocols the demos use, for their tests: the
 * OpenAI Responses API (`POST /v1/responses`, SSE events), Chat Completions (`POST
 * /v1/chat/completions`, `data:` chunks) and Anthropic's Messages API (`POST /v1/messages`, SSE
 * events), each streamed as the real service streams it. Point `OPENAI_BASE_URL` or
 * `ANTHROPIC_BASE_URL` at `baseURL`. The model behind all three plays one script: asked anything,
 * it calls `AskUserQuestion` (which K562 line?); given the tool's result, it answers
 * `You picked: <result>` — as a `ThawPlan` JSON object (`summary` says it) when the request asks for
 * structured output (OpenAI's `json_schema`, Anthropic's `output_format`). A request with another key than the server's is refused with 401 and the
 * provider's own error body.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Which protocol a request spoke. */
export type FakeApi = 'responses' | 'chat' | 'messages';

/** What the server saw of one request. */
export interface SeenRequest {
  api: FakeApi;
  model: string;
  /** The tool names offered. */
  tools: string[];
  stream: boolean;
  /** The key sent (Bearer token or `x-api-key`). */
  apiKey: string | null;
  /**
   * The structured output asked for: `json_schema` (with the schema's name after a colon, e.g.
   * `json_schema:ln2_thaw_plan`), `json_object`, or null for plain text.
   */
  responseFormat: string | null;
}

/** A running fake. */
export interface FakeProviders {
  /** `http://127.0.0.1:<port>/v1`: the base URL of every protocol. */
  baseURL: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** The question the fake model asks. */
export const FAKE_QUESTION = {
  questions: [
    {
      question: 'Which K562 line?',
      header: 'Cell line',
      options: [
        { label: 'K562 (Recommended)', description: 'parental' },
        { label: 'K562-dTAG', description: 'degron' },
      ],
      multiSelect: false,
    },
  ],
};

const ASK = { name: 'AskUserQuestion', arguments: JSON.stringify(FAKE_QUESTION) };

type Body = Record<string, unknown>;
type Item = Record<string, unknown>;

/** The tool result the conversation ends with, or null when the model has not asked yet. */
function lastToolResult(api: FakeApi, body: Body): string | null {
  if (api === 'responses') {
    const last = (body.input as Item[]).at(-1);
    return last?.type === 'function_call_output' ? String(last.output) : null;
  }
  const last = (body.messages as Item[]).at(-1);
  if (api === 'chat') return last?.role === 'tool' ? String(last.content) : null;
  const parts = Array.isArray(last?.content) ? (last.content as Item[]) : [];
  const result = parts.find((part) => part.type === 'tool_result');
  return result ? String(result.content) : null;
}

function toolNames(body: Body): string[] {
  return ((body.tools as Item[] | undefined) ?? []).map((tool) =>
    String((tool.function as Item | undefined)?.name ?? tool.name),
  );
}

/** The structured output a request asks for (see {@link SeenRequest.responseFormat}). */
function responseFormatOf(api: FakeApi, body: Body): string | null {
  const format = (
    api === 'responses'
      ? (body.text as Item | undefined)?.format
      : api === 'chat'
        ? body.response_format
        : (body.output_format ?? (body.output_config as Item | undefined)?.format)
  ) as Item | undefined;
  if (!format || format.type === 'text') return null;
  const name = format.name ?? (format.json_schema as Item | undefined)?.name;
  return name ? `${String(format.type)}:${String(name)}` : String(format.type);
}

/** The final answer: `You picked: <result>`, as a ThawPlan's JSON when structured output is asked for. */
function answerText(result: string, structured: boolean): string[] {
  if (!structured) return ['You picked: ', result];
  const plan = { summary: `You picked: ${result}`, thawed: [], medium: null, followUps: [], nextSteps: [] };
  const json = JSON.stringify(plan);
  return [json.slice(0, 20), json.slice(20)];
}

function events(response: ServerResponse, named: boolean) {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  return (data: Item) =>
    response.write(`${named ? `event: ${String(data.type)}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
}

/** The Responses API's events: a function call, or a message. */
function streamResponses(
  response: ServerResponse,
  model: string,
  result: string | null,
  structured: boolean,
): void {
  const send = events(response, true);
  send({ type: 'response.created', response: { id: 'resp_fake_1', created_at: 0, model } });
  if (result === null) {
    const item = { type: 'function_call', id: 'fc_fake_1', call_id: 'call_ask_1', ...ASK };
    send({ type: 'response.output_item.added', output_index: 0, item: { ...item, arguments: '' } });
    send({
      type: 'response.function_call_arguments.delta',
      item_id: item.id,
      output_index: 0,
      delta: ASK.arguments,
    });
    send({ type: 'response.output_item.done', output_index: 0, item: { ...item, status: 'completed' } });
  } else {
    const item = { type: 'message', id: 'msg_fake_1' };
    send({ type: 'response.output_item.added', output_index: 0, item });
    for (const delta of answerText(result, structured))
      send({ type: 'response.output_text.delta', item_id: item.id, delta });
    send({ type: 'response.output_item.done', output_index: 0, item });
  }
  send({ type: 'response.completed', response: { usage: { input_tokens: 20, output_tokens: 8 } } });
  response.end();
}

/** Chat Completions chunks: a tool call, or text. */
function streamChat(response: ServerResponse, result: string | null, structured: boolean): void {
  const send = events(response, false);
  const chunk = (delta: Item, finish: string | null = null) =>
    send({
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'fake',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  if (result === null) {
    chunk({
      role: 'assistant',
      tool_calls: [{ index: 0, id: 'call_ask_1', type: 'function', function: ASK }],
    });
    chunk({}, 'tool_calls');
  } else {
    const [first, rest] = answerText(result, structured);
    chunk({ role: 'assistant', content: first });
    chunk({ content: rest });
    chunk({}, 'stop');
  }
  response.end('data: [DONE]\n\n');
}

/** Anthropic's Messages events: a `tool_use` block, or a text block. */
function streamMessages(
  response: ServerResponse,
  model: string,
  result: string | null,
  structured: boolean,
): void {
  const send = events(response, true);
  const usage = {
    input_tokens: 20,
    output_tokens: 1,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  send({
    type: 'message_start',
    message: {
      id: 'msg_fake_1',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
  if (result === null) {
    const block = { type: 'tool_use', id: 'toolu_ask_1', name: ASK.name, input: {} };
    send({ type: 'content_block_start', index: 0, content_block: block });
    send({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: ASK.arguments },
    });
  } else {
    send({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    for (const text of answerText(result, structured)) {
      send({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
    }
  }
  send({ type: 'content_block_stop', index: 0 });
  const stop = result === null ? 'tool_use' : 'end_turn';
  send({
    type: 'message_delta',
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: 8 },
  });
  send({ type: 'message_stop' });
  response.end();
}

/** The 401 each provider answers a wrong key with. */
function refuse(api: FakeApi, response: ServerResponse): void {
  const body =
    api === 'messages'
      ? { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }
      : {
          error: {
            message: 'Incorrect API key provided: wrong-key.',
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_api_key',
          },
        };
  response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const ROUTES: Record<string, FakeApi> = {
  '/v1/responses': 'responses',
  '/v1/chat/completions': 'chat',
  '/v1/messages': 'messages',
};

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  apiKey: string,
  seen: SeenRequest[],
) {
  const api = ROUTES[request.url ?? ''];
  if (request.method !== 'POST' || !api) {
    response.writeHead(404).end();
    return;
  }
  let text = '';
  for await (const piece of request) text += piece;
  const body = JSON.parse(text) as Body;
  const key =
    api === 'messages'
      ? ((request.headers['x-api-key'] as string | undefined) ?? null)
      : (request.headers.authorization?.replace(/^Bearer /, '') ?? null);
  const model = String(body.model);
  const responseFormat = responseFormatOf(api, body);
  seen.push({
    api,
    model,
    tools: toolNames(body),
    stream: body.stream === true,
    apiKey: key,
    responseFormat,
  });
  if (key !== apiKey) return refuse(api, response);
  const result = lastToolResult(api, body);
  const structured = responseFormat !== null;
  if (api === 'responses') streamResponses(response, model, result, structured);
  else if (api === 'chat') streamChat(response, result, structured);
  else streamMessages(response, model, result, structured);
}

/** Starts the fake on a free loopback port; requests with a key other than `apiKey` get 401. */
export async function startFakeProviders(options: { apiKey: string }): Promise<FakeProviders> {
  const requests: SeenRequest[] = [];
  const server = createServer((request, response) => {
    handle(request, response, options.apiKey, requests).catch((error: Error) => {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(error.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
