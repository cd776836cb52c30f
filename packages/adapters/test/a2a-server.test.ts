import { TaskState } from '@a2a-js/sdk';
import { createSessions, memoryStore } from '@turnkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandler } from '../src/http/public.js';
import { a2aProtocol } from '../src/protocols/a2a/index.js';
import {
  a2aClient,
  closeServers,
  data,
  legacyClient,
  message,
  pendingOf,
  rpc,
  serveA2a,
  statusText,
  text,
} from './helpers/a2a-fixtures.js';
import { inventoryAgent, SECRET } from './http-fixtures.js';

afterEach(closeServers);

describe('a2aProtocol: the agent card', () => {
  it('serves the card for 1.0 with skills from the agent, both versions and the bearer scheme', async () => {
    const url = await serveA2a({ agent: inventoryAgent(), store: memoryStore(), token: 'tk-a2a-token' });
    const bearer = { authorization: 'Bearer tk-a2a-token' };
    expect((await fetch(`${url}/.well-known/agent-card.json`)).status).toBe(401);
    const card = await (
      await fetch(`${url}/.well-known/agent-card.json`, { headers: { ...bearer, 'A2A-Version': '1.0' } })
    ).json();
    expect(card).toMatchObject({
      name: 'inventory',
      description: 'Manages an LN2 freezer.',
      capabilities: { streaming: true },
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
    });
    expect(card.supportedInterfaces).toEqual([
      { url: `${url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    expect(card.skills.map((skill: { id: string }) => skill.id)).toEqual([
      'inventory',
      'inventory.thaw_vials',
      'inventory.AskUserQuestion',
    ]);
    // A caller naming no version gets 0.3's shape.
    const legacy = await (await fetch(`${url}/.well-known/agent-card.json`, { headers: bearer })).json();
    expect(legacy).toMatchObject({
      url: `${url}/a2a`,
      protocolVersion: '0.3',
      preferredTransport: 'JSONRPC',
    });
  });
});

describe('a2aProtocol: message/send, tasks/get, tasks/cancel with the SDK client', () => {
  it('plays a task through input-required twice (a text answer, then an approval DataPart) to completed', async () => {
    const thawed: string[][] = [];
    const url = await serveA2a({ agent: inventoryAgent({ thawed }), store: memoryStore() });
    const client = await a2aClient(url);

    const first = await client.sendMessage(message([text('Thaw one K562 vial')]));
    if (!('id' in first)) throw new Error('expected a task');
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const [question] = pendingOf(first);
    expect(question).toMatchObject({ kind: 'question', toolName: 'AskUserQuestion' });
    expect(question.payload.questions[0].options.map((o: { label: string }) => o.label)).toEqual([
      'K562',
      'HeLa',
      'HEK293T',
    ]);
    expect(statusText(first)).toContain('Cell lines: Which cell lines should I thaw?\n- K562: Rack A, box 3');

    // A text naming an option (any case) answers the one question.
    const second = await client.sendMessage(message([text('k562')], first.id));
    if (!('id' in second)) throw new Error('expected a task');
    expect(second.id).toBe(first.id);
    expect(second.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(pendingOf(second)[0]).toMatchObject({
      kind: 'approval',
      payload: { toolName: 'thaw_vials', input: { cellLines: ['K562'], count: 1 } },
    });
    expect(thawed).toEqual([]);

    const done = await client.sendMessage(message([data({ type: 'approve' })], first.id));
    if (!('id' in done)) throw new Error('expected a task');
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const [artifact] = done.artifacts;
    expect(artifact?.parts[0]?.content).toEqual({
      $case: 'text',
      value: 'Done: {"thawed":["K562"],"count":1}',
    });
    expect(thawed).toEqual([['K562']]);

    const read = await client.getTask({ tenant: '', id: first.id });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // The task is the handler's run: its own route reads it.
    const run = await (await fetch(`${url}/runs/${first.id}`)).json();
    expect(run).toMatchObject({ runId: first.id, status: 'completed' });
    expect(read.history.map((item) => item.parts[0]?.content?.$case)).toContain('text');
    // A completed task takes no more messages, and cannot be canceled; the tool ran once.
    await expect(client.sendMessage(message([data({ type: 'approve' })], first.id))).rejects.toThrow(
      /is over \(completed\)/,
    );
    await expect(client.cancelTask({ tenant: '', id: first.id, metadata: undefined })).rejects.toThrow(
      /over/,
    );
    expect(thawed).toEqual([['K562']]);
  });

  it('answers Other text for a text that is no option, and refuses a text when an approval waits', async () => {
    const agent = inventoryAgent();
    const store = memoryStore();
    const url = await serveA2a({ agent, store });
    const client = await a2aClient(url);
    const first = await client.sendMessage(message([text('Thaw one vial')]));
    if (!('id' in first)) throw new Error('expected a task');
    const second = await client.sendMessage(message([text('the Jurkat line')], first.id));
    if (!('id' in second)) throw new Error('expected a task');
    expect(pendingOf(second)[0].kind).toBe('approval');
    const run = await createSessions({ agent, store }).get(first.id);
    expect(run.messages.find((item) => item.role === 'tool')?.content).toBe(
      '{"answers":{"Cell lines":"Other (custom: the Jurkat line)"}}',
    );
    await expect(client.sendMessage(message([text('yes')], first.id))).rejects.toThrow(
      /A text answer fits a task waiting for one question/,
    );
    expect((await client.getTask({ tenant: '', id: first.id })).status?.state).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );
  });

  it('cancels a paused task (sessions.stop): canceled, and no message continues it', async () => {
    const thawed: string[][] = [];
    const url = await serveA2a({ agent: inventoryAgent({ thawed }), store: memoryStore() });
    const client = await a2aClient(url);
    const first = await client.sendMessage(message([text('Thaw one vial')]));
    if (!('id' in first)) throw new Error('expected a task');
    const canceled = await client.cancelTask({ tenant: '', id: first.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: '', id: first.id })).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    await expect(client.sendMessage(message([text('K562')], first.id))).rejects.toThrow(/over/);
    expect(thawed).toEqual([]);
  });

  it('speaks 0.3 too (message/send, tasks/get) through the compat layer', async () => {
    const url = await serveA2a({ agent: inventoryAgent(), store: memoryStore() });
    const client = legacyClient(url);
    const first = await client.sendMessage(message([text('Thaw one vial')]));
    if (!('id' in first)) throw new Error('expected a task');
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(pendingOf(first)[0].kind).toBe('question');
    const raw = await rpc(url, { jsonrpc: '2.0', id: 7, method: 'tasks/get', params: { id: first.id } }, {});
    expect(raw.body.result).toMatchObject({
      kind: 'task',
      id: first.id,
      status: { state: 'input-required' },
    });
    const second = await client.sendMessage(
      message([data({ type: 'answer', answers: { 'Cell lines': ['HeLa'] } })], first.id),
    );
    if (!('id' in second)) throw new Error('expected a task');
    expect(pendingOf(second)[0].payload.input.cellLines).toEqual(['K562']);
  });
});

describe('a2aProtocol: errors are JSON-RPC errors, never a 500', () => {
  it('answers unknown tasks, bad params, unknown methods and bad JSON with JSON-RPC errors', async () => {
    const url = await serveA2a({ agent: inventoryAgent(), store: memoryStore() });
    const client = await a2aClient(url);
    await expect(client.getTask({ tenant: '', id: 'no-such-task' })).rejects.toThrow();
    const unknown = await rpc(url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'GetTask',
      params: { id: 'no-such-task' },
    });
    expect(unknown).toMatchObject({ status: 200, body: { id: 1, error: { code: -32001 } } });
    const cases: [unknown, number][] = [
      ['{not json', -32700],
      [{ jsonrpc: '2.0', id: 2, method: 'SendMessage', params: [] }, -32602],
      [{ jsonrpc: '2.0', id: 3, method: 'SendMessage', params: { message: { parts: [] } } }, -32602],
      [{ jsonrpc: '2.0', id: 4, method: 'GetTask', params: { id: '../etc' } }, -32602],
      [{ jsonrpc: '2.0', id: 5, method: 'NoSuchMethod', params: {} }, -32601],
      // The SDK answers an invalid envelope as malformed params.
      [{ jsonrpc: '1.0', id: 6, method: 'GetTask', params: {} }, -32602],
      [{ jsonrpc: '2.0', id: 8, method: 'ListTasks', params: {} }, -32004],
      [
        { jsonrpc: '2.0', id: 9, method: 'CreateTaskPushNotificationConfig', params: { taskId: 'x' } },
        -32003,
      ],
    ];
    for (const [body, code] of cases) {
      const answer = await rpc(url, body);
      expect(answer.status, JSON.stringify(body)).toBe(200);
      expect(answer.body.error?.code, JSON.stringify(body)).toBe(code);
    }
    const version = await rpc(
      url,
      { jsonrpc: '2.0', id: 10, method: 'GetTask', params: { id: 'x' } },
      { 'A2A-Version': '9.9' },
    );
    expect(version.body.error.code).toBe(-32009);
    const malformed = await rpc(url, {
      jsonrpc: '2.0',
      id: 11,
      method: 'SendMessage',
      params: { message: { taskId: 'no-such-task', parts: [{ data: { type: 'approve' } }] } },
    });
    expect(malformed.body.error.code).toBe(-32001);
  });

  it('applies the body limit before anything runs', async () => {
    const url = await serveA2a({ agent: inventoryAgent(), store: memoryStore(), maxBodyBytes: 200 });
    // A caller that may not use the route learns nothing about the limit either.
    const guarded = await serveA2a({
      agent: inventoryAgent(),
      store: memoryStore(),
      maxBodyBytes: 200,
      authorize: () => false,
    });
    expect((await rpc(guarded, { pad: 'x'.repeat(500) })).status).toBe(401);
    const big = {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { parts: [{ text: 'x'.repeat(500) }] } },
    };
    expect((await rpc(url, big)).status).toBe(413);
  });
});

describe('a2aProtocol: options', () => {
  it('is refused at build without a card description, or on a handler without a store', () => {
    expect(() => a2aProtocol({ card: { description: '' } })).toThrow(/card\.description/);
    expect(() =>
      createHandler({
        agent: inventoryAgent(),
        secret: SECRET,
        protocols: [a2aProtocol({ card: { description: 'Manages an LN2 freezer.' } })],
      }),
    ).toThrow(/a2aProtocol needs createHandler with a `store`/);
  });

  it('serves under the basePath, at its path, with the configured url on the card', async () => {
    const handler = createHandler({
      agent: inventoryAgent(),
      store: memoryStore(),
      basePath: '/api',
      protocols: [
        a2aProtocol({
          path: '/agents/inventory',
          card: { description: 'LN2.', url: 'https://lab.example/a2a' },
        }),
      ],
    });
    const card = await (
      await handler(
        new Request('http://x.local/api/.well-known/agent-card.json', { headers: { 'A2A-Version': '1.0' } }),
      )
    ).json();
    expect(card.supportedInterfaces[0].url).toBe('https://lab.example/a2a');
    const answer = await handler(
      new Request('http://x.local/api/agents/inventory', {
        method: 'POST',
        headers: { 'A2A-Version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'none' } }),
      }),
    );
    expect((await answer.json()).error.code).toBe(-32001);
  });
});

describe('a2aProtocol: principals', () => {
  it('asks authorize about route a2a with the task id; a caller bound to another principal sees no task', async () => {
    const routes: unknown[] = [];
    const url = await serveA2a({
      agent: inventoryAgent(),
      store: memoryStore(),
      authorize: (request, route) => {
        routes.push(route);
        const user = request.headers.get('x-user');
        return user ? { principal: user } : false;
      },
    });
    expect((await fetch(`${url}/.well-known/agent-card.json`)).status).toBe(401);
    const alice = await a2aClient(url, { 'x-user': 'alice' });
    const mallory = await a2aClient(url, { 'x-user': 'mallory' });
    const task = await alice.sendMessage(message([text('Thaw one vial')]));
    if (!('id' in task)) throw new Error('expected a task');
    await mallory.getTask({ tenant: '', id: task.id }).then(
      () => expect.fail('mallory read alice’s task'),
      (error: Error) => expect(error.message).toMatch(/No such task/),
    );
    await expect(mallory.sendMessage(message([text('K562')], task.id))).rejects.toThrow(/No such task/);
    await expect(mallory.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toThrow(
      /No such task/,
    );
    expect(routes).toContainEqual({ name: 'a2a', runId: task.id });
    expect((await alice.getTask({ tenant: '', id: task.id })).status?.state).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );
    const raw = await rpc(url, { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: task.id } });
    expect(raw.status).toBe(401);
  });
});
