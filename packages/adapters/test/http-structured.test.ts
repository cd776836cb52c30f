/**
 * An agent with an `output` schema (DESIGN §23) through the adapters: `createHandler` sends the
 * parsed value as JSON in the run's view (also when read again), `createSessions` on a file store
 * gives it back typed, AG-UI finishes the run with it as `result`, and MCP answers with its JSON text.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Agent, askUserQuestion, createSessions, defineAgent, memoryStore } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { createHandler, type HandlerOptions } from '../src/http/public.js';
import type { AgUiHandlerOptions } from '../src/protocols/ag-ui/index.js';
import type { AiSdkHandlerOptions } from '../src/protocols/ai-sdk-ui/index.js';
import type { mcpServer } from '../src/protocols/mcp/index.js';
import type { WorkerOptions } from '../src/queue/index.js';
import { fileStore } from '../src/stores/file-store.js';
import { closeServers, lastEvent, post, serveAgUi, startBody } from './helpers/ag-ui-fixtures.js';
import { send } from './http-fixtures.js';

afterEach(() => closeServers());

const thawPlan = z.object({ cellLine: z.string(), vials: z.number().int() });
type ThawPlan = z.infer<typeof thawPlan>;

const askLine = {
  toolCalls: [
    {
      name: 'AskUserQuestion',
      arguments: { questions: [{ question: 'Which line?', header: 'Line', options: ['K562', 'HeLa'] }] },
    },
  ],
};

/** Asks which line (unless `ask` is false), then answers with a thaw plan as JSON. */
function plannerAgent(ask = true): Agent<ThawPlan> {
  return defineAgent({
    name: 'planner',
    instructions: 'Plan the thaw.',
    model: scriptedModel([...(ask ? [askLine] : []), '{"cellLine":"HeLa","vials":2}']),
    output: thawPlan,
    tools: [askUserQuestion()],
  });
}
const answer = { answers: { Line: 'HeLa' } };

describe('a structured-output agent over HTTP', () => {
  it('createHandler sends the parsed object as output: on completion and when the run is read again', async () => {
    const handler = createHandler({ agent: plannerAgent(), store: memoryStore() });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw HeLa' });
    expect(started.body).toMatchObject({ status: 'needs_input', output: null });
    const runId = started.body.runId as string;

    const completed = await send(handler, 'POST', `/runs/${runId}/answer`, answer);
    expect(completed.body).toMatchObject({ status: 'completed', output: { cellLine: 'HeLa', vials: 2 } });

    const read = await send(handler, 'GET', `/runs/${runId}`);
    expect(read.body.output).toEqual({ cellLine: 'HeLa', vials: 2 });
  });

  it('createSessions on a file store gives the typed value back, also to another sessions instance', async () => {
    const store = fileStore(await mkdtemp(join(tmpdir(), 'turnkit-structured-')));
    const sessions = createSessions({ agent: plannerAgent(), store });
    const paused = await sessions.start({ input: 'Thaw HeLa' });
    expect(paused.status).toBe('needs_input');
    const question = paused.pendingQuestion;
    if (!question) throw new Error('expected a question');
    const done = await sessions.answer(paused.runId, { ...answer, id: question.id });
    if (done.status !== 'completed') throw new Error(`expected completed, got ${done.status}`);
    expectTypeOf(done.output).toEqualTypeOf<ThawPlan>();
    expect(done.output).toEqual({ cellLine: 'HeLa', vials: 2 });

    const again = await createSessions({ agent: plannerAgent(), store }).get(paused.runId);
    expect(again.output).toEqual({ cellLine: 'HeLa', vials: 2 });
  });

  it('AG-UI finishes the run with the object as its result, and the chat text is the JSON text', async () => {
    const url = await serveAgUi({ agent: plannerAgent(false), store: memoryStore() });
    const { events } = await post(url, startBody('thread-plan'));
    expect(lastEvent(events)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'success' },
      result: { cellLine: 'HeLa', vials: 2 },
    });
    const text = events
      .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
      .map((event) => event.delta)
      .join('');
    expect(JSON.parse(text)).toEqual({ cellLine: 'HeLa', vials: 2 });
  });

  it('is taken by every entry point that takes an agent', () => {
    expectTypeOf<Agent<ThawPlan>>().toExtend<HandlerOptions['agent']>();
    expectTypeOf<Agent<ThawPlan>>().toExtend<AgUiHandlerOptions['agent']>();
    expectTypeOf<Agent<ThawPlan>>().toExtend<AiSdkHandlerOptions['agent']>();
    expectTypeOf<Agent<ThawPlan>>().toExtend<Parameters<typeof mcpServer>[0]>();
    expectTypeOf<Agent<ThawPlan>>().toExtend<WorkerOptions['agent']>();
  });
});
