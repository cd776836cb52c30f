/**
 * With OPENAI_API_KEY the demo runs the same agent on `openAIModel`. A local server speaking the
 * Chat Completions streaming protocol stands in for OpenAI (OPENAI_BASE_URL), so the test is
 * offline: it checks the wiring (model name, base URL, tools offered, streamed text), not a model.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cleanup, runCli, tempDir } from './helpers.js';

interface SeenRequest {
  model: string;
  tools: string[];
  stream: boolean;
}

const seen: SeenRequest[] = [];
let server: Server;
let baseURL: string;

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  const body = {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'fake',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

const QUESTION = {
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

/** Asks one question, then repeats the answer it got back, streamed in two pieces. */
async function fakeModel(request: IncomingMessage, response: ServerResponse): Promise<void> {
  let text = '';
  for await (const piece of request) text += piece;
  const body = JSON.parse(text) as {
    model: string;
    stream: boolean;
    tools?: { function: { name: string } }[];
    messages: { role: string; content: string }[];
  };
  seen.push({
    model: body.model,
    tools: (body.tools ?? []).map((tool) => tool.function.name),
    stream: body.stream,
  });
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const last = body.messages.at(-1)!;
  if (last.role === 'user') {
    const call = {
      index: 0,
      id: 'call_1',
      type: 'function',
      function: { name: 'AskUserQuestion', arguments: JSON.stringify(QUESTION) },
    };
    response.write(chunk({ role: 'assistant', tool_calls: [call] }));
    response.write(chunk({}, 'tool_calls'));
  } else {
    response.write(chunk({ role: 'assistant', content: 'You picked: ' }));
    response.write(chunk({ content: last.content }));
    response.write(chunk({}, 'stop'));
  }
  response.end('data: [DONE]\n\n');
}

beforeAll(async () => {
  server = createServer((request, response) => void fakeModel(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  cleanup();
  await new Promise((resolve) => server.close(resolve));
});

it('uses openAIModel with OPENAI_API_KEY, OPENAI_BASE_URL and --model, offering the same tools', async () => {
  const run = await runCli(['--model', 'fake-model', 'Thaw one K562 vial'], {
    input: '2\n\n',
    dir: tempDir(),
    env: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: baseURL },
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(`Model: fake-model at ${baseURL}`);
  expect(run.stdout).toContain('╭─ Cell line ');
  expect(run.stdout).toContain('Agent › You picked: {"answers":{"Cell line":"K562-dTAG"}}');
  expect(seen).toHaveLength(2);
  expect(seen[0]).toEqual({
    model: 'fake-model',
    stream: true,
    tools: ['query_inventory', 'record_thaw', 'AskUserQuestion'],
  });
});
