/**
 * Tools in doubt (DESIGN §21), in one process over the memory store: a worker whose renewals fail
 * (as a dead one's would) stalls inside `execute`; its lease lapses and another worker takes the run
 * over. The call was recorded `started` before `execute` ran, has no result, and is in doubt: its
 * tool's `onInDoubt` decides (`retry` runs it again, `ask` pauses on an `in_doubt` interaction, a
 * function reconciles). The cross-process proof, with kill -9, is in the adapters tests.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  approve,
  createSessions,
  defineTool,
  memoryStore,
  type SnapshotStore,
  StateError,
  TurnkitError,
} from '../src/index.js';
import { expectOneResultPerCall, makeAgent, toolResults } from './helpers.js';
import { chargeAgent, entered, leaseMs, stalledRun } from './in-doubt-fixtures.js';

/** A run taken over with its charge call in doubt under the `ask` policy: paused on the in_doubt interaction. */
async function askedInDoubt() {
  const runs: string[] = [];
  const store = memoryStore();
  const agent = chargeAgent('ask', runs);
  const runId = await stalledRun(agent, store, runs);
  const sessions = createSessions({ agent, store, leaseMs });
  const paused = await sessions.retry(runId);
  return { runs, agent, runId, sessions, paused };
}

const inDoubtEvents = (result: { events: { type: string }[] }) =>
  result.events.filter((event) => event.type === 'tool_in_doubt');

describe('tools in doubt', () => {
  it('records the call started in the stored head before execute runs', async () => {
    const store = memoryStore();
    const seen: unknown[] = [];
    const tool = defineTool({
      name: 'charge',
      description: 'Charge the card',
      input: z.object({ amount: z.number() }),
      execute: async ({ amount }, ctx) => {
        const stored = await store.get(ctx.runId);
        const step = JSON.parse(stored!.snapshot).state.context.step;
        seen.push(step.find((call: { toolCallId: string }) => call.toolCallId === ctx.toolCallId));
        return { charged: amount };
      },
    });
    const agent = makeAgent(
      [{ toolCalls: [{ id: 'call_charge', name: 'charge', arguments: { amount: 5 } }] }, 'Done.'],
      { tools: [tool] },
    );
    const result = await createSessions({ agent, store }).start('charge 5');
    expect(result.status).toBe('completed');
    expect(seen).toEqual([
      {
        toolCallId: 'call_charge',
        toolName: 'charge',
        status: 'queued',
        started: true,
        schemaHash: tool.schemaHash,
      },
    ]);
  });

  it('writes one head per batch of calls that start together, not one per call', async () => {
    const store = memoryStore();
    const seen: { version: number; started: number }[] = [];
    const tool = defineTool({
      name: 'look',
      description: 'Look a vial up',
      input: z.object({ box: z.string() }),
      execute: async ({ box }, ctx) => {
        const stored = await store.get(ctx.runId);
        const step = JSON.parse(stored!.snapshot).state.context.step as { started?: boolean }[];
        seen.push({ version: stored!.version, started: step.filter((call) => call.started).length });
        return box;
      },
    });
    const toolCalls = ['A1', 'A2', 'A3', 'A4'].map((box, index) => ({
      id: `call_${index}`,
      name: 'look',
      arguments: { box },
    }));
    const agent = makeAgent([{ toolCalls }, 'Done.'], { tools: [tool] });
    const result = await createSessions({ agent, store }).start('look');
    expect(result.status).toBe('completed');
    // Every call saw all four marked started, in one and the same stored version.
    expect(seen).toHaveLength(4);
    expect(new Set(seen.map((entry) => entry.version)).size).toBe(1);
    expect(seen.every((entry) => entry.started === 4)).toBe(true);
  });

  it('an approved call is marked started by the claim of its resume: no extra head write before it runs', async () => {
    const base = memoryStore();
    let writes = 0;
    const count =
      <Args extends unknown[], Result>(write: (...args: Args) => Result) =>
      (...args: Args) => {
        writes++;
        return write(...args);
      };
    const store: SnapshotStore = {
      ...base,
      put: count(base.put),
      ...(base.putParts ? { putParts: count(base.putParts) } : {}),
    };
    const startedWhenRun: boolean[] = [];
    const thaw = defineTool({
      name: 'thaw',
      description: 'Thaw a vial',
      input: z.object({}),
      needsApproval: true,
      execute: async (_input, ctx) => {
        const step = JSON.parse((await base.get(ctx.runId))!.snapshot).state.context.step;
        startedWhenRun.push(step[0].started === true);
        return 'thawed';
      },
    });
    const agent = makeAgent([{ toolCalls: [{ id: 'call_thaw', name: 'thaw', arguments: {} }] }, 'Done.'], {
      tools: [thaw],
    });
    const sessions = createSessions({ agent, store });
    const paused = await sessions.start('thaw one');
    writes = 0;
    const done = await sessions.approve(paused.runId);
    expect(done.status).toBe('completed');
    expect(startedWhenRun).toEqual([true]);
    // The claim (with the marker), the step's result before the next model call, the result.
    expect(writes).toBe(3);
  });

  it('retry (default): the call in doubt runs again, once, with the same idempotency key', async () => {
    const runs: string[] = [];
    const store = memoryStore();
    const agent = chargeAgent(undefined, runs);
    const runId = await stalledRun(agent, store, runs);
    const result = await createSessions({ agent, store, leaseMs }).retry(runId);
    expect(result.status).toBe('completed');
    expect(runs).toEqual([`${runId}:call_charge`, `${runId}:call_charge`]);
    expect(inDoubtEvents(result)).toMatchObject([
      { toolCallId: 'call_charge', toolName: 'charge', policy: 'retry' },
    ]);
    expect(toolResults(result).call_charge).toBe('{"charged":5}');
    expectOneResultPerCall(result);
  });

  it('ask: pauses on an in_doubt interaction; the tool runs again only when a human approves', async () => {
    const { runs, runId, sessions, paused } = await askedInDoubt();
    expect(paused.status).toBe('needs_input');
    expect(paused.pendingQuestion).toMatchObject({
      kind: 'in_doubt',
      toolName: 'charge',
      toolCallId: 'call_charge',
      payload: { toolName: 'charge', input: { amount: 5 } },
    });
    expect(inDoubtEvents(paused)).toMatchObject([{ policy: 'ask' }]);
    expect(runs).toHaveLength(1);
    // Another read, or a retry, does not run it either.
    expect((await sessions.get(runId)).status).toBe('needs_input');
    expect(runs).toHaveLength(1);
    const approved = await sessions.approve(runId);
    expect(approved.status).toBe('completed');
    expect(runs).toEqual([`${runId}:call_charge`, `${runId}:call_charge`]);
    expect(toolResults(approved).call_charge).toBe('{"charged":5}');
    expectOneResultPerCall(approved);
  });

  it('an in_doubt ask is answered only through sessions: a client-held resume of its snapshot is refused, changing nothing', async () => {
    const { runs, agent, runId, sessions, paused } = await askedInDoubt();
    expect(paused.pendingQuestion?.kind).toBe('in_doubt');
    // Without sessions no call is recorded started, so the client-held loop holds no code for this.
    let error: unknown;
    try {
      await approve(agent, paused.snapshot);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StateError);
    expect((error as StateError).code).toBe('WRONG_KIND');
    expect((error as StateError).message).toMatch(/only sessions .* answer it/);
    expect(runs).toHaveLength(1);
    // The stored run is untouched and still answerable where it lives.
    expect((await sessions.approve(runId)).status).toBe('completed');
    expect(runs).toHaveLength(2);
  });

  it('ask: a rejection tells the model it may or may not have run; provideInput records the given result', async () => {
    for (const decide of ['reject', 'provide'] as const) {
      const runs: string[] = [];
      const store = memoryStore();
      const agent = chargeAgent('ask', runs);
      const runId = await stalledRun(agent, store, runs);
      const sessions = createSessions({ agent, store, leaseMs });
      expect((await sessions.retry(runId)).status).toBe('needs_input');
      const result =
        decide === 'reject'
          ? await sessions.reject(runId, { rationale: 'I will check the bank' })
          : await sessions.provideInput(runId, { value: { charged: 5, found: 'in the bank' } });
      expect(result.status).toBe('completed');
      expect(runs).toHaveLength(1);
      const content = JSON.parse(toolResults(result).call_charge!);
      if (decide === 'reject') {
        expect(content).toMatchObject({
          ok: false,
          error_code: 'tool_in_doubt',
          rationale: 'I will check the bank',
        });
        expect(content.message).toContain('may or may not have run');
      } else {
        expect(content).toEqual({ charged: 5, found: 'in the bank' });
      }
      expectOneResultPerCall(result);
    }
  });

  it('ask: an answer of the wrong kind is refused with WRONG_KIND, changing nothing', async () => {
    const runs: string[] = [];
    const store = memoryStore();
    const agent = chargeAgent('ask', runs);
    const runId = await stalledRun(agent, store, runs);
    const sessions = createSessions({ agent, store, leaseMs });
    await sessions.retry(runId);
    const error = await sessions.answer(runId, { answers: 'yes' }).catch((caught: unknown) => caught);
    expect(TurnkitError.isInstance(error) && error.code).toBe('WRONG_KIND');
    expect((error as Error).message).toContain('approve (run it again)');
    expect((await sessions.get(runId)).status).toBe('needs_input');
  });

  it('a reconcile function: execute never runs again, and the reconciled result is in the transcript', async () => {
    const runs: string[] = [];
    const looked: string[] = [];
    const store = memoryStore();
    const agent = chargeAgent(async ({ amount }, ctx) => {
      looked.push(ctx.idempotencyKey);
      return { charged: amount, reconciled: true };
    }, runs);
    const runId = await stalledRun(agent, store, runs);
    const result = await createSessions({ agent, store, leaseMs }).retry(runId);
    expect(result.status).toBe('completed');
    expect(runs).toHaveLength(1);
    expect(looked).toEqual([`${runId}:call_charge`]);
    expect(toolResults(result).call_charge).toBe('{"charged":5,"reconciled":true}');
    expect(inDoubtEvents(result)).toMatchObject([{ policy: 'reconcile' }]);
    expectOneResultPerCall(result);
  });

  it('a call in flight under a tool whose schema changed before the takeover gets tool_changed', async () => {
    const runs: string[] = [];
    const store = memoryStore();
    const runId = await stalledRun(chargeAgent(undefined, runs), store, runs);
    const tightened = defineTool({
      name: 'charge',
      description: 'Charge the card',
      input: z.object({ amount: z.number(), currency: z.string() }),
      execute: () => {
        runs.push('new');
        return 'charged';
      },
    });
    const agent = makeAgent(['(stalled)', (request) => `Done: ${request.messages.at(-1)?.content}`], {
      tools: [tightened],
    });
    const result = await createSessions({ agent, store, leaseMs }).retry(runId);
    expect(result.status).toBe('completed');
    expect(runs).toHaveLength(1);
    expect(JSON.parse(toolResults(result).call_charge!)).toMatchObject({ error_code: 'tool_changed' });
    expect(result.events.some((event) => event.type === 'tool_changed')).toBe(true);
  });

  it('refuses an onInDoubt that is not retry, ask or a function (CONFIG_INVALID)', () => {
    expect(() =>
      defineTool({
        name: 'charge',
        description: 'Charge',
        input: z.object({}),
        onInDoubt: 'never' as 'ask',
        execute: () => 'ok',
      }),
    ).toThrow(/onInDoubt/);
  });

  it('an abort mid-tool leaves the call in doubt: the retry applies its onInDoubt (DESIGN §21, every path)', async () => {
    const runs: string[] = [];
    const store = memoryStore();
    const agent = chargeAgent('ask', runs);
    const controller = new AbortController();
    const sessions = createSessions({ agent, store, leaseMs });
    // Abort once the tool runs (a fixed sleep could abort before it starts, on a loaded machine).
    const inside = new Promise<void>((resolve) => entered.set(runs, resolve));
    const started = sessions.start('charge 5', { signal: controller.signal });
    await inside;
    controller.abort();
    const aborted = await started;
    expect(aborted.status).toBe('aborted');
    // Its execute was cut off, not known to have ended: it may or may not have charged.
    const result = await sessions.retry(aborted.runId);
    expect(result.status).toBe('needs_input');
    expect(result.pendingQuestion).toMatchObject({ kind: 'in_doubt', toolName: 'charge' });
    expect(inDoubtEvents(result)).toMatchObject([{ toolCallId: 'call_charge', policy: 'ask' }]);
    expect(runs).toHaveLength(1);
  });
});
