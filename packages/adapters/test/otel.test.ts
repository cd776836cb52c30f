/**
 * `otelTelemetry` with the OpenTelemetry SDK and its in-memory exporter: span names, kinds, GenAI
 * attributes and parents of a turn; a sub-agent's spans under the parent's `execute_tool`; error
 * status on failures; no span left open by a pause or an abort; concurrent turns that never adopt
 * each other's spans; nothing recorded (and no trace in the snapshot) on a sampled-out tracer; and
 * the link from a turn resumed in ANOTHER Node process to the paused turn's span.
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AlwaysOffSampler } from '@opentelemetry/sdk-trace-base';
import {
  agentTool,
  answerQuestion,
  askUserQuestion,
  defineAgent,
  defineTool,
  ModelError,
  parseSnapshot,
  runTurn,
} from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiSdkModel } from '../src/models/ai-sdk/model.js';
import { otelTelemetry } from '../src/otel/index.js';
import { mockModel } from './helpers/ai-sdk-mock.js';
import { bundleFixture, runChild } from './helpers/bundled-child.js';
import { tracedAgent } from './helpers/otel-agent.js';
import { recordingTracer, type SpanRecord } from './helpers/otel-recorder.js';

const byName = (spans: SpanRecord[], name: string) => spans.filter((span) => span.name === name);
const one = (spans: SpanRecord[], name: string) => {
  const found = byName(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};

describe('otelTelemetry: a turn', () => {
  it('traces invoke_agent → chat / execute_tool with GenAI attributes, and pauses with no span open', async () => {
    const recorder = recordingTracer();
    const paused = await runTurn(tracedAgent(otelTelemetry({ tracer: recorder.tracer })), {
      input: 'Thaw one',
    });
    expect(paused.status).toBe('needs_input');
    expect(recorder.open()).toEqual([]);

    const spans = recorder.spans();
    expect(spans.map((span) => span.name).sort()).toEqual([
      'chat mock-1',
      'chat mock-1',
      'execute_tool query_inventory',
      'invoke_agent inventory',
    ]);
    const turn = one(spans, 'invoke_agent inventory');
    expect(turn).toMatchObject({ kind: SpanKind.INTERNAL, parentSpanId: null, links: [] });
    expect(turn.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'inventory',
      'gen_ai.conversation.id': paused.runId,
      'turnkit.turn': 1,
      'turnkit.trigger': 'input',
      'turnkit.outcome': 'needs_input',
      'turnkit.interaction.id': [paused.pendingQuestion!.id],
    });
    expect(turn.status.code).toBe(SpanStatusCode.UNSET);

    const [first, second] = byName(spans, 'chat mock-1');
    for (const chat of [first!, second!]) {
      expect(chat).toMatchObject({ kind: SpanKind.CLIENT, parentSpanId: turn.spanId, traceId: turn.traceId });
    }
    expect(first!.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'mock-1',
      'gen_ai.provider.name': 'mock',
      'gen_ai.agent.name': 'inventory',
      'gen_ai.conversation.id': paused.runId,
      'turnkit.step': 1,
      'turnkit.outcome': 'completed',
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 5,
    });
    expect(second!.attributes['turnkit.step']).toBe(2);

    const tool = one(spans, 'execute_tool query_inventory');
    expect(tool).toMatchObject({ kind: SpanKind.INTERNAL, parentSpanId: turn.spanId, traceId: turn.traceId });
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'query_inventory',
      'gen_ai.tool.call.id': 'call_query',
      'gen_ai.tool.type': 'function',
      'gen_ai.conversation.id': paused.runId,
      'turnkit.outcome': 'completed',
    });
    expect(tool.status.code).toBe(SpanStatusCode.UNSET);

    // The paused turn's span context is what the snapshot keeps for the turn that resumes it.
    expect(parseSnapshot(paused.snapshot).trace).toEqual({
      traceId: turn.traceId,
      spanId: turn.spanId,
      traceFlags: 1,
    });
  });

  it('links the resumed turn to the paused one, here, and keeps no trace once the run completes', async () => {
    const recorder = recordingTracer();
    const agent = tracedAgent(otelTelemetry({ tracer: recorder.tracer }));
    const paused = await runTurn(agent, { input: 'Thaw one' });
    const pausedTurn = one(recorder.spans(), 'invoke_agent inventory');
    recorder.reset();
    const done = await answerQuestion(agent, paused.snapshot, { answers: 'HeLa' });
    expect(done.status).toBe('completed');
    const resumed = one(recorder.spans(), 'invoke_agent inventory');
    expect(resumed.links).toEqual([{ traceId: pausedTurn.traceId, spanId: pausedTurn.spanId }]);
    expect(resumed.attributes).toMatchObject({ 'turnkit.turn': 2, 'turnkit.outcome': 'completed' });
    expect(parseSnapshot(done.snapshot).trace).toBeUndefined();
  });

  it('marks a failed model call and its turn with error status and error.type, the key never in a span', async () => {
    const recorder = recordingTracer();
    const failing = mockModel({ text: ['never'] });
    failing.doStream = async () => {
      throw new ModelError('The API key sk-secret was refused (401).', { status: 401 });
    };
    const agent = defineAgent({
      name: 'inventory',
      instructions: 'i',
      model: aiSdkModel(failing),
      tools: [],
      telemetry: otelTelemetry({ tracer: recorder.tracer }),
    });
    const result = await runTurn(agent, { input: 'hi' });
    expect(result.status).toBe('failed');
    const spans = recorder.spans();
    for (const span of [one(spans, 'chat mock-1'), one(spans, 'invoke_agent inventory')]) {
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.attributes['turnkit.outcome']).toBe('failed');
    }
    expect(one(spans, 'chat mock-1').attributes['error.type']).toBe('MODEL_ERROR');
    expect(JSON.stringify(spans)).not.toContain('sk-secret');
  });

  it('marks a tool whose call failed with error status and its result’s error code', async () => {
    const recorder = recordingTracer();
    await runTurn(tracedAgent(otelTelemetry({ tracer: recorder.tracer }), 'unknown'), { input: 'Thaw one' });
    const tool = one(recorder.spans(), 'execute_tool query_inventory');
    expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: 'tool_error' });
    expect(tool.attributes).toMatchObject({ 'turnkit.outcome': 'failed', 'error.type': 'tool_error' });
  });

  it('sets error status on a span ended with an error code (e.g. a tool’s error result)', () => {
    const recorder = recordingTracer();
    const turn = otelTelemetry({ tracer: recorder.tracer }).startTurn({
      runId: 'r',
      agent: 'a',
      turn: 1,
      trigger: 'start',
    });
    turn
      .startTool({ runId: 'r', agent: 'a', toolName: 'thaw', toolCallId: 'c1' })
      .end({ outcome: 'failed', errorCode: 'tool_error' });
    turn.end({ outcome: 'completed' });
    const tool = one(recorder.spans(), 'execute_tool thaw');
    expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: 'tool_error' });
    expect(tool.attributes['error.type']).toBe('tool_error');
    expect(one(recorder.spans(), 'invoke_agent a').status.code).toBe(SpanStatusCode.UNSET);
  });

  it('leaves no span open when a turn is aborted in the middle of a tool', async () => {
    const recorder = recordingTracer();
    const slow = defineTool({
      name: 'slow',
      description: 's',
      input: z.object({}),
      execute: (_input, ctx) =>
        new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))),
    });
    const agent = defineAgent({
      name: 'inventory',
      instructions: 'i',
      model: aiSdkModel(mockModel([{ calls: [{ id: 'call_slow', name: 'slow', input: '{}' }] }])),
      tools: [slow],
      telemetry: otelTelemetry({ tracer: recorder.tracer }),
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const result = await runTurn(agent, { input: 'go' }, { signal: controller.signal });
    expect(result.status).toBe('aborted');
    expect(recorder.open()).toEqual([]);
    const turn = one(recorder.spans(), 'invoke_agent inventory');
    expect(turn.attributes['turnkit.outcome']).toBe('aborted');
    expect(turn.status.code).toBe(SpanStatusCode.UNSET);
    expect(one(recorder.spans(), 'execute_tool slow').parentSpanId).toBe(turn.spanId);
  });

  it('gives each of two concurrent turns its own children (explicit parents, not the ambient context)', async () => {
    const recorder = recordingTracer();
    const telemetry = otelTelemetry({ tracer: recorder.tracer });
    const [a, b] = await Promise.all([
      runTurn(tracedAgent(telemetry), { input: 'one' }),
      runTurn(tracedAgent(telemetry), { input: 'two' }),
    ]);
    const spans = recorder.spans();
    for (const run of [a, b]) {
      const turn = spans.find(
        (span) =>
          span.name === 'invoke_agent inventory' && span.attributes['gen_ai.conversation.id'] === run.runId,
      )!;
      const children = spans.filter((span) => span.parentSpanId === turn.spanId);
      expect(children.map((span) => span.name).sort()).toEqual([
        'chat mock-1',
        'chat mock-1',
        'execute_tool query_inventory',
      ]);
      expect(children.every((span) => span.attributes['gen_ai.conversation.id'] === run.runId)).toBe(true);
    }
  });

  it('records nothing and keeps no trace in the snapshot on a sampled-out tracer', async () => {
    const recorder = recordingTracer(new AlwaysOffSampler());
    const paused = await runTurn(tracedAgent(otelTelemetry({ tracer: recorder.tracer })), {
      input: 'Thaw one',
    });
    expect(paused.status).toBe('needs_input');
    expect(recorder.spans()).toEqual([]);
    expect(parseSnapshot(paused.snapshot).trace).toBeUndefined();
  });
});

describe('otelTelemetry: sub-agents', () => {
  it('puts a sub-agent’s invoke_agent and chat under the parent’s execute_tool, and closes them at the pause', async () => {
    const recorder = recordingTracer();
    const ask = JSON.stringify({
      questions: [{ question: 'Which medium?', header: 'Medium', options: ['RPMI', 'DMEM'] }],
    });
    const researcher = defineAgent({
      name: 'researcher',
      instructions: 'r',
      model: aiSdkModel(
        mockModel([
          { calls: [{ id: 'call_medium', name: 'AskUserQuestion', input: ask }] },
          { text: ['RPMI it is.'] },
        ]),
      ),
      tools: [askUserQuestion()],
    });
    const lead = defineAgent({
      name: 'lead',
      instructions: 'l',
      model: aiSdkModel(
        mockModel([
          { calls: [{ id: 'call_research', name: 'researcher', input: '{"input":"medium?"}' }] },
          { text: ['ok'] },
        ]),
      ),
      tools: [agentTool(researcher)],
      telemetry: otelTelemetry({ tracer: recorder.tracer }),
    });
    const paused = await runTurn(lead, { input: 'plan' });
    expect(paused.pendingQuestion?.agentPath).toEqual(['lead', 'researcher']);
    expect(recorder.open()).toEqual([]);

    const spans = recorder.spans();
    const top = one(spans, 'invoke_agent lead');
    const tool = one(spans, 'execute_tool researcher');
    const child = one(spans, 'invoke_agent researcher');
    expect(tool.parentSpanId).toBe(top.spanId);
    expect(child.parentSpanId).toBe(tool.spanId);
    expect(child.attributes).toMatchObject({
      'gen_ai.agent.name': 'researcher',
      'turnkit.agent.path': ['lead', 'researcher'],
      'turnkit.outcome': 'needs_input',
    });
    const chats = byName(spans, 'chat mock-1');
    expect(chats.map((chat) => chat.parentSpanId).sort()).toEqual([top.spanId, child.spanId].sort());
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
  });
});

describe('otelTelemetry across processes', () => {
  it('links the turn resumed in another Node process to the span of the turn paused here', async () => {
    const recorder = recordingTracer();
    const [bundle, paused] = await Promise.all([
      bundleFixture('otel-resume'),
      runTurn(tracedAgent(otelTelemetry({ tracer: recorder.tracer })), { input: 'Thaw one' }),
    ]);
    const pausedTurn = one(recorder.spans(), 'invoke_agent inventory');
    const file = join(await mkdtemp(join(tmpdir(), 'turnkit-otel-')), 'paused.json');
    writeFileSync(file, paused.snapshot);

    const other = await runChild<{ pid: number; status: string; open: string[]; spans: SpanRecord[] }>(
      bundle,
      [file, 'HeLa'],
    );

    expect(other.pid).not.toBe(process.pid);
    expect(other.status).toBe('completed');
    expect(other.open).toEqual([]);
    const resumed = one(other.spans, 'invoke_agent inventory');
    expect(resumed.links).toEqual([{ traceId: pausedTurn.traceId, spanId: pausedTurn.spanId }]);
    expect(resumed.spanId).not.toBe(pausedTurn.spanId);
    expect(resumed.attributes).toMatchObject({
      'gen_ai.conversation.id': paused.runId,
      'turnkit.outcome': 'completed',
      'turnkit.turn': 2,
    });
    const chat = one(other.spans, 'chat mock-1');
    expect(chat).toMatchObject({ parentSpanId: resumed.spanId, traceId: resumed.traceId });
  });
});
