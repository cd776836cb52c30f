/**
 * The app every runtime serves (DESIGN §18): one agent whose scripted model asks a question, then
 * reports the answer, behind two client-held handlers with one secret — `/plain` signs its
 * snapshots, `/sealed` also encrypts them — so a snapshot started on one runtime resumes on any other;
 * and the same agent over A2A (DESIGN §29) from a store-mode handler at `/a2a-agent`, its tasks in
 * the isolate's memory store.
 */
import { a2aProtocol } from '@turnkit/adapters/a2a';
import { createClientHeldHandler, createEventHub, createHandler } from '@turnkit/adapters/http';
import { askUserQuestion, defineAgent, type ModelRequest, memoryStore } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';

/** The secret every runtime's handlers share (tests only). */
export const SECRET = 'runtime-tests-secret-of-at-least-32-characters';

const question = {
  question: 'Which cell line should I thaw?',
  header: 'Cell line',
  multiSelect: false,
  options: [
    { label: 'K562', description: 'Rack A, box 3' },
    { label: 'HeLa', description: 'Rack B, box 1' },
  ],
};

function lastToolResult(request: ModelRequest): string {
  return request.messages.filter((item) => item.role === 'tool').at(-1)?.content ?? '';
}

const agent = defineAgent({
  name: 'freezer',
  instructions: 'You manage an LN2 freezer.',
  model: scriptedModel([
    { text: 'Let me ask.', toolCalls: [{ name: 'AskUserQuestion', arguments: { questions: [question] } }] },
    (request) => `Thawing: ${lastToolResult(request)}`,
  ]),
  tools: [askUserQuestion()],
});

// One hub per isolate: a run's event stream is read on the runtime that plays its turn.
const eventHub = createEventHub();
const plain = createClientHeldHandler({ agent, secret: SECRET, eventHub, basePath: '/plain' });
const sealed = createClientHeldHandler({
  agent,
  secret: SECRET,
  eventHub,
  encrypt: true,
  basePath: '/sealed',
});

const a2a = createHandler({
  agent,
  store: memoryStore(),
  eventHub,
  basePath: '/a2a-agent',
  protocols: [a2aProtocol({ card: { description: 'Thaws vials from an LN2 freezer.' } })],
});

/** Serves `/plain/*`, `/sealed/*` and `/a2a-agent/*`. */
export function handler(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname;
  if (path.startsWith('/a2a-agent/')) return a2a(request);
  return path.startsWith('/sealed/') ? sealed(request) : plain(request);
}
