/**
 * The telemetry hooks (DESIGN §15), with a recording `Telemetry`: a turn is one span, its model
 * calls and tools are children, a sub-agent's spans sit under the parent's tool call, a paused
 * turn's context is kept in the snapshot's `trace` and the turn that resumes it links to it, and no
 * span is left open by a pause, a failure or an abort.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  agentTool,
  answerQuestion,
  defineAgent,
  defineTelemetry,
  defineTool,
  parseSnapshot,
  runTurn,
  type SpanOutcome,
  type Telemetry,
  type TelemetrySpan,
  type TraceContext,
  TurnkitError,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { ask, cellLineQuestion, makeAgent } from './helpers.js';

interface Recorded {
  name: string;
  parent: string | null;
  link?: TraceContext;
  ended?: SpanOutcome;
  context: TraceContext;
}

function recorder() {
  const spans: Recorded[] = [];
  let next = 0;
  const open = (name: string, parent: Recorded | null, link?: TraceContext): TelemetrySpan => {
    const record: Recorded = {
      name,
      parent: parent?.name ?? null,
      ...(link ? { link } : {}),
      context: { traceId: 't'.repeat(32), spanId: String(++next).padStart(16, '0'), traceFlags: 1 },
    };
    spans.push(record);
    const span: TelemetrySpan = {
      startModelCall: (info) => open(`chat ${info.model}`, record),
      startTool: (info) => open(`execute_tool ${info.toolName}`, record),
      startAgent: (info) => open(`invoke_agent ${info.agent}`, record),
      end: (outcome) => {
        if (record.ended) throw new Error(`${name} ended twice`);
        record.ended = outcome ?? {};
      },
      traceContext: record.context,
    };
    return span;
  };
  const telemetry: Telemetry = defineTelemetry({
    startTurn: (info) => open(`invoke_agent ${info.agent}`, null, info.link),
  });
  return { spans, telemetry };
}

const expectAllEnded = (spans: Recorded[]) =>
  expect(spans.filter((span) => !span.ended).map((span) => span.name)).toEqual([]);

describe('telemetry', () => {
  it('is made by defineTelemetry (or otelTelemetry): a bare tracer is refused with how to wrap it', async () => {
    const model = scriptedModel(['hi']);
    const bare = { startTurn: () => ({}) as never };
    const refusals: Array<() => unknown> = [
      () => makeAgent(['hi'], { telemetry: bare as never }),
      () => makeAgent(['hi'], { telemetry: { ...defineTelemetry(bare) } as never }),
      () =>
        runTurn(
          defineAgent({ name: 'a', instructions: 'Help.', model }),
          { input: 'x' },
          { telemetry: bare as never },
        ),
      () => defineTelemetry({} as never),
    ];
    for (const refused of refusals) {
      let error: unknown;
      try {
        await refused();
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(TurnkitError);
      expect((error as TurnkitError).code).toBe('CONFIG_INVALID');
      expect((error as TurnkitError).message).toMatch(/defineTelemetry/);
    }
  });

  it('traces a turn, pauses with its context in the snapshot, and links the resumed turn to it', async () => {
    const { spans, telemetry } = recorder();
    const agent = makeAgent(
      [
        { toolCalls: [{ name: 'query_inventory', arguments: { cellLine: 'K562' } }] },
        { toolCalls: [ask([cellLineQuestion])] },
        'done',
      ],
      { telemetry },
    );
    const paused = await runTurn(agent, { input: 'go' });
    expect(spans.map((span) => [span.name, span.parent])).toEqual([
      ['invoke_agent inventory', null],
      ['chat scripted', 'invoke_agent inventory'],
      ['execute_tool query_inventory', 'invoke_agent inventory'],
      ['chat scripted', 'invoke_agent inventory'],
    ]);
    expectAllEnded(spans);
    expect(spans[0]!.ended).toEqual({ outcome: 'needs_input', interactionIds: [paused.pendingQuestion!.id] });
    expect(spans[1]!.ended).toEqual({ outcome: 'completed', usage: { inputTokens: 0, outputTokens: 0 } });
    expect(spans[2]!.ended).toEqual({ outcome: 'completed' });
    expect(parseSnapshot(paused.snapshot).trace).toEqual(spans[0]!.context);

    // Another process would load the snapshot with a fresh agent: only the trace crosses.
    const { spans: later, telemetry: laterTelemetry } = recorder();
    const resumed = await answerQuestion(
      makeAgent(['', '', 'done'], { telemetry: laterTelemetry }),
      paused.snapshot,
      {
        answers: 'K562-dTAG',
      },
    );
    expect(later[0]).toMatchObject({ name: 'invoke_agent inventory', link: spans[0]!.context });
    expect(later[0]!.ended).toEqual({ outcome: 'completed' });
    expect(parseSnapshot(resumed.snapshot).trace).toBeUndefined();
    expectAllEnded(later);
  });

  it('puts a sub-agent’s spans under the parent’s execute_tool, and closes them when it pauses', async () => {
    const { spans, telemetry } = recorder();
    const child = defineAgent({
      name: 'researcher',
      instructions: 'r',
      model: scriptedModel([{ toolCalls: [ask([cellLineQuestion])] }, 'found']),
      tools: [(await import('../src/index.js')).askUserQuestion()],
    });
    const lead = defineAgent({
      name: 'lead',
      instructions: 'l',
      model: scriptedModel([{ toolCalls: [{ name: 'researcher', arguments: { input: 'look' } }] }, 'ok']),
      tools: [agentTool(child)],
      telemetry,
    });
    await runTurn(lead, { input: 'go' });
    expect(spans.map((span) => [span.name, span.parent])).toEqual([
      ['invoke_agent lead', null],
      ['chat scripted', 'invoke_agent lead'],
      ['execute_tool researcher', 'invoke_agent lead'],
      ['invoke_agent researcher', 'execute_tool researcher'],
      ['chat scripted', 'invoke_agent researcher'],
    ]);
    expectAllEnded(spans);
    expect(spans[2]!.ended).toEqual({ outcome: 'incomplete' });
    expect(spans[3]!.ended).toMatchObject({ outcome: 'needs_input' });
  });

  it('leaves no span open when a turn is aborted mid-tool or a model call fails', async () => {
    const { spans, telemetry } = recorder();
    const controller = new AbortController();
    const slow = defineTool({
      name: 'slow',
      description: 's',
      input: z.object({}),
      execute: (_input, ctx) =>
        new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))),
    });
    const agent = makeAgent([{ toolCalls: [{ name: 'slow', arguments: {} }] }, 'never'], {
      tools: [slow],
      telemetry,
    });
    setTimeout(() => controller.abort(), 20);
    const aborted = await runTurn(agent, { input: 'go' }, { signal: controller.signal });
    expect(aborted.status).toBe('aborted');
    expectAllEnded(spans);
    expect(spans[0]!.ended).toEqual({ outcome: 'aborted' });

    const failing = makeAgent(
      [
        () => {
          throw new Error('down');
        },
      ],
      { telemetry },
    );
    await runTurn(failing, { input: 'go' });
    expectAllEnded(spans);
    expect(spans.at(-1)!.ended).toEqual({ outcome: 'failed', errorCode: 'MODEL_ERROR' });
  });

  it('lets a call bring its own telemetry', async () => {
    const { spans, telemetry } = recorder();
    await runTurn(makeAgent(['hello']), { input: 'go' }, { telemetry });
    expect(spans.map((span) => span.name)).toEqual(['invoke_agent inventory', 'chat scripted']);
  });
});
