/**
 * A hook's review wherever an interaction goes (DESIGN §26): the HTTP routes (store and
 * client-held, signed and encrypted), AG-UI (an approval-shaped interrupt with the subject), the AI
 * SDK UI stream (an approval part whose input is what is under review) and MCP (a form elicitation
 * showing it). Each is decided through the protocol, and the tool runs once.
 */
import { defineAgent, defineHook, defineTool, memoryStore, runTurn } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHandler } from '../src/http/public.js';
import { toUIMessageChunks } from '../src/protocols/ai-sdk-ui/writer.js';
import { elicitations, responsesFrom } from '../src/protocols/mcp/forms.js';
import { client, closeServers, serveAgUi } from './helpers/ag-ui-fixtures.js';
import { SECRET, send } from './http-fixtures.js';

afterEach(closeServers);

/** A shop whose `pay` calls a `gate` hook reviews; `paid` records each payment. */
function shopAgent(paid: number[], snapshot?: { secret: string; encrypt?: boolean }) {
  const pay = defineTool({
    name: 'pay',
    description: 'Pays an amount.',
    input: z.object({ amount: z.number() }),
    execute: ({ amount }) => {
      paid.push(amount);
      return { paid: amount };
    },
  });
  const gate = defineHook({ name: 'gate', beforeTool: () => ({ ask: { reason: 'Payments are reviewed' } }) });
  return defineAgent({
    name: 'shop',
    instructions: 'Shop.',
    model: scriptedModel([
      { toolCalls: [{ id: 'c1', name: 'pay', arguments: { amount: 50 } }] },
      (request) => `Done: ${request.messages.at(-1)?.content}`,
    ]),
    tools: [pay],
    hooks: [gate],
    ...(snapshot ? { snapshot } : {}),
  });
}

const REVIEW = {
  kind: 'review',
  toolName: 'pay',
  payload: {
    hook: 'gate',
    point: 'beforeTool',
    subject: { id: 'c1', name: 'pay', input: { amount: 50 } },
    reason: 'Payments are reviewed',
  },
};

describe('HTTP routes', () => {
  it('shows a review, lists it in the inbox, and approves it with an edit (store mode)', async () => {
    const paid: number[] = [];
    const handler = createHandler({ agent: shopAgent(paid), store: memoryStore() });
    const started = await send(handler, 'POST', '/runs', { input: 'pay' });
    expect(started.body.pending[0]).toMatchObject(REVIEW);
    const inbox = await send(handler, 'GET', '/interactions?kind=review');
    expect(inbox.body.items).toHaveLength(1);
    const invalid = await send(handler, 'POST', `/runs/${started.body.runId}/approve`, {
      edit: { amount: 'x' },
    });
    expect(invalid.status).toBe(422);
    expect(paid).toEqual([]);
    const done = await send(handler, 'POST', `/runs/${started.body.runId}/approve`, { edit: { amount: 5 } });
    expect(done.body.status).toBe('completed');
    expect(paid).toEqual([5]);
  });

  it.each([false, true])(
    'rejects a review in client-held mode (encrypted: %s); the rationale is the reason',
    async (encrypt) => {
      const paid: number[] = [];
      const handler = createHandler({ agent: shopAgent(paid, { secret: SECRET, encrypt }), secret: SECRET });
      const started = await send(handler, 'POST', '/runs', { input: 'pay' });
      expect(started.body.pending[0]).toMatchObject(REVIEW);
      const { runId, snapshot } = started.body;
      const done = await send(handler, 'POST', `/runs/${runId}/reject`, {
        snapshot,
        rationale: 'over budget',
      });
      expect(done.body.status).toBe('completed');
      expect(done.body.output).toContain('"error_code":"denied"');
      expect(done.body.output).toContain('over budget');
      expect(paid).toEqual([]);
    },
  );
});

describe('AG-UI', () => {
  it('ends the run with an approval-shaped interrupt showing the subject; approved with an edit', async () => {
    const paid: number[] = [];
    const url = await serveAgUi({ agent: shopAgent(paid), store: memoryStore() });
    const lab = client(url, 'thread-review');
    await lab.run();
    const [interrupt] = lab.agent.pendingInterrupts;
    expect(interrupt).toMatchObject({
      reason: 'tool_call',
      message: 'Payments are reviewed',
      responseSchema: { required: ['approved'] },
      metadata: {
        turnkit: { kind: 'review', hook: 'gate', point: 'beforeTool', subject: REVIEW.payload.subject },
      },
    });
    const done = await lab.run({
      resume: [
        { interruptId: interrupt!.id, status: 'resolved', payload: { approved: true, edit: { amount: 7 } } },
      ],
    });
    expect(done.result).toContain('"paid":7');
    expect(paid).toEqual([7]);
  });
});

describe('AI SDK UI stream', () => {
  it('streams a review as an approval part whose input is what is under review', async () => {
    const paused = await runTurn(shopAgent([]), { input: 'pay' });
    const chunks = toUIMessageChunks(paused);
    const id = paused.pendingQuestion!.id;
    expect(chunks).toContainEqual({
      type: 'tool-input-available',
      toolCallId: id,
      toolName: 'pay',
      input: REVIEW.payload,
    });
    expect(chunks).toContainEqual({ type: 'tool-approval-request', approvalId: id, toolCallId: id });
  });
});

describe('MCP', () => {
  it('asks for a review with a form showing the subject; decline rejects it', async () => {
    const paused = await runTurn(shopAgent([]), { input: 'pay' });
    const requests = elicitations(paused.pending);
    const { message } = requests[paused.pendingQuestion!.id]!.params as { message: string };
    expect(message).toContain('Payments are reviewed');
    expect(message).toContain('"amount":50');
    const id = paused.pendingQuestion!.id;
    expect(
      responsesFrom(paused.pending, { [id]: { action: 'accept', content: { approved: true } } }),
    ).toEqual([{ id, type: 'approve' }]);
    expect(responsesFrom(paused.pending, { [id]: { action: 'decline' } })).toEqual([
      { id, type: 'reject', rationale: 'Declined by the user.' },
    ]);
  });
});
