/**
 * The A2A mount under hostile and careless clients (DESIGN §13 as on every mount): two answers to
 * one task at once run the tool once; a client that leaves a stream never stops its turn; a quiet
 * stream carries heartbeats; nothing is a server fault.
 */
import { TaskState } from '@a2a-js/sdk';
import { memoryStore } from '@turnkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { a2aClient, closeServers, data, message, rpc, serveA2a, text } from './helpers/a2a-fixtures.js';
import { inventoryAgent } from './http-fixtures.js';

afterEach(closeServers);

const streamBody = (taskId?: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendStreamingMessage',
  params: {
    message: {
      messageId: crypto.randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text: 'Thaw one' }],
      ...(taskId ? { taskId } : {}),
    },
  },
});

describe('a2aProtocol under hostile clients', () => {
  it('answers HEAD, OPTIONS and wrong methods on its card and its endpoint without a server fault, and starts no task', async () => {
    const faults: unknown[] = [];
    const store = memoryStore();
    const url = await serveA2a({ agent: inventoryAgent(), store, onError: (error) => faults.push(error) });
    const card = await fetch(`${url}/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    const head = await fetch(`${url}/.well-known/agent-card.json`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
    for (const method of ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']) {
      const response = await fetch(`${url}/a2a`, { method });
      expect([method, response.status < 500]).toEqual([method, true]);
      expect([method, response.status === 200]).toEqual([method, false]);
    }
    expect(await store.listPending?.({}, 10, null)).toMatchObject({ items: [] });
    expect(faults).toEqual([]);
  });

  it('runs the approved tool once when two approvals of one task race; the loser gets a JSON-RPC answer, never a 500', async () => {
    const thawed: string[][] = [];
    const faults: unknown[] = [];
    const url = await serveA2a({
      agent: inventoryAgent({ thawed, delayMs: 50 }),
      store: memoryStore(),
      onError: (error) => faults.push(error),
    });
    const client = await a2aClient(url);
    const first = await client.sendMessage(message([text('Thaw one')]));
    if (!('id' in first)) throw new Error('expected a task');
    await client.sendMessage(message([text('K562')], first.id));
    const approve = {
      jsonrpc: '2.0',
      id: 9,
      method: 'SendMessage',
      params: {
        message: {
          messageId: 'a',
          role: 'ROLE_USER',
          taskId: first.id,
          parts: [{ data: { type: 'approve' } }],
        },
      },
    };
    const answers = await Promise.all([rpc(url, approve), rpc(url, { ...approve, id: 10 })]);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const outcome = answer.body.result?.task?.status?.state ?? answer.body.error?.code;
      expect(['TASK_STATE_COMPLETED', 'TASK_STATE_WORKING', -32004]).toContain(outcome);
    }
    let task = await client.getTask({ tenant: '', id: first.id });
    for (let wait = 0; task.status?.state !== TaskState.TASK_STATE_COMPLETED && wait < 50; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      task = await client.getTask({ tenant: '', id: first.id });
    }
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(thawed).toEqual([['K562']]);
    expect(faults).toEqual([]);
  });

  it('never stops a turn when its stream is left: the task still comes to its pause', async () => {
    const url = await serveA2a({ agent: inventoryAgent({ delayMs: 200 }), store: memoryStore() });
    const leaving = new AbortController();
    const response = await fetch(`${url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify(streamBody()),
      signal: leaving.signal,
    });
    const reader = response.body!.getReader();
    const { value } = await reader.read();
    const opened = JSON.parse(
      new TextDecoder()
        .decode(value)
        .replace(/^data: /, '')
        .trim(),
    );
    const taskId = opened.result.task.id as string;
    leaving.abort();
    const client = await a2aClient(url);
    let state: TaskState | undefined;
    for (let wait = 0; state !== TaskState.TASK_STATE_INPUT_REQUIRED && wait < 100; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      state = await client.getTask({ tenant: '', id: taskId }).then(
        (task) => task.status?.state,
        () => undefined,
      );
    }
    expect(state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  });

  it("keeps a quiet stream open with heartbeats every heartbeatMs (the handler's option)", async () => {
    const url = await serveA2a({
      agent: inventoryAgent({ delayMs: 250 }),
      store: memoryStore(),
      heartbeatMs: 40,
    });
    const response = await fetch(`${url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify(streamBody()),
    });
    const body = await response.text();
    expect(body).toContain(': keep-alive\n\n');
    expect(body.trim().split('\n').at(-1)).toContain('TASK_STATE_INPUT_REQUIRED');
  });

  it("holds at most maxQueuedBytes of progress for a stream's reader; the outcome always comes", async () => {
    const url = await serveA2a({ agent: inventoryAgent(), store: memoryStore(), maxQueuedBytes: 10 });
    const response = await fetch(`${url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify(streamBody()),
    });
    const events = (await response.text()).split('\n').filter((line) => line.startsWith('data:'));
    // The model's words (33 bytes) do not fit: task, then the pause, no progress between.
    expect(events).toHaveLength(2);
    expect(events[1]).toContain('TASK_STATE_INPUT_REQUIRED');
  });

  it('answers a server fault as a bare JSON-RPC internal error; onError gets the fault', async () => {
    const faults: unknown[] = [];
    const store = memoryStore();
    const onFire = () => Promise.reject(new Error('the disk is on fire'));
    const url = await serveA2a({
      agent: inventoryAgent(),
      store: { ...store, get: onFire, getParts: onFire, getHead: onFire },
      onError: (error) => faults.push(error),
    });
    const answer = await rpc(url, { jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 'run-1' } });
    expect(answer).toMatchObject({
      status: 200,
      body: { id: 3, error: { code: -32603, message: 'Internal error.' } },
    });
    expect(JSON.stringify(answer.body)).not.toContain('disk');
    expect(faults).toHaveLength(1);
    expect(String(faults[0])).toContain('the disk is on fire');
  });

  it('refuses a data answer that is no response, and changes nothing', async () => {
    const url = await serveA2a({ agent: inventoryAgent(), store: memoryStore() });
    const client = await a2aClient(url);
    const first = await client.sendMessage(message([text('Thaw one')]));
    if (!('id' in first)) throw new Error('expected a task');
    await expect(
      client.sendMessage(message([data({ type: 'answer', answer: 'K562' })], first.id)),
    ).rejects.toThrow(/DataPart response 0 is not a response/);
    await expect(
      client.sendMessage(
        message([data({ type: 'answer', answers: { 'Cell lines': ['Jurkat'] } })], first.id),
      ),
    ).rejects.toThrow(/Jurkat/);
    const task = await client.getTask({ tenant: '', id: first.id });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  });
});
