/**
 * A TurnKit agent calling another TurnKit agent over A2A (DESIGN §29): the inner agent is served by
 * `createHandler` with `a2aProtocol()` behind a bearer token, the outer one calls it through
 * `a2aAgentTool()` with that token in its headers. Both pause;
 * the person answers the outer run (from another process: a fresh agent over the same store) and
 * the answer reaches the inner run, whose approval then pauses the outer one in turn.
 */
import { AgentCard } from '@a2a-js/sdk';
import { askUserQuestion, createSessions, defineAgent, memoryStore } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { a2aAgentTool } from '../src/protocols/a2a/index.js';
import { closeServers, serveA2a } from './helpers/a2a-fixtures.js';
import { formAgent } from './helpers/ag-ui-fixtures.js';
import { inventoryAgent, lastToolResult } from './http-fixtures.js';

afterEach(closeServers);

const TOKEN = 'tk-inner-agent-token';

function assistant(url: string, calls: string[]) {
  const inventory = a2aAgentTool({
    url,
    name: 'inventory',
    description: 'Manages the LN2 freezer.',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  return defineAgent({
    name: 'assistant',
    instructions: 'You help in the lab.',
    model: scriptedModel([
      () => {
        calls.push('model');
        return {
          toolCalls: [{ name: 'inventory', arguments: { message: 'Thaw one vial, ask me which line.' } }],
        };
      },
      (request) => `Inventory says: ${lastToolResult(request)}`,
    ]),
    tools: [inventory],
  });
}

describe('TurnKit calling TurnKit over A2A', () => {
  it('pauses both runs, routes the question and the approval down, and thaws once', async () => {
    const thawed: string[][] = [];
    const innerStore = memoryStore();
    const innerRuns: string[] = [];
    const url = await serveA2a({
      agent: inventoryAgent({ thawed }),
      store: innerStore,
      token: TOKEN,
      onEvent: (event) => innerRuns.push(event.runId),
    });
    const outerStore = memoryStore();
    const calls: string[] = [];
    const outer = () => createSessions({ agent: assistant(url, calls), store: outerStore });

    const asked = await outer().start('Thaw a vial for me');
    expect(asked.status).toBe('needs_input');
    // The inner agent's own question, options and all, is the outer run's question.
    expect(asked.pendingQuestion).toMatchObject({ kind: 'question', toolName: 'inventory' });
    const [question] = (
      asked.pendingQuestion!.payload as { questions: { header: string; options: { label: string }[] }[] }
    ).questions;
    expect(question!.header).toBe('Cell lines');
    expect(question!.options.map((option) => option.label)).toEqual(['K562', 'HeLa', 'HEK293T']);

    const approval = await outer().answer(asked.runId, { answers: { 'Cell lines': ['HeLa'] } });
    expect(approval.status).toBe('needs_input');
    expect(approval.pendingQuestion).toMatchObject({ kind: 'approval', toolName: 'inventory' });
    expect(JSON.stringify(approval.pendingQuestion!.payload)).toContain('thaw_vials');
    expect(thawed).toEqual([]);

    const done = await outer().approve(asked.runId, { rationale: 'Go ahead.' });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('Inventory says: Done: {"thawed":["K562"],"count":1}');
    expect(thawed).toEqual([['K562']]);
    expect(calls).toEqual(['model']);

    // The inner run got the person's answer to its own question, once.
    const [innerRunId] = new Set(innerRuns);
    const inner = await createSessions({ agent: inventoryAgent(), store: innerStore }).get(innerRunId!);
    const results = inner.messages
      .filter((message) => message.role === 'tool')
      .map((message) => message.content);
    expect(results[0]).toBe('{"answers":{"Cell lines":"HeLa"}}');
    expect(new Set(innerRuns).size).toBe(1);
  });

  it('asks a remote question whose options have no description (plain labels), and the label reaches it', async () => {
    const inner = defineAgent({
      name: 'lines',
      instructions: 'You know the cell lines.',
      model: scriptedModel([
        {
          toolCalls: [
            {
              name: 'AskUserQuestion',
              arguments: {
                questions: [{ question: 'Which line?', header: 'Cell line', options: ['K562', 'HeLa'] }],
              },
            },
          ],
        },
        (request) => `Noted: ${lastToolResult(request)}`,
      ]),
      tools: [askUserQuestion()],
    });
    const url = await serveA2a({ agent: inner, store: memoryStore(), token: TOKEN });
    const sessions = createSessions({ agent: assistant(url, []), store: memoryStore() });
    const asked = await sessions.start('Thaw a vial');
    expect(asked.pendingQuestion?.kind).toBe('question');
    const done = await sessions.answer(asked.runId, { answers: { 'Cell line': 'HeLa' } });
    expect(done.output).toBe('Inventory says: Noted: {"answers":{"Cell line":"HeLa"}}');
  });

  it("asks the inner tool's form as a form (its schema kept), and the value reaches the inner tool", async () => {
    const boxes: string[] = [];
    const url = await serveA2a({ agent: formAgent(boxes), store: memoryStore(), token: TOKEN });
    const sessions = createSessions({ agent: assistant(url, []), store: memoryStore() });
    const asked = await sessions.start('Record a thaw');
    expect(asked.pendingQuestion).toMatchObject({
      kind: 'input',
      payload: { message: 'Which box holds K562?' },
    });
    await expect(sessions.provideInput(asked.runId, { value: { box: 'B9-99' } })).rejects.toThrow(/box/);
    const done = await sessions.provideInput(asked.runId, { value: { box: 'B2-15' } });
    expect(done.output).toBe('Inventory says: Recorded: {"thawed":"K562","box":"B2-15"}');
    expect(boxes).toEqual(['B2-15']);
  });

  it('rejects the inner approval from the outer run: the inner tool never runs', async () => {
    const thawed: string[][] = [];
    const url = await serveA2a({ agent: inventoryAgent({ thawed }), store: memoryStore(), token: TOKEN });
    const sessions = createSessions({ agent: assistant(url, []), store: memoryStore() });
    const asked = await sessions.start('Thaw a vial');
    await sessions.answer(asked.runId, { answers: { 'Cell lines': ['K562'] } });
    const done = await sessions.reject(asked.runId, { rationale: 'Not today.' });
    expect(done.status).toBe('completed');
    expect(done.output).toContain('Inventory says: Done:');
    expect(done.output).toContain('rejected_by_user');
    expect(thawed).toEqual([]);
  });

  it('talks A2A 0.3 to a remote whose card offers only 0.3 (message/send), both runs pausing as in 1.0', async () => {
    const thawed: string[][] = [];
    const url = await serveA2a({ agent: inventoryAgent({ thawed }), store: memoryStore() });
    const seen: string[] = [];
    const card = await (
      await fetch(`${url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
    ).json();
    const legacyOnly = AgentCard.fromJSON({
      ...card,
      supportedInterfaces: card.supportedInterfaces.filter(
        (item: { protocolVersion: string }) => item.protocolVersion === '0.3',
      ),
    });
    const inventory = a2aAgentTool({
      card: legacyOnly,
      name: 'inventory',
      fetch: async (input, init) => {
        seen.push(JSON.parse(String(init?.body ?? '{}')).method);
        return fetch(input, init);
      },
    });
    const outer = defineAgent({
      name: 'assistant',
      instructions: 'You help in the lab.',
      model: scriptedModel([
        { toolCalls: [{ name: 'inventory', arguments: { message: 'Thaw one vial.' } }] },
        (request) => `Inventory says: ${lastToolResult(request)}`,
      ]),
      tools: [inventory],
    });
    const sessions = createSessions({ agent: outer, store: memoryStore() });
    const asked = await sessions.start('Thaw a vial');
    const approval = await sessions.answer(asked.runId, { answers: { 'Cell lines': ['K562'] } });
    const done = await sessions.approve(approval.runId);
    expect(done.output).toBe('Inventory says: Done: {"thawed":["K562"],"count":1}');
    expect(seen).toEqual(['message/send', 'message/send', 'message/send']);
    expect(thawed).toEqual([['K562']]);
  });
});
