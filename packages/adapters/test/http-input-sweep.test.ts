/**
 * Two routes of this round: `POST /runs/:id/input` fills in a tool's input form (DESIGN §14, the
 * form's JSON Schema shown in `pending`), and `POST /sweep` lets timed-out runs go on, authenticated
 * by its own `sweepToken` alone (§13).
 */
import { defineAgent, defineTool, memoryStore } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createEventHub, createHandler, type HubMessage } from '../src/http/public.js';
import { inventoryAgent, SECRET, send } from './http-fixtures.js';

const SWEEP_TOKEN = 'sweep-token-0123456789abcdef';

function formAgent(secret?: string) {
  const pick = defineTool({
    name: 'pick_box',
    description: 'Asks which box to take',
    input: z.object({}),
    execute: (_input, ctx) =>
      ctx.ask({ input: { message: 'Which box?', schema: z.object({ box: z.enum(['B2-14', 'C1-03']) }) } }),
    resume: (_input, response) => ({ took: (response as { value: { box: string } }).value.box }),
  });
  return defineAgent({
    name: 'freezer',
    instructions: 'f',
    model: scriptedModel([
      { toolCalls: [{ name: 'pick_box', arguments: {} }] },
      (request) => `Took: ${request.messages.at(-1)?.content}`,
    ]),
    tools: [pick],
    ...(secret ? { snapshot: { secret } } : {}),
  });
}

describe('POST /runs/:id/input', () => {
  it('shows the form with its JSON Schema in pending, and fills it in (store mode)', async () => {
    const handler = createHandler({ agent: formAgent(), store: memoryStore() });
    const started = await send(handler, 'POST', '/runs', { input: 'thaw' });
    expect(started.status).toBe(201);
    expect(started.body.pending[0]).toMatchObject({
      kind: 'input',
      payload: { message: 'Which box?', schema: { properties: { box: { enum: ['B2-14', 'C1-03'] } } } },
    });
    const runId = started.body.runId as string;
    const invalid = await send(handler, 'POST', `/runs/${runId}/input`, { value: { box: 'Z9' } });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ code: 'ANSWER_INVALID' });
    const wrongKind = await send(handler, 'POST', `/runs/${runId}/answer`, { answers: 'B2-14' });
    expect(wrongKind.body).toMatchObject({ code: 'WRONG_KIND' });
    expect((await send(handler, 'POST', `/runs/${runId}/input`, {})).status).toBe(400);
    const done = await send(handler, 'POST', `/runs/${runId}/input`, { value: { box: 'C1-03' } });
    expect(done).toMatchObject({
      status: 200,
      body: { status: 'completed', output: 'Took: {"took":"C1-03"}' },
    });
  });

  it('fills in a form in client-held mode too', async () => {
    const handler = createHandler({ agent: formAgent(SECRET) });
    const started = await send(handler, 'POST', '/runs', { input: 'thaw' });
    const { runId, snapshot } = started.body as { runId: string; snapshot: string };
    const done = await send(handler, 'POST', `/runs/${runId}/input`, { value: { box: 'B2-14' }, snapshot });
    expect(done.body).toMatchObject({ status: 'completed', output: 'Took: {"took":"B2-14"}' });
  });
});

describe('POST /sweep', () => {
  it('does not exist without a sweepToken, and needs a store', async () => {
    const handler = createHandler({ agent: inventoryAgent(), store: memoryStore() });
    expect(
      (await send(handler, 'POST', '/sweep', undefined, { authorization: `Bearer ${SWEEP_TOKEN}` })).status,
    ).toBe(404);
    expect(() =>
      createHandler({ agent: inventoryAgent({ secret: SECRET }), sweepToken: SWEEP_TOKEN }),
    ).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() =>
      createHandler({ agent: inventoryAgent(), store: memoryStore(), sweepToken: 'short' }),
    ).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });

  it('is authenticated by its own token alone, and lets timed-out runs go on', async () => {
    const authorize = vi.fn(() => true);
    let clock = new Date('2026-05-01T10:00:00Z');
    const eventHub = createEventHub();
    const handler = createHandler({
      agent: inventoryAgent({ questionTimeoutMs: 60_000 }),
      store: memoryStore(),
      eventHub,
      token: 'user-token-0123456789',
      authorize,
      sweepToken: SWEEP_TOKEN,
      now: () => clock,
    });
    const user = { authorization: 'Bearer user-token-0123456789' };
    const started = await send(handler, 'POST', '/runs', { input: 'thaw' }, user);
    expect(started.body.status).toBe('needs_input');
    const published: HubMessage[] = [];
    eventHub.subscribe(started.body.runId, (message) => published.push(message));
    authorize.mockClear();
    expect((await send(handler, 'POST', '/sweep', undefined, user)).status).toBe(401);
    expect((await send(handler, 'POST', '/sweep')).status).toBe(401);
    const early = await send(handler, 'POST', '/sweep', undefined, {
      authorization: `Bearer ${SWEEP_TOKEN}`,
    });
    expect(early).toMatchObject({ status: 200, body: { swept: [], skipped: [] } });
    clock = new Date('2026-05-01T10:02:00Z');
    const swept = await send(handler, 'POST', '/sweep?limit=10', undefined, {
      authorization: `Bearer ${SWEEP_TOKEN}`,
    });
    // The question timed out and the run went on, to the agent's next pause: its approval.
    expect(swept.body.swept).toEqual([{ runId: started.body.runId, status: 'needs_input' }]);
    expect(authorize).not.toHaveBeenCalled();
    // Pages following the run see the swept turn end with its state, as after any other turn.
    expect(published.at(-1)).toMatchObject({
      event: 'state',
      data: { runId: started.body.runId, status: 'needs_input', pending: [{ kind: 'approval' }] },
    });
    const run = await send(handler, 'GET', `/runs/${started.body.runId}`, undefined, user);
    expect(run.body.messages.find((message: { role: string }) => message.role === 'tool').content).toContain(
      'question_timeout',
    );
    expect(run.body.pending[0].kind).toBe('approval');
    const badLimit = await send(handler, 'POST', '/sweep?limit=0', undefined, {
      authorization: `Bearer ${SWEEP_TOKEN}`,
    });
    expect(badLimit.status).toBe(400);
  });
});
