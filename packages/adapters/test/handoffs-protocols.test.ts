/**
 * Handoffs in the standard protocols (DESIGN §27): the AI SDK UI stream names the agent that
 * speaks (a `message-metadata` chunk at each handoff, `turnkit.activeAgent` in `finish`), and AG-UI
 * sends a `CUSTOM` `turnkit.active_agent` event at each handoff and before the end of a run the
 * root does not play — through the real `@ag-ui/client`, its events checked by AG-UI's schemas.
 */
import { type Agent, askUserQuestion, defineAgent, memoryStore, runTurn } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandler } from '../src/http/public.js';
import { ACTIVE_AGENT_EVENT } from '../src/protocols/ag-ui/index.js';
import { toUIMessageChunks } from '../src/protocols/ai-sdk-ui/index.js';
import { client, closeServers, serveAgUi, typesOf } from './helpers/ag-ui-fixtures.js';
import { send } from './http-fixtures.js';

afterEach(closeServers);

/** triage hands the run to the freezer desk, which asks which line (with its question tool named `questionTool`). */
function desk(questionTool = 'AskUserQuestion'): Agent {
  const question = { question: 'Which line?', header: 'Line', options: ['K562', 'HeLa'] };
  const freezer = defineAgent({
    name: 'freezer',
    instructions: 'You are the LN2 freezer desk.',
    model: scriptedModel([
      'unused',
      { toolCalls: [{ id: 'q1', name: questionTool, arguments: { questions: [question] } }] },
    ]),
    tools: [askUserQuestion({ name: questionTool })],
  });
  return defineAgent({
    name: 'triage',
    instructions: 'You route requests.',
    model: scriptedModel([{ toolCalls: [{ id: 'h1', name: 'transfer_to_freezer', arguments: {} }] }]),
    handoffs: [freezer],
  });
}

describe('the AI SDK UI stream', () => {
  it('names the agent that speaks from each handoff on, and at the finish', async () => {
    const result = await runTurn(desk(), { input: 'Thaw a vial' });
    const chunks = toUIMessageChunks(result);
    const metadata = chunks.filter((chunk) => chunk.type === 'message-metadata');
    expect(metadata).toEqual([
      { type: 'message-metadata', messageMetadata: { turnkit: { activeAgent: 'freezer' } } },
    ]);
    // Said before the freezer desk's step starts.
    const at = chunks.indexOf(metadata[0]!);
    expect(chunks.slice(at + 1).some((chunk) => chunk.type === 'start-step')).toBe(true);
    const finish = chunks.at(-1);
    expect(finish).toMatchObject({
      type: 'finish',
      messageMetadata: { turnkit: { activeAgent: 'freezer' } },
    });
  });

  it("shows the question of a handed-to agent's own question tool on its call's part, whatever its name", async () => {
    const root = desk('AskFreezerDesk');
    const result = await runTurn(root, { input: 'Thaw a vial' });
    expect(result.pending).toMatchObject([
      { kind: 'question', toolCallId: 'q1', toolName: 'AskFreezerDesk' },
    ]);
    const chunks = toUIMessageChunks(result, { agent: root });
    // The call's own part carries the question (no synthetic part under the interaction's id).
    const parts = chunks.filter((chunk) => chunk.type === 'tool-input-available');
    expect(parts.map((chunk) => chunk.toolCallId)).toEqual(['h1', 'q1']);
    expect(parts[1]).toMatchObject({
      toolName: 'AskFreezerDesk',
      input: { questions: [{ header: 'Line' }] },
    });
    expect(chunks.at(-1)).toMatchObject({
      messageMetadata: { turnkit: { pending: [{ kind: 'question', toolCallId: 'q1' }] } },
    });
  });
});

describe('the HTTP run view', () => {
  it('names the agent that plays: the root before a handoff, the agent handed to after it', async () => {
    const handler = createHandler({
      agent: desk(),
      store: memoryStore(),
      authorize: () => ({ principal: 'ada' }),
    });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw a vial' });
    expect(started.body).toMatchObject({ status: 'needs_input', activeAgent: 'freezer' });
    const read = await send(handler, 'GET', `/runs/${started.body.runId as string}`);
    expect(read.body.activeAgent).toBe('freezer');
  });
});

describe('the AG-UI stream', () => {
  it('says which agent plays at each handoff, and before the end of a run the root does not play', async () => {
    const url = await serveAgUi({ agent: desk(), store: memoryStore() });
    const lab = client(url, 'thread-handoff');
    await lab.run();
    const custom = lab.events.filter(
      (event): event is typeof event & { name: string; value: unknown } =>
        event.type === 'CUSTOM' && (event as { name?: string }).name === ACTIVE_AGENT_EVENT,
    );
    expect(custom.map((event) => event.value)).toEqual([
      { agent: 'freezer', from: 'triage' },
      { agent: 'freezer' },
    ]);
    expect(typesOf(lab.events).slice(-2)).toEqual(['CUSTOM', 'RUN_FINISHED']);
    expect(lab.events.at(-1)).toMatchObject({ outcome: { type: 'interrupt' } });
  });
});
