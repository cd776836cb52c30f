import { AGUIError } from '@ag-ui/client';
import { memoryStore } from '@turnkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryReplayStore } from '../src/http/public.js';
import {
  client,
  closeServers,
  inventoryAgent,
  lastEvent,
  post,
  SECRET,
  serveAgUi,
  typesOf,
} from './helpers/ag-ui-fixtures.js';
import { respellings } from './http-fixtures.js';

afterEach(closeServers);

const cellLines = { answers: { 'Cell lines': ['K562'] } };

/** Plays a thread of the inventory agent up to its approval; returns the client. */
async function upToApproval(url: string, threadId: string) {
  const lab = client(url, threadId);
  await lab.run();
  await lab.run({
    resume: [{ interruptId: lab.agent.pendingInterrupts[0]!.id, status: 'resolved', payload: cellLines }],
  });
  return lab;
}

describe('an answer after expiry', () => {
  it('resolves as the timeout and the run goes on (raw POST: the client refuses it itself)', async () => {
    let clock = new Date('2000-01-01T00:00:00Z');
    const url = await serveAgUi({
      agent: inventoryAgent({ questionTimeoutMs: 60_000 }),
      store: memoryStore(),
      now: () => clock,
    });
    const lab = client(url, 'thread-expiry');
    await lab.run();
    const [question] = lab.agent.pendingInterrupts;
    expect(question!.expiresAt).toBe('2000-01-01T00:01:00.000Z');
    const resume = [{ interruptId: question!.id, status: 'resolved' as const, payload: cellLines }];
    await expect(lab.run({ resume })).rejects.toBeInstanceOf(AGUIError);

    clock = new Date('2000-01-01T00:02:00Z');
    const late = await post(url, {
      threadId: 'thread-expiry',
      runId: 'r-late',
      messages: lab.agent.messages,
      resume,
    });
    expect(late.status).toBe(200);
    expect(late.events.find((event) => event.type === 'CUSTOM')).toEqual({
      type: 'CUSTOM',
      name: 'turnkit.interrupt_expired',
      value: { interruptId: question!.id, resolution: 'timed_out' },
    });
    const result = late.events.find((event) => event.type === 'TOOL_CALL_RESULT');
    expect(result.content).toContain('question_timeout');
    expect(lastEvent(late.events).outcome.interrupts[0]).toMatchObject({ reason: 'tool_call' });
  });
});

describe('a replayed resume', () => {
  it('is idempotent in store mode: the same state back, the tool run once', async () => {
    const thawed: string[][] = [];
    const url = await serveAgUi({ agent: inventoryAgent({ thawed }), store: memoryStore() });
    const lab = await upToApproval(url, 'thread-replay');
    const resume = [
      {
        interruptId: lab.agent.pendingInterrupts[0]!.id,
        status: 'resolved' as const,
        payload: { approved: true },
      },
    ];
    const body = { threadId: 'thread-replay', runId: 'r1', messages: lab.agent.messages, resume };
    const first = await post(url, body);
    const again = await post(url, { ...body, runId: 'r2' });
    expect(thawed).toEqual([['K562']]);
    expect(lastEvent(first.events)).toMatchObject({
      outcome: { type: 'success' },
      result: 'Done: {"thawed":["K562"],"count":1}',
    });
    expect(lastEvent(again.events)).toMatchObject({
      outcome: { type: 'success' },
      result: 'Done: {"thawed":["K562"],"count":1}',
    });
    expect(typesOf(again.events)).toEqual(['RUN_STARTED', 'MESSAGES_SNAPSHOT', 'RUN_FINISHED']);

    const other = await post(url, {
      ...body,
      runId: 'r3',
      resume: [{ ...resume[0]!, payload: { approved: false } }],
    });
    expect(other).toMatchObject({ status: 409, problem: { code: 'CONFLICT' } });
  });

  it('is idempotent in client-held mode with the latest state; with replay: reject an older state is refused', async () => {
    const thawed: string[][] = [];
    const agent = inventoryAgent({ thawed });
    const url = await serveAgUi({
      agent,
      secret: SECRET,
      replay: 'reject',
      replayStore: memoryReplayStore(),
    });
    const lab = await upToApproval(url, 'thread-held-replay');
    const before = lab.agent.state;
    const resume = [
      {
        interruptId: lab.agent.pendingInterrupts[0]!.id,
        status: 'resolved' as const,
        payload: { approved: true },
      },
    ];
    await lab.run({ resume });
    expect(thawed).toEqual([['K562']]);

    const latest = await post(url, {
      threadId: 'thread-held-replay',
      runId: 'r-latest',
      state: lab.agent.state,
      messages: lab.agent.messages,
      resume,
    });
    expect(lastEvent(latest.events)).toMatchObject({ outcome: { type: 'success' } });
    const older = await post(url, {
      threadId: 'thread-held-replay',
      runId: 'r-older',
      state: before,
      messages: lab.agent.messages,
      resume,
    });
    expect(older).toMatchObject({ status: 409, problem: { code: 'CONFLICT' } });
    expect(thawed).toEqual([['K562']]);
  });
});

describe('a respelled encrypted state with replay: reject', () => {
  it('is refused each time: one approval runs the tool once', async () => {
    const thawed: string[][] = [];
    const url = await serveAgUi({
      agent: inventoryAgent({ thawed }),
      secret: SECRET,
      encrypt: true,
      replay: 'reject',
      replayStore: memoryReplayStore(),
    });
    const lab = await upToApproval(url, 'thread-respelled');
    const held = (lab.agent.state as { turnkit: string }).turnkit;
    const resume = [
      {
        interruptId: lab.agent.pendingInterrupts[0]!.id,
        status: 'resolved' as const,
        payload: { approved: true },
      },
    ];
    const messages = lab.agent.messages;
    await lab.run({ resume });
    expect(thawed).toEqual([['K562']]);
    for (const [index, turnkit] of respellings(held).entries()) {
      await post(url, {
        threadId: 'thread-respelled',
        runId: `r-respelled-${index}`,
        state: { turnkit },
        messages,
        resume,
      });
    }
    expect(thawed).toEqual([['K562']]);
  });
});

describe('two racing resumes in store mode', () => {
  it('let one run go on; the same answer twice waits for it, and no tool runs twice', async () => {
    const thawed: string[][] = [];
    const url = await serveAgUi({ agent: inventoryAgent({ thawed, delayMs: 150 }), store: memoryStore() });
    const lab = await upToApproval(url, 'thread-race');
    const twin = client(url, 'thread-race', lab.agent.messages);
    twin.agent.pendingInterrupts = lab.agent.pendingInterrupts;
    const resume = [
      {
        interruptId: lab.agent.pendingInterrupts[0]!.id,
        status: 'resolved' as const,
        payload: { approved: true },
      },
    ];
    const [a, b] = await Promise.all([lab.run({ resume }), twin.run({ resume })]);
    expect(thawed).toEqual([['K562']]);
    expect([a.result, b.result]).toEqual([
      'Done: {"thawed":["K562"],"count":1}',
      'Done: {"thawed":["K562"],"count":1}',
    ]);
    expect(lab.agent.messages.length).toBe(twin.agent.messages.length);
  });

  it('answer different decisions with one run and one 409 problem', async () => {
    const thawed: string[][] = [];
    const url = await serveAgUi({ agent: inventoryAgent({ thawed, delayMs: 150 }), store: memoryStore() });
    const lab = await upToApproval(url, 'thread-race-2');
    const id = lab.agent.pendingInterrupts[0]!.id;
    const body = (approved: boolean) => ({
      threadId: 'thread-race-2',
      runId: `r-${approved}`,
      messages: lab.agent.messages,
      resume: [{ interruptId: id, status: 'resolved', payload: { approved } }],
    });
    const answers = await Promise.all([post(url, body(true)), post(url, body(false))]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(answers.find((answer) => answer.status === 409)?.problem.code).toBe('CONFLICT');
    expect(thawed.length).toBeLessThanOrEqual(1);
  });
});
