/**
 * End-to-end runs of the core loop on `openAIModel`, through the real `openai` client, against the
 * loopback chat-completions server: pause on a question → answer → complete, parallel tool calls with
 * an approval, both in streaming and non-streaming mode; a server failure, an abort mid-stream and a
 * malformed tool call, each followed by what the loop sends next. Every test checks what the server
 * received (messages, tools, stream flags) as well as the TurnResults.
 */
import type { ServerResponse } from 'node:http';
import {
  type Agent,
  type AgentEvent,
  answerQuestion,
  approve,
  askUserQuestion,
  type ChatMessage,
  defineAgent,
  defineTool,
  type ModelAdapter,
  runTurn,
} from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type ChatServer,
  chunk,
  completion,
  type ReceivedRequest,
  sendJson,
  sendSse,
  startSse,
  usageChunk,
} from './helpers/chat-server.js';
import { OPENAI_MAJORS, type OpenAIMajor, useChatServer } from './helpers/openai-fixtures.js';

const chat = useChatServer();

const INSTRUCTIONS = 'You are an LN2 inventory assistant.';
const SYSTEM: ChatMessage = { role: 'system', content: INSTRUCTIONS };
const USER: ChatMessage = { role: 'user', content: 'Thaw one K562 vial ❄️' };

type Mode = 'stream' | 'json';

/** One scripted model answer: text pieces and tool calls whose arguments arrive in pieces. */
interface Reply {
  text?: string[];
  toolCalls?: { id: string; name: string; args: string[] }[];
  usage?: [prompt: number, completion: number];
}

/** Cuts a text into pieces of `size` characters (the shape of a streamed tool-call argument). */
function pieces(text: string, size = 7): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

/**
 * Answers one request with `reply`: in `stream` mode as SSE, the text piece by piece, then every
 * tool call's first fragment (id, name), then the argument pieces interleaved across the calls
 * (round robin, as parallel calls arrive from OpenAI), then the finish and usage chunks; in `json`
 * mode as one chat.completion.
 */
function answer(mode: Mode, reply: Reply) {
  return (_request: ReceivedRequest, response: ServerResponse) => {
    const calls = reply.toolCalls ?? [];
    const usage = reply.usage ?? [10, 5];
    if (mode === 'json') {
      const toolCalls = calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.args.join('') },
      }));
      sendJson(
        response,
        200,
        completion(
          {
            content: reply.text ? reply.text.join('') : null,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          { prompt_tokens: usage[0], completion_tokens: usage[1] },
        ),
      );
      return;
    }
    const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })];
    for (const text of reply.text ?? []) chunks.push(chunk({ content: text }));
    calls.forEach((call, index) => {
      chunks.push(
        chunk({
          tool_calls: [
            { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
          ],
        }),
      );
    });
    const longest = Math.max(0, ...calls.map((call) => call.args.length));
    for (let position = 0; position < longest; position++) {
      calls.forEach((call, index) => {
        const piece = call.args[position];
        if (piece !== undefined)
          chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
      });
    }
    chunks.push(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'));
    chunks.push(usageChunk(usage[0], usage[1]));
    sendSse(response, chunks);
  };
}

type Handler = (request: ReceivedRequest, response: ServerResponse) => void | Promise<void>;

/** The server answers its next requests with `handlers`, in order; one request too many gets a 400. */
function script(server: ChatServer, handlers: Handler[]): void {
  const queue = [...handlers];
  server.respond = async (request, response) => {
    const handler = queue.shift();
    if (!handler) {
      sendJson(response, 400, { error: { message: `unexpected request #${server.requests.length}` } });
      return;
    }
    await handler(request, response);
  };
}

/** The tools the tests use; each execution is logged, so a test can tell how often it ran. */
function lab(model: ModelAdapter, log: string[] = []): Agent {
  const queryInventory = defineTool({
    name: 'query_inventory',
    description: 'Find vials of a cell line in the freezer.',
    input: z.object({ cellLine: z.string() }),
    execute: ({ cellLine }) => {
      log.push(`query:${cellLine}`);
      return { cellLine, vials: 3 };
    },
  });
  const recordThaw = defineTool({
    name: 'record_thaw',
    description: 'Record that vials were taken out of the freezer.',
    input: z.object({ cellLine: z.string(), vials: z.number().int().positive() }),
    needsApproval: (input) => `Removes ${input.vials} vial(s) of ${input.cellLine}`,
    execute: ({ cellLine, vials }) => {
      log.push(`thaw:${cellLine}x${vials}`);
      return { recorded: true, cellLine, vials };
    },
  });
  return defineAgent({
    name: 'lab',
    instructions: INSTRUCTIONS,
    model,
    tools: [queryInventory, recordThaw, askUserQuestion()],
  });
}

/** The texts of the `model_delta` events, in order. */
function deltas(events: AgentEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'model_delta' ? [event.text] : []));
}

/** What every request must carry besides its messages: the model, the agent's tools, the stream flags. */
function expectRequestShape(request: ReceivedRequest | undefined, agent: Agent, mode: Mode): void {
  expect(request?.method).toBe('POST');
  expect(request?.url).toBe('/v1/chat/completions');
  expect(request?.headers.authorization).toBe('Bearer test');
  expect(request?.body.model).toBe('test-model');
  expect(request?.body.tools).toEqual(agent.toolSpecs.all);
  if (mode === 'stream') {
    expect(request?.body.stream).toBe(true);
    expect(request?.body.stream_options).toEqual({ include_usage: true });
  } else {
    expect(request?.body.stream).toBe(false);
    expect(request?.body).not.toHaveProperty('stream_options');
  }
}

const questionArgs = JSON.stringify({
  questions: [
    {
      question: 'Which K562 line do you mean?',
      header: 'Cell line',
      options: [
        { label: 'K562', description: 'Parental line' },
        { label: 'K562-dTAG', description: 'Degron knock-in' },
      ],
    },
  ],
});

describe.each(OPENAI_MAJORS)('openai $major', (major: OpenAIMajor) => {
  const chatModel = (options: Parameters<typeof chat.model>[0] = {}) => chat.model(options, major);

  describe.each<Mode>(['stream', 'json'])('a run on openAIModel (%s)', (mode) => {
    const model = () => chatModel({ stream: mode === 'stream' });

    it('pauses on AskUserQuestion, resumes with answerQuestion, sends the answers and completes', async () => {
      const agent = lab(model());
      const finalText = ['Thawing ', 'one ', 'K562-dTAG ', 'vial', '.'];
      script(chat.server, [
        answer(mode, {
          text: ['One question ', 'first.'],
          toolCalls: [{ id: 'call_ask', name: 'AskUserQuestion', args: pieces(questionArgs) }],
          usage: [120, 30],
        }),
        answer(mode, { text: finalText, usage: [160, 6] }),
      ]);

      const firstEvents: AgentEvent[] = [];
      const r1 = await runTurn(
        agent,
        { input: USER.content },
        { onEvent: (event) => firstEvents.push(event) },
      );
      expect(r1.status).toBe('needs_input');
      expect(r1.error).toBeNull();
      expect(r1.usage).toEqual({ modelCalls: 1, toolCalls: 0, inputTokens: 120, outputTokens: 30 });
      expect(r1.pending).toHaveLength(1);
      expect(r1.pendingQuestion).toMatchObject({
        kind: 'question',
        toolCallId: 'call_ask',
        toolName: 'AskUserQuestion',
        payload: {
          questions: [
            {
              question: 'Which K562 line do you mean?',
              header: 'Cell line',
              multiSelect: false,
              options: [
                { label: 'K562', description: 'Parental line' },
                { label: 'K562-dTAG', description: 'Degron knock-in' },
              ],
            },
          ],
        },
      });
      expect(deltas(firstEvents)).toEqual(mode === 'stream' ? ['One question ', 'first.'] : []);
      expect(chat.server.requests).toHaveLength(1);
      expectRequestShape(chat.server.requests[0], agent, mode);
      expect(chat.server.requests[0]?.body.messages).toEqual([SYSTEM, USER]);

      const events: AgentEvent[] = [];
      const r2 = await answerQuestion(
        agent,
        r1.snapshot,
        { answers: { 'Cell line': 'K562-dTAG' } },
        { onEvent: (event) => events.push(event) },
      );
      expect(r2.status).toBe('completed');
      expect(r2.runId).toBe(r1.runId);
      expect(r2.output).toBe('Thawing one K562-dTAG vial.');
      expect(r2.usage).toEqual({ modelCalls: 1, toolCalls: 0, inputTokens: 160, outputTokens: 6 });
      expect(deltas(events)).toEqual(mode === 'stream' ? finalText : []);
      expect(deltas(r2.events)).toEqual(deltas(events));
      const answersResult = '{"answers":{"Cell line":"K562-dTAG"}}';
      expect(events.find((event) => event.type === 'interaction_resolved')).toMatchObject({
        resolution: 'answered',
        toolCallId: 'call_ask',
        result: answersResult,
      });

      expect(chat.server.requests).toHaveLength(2);
      expectRequestShape(chat.server.requests[1], agent, mode);
      const sent = [
        SYSTEM,
        USER,
        {
          role: 'assistant',
          content: 'One question first.',
          tool_calls: [
            {
              id: 'call_ask',
              type: 'function',
              function: { name: 'AskUserQuestion', arguments: questionArgs },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_ask', content: answersResult },
      ];
      expect(chat.server.requests[1]?.body.messages).toEqual(sent);
      expect(r2.messages).toEqual([
        ...sent.slice(1),
        { role: 'assistant', content: 'Thawing one K562-dTAG vial.' },
      ]);
    });

    it('runs a normal tool at once and the needsApproval one after approve, from one response of parallel calls', async () => {
      const log: string[] = [];
      const agent = lab(model(), log);
      const queryArgs = '{"cellLine":"K562"}';
      const thawArgs = '{"cellLine":"K562","vials":1}';
      script(chat.server, [
        answer(mode, {
          toolCalls: [
            { id: 'call_query', name: 'query_inventory', args: pieces(queryArgs, 5) },
            { id: 'call_thaw', name: 'record_thaw', args: pieces(thawArgs, 4) },
          ],
        }),
        answer(mode, { text: ['Recorded: ', 'one vial out.'] }),
      ]);

      const r1 = await runTurn(agent, { input: [USER] });
      expect(r1.status).toBe('needs_input');
      expect(log).toEqual(['query:K562']);
      expect(r1.usage.toolCalls).toBe(1);
      expect(r1.pending).toHaveLength(1);
      expect(r1.pending[0]).toMatchObject({
        kind: 'approval',
        toolCallId: 'call_thaw',
        toolName: 'record_thaw',
        payload: {
          toolName: 'record_thaw',
          input: { cellLine: 'K562', vials: 1 },
          reason: 'Removes 1 vial(s) of K562',
        },
      });
      expect(chat.server.requests).toHaveLength(1);
      expectRequestShape(chat.server.requests[0], agent, mode);
      expect(chat.server.requests[0]?.body.messages).toEqual([SYSTEM, USER]);

      const events: AgentEvent[] = [];
      const r2 = await approve(
        agent,
        r1.snapshot,
        { rationale: 'ok' },
        { onEvent: (event) => events.push(event) },
      );
      expect(r2.status).toBe('completed');
      expect(r2.output).toBe('Recorded: one vial out.');
      expect(log).toEqual(['query:K562', 'thaw:K562x1']);
      expect(r2.usage).toMatchObject({ modelCalls: 1, toolCalls: 1 });
      expect(deltas(events)).toEqual(mode === 'stream' ? ['Recorded: ', 'one vial out.'] : []);

      expect(chat.server.requests).toHaveLength(2);
      expectRequestShape(chat.server.requests[1], agent, mode);
      expect(chat.server.requests[1]?.body.messages).toEqual([
        SYSTEM,
        USER,
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_query',
              type: 'function',
              function: { name: 'query_inventory', arguments: queryArgs },
            },
            { id: 'call_thaw', type: 'function', function: { name: 'record_thaw', arguments: thawArgs } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_query', content: '{"cellLine":"K562","vials":3}' },
        { role: 'tool', tool_call_id: 'call_thaw', content: '{"recorded":true,"cellLine":"K562","vials":1}' },
      ]);
    });
  });

  describe('failures on openAIModel', () => {
    it('ends the turn failed with MODEL_ERROR on a 500 (after the client retry), and a retry completes without re-running tools', async () => {
      const log: string[] = [];
      const agent = lab(chatModel({ maxRetries: 1 }), log);
      const serverError: Handler = (_request, response) =>
        sendJson(response, 500, { error: { message: 'upstream exploded' } }, { 'retry-after-ms': '5' });
      script(chat.server, [
        answer('stream', {
          toolCalls: [{ id: 'call_query', name: 'query_inventory', args: ['{"cellLine":', '"K562"}'] }],
        }),
        serverError,
        serverError,
      ]);

      const reported: Error[] = [];
      const r1 = await runTurn(
        agent,
        { input: USER.content },
        { onError: (error) => reported.push(error as Error) },
      );
      expect(r1.status).toBe('failed');
      expect(r1.error).toEqual({
        code: 'MODEL_ERROR',
        message: 'The model provider failed (500). Retry the turn later.',
      });
      // The provider's text and address go to onError only, never to the result, events or snapshot.
      expect(reported.map((error) => error.message)).toEqual([
        expect.stringMatching(/500.*upstream exploded/),
      ]);
      for (const text of [r1.snapshot, JSON.stringify(r1.events), JSON.stringify(r1.error)]) {
        expect(text).not.toContain('upstream exploded');
        expect(text).not.toContain(chat.server.baseURL);
      }
      expect(r1.snapshot).toEqual(expect.any(String));
      expect(r1.snapshot.length).toBeGreaterThan(0);
      expect(r1.events.at(-1)).toMatchObject({ type: 'turn_failed', error: { code: 'MODEL_ERROR' } });
      expect(log).toEqual(['query:K562']);
      // The tool call, then the failed call sent twice (maxRetries 1) with the same transcript.
      expect(chat.server.requests).toHaveLength(3);
      const afterTool = [
        SYSTEM,
        USER,
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_query',
              type: 'function',
              function: { name: 'query_inventory', arguments: '{"cellLine":"K562"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_query', content: '{"cellLine":"K562","vials":3}' },
      ];
      expect(chat.server.requests[1]?.body.messages).toEqual(afterTool);
      expect(chat.server.requests[2]?.body).toEqual(chat.server.requests[1]?.body);

      // The server is healthy again: retrying the snapshot repeats only the failed model call.
      script(chat.server, [answer('stream', { text: ['3 vials ', 'of K562.'] })]);
      const r2 = await runTurn(agent, { snapshot: r1.snapshot });
      expect(r2.status).toBe('completed');
      expect(r2.error).toBeNull();
      expect(r2.output).toBe('3 vials of K562.');
      expect(r2.events[0]).toMatchObject({ type: 'turn_started', trigger: 'retry' });
      expect(log).toEqual(['query:K562']);
      expect(chat.server.requests).toHaveLength(4);
      expectRequestShape(chat.server.requests[3], agent, 'stream');
      expect(chat.server.requests[3]?.body.messages).toEqual(afterTool);
    });

    it('ends the turn aborted when the signal aborts mid-stream, keeps no partial text, and a retry completes', async () => {
      const agent = lab(chatModel());
      const controller = new AbortController();
      script(chat.server, [
        (_request, response) => {
          const sse = startSse(response);
          sse.send(chunk({ role: 'assistant', content: '' }));
          sse.send(chunk({ content: 'Partial ' }));
          // The stream stays open: the client aborts it.
        },
      ]);
      const events: AgentEvent[] = [];
      const r1 = await runTurn(
        agent,
        { input: USER.content },
        {
          signal: controller.signal,
          onEvent: (event) => {
            events.push(event);
            if (event.type === 'model_delta') setTimeout(() => controller.abort(), 20);
          },
        },
      );
      expect(r1.status).toBe('aborted');
      expect(r1.error).toBeNull();
      expect(deltas(events)).toEqual(['Partial ']);
      expect(events.at(-1)?.type).toBe('turn_aborted');
      expect(r1.messages).toEqual([USER]);
      expect(r1.snapshot.length).toBeGreaterThan(0);
      await chat.server.clientClosed;
      expect(chat.server.requests).toHaveLength(1);

      script(chat.server, [answer('stream', { text: ['Thawing ', 'one vial.'] })]);
      const retryEvents: AgentEvent[] = [];
      const r2 = await runTurn(
        agent,
        { snapshot: r1.snapshot },
        { onEvent: (event) => retryEvents.push(event) },
      );
      expect(r2.status).toBe('completed');
      expect(r2.output).toBe('Thawing one vial.');
      expect(deltas(retryEvents)).toEqual(['Thawing ', 'one vial.']);
      expect(r2.messages).toEqual([USER, { role: 'assistant', content: 'Thawing one vial.' }]);
      expect(chat.server.requests).toHaveLength(2);
      expectRequestShape(chat.server.requests[1], agent, 'stream');
      expect(chat.server.requests[1]?.body.messages).toEqual([SYSTEM, USER]);
    });

    it.each<Mode>(['stream', 'json'])(
      'sends invalid_arguments back to the model for tool calls whose arguments are not JSON (%s)',
      async (mode) => {
        const log: string[] = [];
        const agent = lab(chatModel({ stream: mode === 'stream' }), log);
        const brokenQuery = '{"cellLine": K562';
        const brokenQuestion = '{"questions": [{"question": "Which';
        script(chat.server, [
          answer(mode, {
            toolCalls: [
              { id: 'call_query', name: 'query_inventory', args: pieces(brokenQuery, 4) },
              { id: 'call_ask', name: 'AskUserQuestion', args: pieces(brokenQuestion, 6) },
            ],
          }),
          answer(mode, { text: ['Sorry, ', 'let me try again.'] }),
        ]);

        const result = await runTurn(agent, { input: USER.content });
        expect(result.status).toBe('completed');
        expect(result.output).toBe('Sorry, let me try again.');
        expect(log).toEqual([]);
        expect(chat.server.requests).toHaveLength(2);
        expectRequestShape(chat.server.requests[1], agent, mode);
        const messages = chat.server.requests[1]?.body.messages as ChatMessage[];
        expect(messages.slice(0, 3)).toEqual([
          SYSTEM,
          USER,
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_query',
                type: 'function',
                function: { name: 'query_inventory', arguments: brokenQuery },
              },
              {
                id: 'call_ask',
                type: 'function',
                function: { name: 'AskUserQuestion', arguments: brokenQuestion },
              },
            ],
          },
        ]);
        expect(
          messages.slice(3).map((message) => (message.role === 'tool' ? message.tool_call_id : null)),
        ).toEqual(['call_query', 'call_ask']);
        for (const message of messages.slice(3)) {
          expect(JSON.parse(message.content as string)).toMatchObject({
            ok: false,
            error_code: 'invalid_arguments',
            message: expect.stringMatching(/JSON/),
          });
        }
        expect(JSON.parse(messages[3]!.content as string).message).toMatch(/query_inventory/);
      },
    );
  });
});
