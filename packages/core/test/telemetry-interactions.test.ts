/**
 * Traces show the human (DESIGN §15, issue 29): a resolved question or approval reaches the turn
 * that goes on from it as `startInteraction` — its id, kind, decision and wait, linked to the turn
 * that paused on it — also when that turn runs with a fresh agent (as in another process); an
 * approved call then gets its own tool span as before. No answer text or rationale reaches it.
 */
import { describe, expect, it } from 'vitest';
import {
  answerQuestion,
  approve,
  askUserQuestion,
  cancelQuestion,
  createSessions,
  defineTelemetry,
  expire,
  type InteractionSpanInfo,
  memoryStore,
  parseSnapshot,
  reject,
  runTurn,
  type Telemetry,
  type TelemetrySpan,
  type TraceContext,
} from '../src/index.js';
import { childAgent, colorQuestion, delegate, lastContent, parentAgent } from './fixtures/subagents.js';
import { ask, cellLineQuestion, makeAgent } from './helpers.js';

interface Recorded {
  name: string;
  parent: string | null;
  link?: TraceContext;
  interaction?: InteractionSpanInfo;
  ended: boolean;
  context: TraceContext;
}

/** A recording `Telemetry` whose spans take `startInteraction`; span ids count up from `first`. */
function recorder(first = 0) {
  const spans: Recorded[] = [];
  let next = first;
  const open = (name: string, parent: Recorded | null, extra: Partial<Recorded> = {}): TelemetrySpan => {
    const record: Recorded = {
      name,
      parent: parent?.name ?? null,
      ...extra,
      ended: false,
      context: { traceId: 'a'.repeat(32), spanId: String(++next).padStart(16, '0'), traceFlags: 1 },
    };
    spans.push(record);
    return {
      startModelCall: (info) => open(`chat ${info.model}`, record),
      startTool: (info) => open(`execute_tool ${info.toolName}`, record),
      startAgent: (info) => open(`invoke_agent ${info.agent}`, record),
      startInteraction: (info) => open('execute_tool AskUserQuestion', record, { interaction: info }),
      end: () => {
        if (record.ended) throw new Error(`${name} ended twice`);
        record.ended = true;
      },
      traceContext: record.context,
    };
  };
  const telemetry: Telemetry = defineTelemetry({
    startTurn: (info) => open(`invoke_agent ${info.agent}`, null, info.link ? { link: info.link } : {}),
  });
  return { spans, telemetry };
}

const t0 = new Date('2030-01-01T10:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const thaw = { id: 'thaw', name: 'record_thaw', arguments: { cellLine: 'K562', vials: 2 } };

/** Pauses with `steps[0]`, then returns what a fresh agent (another process) resumes with. */
async function paused(steps: Parameters<typeof makeAgent>[0], config: Parameters<typeof makeAgent>[1] = {}) {
  const first = recorder();
  const result = await runTurn(
    makeAgent(steps, { ...config, telemetry: first.telemetry }),
    { input: 'go' },
    { now: t0 },
  );
  expect(result.status).toBe('needs_input');
  const pausedTurn = first.spans[0]!;
  expect(parseSnapshot(result.snapshot).trace).toEqual(pausedTurn.context);
  const later = recorder(100);
  const fresh = makeAgent(
    steps.map((_step, index) => (index === 0 ? '' : steps[index]!)),
    {
      ...config,
      telemetry: later.telemetry,
    },
  );
  return { result, pausedTurn, fresh, spans: later.spans };
}

const humanSpans = (spans: Recorded[]) => spans.filter((span) => span.interaction !== undefined);

describe('the human in a trace', () => {
  it('an answered question: one span under the resumed turn, with its wait and a link to the pause, and no answer text', async () => {
    const { result, pausedTurn, fresh, spans } = await paused([
      { toolCalls: [ask([cellLineQuestion])] },
      'ok',
    ]);
    const done = await answerQuestion(
      fresh,
      result.snapshot,
      { answers: { 'Cell line': { selected: [], other: 'secret clone 7' } } },
      { now: at(90) },
    );
    expect(done.status).toBe('completed');
    const [human] = humanSpans(spans);
    expect(human).toMatchObject({ parent: 'invoke_agent inventory', ended: true });
    expect(human!.interaction).toEqual({
      runId: result.runId,
      agent: 'inventory',
      interactionId: result.pendingQuestion!.id,
      kind: 'question',
      toolName: 'AskUserQuestion',
      toolCallId: result.pendingQuestion!.toolCallId,
      decision: 'answered',
      waitMs: 90_000,
      link: pausedTurn.context,
    });
    expect(spans.every((span) => span.ended)).toBe(true);
    expect(JSON.stringify(spans)).not.toContain('secret clone');
  });

  it("an approved call: the human's span, then the tool's own execute_tool span in the same turn", async () => {
    const { result, pausedTurn, fresh, spans } = await paused([{ toolCalls: [thaw] }, 'ok']);
    await approve(fresh, result.snapshot, { rationale: 'private reason' }, { now: at(5) });
    expect(spans.map((span) => [span.name, span.parent])).toEqual([
      ['invoke_agent inventory', null],
      ['execute_tool AskUserQuestion', 'invoke_agent inventory'],
      ['execute_tool record_thaw', 'invoke_agent inventory'],
      ['chat scripted', 'invoke_agent inventory'],
    ]);
    expect(spans[1]!.interaction).toMatchObject({
      kind: 'approval',
      toolName: 'record_thaw',
      toolCallId: 'thaw',
      decision: 'approved',
      waitMs: 5000,
      link: pausedTurn.context,
    });
    expect(JSON.stringify(spans)).not.toContain('private reason');
  });

  it('a rejected approval and a cancelled question: their decisions, and no tool span for the rejected call', async () => {
    const rejected = await paused([{ toolCalls: [thaw] }, 'ok']);
    await reject(rejected.fresh, rejected.result.snapshot, { rationale: 'no' }, { now: at(1) });
    expect(humanSpans(rejected.spans).map((span) => span.interaction!.decision)).toEqual(['rejected']);
    expect(rejected.spans.some((span) => span.name === 'execute_tool record_thaw')).toBe(false);

    const cancelled = await paused([{ toolCalls: [ask([cellLineQuestion])] }, 'ok']);
    await cancelQuestion(cancelled.fresh, cancelled.result.snapshot, {}, { now: at(2) });
    expect(humanSpans(cancelled.spans).map((span) => span.interaction!.decision)).toEqual(['cancelled']);
  });

  it('timed out: a late answer and a sweep both report timed_out with the whole wait', async () => {
    const config = { tools: [askUserQuestion({ timeoutMs: 60_000 })] };
    const late = await paused([{ toolCalls: [ask([cellLineQuestion])] }, 'ok'], config);
    await answerQuestion(late.fresh, late.result.snapshot, { answers: 'K562-dTAG' }, { now: at(120) });
    expect(humanSpans(late.spans)[0]!.interaction).toMatchObject({ decision: 'timed_out', waitMs: 120_000 });

    const swept = await paused([{ toolCalls: [ask([cellLineQuestion])] }, 'ok'], config);
    await expire(swept.fresh, swept.result.snapshot, { now: at(61) });
    expect(humanSpans(swept.spans)[0]!.interaction).toMatchObject({
      decision: 'timed_out',
      waitMs: 61_000,
      link: swept.pausedTurn.context,
    });
  });

  it('a new message supersedes the pending question: superseded, linked to the pause', async () => {
    const { result, pausedTurn, fresh, spans } = await paused([
      { toolCalls: [ask([cellLineQuestion])] },
      'ok',
    ]);
    await runTurn(fresh, { snapshot: result.snapshot, input: 'never mind' }, { now: at(3) });
    expect(humanSpans(spans)[0]!.interaction).toMatchObject({
      decision: 'superseded',
      waitMs: 3000,
      link: pausedTurn.context,
    });
  });

  it("a parent model's answer_subagent: the span sits in the turn that answered, with no link", async () => {
    const { spans, telemetry } = recorder();
    const child = childAgent('researcher', [{ toolCalls: [ask([colorQuestion])] }, 'painted']);
    const lead = parentAgent(
      child,
      [
        { toolCalls: [delegate('x')] },
        (request) => ({
          toolCalls: [
            {
              name: 'answer_subagent',
              arguments: { interactionId: JSON.parse(lastContent(request)).interactionId, answers: 'Blue' },
            },
          ],
        }),
        'ok',
      ],
      'parent',
    );
    const result = await runTurn(lead, { input: 'go' }, { telemetry });
    expect(result.status).toBe('completed');
    const [human] = humanSpans(spans);
    expect(human).toMatchObject({ parent: 'invoke_agent lead', ended: true });
    expect(human!.interaction).toMatchObject({ agent: 'researcher', kind: 'question', decision: 'answered' });
    expect(human!.interaction!.link).toBeUndefined();
  });

  it('sessions: the answer to a run kept in a store is traced in the turn the same call plays', async () => {
    const store = memoryStore();
    const first = recorder();
    const steps = [{ toolCalls: [ask([cellLineQuestion])] }, 'ok'];
    const agent = makeAgent(steps, { telemetry: first.telemetry });
    const started = await createSessions({ agent, store }).start('go', { now: t0 });
    const later = recorder(100);
    const fresh = createSessions({ agent: makeAgent(['', 'ok'], { telemetry: later.telemetry }), store });
    const done = await fresh.answer(started.runId, { answers: 'K562-dTAG' }, { now: at(30) });
    expect(done.status).toBe('completed');
    expect(humanSpans(later.spans)[0]).toMatchObject({
      parent: 'invoke_agent inventory',
      interaction: { decision: 'answered', waitMs: 30_000, link: first.spans[0]!.context },
    });
  });

  it('sessions with defer: the worker that plays the turn (a fresh sessions object) reports the human once', async () => {
    const store = memoryStore();
    const first = recorder();
    const steps = [{ toolCalls: [ask([cellLineQuestion])] }, 'ok'];
    const started = await createSessions({
      agent: makeAgent(steps, { telemetry: first.telemetry }),
      store,
    }).start('go', { now: t0 });
    const front = recorder(100);
    const frontSessions = createSessions({
      agent: makeAgent(['', 'ok'], { telemetry: front.telemetry }),
      store,
    });
    const deferred = await frontSessions.answer(
      started.runId,
      { answers: { 'Cell line': { selected: [], other: 'secret clone 7' } } },
      { now: at(45), defer: true },
    );
    expect(deferred.status).toBe('running');
    expect(front.spans).toEqual([]);
    const worker = recorder(200);
    const workerSessions = createSessions({
      agent: makeAgent(['', 'ok'], { telemetry: worker.telemetry }),
      store,
    });
    const done = await workerSessions.play(deferred.claim!);
    expect(done.status).toBe('completed');
    expect(humanSpans(worker.spans)).toHaveLength(1);
    expect(humanSpans(worker.spans)[0]).toMatchObject({
      parent: 'invoke_agent inventory',
      ended: true,
      interaction: {
        runId: started.runId,
        agent: 'inventory',
        interactionId: started.pendingQuestion!.id,
        kind: 'question',
        toolName: 'AskUserQuestion',
        toolCallId: started.pendingQuestion!.toolCallId,
        decision: 'answered',
        waitMs: 45_000,
        link: first.spans[0]!.context,
      },
    });
    expect(worker.spans[0]!.link).toEqual(first.spans[0]!.context);
    expect(JSON.stringify(worker.spans)).not.toContain('secret clone');
    // The next turn of the same run does not report the answer again.
    await workerSessions.send(started.runId, 'more', { now: at(60) });
    expect(humanSpans(worker.spans)).toHaveLength(1);
  });

  it('sessions with defer: the same process that responded and plays reports the human once', async () => {
    const store = memoryStore();
    const { spans, telemetry } = recorder();
    const sessions = createSessions({
      agent: makeAgent([{ toolCalls: [thaw] }, 'ok'], { telemetry }),
      store,
    });
    const started = await sessions.start('go', { now: t0 });
    const deferred = await sessions.approve(started.runId, {}, { now: at(7), defer: true });
    await sessions.play(deferred.claim!);
    expect(humanSpans(spans).map((span) => span.interaction)).toEqual([
      expect.objectContaining({
        kind: 'approval',
        toolName: 'record_thaw',
        decision: 'approved',
        waitMs: 7000,
      }),
    ]);
  });

  it("sessions with defer: a sub-agent's question answered by the person is reported with the sub-agent's name", async () => {
    const store = memoryStore();
    const child = childAgent('researcher', [{ toolCalls: [ask([colorQuestion])] }, 'painted']);
    const { spans, telemetry } = recorder();
    const lead = parentAgent(child, [{ toolCalls: [delegate('x')] }, 'ok']);
    const sessions = createSessions({ agent: lead, store });
    const started = await sessions.start('go', { now: t0, telemetry });
    expect(started.status).toBe('needs_input');
    const deferred = await sessions.answer(
      started.runId,
      { answers: 'Blue' },
      { now: at(4), defer: true, telemetry },
    );
    const worker = recorder(300);
    const done = await createSessions({ agent: lead, store }).play(deferred.claim!, {
      telemetry: worker.telemetry,
    });
    expect(done.status).toBe('completed');
    expect(humanSpans(worker.spans).map((span) => span.interaction)).toEqual([
      expect.objectContaining({ agent: 'researcher', kind: 'question', decision: 'answered', waitMs: 4000 }),
    ]);
    expect(humanSpans(spans)).toEqual([]);
  });

  it("a resumed turn's snapshot keeps the span on its record, and a malformed one is SNAPSHOT_INVALID", async () => {
    const { result, fresh } = await paused([{ toolCalls: [thaw] }, { toolCalls: [ask([cellLineQuestion])] }]);
    const next = await approve(fresh, result.snapshot, {}, { now: at(2) });
    expect(next.status).toBe('needs_input');
    const envelope = JSON.parse(next.snapshot);
    expect(envelope.state.context.resolved[0].span).toEqual({
      turn: 2,
      askedAt: t0.toISOString(),
      toolName: 'record_thaw',
    });
    envelope.state.context.resolved[0].span.turn = 'two';
    const error = (() => {
      try {
        parseSnapshot(JSON.stringify(envelope));
      } catch (caught) {
        return caught as { code?: string; message: string };
      }
    })();
    expect(error?.code).toBe('SNAPSHOT_INVALID');
    expect(error?.message).toContain('span.turn');
  });

  it('without telemetry the resolved record keeps nothing for a span', async () => {
    const store = memoryStore();
    const sessions = createSessions({
      agent: makeAgent([{ toolCalls: [ask([cellLineQuestion])] }, 'ok']),
      store,
    });
    const started = await sessions.start('go', { now: t0 });
    const done = await sessions.answer(started.runId, { answers: 'K562-dTAG' }, { now: at(1) });
    const [record] = parseSnapshot(done.snapshot).state.context.resolved;
    expect(record).toBeDefined();
    expect(Object.keys(record!)).not.toContain('span');
  });
});
