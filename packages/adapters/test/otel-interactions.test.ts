/**
 * `otelTelemetry` shows the human (DESIGN §15, issue 29), with the SDK's in-memory exporter: a run
 * pauses under one tracer and is resumed by a fresh agent under another (as another process would);
 * the resumed turn then holds an `execute_tool AskUserQuestion` span with the interaction's id, kind,
 * decision and wait, linked to the paused turn's span — answered, approved (the tool's own span
 * follows), rejected, timed out — and no answer text or rationale in any span.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  type Agent,
  answerQuestion,
  approve,
  askUserQuestion,
  defineAgent,
  defineTool,
  reject,
  runTurn,
  type Telemetry,
} from '@turnkit/core';
import { type ScriptedStep, scriptedModel } from '@turnkit/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { otelTelemetry } from '../src/otel/index.js';
import { recordingTracer, type SpanRecord } from './helpers/otel-recorder.js';

const t0 = new Date('2030-01-01T10:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

const question = {
  question: 'Which line should I thaw?',
  header: 'Line',
  options: [
    { label: 'K562', description: 'Rack A' },
    { label: 'HeLa', description: 'Rack B' },
  ],
};

function labAgent(telemetry: Telemetry, first: ScriptedStep, timeoutMs?: number): Agent {
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
    model: scriptedModel([first, 'done']),
    tools: [thaw, askUserQuestion(timeoutMs ? { timeoutMs } : {})],
    telemetry,
  });
}

const asking: ScriptedStep = {
  toolCalls: [{ id: 'call_ask', name: 'AskUserQuestion', arguments: { questions: [question] } }],
};
const thawing: ScriptedStep = {
  toolCalls: [{ id: 'call_thaw', name: 'thaw_vials', arguments: { line: 'K562' } }],
};

/** Pauses on `first` under one tracer; returns a fresh agent on another tracer to resume with. */
async function pauseThenFresh(first: ScriptedStep, timeoutMs?: number) {
  const before = recordingTracer();
  const paused = await runTurn(
    labAgent(otelTelemetry({ tracer: before.tracer }), first, timeoutMs),
    { input: 'thaw one' },
    { now: t0 },
  );
  expect(paused.status).toBe('needs_input');
  const [pausedTurn] = before.spans().filter((span) => span.name === 'invoke_agent lab');
  const after = recordingTracer();
  return {
    paused,
    pausedTurn: pausedTurn!,
    fresh: labAgent(otelTelemetry({ tracer: after.tracer }), '', timeoutMs),
    after,
  };
}

/** The resumed turn and its human span, checked for what every human span has. */
function humanOf(spans: SpanRecord[], pausedTurn: SpanRecord) {
  const turn = spans.find((span) => span.name === 'invoke_agent lab')!;
  const human = spans.filter((span) => span.name === 'execute_tool AskUserQuestion');
  expect(human).toHaveLength(1);
  expect(human[0]).toMatchObject({
    kind: SpanKind.INTERNAL,
    traceId: turn.traceId,
    parentSpanId: turn.spanId,
    links: [{ traceId: pausedTurn.traceId, spanId: pausedTurn.spanId }],
    status: { code: SpanStatusCode.UNSET },
  });
  return human[0]!;
}

describe('otelTelemetry: the human in a trace', () => {
  it('an answered question: execute_tool AskUserQuestion with id, kind, decision and wait, linked to the pause', async () => {
    const { paused, pausedTurn, fresh, after } = await pauseThenFresh(asking);
    const done = await answerQuestion(
      fresh,
      paused.snapshot,
      { answers: { Line: { selected: ['K562'], note: 'the sticky one' } } },
      { now: at(42) },
    );
    expect(done.status).toBe('completed');
    expect(after.open()).toEqual([]);
    const human = humanOf(after.spans(), pausedTurn);
    expect(human.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'AskUserQuestion',
      'gen_ai.tool.call.id': 'call_ask',
      'gen_ai.tool.type': 'function',
      'gen_ai.agent.name': 'lab',
      'gen_ai.conversation.id': paused.runId,
      'turnkit.interaction.id': paused.pendingQuestion!.id,
      'turnkit.interaction.kind': 'question',
      'turnkit.interaction.tool_name': 'AskUserQuestion',
      'turnkit.interaction.decision': 'answered',
      'turnkit.interaction.wait_ms': 42_000,
      'turnkit.outcome': 'completed',
    });
    expect(JSON.stringify(after.spans())).not.toContain('sticky');
  });

  it("an approved call: the human's span, then the approved tool's execute_tool span, in the resumed turn", async () => {
    const { paused, pausedTurn, fresh, after } = await pauseThenFresh(thawing);
    await approve(fresh, paused.snapshot, { rationale: 'Dr Okafor said so' }, { now: at(7) });
    const spans = after.spans();
    const human = humanOf(spans, pausedTurn);
    expect(human.attributes).toMatchObject({
      'gen_ai.tool.call.id': 'call_thaw',
      'turnkit.interaction.kind': 'approval',
      'turnkit.interaction.tool_name': 'thaw_vials',
      'turnkit.interaction.decision': 'approved',
      'turnkit.interaction.wait_ms': 7000,
    });
    const tool = spans.find((span) => span.name === 'execute_tool thaw_vials');
    expect(tool).toMatchObject({
      parentSpanId: human.parentSpanId,
      attributes: { 'turnkit.outcome': 'completed' },
    });
    expect(JSON.stringify(spans)).not.toContain('Okafor');
  });

  it('a rejected call: decision rejected, and no span for the tool that did not run', async () => {
    const { paused, pausedTurn, fresh, after } = await pauseThenFresh(thawing);
    await reject(fresh, paused.snapshot, { rationale: 'not today' }, { now: at(3) });
    const spans = after.spans();
    expect(humanOf(spans, pausedTurn).attributes).toMatchObject({
      'turnkit.interaction.decision': 'rejected',
      'turnkit.interaction.wait_ms': 3000,
    });
    expect(spans.some((span) => span.name === 'execute_tool thaw_vials')).toBe(false);
  });

  it('an answer after expiresAt: decision timed_out, with the whole wait', async () => {
    const { paused, pausedTurn, fresh, after } = await pauseThenFresh(asking, 60_000);
    await answerQuestion(fresh, paused.snapshot, { answers: 'K562' }, { now: at(300) });
    expect(humanOf(after.spans(), pausedTurn).attributes).toMatchObject({
      'turnkit.interaction.decision': 'timed_out',
      'turnkit.interaction.wait_ms': 300_000,
    });
  });
});
