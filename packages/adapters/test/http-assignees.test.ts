/**
 * Who may answer, over HTTP (DESIGN §20): a principal that is not an assignee gets 403
 * `NOT_ASSIGNEE` and changes nothing; an assignee reads and answers a run another principal
 * started; `approve` takes a budget's `extend`.
 */
import { defineAgent, defineTool, memoryStore } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHandler } from '../src/http/public.js';
import { send } from './http-fixtures.js';

const byUser = (request: Request) => ({ principal: `user:${request.headers.get('x-user') ?? 'guest'}` });
const as = (user: string) => ({ 'x-user': user });

function labAgent(log: string[]) {
  const thaw = defineTool({
    name: 'record_thaw',
    description: 'Record a thaw',
    input: z.object({ vials: z.number() }),
    needsApproval: true,
    approval: { assignees: ['user:grace'], allowRequester: false },
    execute: ({ vials }) => {
      log.push(`thaw ${vials}`);
      return { recorded: true };
    },
  });
  return defineAgent({
    name: 'lab',
    instructions: 'Lab assistant.',
    model: scriptedModel([
      { toolCalls: [{ id: 'c1', name: 'record_thaw', arguments: { vials: 2 } }] },
      'done',
    ]),
    tools: [thaw],
    budget: { steps: 1 },
  });
}

describe('HTTP: assignees and budgets', () => {
  it('answers 403 NOT_ASSIGNEE to a non-assignee, lets the assignee read and approve, and extends a budget', async () => {
    const log: string[] = [];
    const handler = createHandler({ agent: labAgent(log), store: memoryStore(), authorize: byUser });
    const started = await send(handler, 'POST', '/runs', { input: 'thaw two' }, as('ada'));
    expect(started.status).toBe(201);
    const run = `/runs/${started.body.runId}`;

    const refused = await send(handler, 'POST', `${run}/approve`, {}, as('ada'));
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('NOT_ASSIGNEE');
    expect(log).toEqual([]);
    expect((await send(handler, 'GET', run, undefined, as('mallory'))).status).toBe(404);
    const seen = await send(handler, 'GET', run, undefined, as('grace'));
    expect(seen.status).toBe(200);

    const approved = await send(handler, 'POST', `${run}/approve`, { rationale: 'ok' }, as('grace'));
    expect(approved.status).toBe(200);
    expect(log).toEqual(['thaw 2']);

    // The next model call is past the budget of one step: the owner extends it.
    const paused = await send(handler, 'GET', run, undefined, as('ada'));
    expect(paused.body.pending[0].kind).toBe('budget');
    const wrong = await send(handler, 'POST', `${run}/approve`, { extend: { steps: -1 } }, as('ada'));
    expect(wrong.status).toBe(400);
    const extended = await send(handler, 'POST', `${run}/approve`, { extend: { steps: 1 } }, as('ada'));
    expect(extended.status).toBe(200);
    expect(extended.body.pending, JSON.stringify(extended.body)).toEqual([]);
    expect(extended.body.status).toBe('completed');
    expect(extended.body.budget).toEqual({ steps: 2 });
    expect(extended.body.spend).toMatchObject({ steps: 2, toolCalls: 1 });
  });
});
