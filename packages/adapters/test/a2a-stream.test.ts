import { type StreamResponse, TaskState } from '@a2a-js/sdk';
import { defineAgent, memoryStore } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  a2aClient,
  closeServers,
  data,
  legacyClient,
  message,
  pendingOf,
  rpc,
  serveA2a,
  text,
} from './helpers/a2a-fixtures.js';
import { inventoryAgent } from './http-fixtures.js';

afterEach(closeServers);

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Each event as `<case>:<state>` (tasks and status updates) or `artifact:<id>`. */
function shapes(events: StreamResponse[]): string[] {
  return events.map(({ payload }) => {
    if (payload?.$case === 'task') return `task:${TaskState[payload.value.status!.state]}`;
    if (payload?.$case === 'statusUpdate') return `status:${TaskState[payload.value.status!.state]}`;
    if (payload?.$case === 'artifactUpdate') return `artifact:${payload.value.artifact!.artifactId}`;
    return String(payload?.$case);
  });
}

describe('a2aProtocol: message/stream', () => {
  it('streams the task, what the model says, and the pause; then the answer streams to completed', async () => {
    const thawed: string[][] = [];
    const url = await serveA2a({ agent: inventoryAgent({ thawed }), store: memoryStore() });
    const client = await a2aClient(url);
    const first = await collect(client.sendMessageStream(message([text('Thaw one K562 vial')])));
    expect(shapes(first)).toEqual([
      'task:TASK_STATE_WORKING',
      'status:TASK_STATE_WORKING',
      'status:TASK_STATE_INPUT_REQUIRED',
    ]);
    const last = first.at(-1)!.payload;
    if (last?.$case !== 'statusUpdate') throw new Error('expected a status update');
    const taskId = last.value.taskId;
    expect(pendingOf(last.value)[0].kind).toBe('question');

    const answered = await collect(client.sendMessageStream(message([text('K562')], taskId)));
    expect(shapes(answered).at(-1)).toBe('status:TASK_STATE_INPUT_REQUIRED');
    const done = await collect(client.sendMessageStream(message([data({ type: 'approve' })], taskId)));
    expect(shapes(done)).toEqual([
      'task:TASK_STATE_WORKING',
      'status:TASK_STATE_WORKING',
      'artifact:output',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect(thawed).toEqual([['K562']]);
  });

  it('streams over 0.3 (message/stream) as well', async () => {
    const url = await serveA2a({ agent: inventoryAgent(), store: memoryStore() });
    const events = await collect(legacyClient(url).sendMessageStream(message([text('Thaw one vial')])));
    expect(shapes(events).at(-1)).toBe('status:TASK_STATE_INPUT_REQUIRED');
  });

  it('ends a failed turn as failed with the public message, and a structured output as a DataPart', async () => {
    const failing = defineAgent({ name: 'broken', instructions: 'x', model: scriptedModel([]), tools: [] });
    const faults: unknown[] = [];
    const failingUrl = await serveA2a({
      agent: failing,
      store: memoryStore(),
      onError: (error) => faults.push(error),
    });
    const failed = await collect((await a2aClient(failingUrl)).sendMessageStream(message([text('hi')])));
    const end = failed.at(-1)!.payload;
    if (end?.$case !== 'statusUpdate') throw new Error('expected a status update');
    expect(end.value.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    // The caller reads the public message; the provider's text went to onError only.
    expect(end.value.status?.message?.parts[0]?.content).toMatchObject({ $case: 'text' });
    expect(JSON.stringify(end.value)).not.toContain('scripted model');
    expect(faults).toHaveLength(1);

    const structured = defineAgent({
      name: 'counter',
      instructions: 'Count vials.',
      model: scriptedModel(['{"vials":3}']),
      tools: [],
      output: z.object({ vials: z.number() }),
    });
    const url = await serveA2a({ agent: structured, store: memoryStore() });
    const task = await (await a2aClient(url)).sendMessage(message([text('How many?')]));
    if (!('id' in task)) throw new Error('expected a task');
    expect(task.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'data', value: { vials: 3 } });
  });

  it('answers a stream refused before its first event as a JSON-RPC error', async () => {
    const url = await serveA2a({ agent: inventoryAgent(), store: memoryStore() });
    const answer = await rpc(url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendStreamingMessage',
      params: {
        message: { messageId: 'm', role: 'ROLE_USER', taskId: 'no-such-task', parts: [{ text: 'K562' }] },
      },
    });
    expect(answer).toMatchObject({ status: 200, body: { id: 1, error: { code: -32001 } } });
  });
});

describe('a2aProtocol: tasks/resubscribe', () => {
  it('follows a task another request is playing to its pause, and refuses a task that is over', async () => {
    const url = await serveA2a({ agent: inventoryAgent({ delayMs: 400 }), store: memoryStore() });
    const client = await a2aClient(url);
    const stream = client.sendMessageStream(message([text('Thaw one vial')]))[Symbol.asyncIterator]();
    const opened = (await stream.next()).value as StreamResponse;
    if (opened.payload?.$case !== 'task') throw new Error('expected the task first');
    const taskId = opened.payload.value.id;
    // The turn's claim is written as it starts; follow it from another client.
    let followed: StreamResponse[] | undefined;
    for (let attempt = 0; !followed && attempt < 20; attempt++) {
      try {
        followed = await collect((await a2aClient(url)).resubscribeTask({ tenant: '', id: taskId }));
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    expect(shapes(followed!)).toEqual(['task:TASK_STATE_WORKING', 'status:TASK_STATE_INPUT_REQUIRED']);
    while (!(await stream.next()).done) {}

    const paused = await collect(client.resubscribeTask({ tenant: '', id: taskId }));
    expect(shapes(paused)).toEqual(['task:TASK_STATE_INPUT_REQUIRED', 'status:TASK_STATE_INPUT_REQUIRED']);
    await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    await expect(collect(client.resubscribeTask({ tenant: '', id: taskId }))).rejects.toThrow(/over/);
  });
});
