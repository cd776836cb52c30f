/**
 * The `requestState` of `mcpServer`: what a client holds between two calls. Tampered, expired and
 * foreign ones (another server's, another tool's, another principal's) are refused before anything
 * runs; in store mode, concurrent retries with one `requestState` continue the run once. And both
 * directions together: a TurnKit agent using another TurnKit agent through `mcpTools`.
 */
import type { Client } from '@modelcontextprotocol/client';
import { memoryStore, provideInput, runTurn } from '@turnkit/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mcpServer, mcpTools } from '../src/protocols/mcp/index.js';
import { labAgent } from './fixtures/mcp-lab.js';
import { type ThawLog, thawAgent } from './fixtures/mcp-thaw-agent.js';
import { callOnce, closeClients, mcpClient, SECRET } from './helpers/mcp-clients.js';

afterEach(async () => {
  vi.useRealTimers();
  await closeClients();
});

const start = { name: 'inventory', arguments: { message: 'Thaw one K562 vial' } };

/** The first pause's requestState and the key of its question. */
async function paused(client: Client) {
  const first = await callOnce(client, start);
  expect(first.resultType).toBe('input_required');
  return { requestState: first.requestState!, key: Object.keys(first.inputRequests ?? {})[0]! };
}

const answerK562 = (key: string) => ({ [key]: { action: 'accept', content: { q0: 'K562' } } });
const refused = { code: -32602, message: expect.stringMatching(/Invalid or expired requestState/) };

describe('mcpServer refuses a requestState it cannot trust, and runs nothing', () => {
  it('refuses a tampered requestState', async () => {
    const log: ThawLog = { thawed: [] };
    const client = await mcpClient(mcpServer(thawAgent(log), { secret: SECRET }));
    const { requestState, key } = await paused(client);
    const tampered = `${requestState.slice(0, -4)}AAAA`;
    await expect(
      callOnce(client, { ...start, inputResponses: answerK562(key), requestState: tampered }),
    ).rejects.toMatchObject(refused);
  });

  it('refuses an expired requestState', async () => {
    const client = await mcpClient(mcpServer(thawAgent({ thawed: [] }), { secret: SECRET, ttlSeconds: 60 }));
    const { requestState, key } = await paused(client);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61_000);
    await expect(
      callOnce(client, { ...start, inputResponses: answerK562(key), requestState }),
    ).rejects.toMatchObject(refused);
  });

  it('refuses a requestState minted by another server, another tool or for another principal', async () => {
    const agent = thawAgent({ thawed: [] });
    const other = await mcpClient(mcpServer(agent, { secret: 'another-secret-that-is-32-chars-long' }));
    const renamed = await mcpClient(mcpServer(agent, { secret: SECRET, name: 'inventory.v2' }));
    const alice = await mcpClient(mcpServer(agent, { secret: SECRET }), { principal: 'alice' });
    const bob = await mcpClient(mcpServer(agent, { secret: SECRET }), { principal: 'bob' });

    const fromOther = await paused(other);
    const fromAlice = await paused(alice);
    const renamedCall = { name: 'inventory.v2', arguments: start.arguments };
    const fromRenamed = (await callOnce(renamed, renamedCall)).requestState!;

    const server = await mcpClient(mcpServer(agent, { secret: SECRET }));
    for (const requestState of [fromOther.requestState, fromRenamed]) {
      await expect(callOnce(server, { ...start, requestState })).rejects.toMatchObject(refused);
    }
    await expect(callOnce(bob, { ...start, requestState: fromAlice.requestState })).rejects.toMatchObject(
      refused,
    );
    await expect(callOnce(alice, { ...start, requestState: fromAlice.requestState })).resolves.toMatchObject({
      resultType: 'input_required',
    });
  });
});

describe('mcpServer in store mode', () => {
  it('continues the run once when two retries carry one requestState; a late one reads the outcome', async () => {
    const log: ThawLog = { thawed: [] };
    const mcp = mcpServer(thawAgent(log, 300), { store: memoryStore(), secret: SECRET });
    const client = await mcpClient(mcp);
    const question = await paused(client);
    const approval = await callOnce(client, {
      ...start,
      inputResponses: answerK562(question.key),
      requestState: question.requestState,
    });
    const [approvalKey] = Object.keys(approval.inputRequests ?? {});
    const retry = {
      ...start,
      inputResponses: { [approvalKey!]: { action: 'accept', content: { approved: true } } },
      requestState: approval.requestState,
    };

    const both = await Promise.all([callOnce(client, retry), callOnce(await mcpClient(mcp), retry)]);
    const late = await callOnce(client, retry);

    expect(log.thawed).toEqual(['K562']);
    for (const result of [...both, late]) {
      expect(result.content).toEqual([{ type: 'text', text: 'Done: {"thawed":"K562"}' }]);
    }
  });
});

describe('both directions: an agent using another agent through MCP', () => {
  it('pauses the outer run for each of the inner agent’s elicitations, and the inner tool runs once', async () => {
    const log: ThawLog = { thawed: [] };
    const inner = mcpServer(thawAgent(log), { store: memoryStore(), secret: SECRET });
    const tools = await mcpTools({
      url: 'http://in-process/mcp',
      fetch: (url, init) => inner.fetch(new Request(url, init)),
    });
    const outer = labAgent(tools, 'inventory', { message: 'Thaw one K562 vial' });

    const first = await runTurn(outer, { input: 'Ask the inventory agent' });
    expect(first.pendingQuestion).toMatchObject({
      kind: 'input',
      payload: { message: 'Which K562 line do you mean?' },
    });
    const second = await provideInput(outer, first.snapshot, { value: { q0: 'K562-dTAG' } });
    expect(second.pendingQuestion?.payload).toMatchObject({
      message: expect.stringMatching(/^Approve record_thaw\?/),
    });
    const done = await provideInput(outer, second.snapshot, { value: { approved: true } });

    expect(done.output).toBe('Tool said: Done: {"thawed":"K562-dTAG"}');
    expect(log.thawed).toEqual(['K562-dTAG']);
    await tools.close();
  });
});
