/**
 * Fixtures of the AG-UI handler tests: agents whose scripted models pause in every way (a question,
 * an approval, a tool's input form, a tool's own question, a sub-agent's approval bubbling up), a
 * loopback server around a handler, the real `@ag-ui/client` `HttpAgent` driving it with every event
 * it received checked against AG-UI's own schemas, and raw POSTs for what the client refuses to send.
 */
import { type BaseEvent, HttpAgent, type Message, type RunAgentResult } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import { type Agent, agentTool, defineAgent, defineTool, type ModelRequest } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { z } from 'zod';
import { agUiHandler } from '../../src/protocols/ag-ui/index.js';
import type { AgUiHandlerOptions } from '../../src/protocols/ag-ui/options.js';
import { type Listening, listen, readSse } from '../http-fixtures.js';

export { cellLineQuestion, inventoryAgent, SECRET } from '../http-fixtures.js';

/** The text of the last tool message of a request. */
const lastResult = (request: ModelRequest) =>
  request.messages.filter((message) => message.role === 'tool').at(-1)?.content ?? '';

/** A tool asking for a form mid-execution (`ctx.ask({ input })`), then recording the box chosen. */
export function formAgent(boxes: string[] = []): Agent {
  const recordThaw = defineTool({
    name: 'record_thaw',
    description: 'Record a thaw; asks which box.',
    input: z.object({ cellLine: z.string() }),
    execute: async ({ cellLine }, ctx) =>
      ctx.ask(
        {
          input: {
            message: `Which box holds ${cellLine}?`,
            schema: z.object({ box: z.enum(['B2-14', 'B2-15']) }),
          },
        },
        { cellLine },
      ),
    resume: async (_input, response) => {
      if (response.kind !== 'input') return { skipped: response.kind };
      const { box } = response.value as { box: string };
      boxes.push(box);
      return { thawed: (response.state as { cellLine: string }).cellLine, box };
    },
  });
  return defineAgent({
    name: 'forms',
    instructions: 'You record thaws.',
    model: scriptedModel([
      { toolCalls: [{ name: 'record_thaw', arguments: { cellLine: 'K562' } }] },
      (request) => `Recorded: ${lastResult(request)}`,
    ]),
    tools: [recordThaw],
  });
}

/** A tool asking its own question (`ctx.ask({ questions })`): not a top-level question call. */
export function askingToolAgent(): Agent {
  const pickMedium = defineTool({
    name: 'pick_medium',
    description: 'Pick a medium; asks which.',
    input: z.object({}),
    execute: async (_input, ctx) =>
      ctx.ask({ questions: [{ question: 'Which medium?', header: 'Medium', options: ['RPMI', 'DMEM'] }] }),
    resume: async (_input, response) => (response.kind === 'question' ? response.answers : null),
  });
  return defineAgent({
    name: 'media',
    instructions: 'You pick media.',
    model: scriptedModel([
      { toolCalls: [{ name: 'pick_medium', arguments: {} }] },
      (request) => `Medium: ${lastResult(request)}`,
    ]),
    tools: [pickMedium],
  });
}

/** A lead agent whose sub-agent's tool needs approval (bubbled up with `agentPath`). */
export function subagentApprovalAgent(disposed: string[] = []): Agent {
  const dispose = defineTool({
    name: 'dispose_vial',
    description: 'Dispose of a vial.',
    input: z.object({ vial: z.string() }),
    needsApproval: () => 'Disposal cannot be undone.',
    execute: async ({ vial }) => {
      disposed.push(vial);
      return { disposed: vial };
    },
  });
  const cleaner = defineAgent({
    name: 'cleaner',
    instructions: 'You clean the freezer.',
    model: scriptedModel([
      { toolCalls: [{ name: 'dispose_vial', arguments: { vial: 'A3-07' } }] },
      (request) => `Cleaned: ${lastResult(request)}`,
    ]),
    tools: [dispose],
  });
  return defineAgent({
    name: 'lead',
    instructions: 'You delegate.',
    model: scriptedModel([
      {
        text: 'Asking the cleaner.',
        toolCalls: [{ name: 'cleaner', arguments: { input: 'Dispose of A3-07' } }],
      },
      (request) => `Lead: ${lastResult(request)}`,
    ]),
    tools: [agentTool(cleaner, { questions: 'bubble' })],
  });
}

const servers: Listening[] = [];

/** Serves `agUiHandler(options)` on loopback; {@link closeServers} stops every one. */
export async function serveAgUi(options: AgUiHandlerOptions): Promise<string> {
  const server = await listen(agUiHandler(options));
  servers.push(server);
  return `${server.url}/ag-ui`;
}

/** Stops the servers {@link serveAgUi} started. */
export async function closeServers(): Promise<void> {
  await Promise.all(servers.splice(0).map((server) => server.close()));
}

/** An `HttpAgent` with the events of each run recorded and checked. */
export interface Client {
  agent: HttpAgent;
  /** Every event of the last run, as received (validated by AG-UI's schemas). */
  events: BaseEvent[];
  run(parameters?: Parameters<HttpAgent['runAgent']>[0]): Promise<RunAgentResult>;
}

/** A real AG-UI client for `url`. */
export function client(
  url: string,
  threadId: string,
  initialMessages: Message[] = [{ id: 'u1', role: 'user', content: 'Thaw one vial' }],
  headers: Record<string, string> = {},
): Client {
  const agent = new HttpAgent({ url, threadId, initialMessages, headers });
  const result: Client = {
    agent,
    events: [],
    async run(parameters) {
      result.events = [];
      return agent.runAgent(parameters, {
        onEvent: ({ event }) => {
          EventSchemas.parse(event);
          result.events.push(event);
        },
      });
    },
  };
  return result;
}

/** The event types of a run, in order. */
export const typesOf = (events: readonly { type: string }[]) => events.map((event) => event.type);

/** A raw `RunAgentInput` starting `threadId` with one user message, plus `extra` fields. */
export const startBody = (threadId: string, extra: Record<string, unknown> = {}) => ({
  threadId,
  runId: 'r1',
  messages: [{ id: 'u1', role: 'user', content: 'Thaw one vial' }],
  ...extra,
});

/** The answer of a raw POST: the status, and the problem body or the events streamed. */
export interface RawAnswer {
  status: number;
  contentType: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary problem bodies.
  problem: any;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary events.
  events: any[];
}

/** POSTs `body` as JSON (a string is sent as is) and reads the answer. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.startsWith('text/event-stream')) {
    return { status: response.status, contentType, problem: await response.json(), events: [] };
  }
  const events = [];
  for await (const message of readSse(response.body!)) {
    if (message.event !== 'comment') events.push(message.data);
  }
  for (const event of events) EventSchemas.parse(event);
  return { status: response.status, contentType, problem: null, events };
}

/** The last event of a run. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary events.
export const lastEvent = (events: readonly any[]) => events.at(-1);
