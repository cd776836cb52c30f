/**
 * `otelTelemetry` shows the human on a background resume (DESIGN §15, §17, issue 29): the handler
 * that takes an answer with `Prefer: respond-async` only claims the turn, and a worker (its own
 * agent, on its own tracer, as another process) plays it. The worker's resumed turn holds the one
 * `execute_tool AskUserQuestion` span — id, kind, decision, wait, linked to the paused turn — and the
 * handler's tracer none; the turn after it reports no human again.
 */
import { SpanKind } from '@opentelemetry/api';
import {
  type Agent,
  askUserQuestion,
  defineAgent,
  defineTool,
  memoryStore,
  type Telemetry,
} from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createEventHub, createHandler } from '../src/http/public.js';
import { otelTelemetry } from '../src/otel/index.js';
import { memoryQueue } from '../src/queue/memory.js';
import { createWorker, type TurnWorker } from '../src/queue/worker.js';
import { recordingTracer, type SpanRecord } from './helpers/otel-recorder.js';
import { send } from './http-fixtures.js';

const ASYNC = { prefer: 'respond-async' };
const HUMAN = 'execute_tool AskUserQuestion';

const question = {
  question: 'Which line should I thaw?',
  header: 'Line',
  options: [
    { label: 'K562', description: 'Rack A' },
    { label: 'HeLa', description: 'Rack B' },
  ],
};

/** Asks which line, asks to thaw it (an approval), then reports; every model call is scripted. */
function labAgent(telemetry: Telemetry): Agent {
  const thaw = defineTool({
    name: 'thaw_vials',
    description: 'Thaw vials.',
    input: z.object({ line: z.string() }),
    needsApproval: () => 'Thawing cannot be undone.',
    execute: ({ line }) => ({ thawed: line }),
  });
  return defineAgent({
    name: 'lab',
    instructions: 'You run the LN2 freezer.',
    model: scriptedModel([
      { toolCalls: [{ id: 'call_ask', name: 'AskUserQuestion', arguments: { questions: [question] } }] },
      { toolCalls: [{ id: 'call_thaw', name: 'thaw_vials', arguments: { line: 'K562' } }] },
      'Thawed.',
    ]),
    tools: [thaw, askUserQuestion()],
    telemetry,
  });
}

const workers: TurnWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.close()));
});

const turnsOf = (spans: SpanRecord[]) => spans.filter((span) => span.name === 'invoke_agent lab');
const humansOf = (spans: SpanRecord[]) => spans.filter((span) => span.name === HUMAN);

describe('otelTelemetry: the human on a background worker', () => {
  it("the worker's resumed turn holds the human's span, once, linked to the pause; the handler's tracer none", async () => {
    const front = recordingTracer();
    const back = recordingTracer();
    const store = memoryStore();
    const queue = memoryQueue({ backoffMs: 10 });
    const eventHub = createEventHub();
    const handler = createHandler({
      agent: labAgent(otelTelemetry({ tracer: front.tracer })),
      store,
      queue,
      eventHub,
    });
    const errors: unknown[] = [];
    const worker = createWorker({
      agent: labAgent(otelTelemetry({ tracer: back.tracer })),
      store,
      queue,
      eventHub,
      shutdownSignals: [],
      onError: (error) => errors.push(error),
    });
    workers.push(worker);
    const settled = (runId: string, status: string) =>
      vi.waitFor(
        async () => {
          const read = await send(handler, 'GET', `/runs/${runId}`);
          if (read.body.status !== status) throw new Error(`run ${runId} is ${read.body.status}`);
          return read.body;
        },
        { timeout: 10_000, interval: 20 },
      );

    const started = await send(handler, 'POST', '/runs', { input: 'thaw one' });
    expect(started.body.status).toBe('needs_input');
    const { runId } = started.body;
    const questionId = started.body.pending[0].id;
    const [pausedTurn] = turnsOf(front.spans());

    const answered = await send(
      handler,
      'POST',
      `/runs/${runId}/answer`,
      { answers: { Line: { selected: ['K562'], note: 'the sticky one' } } },
      ASYNC,
    );
    expect(answered.status).toBe(202);
    const paused = await settled(runId, 'needs_input');
    expect(paused.pending[0].kind).toBe('approval');
    expect(humansOf(front.spans())).toEqual([]);

    const [resumedTurn] = turnsOf(back.spans());
    expect(resumedTurn).toBeDefined();
    const humans = humansOf(back.spans());
    expect(humans).toHaveLength(1);
    expect(humans[0]).toMatchObject({
      kind: SpanKind.INTERNAL,
      traceId: resumedTurn!.traceId,
      parentSpanId: resumedTurn!.spanId,
      links: [{ traceId: pausedTurn!.traceId, spanId: pausedTurn!.spanId }],
      attributes: {
        'gen_ai.tool.call.id': 'call_ask',
        'gen_ai.agent.name': 'lab',
        'gen_ai.conversation.id': runId,
        'turnkit.interaction.id': questionId,
        'turnkit.interaction.kind': 'question',
        'turnkit.interaction.tool_name': 'AskUserQuestion',
        'turnkit.interaction.decision': 'answered',
      },
    });
    expect(humans[0]!.attributes['turnkit.interaction.wait_ms']).toEqual(expect.any(Number));

    // The approval, deferred as well: one more human span (the approval), the tool's own after it.
    const approved = await send(handler, 'POST', `/runs/${runId}/approve`, { rationale: 'Dr Okafor' }, ASYNC);
    expect(approved.status).toBe(202);
    expect((await settled(runId, 'completed')).output).toBe('Thawed.');
    const after = humansOf(back.spans());
    expect(after.map((span) => span.attributes['turnkit.interaction.decision'])).toEqual([
      'answered',
      'approved',
    ]);
    expect(after[1]!.attributes).toMatchObject({
      'gen_ai.tool.call.id': 'call_thaw',
      'turnkit.interaction.kind': 'approval',
      'turnkit.interaction.tool_name': 'thaw_vials',
    });
    expect(back.spans().filter((span) => span.name === 'execute_tool thaw_vials')).toHaveLength(1);
    expect(humansOf(front.spans())).toEqual([]);
    expect(JSON.stringify([...front.spans(), ...back.spans()])).not.toMatch(/sticky|Okafor/);
    expect(errors).toEqual([]);
  });
});
