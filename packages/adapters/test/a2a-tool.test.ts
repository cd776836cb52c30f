import { answerQuestion, createSessions, memoryStore, runTurn, type SnapshotStore } from '@turnkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { a2aAgentTool } from '../src/protocols/a2a/index.js';
import { assistant } from './helpers/a2a-assistant.js';
import { closeSdkServers, type RemoteMode, serveSdkAgent } from './helpers/a2a-sdk-server.js';

afterEach(closeSdkServers);

async function remote(mode: RemoteMode = 'ask') {
  return serveSdkAgent(mode);
}

describe('a2aAgentTool against an @a2a-js/sdk server', () => {
  it("pauses on the remote's input-required as a question with its options, and the answer (in another process) completes the remote task", async () => {
    const freezer = await remote();
    const paused = await runTurn(assistant({ url: freezer.url }), { input: 'Thaw K562' });
    expect(paused.status).toBe('needs_input');
    expect(paused.pendingQuestion).toMatchObject({ kind: 'question', toolName: 'freezer' });
    const [question] = (
      paused.pendingQuestion!.payload as {
        questions: { header: string; question: string; options: { label: string }[] }[];
      }
    ).questions;
    expect(question).toMatchObject({ header: 'freezer', question: 'Which box holds K562?' });
    expect(question!.options.map((option) => option.label)).toEqual(['B2-14', 'B2-15']);
    // The remote task id is in the snapshot: nothing waits in memory.
    expect(freezer.taskIds).toHaveLength(1);
    expect(paused.snapshot).toContain(freezer.taskIds[0]);

    // A fresh agent (another process) answers; the answer goes to the remote task.
    const done = await answerQuestion(assistant({ card: freezer.card }), paused.snapshot, {
      answers: { freezer: 'B2-15' },
    });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('Done: Thawed K562 from B2-15');
    expect(freezer.received).toHaveLength(2);
    expect(freezer.received[1]!.taskId).toBe(freezer.taskIds[0]);
    // Each message's id comes from the call's idempotency key (and the ask it answers).
    expect(freezer.received.map((item) => item.messageId)).toEqual([
      `turnkit:${paused.runId}:call_freezer`,
      `turnkit:${paused.runId}:call_freezer:1`,
    ]);
    expect(freezer.taskIds).toHaveLength(1);
  });

  it('sends Other text as the answer to a free-form remote question', async () => {
    const freezer = await remote();
    const paused = await runTurn(assistant({ url: freezer.url }), { input: 'Thaw K562' });
    const done = await answerQuestion(assistant({ url: freezer.url }), paused.snapshot, {
      answers: { freezer: { selected: [], other: 'the one by the door' } },
    });
    expect(done.output).toBe('Done: Thawed K562 from the one by the door');
  });

  it.each([
    ['fail', 'failed: The freezer is offline.'],
    ['reject', 'rejected: I do not thaw on Sundays.'],
  ] as const)('makes a remote %s a tool error result', async (mode, words) => {
    const freezer = await remote(mode);
    const result = await runTurn(assistant({ url: freezer.url }), { input: 'Thaw K562' });
    expect(result.status).toBe('completed');
    const toolResult = JSON.parse(
      result.messages.find((message) => message.role === 'tool')!.content as string,
    );
    expect(toolResult).toMatchObject({ ok: false, error_code: 'tool_error' });
    expect(toolResult.message).toContain(words);
  });

  it('bounds a remote that never answers by the timeout: a tool error, nothing hangs', async () => {
    const freezer = await remote('hang');
    const started = Date.now();
    const result = await runTurn(assistant({ url: freezer.url, timeoutMs: 300 }), { input: 'Thaw K562' });
    expect(Date.now() - started).toBeLessThan(5_000);
    const toolResult = JSON.parse(
      result.messages.find((message) => message.role === 'tool')!.content as string,
    );
    expect(toolResult).toMatchObject({ ok: false, error_code: 'tool_timeout' });
    expect(freezer.received).toHaveLength(1);
  });

  it('refuses to be built without one remote or a name and description', () => {
    expect(() => a2aAgentTool({ name: 'x', description: 'y' })).toThrow(/`url` or its `card`/);
    expect(() => a2aAgentTool({ url: 'http://x', description: 'y' })).toThrow(/`name`/);
    expect(() => a2aAgentTool({ url: 'http://x', name: 'bad name', description: 'y' })).toThrow(/`name`/);
    expect(() => a2aAgentTool({ url: 'http://x', name: 'x' })).toThrow(/`description`/);
  });
});

describe('a2aAgentTool: a worker that dies after sending the message', () => {
  const leaseMs = 80;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('does not send it again blindly: the call in doubt waits for a person (reject: the model is told)', async () => {
    const freezer = await remote('hang');
    const store = memoryStore();
    // The worker's store stops renewing: the worker is as good as dead while the remote holds its message.
    const dead: SnapshotStore = { ...store, renew: () => Promise.reject(new Error('ETIMEDOUT')) };
    const runId = 'run_a2a_in_doubt';
    void createSessions({ agent: assistant({ url: freezer.url, timeoutMs: 60_000 }), store: dead, leaseMs })
      .start({ input: 'Thaw K562', runId })
      .catch(() => undefined);
    while (freezer.received.length === 0) await sleep(10);
    await sleep(leaseMs * 3);

    const sessions = createSessions({ agent: assistant({ url: freezer.url }), store, leaseMs });
    const retried = await sessions.retry(runId);
    expect(retried.status).toBe('needs_input');
    expect(retried.pendingQuestion).toMatchObject({ kind: 'in_doubt', toolName: 'freezer' });
    expect(freezer.received).toHaveLength(1);

    const told = await sessions.reject(runId, { rationale: 'I will check the freezer log myself.' });
    expect(told.status).toBe('completed');
    const result = told.messages.find((message) => message.role === 'tool')!.content as string;
    expect(JSON.parse(result)).toMatchObject({ ok: false, error_code: 'tool_in_doubt' });
    expect(freezer.received).toHaveLength(1);
    // The one message sent carried the call's idempotency key as its id.
    expect(freezer.received[0]!.messageId).toBe(`turnkit:${runId}:call_freezer`);
  });
});
