/**
 * Asks that are kept (DESIGN §30), over HTTP: `POST /sweep` fires reminders and escalations through
 * the handler's `onInteraction` with their reason, once; `POST /runs/:id/extend` (route `extend`)
 * lets an assignee or the run's principal move an expiry, and hides the run from anyone else;
 * `POST /runs/:id/messages` with `mode: 'queue'` answers 202 and the message reaches the model once,
 * when the ask is answered; client-held mode refuses to queue.
 */
import {
  askUserQuestion,
  type ChatMessage,
  type InteractionNotice,
  memoryStore,
  type PendingInteraction,
} from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { createEventHub, type HubMessage } from '../src/events/hub.js';
import { createHandler, type RouteInfo } from '../src/http/public.js';
import { lineAgent, told } from './helpers/kept-asks.js';
import { send } from './http-fixtures.js';

const SWEEP_TOKEN = 'sweep-token-0123456789abcdef';
const SECRET = 'kept-asks-http-secret-0123456789abcdef';
const HOUR = 3_600_000;
const T0 = Date.parse('2026-05-01T10:00:00.000Z');
const byUser = (request: Request) => ({ principal: `user:${request.headers.get('x-user') ?? 'guest'}` });
const as = (user: string) => ({ 'x-user': user });
const sweeper = { authorization: `Bearer ${SWEEP_TOKEN}` };

/** A question for ada, escalated to grace after 2 h, reminded 1 h before it expires at 10 h. */
function keptAgent(requests: ChatMessage[][] = []) {
  const question = askUserQuestion({
    timeoutMs: 10 * HOUR,
    remindBeforeMs: HOUR,
    assignees: ['user:ada'],
    escalate: [{ afterMs: 2 * HOUR, assignees: ['user:grace'] }],
  });
  return lineAgent(question, requests, { snapshot: { secret: SECRET } });
}

function keptHandler(requests: ChatMessage[][] = []) {
  let clock = new Date(T0);
  const notices: string[] = [];
  const routes: RouteInfo[] = [];
  const handler = createHandler({
    agent: keptAgent(requests),
    store: memoryStore(),
    sweepToken: SWEEP_TOKEN,
    authorize: (request, route) => {
      routes.push(route);
      return byUser(request);
    },
    now: () => clock,
    onInteraction: (pending: PendingInteraction, _run: unknown, notice: InteractionNotice) => {
      notices.push(`${notice.reason}:${pending.assignees?.join('+')}`);
    },
  });
  return {
    handler,
    notices,
    routes,
    at: (ms: number) => {
      clock = new Date(T0 + ms);
    },
  };
}

describe('HTTP: asks that are kept', () => {
  it('POST /sweep fires the escalation and the reminder once each, with their reason', async () => {
    const { handler, notices, at } = keptHandler();
    const started = await send(handler, 'POST', '/runs', { input: 'thaw' }, as('owner'));
    expect(notices).toEqual(['asked:user:ada']);
    at(2 * HOUR);
    await send(handler, 'POST', '/sweep', undefined, sweeper);
    await send(handler, 'POST', '/sweep', undefined, sweeper);
    at(9.5 * HOUR);
    await Promise.all([
      send(handler, 'POST', '/sweep', undefined, sweeper),
      send(handler, 'POST', '/sweep', undefined, sweeper),
    ]);
    expect(notices).toEqual(['asked:user:ada', 'escalated:user:grace', 'reminder:user:grace']);
    const inbox = await send(handler, 'GET', '/interactions', undefined, as('grace'));
    expect(inbox.body.items.map((item: { runId: string }) => item.runId)).toEqual([started.body.runId]);
    const ada = await send(
      handler,
      'POST',
      `/runs/${started.body.runId}/answer`,
      { answers: 'K562' },
      as('ada'),
    );
    expect(ada.status).toBe(404);
  });

  it('POST /runs/:id/extend: the run’s principal and the assignee may; anyone else gets 404; bad bodies 400', async () => {
    const { handler, routes, at } = keptHandler();
    const started = await send(handler, 'POST', '/runs', { input: 'thaw' }, as('owner'));
    const run = `/runs/${started.body.runId}`;
    const id = started.body.pending[0].id;
    const extended = await send(handler, 'POST', `${run}/extend`, { id, ms: HOUR }, as('owner'));
    expect(extended.status).toBe(200);
    expect(extended.body.pending[0].expiresAt).toBe(new Date(T0 + 11 * HOUR).toISOString());
    expect(routes.at(-1)).toEqual({ name: 'extend', runId: started.body.runId });
    const byAda = await send(handler, 'POST', `${run}/extend`, { id, ms: HOUR }, as('ada'));
    expect(byAda.body.pending[0].expiresAt).toBe(new Date(T0 + 12 * HOUR).toISOString());
    const mallory = await send(handler, 'POST', `${run}/extend`, { id, ms: HOUR }, as('mallory'));
    expect(mallory.status).toBe(404);
    for (const body of [{ id, ms: 0 }, { id, ms: 1.5 }, { id }, { ms: HOUR }, { id, ms: HOUR, extra: 1 }]) {
      expect((await send(handler, 'POST', `${run}/extend`, body, as('owner'))).status).toBe(400);
    }
    expect((await send(handler, 'POST', `${run}/extend`, { id: 'nope', ms: HOUR }, as('owner'))).status).toBe(
      409,
    );
    at(13 * HOUR);
    const late = await send(handler, 'POST', `${run}/extend`, { id, ms: HOUR }, as('owner'));
    expect([late.status, late.body.code]).toEqual([409, 'NOT_WAITING']);
  });

  it("POST /runs/:id/messages with mode 'queue' answers 202 and the model reads it once, after the answer", async () => {
    const requests: ChatMessage[][] = [];
    const { handler } = keptHandler(requests);
    const started = await send(handler, 'POST', '/runs', { input: 'thaw' }, as('owner'));
    const run = `/runs/${started.body.runId}`;
    const queued = await send(
      handler,
      'POST',
      `${run}/messages`,
      { input: 'and log it', mode: 'queue', messageId: 'm-1' },
      as('owner'),
    );
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ status: 'needs_input', queued: { messageId: 'm-1' } });
    const answered = await send(handler, 'POST', `${run}/answer`, { answers: 'K562' }, as('ada'));
    expect(answered.body.status).toBe('completed');
    expect(told(requests, 'and log it')).toEqual([0, 1]);
    const bad = await send(handler, 'POST', `${run}/messages`, { input: 'x', mode: 'later' }, as('owner'));
    expect(bad.status).toBe(400);
  });

  it('streams message_queued and message_delivered to subscribers without the message, with messages: false too', async () => {
    const eventHub = createEventHub();
    const handler = createHandler({
      agent: keptAgent(),
      store: memoryStore(),
      eventHub,
      messages: false,
      authorize: byUser,
    });
    const started = await send(handler, 'POST', '/runs', { input: 'thaw' }, as('owner'));
    const runId = started.body.runId as string;
    const heard: HubMessage[] = [];
    const subscription = await eventHub.subscribe(runId, (message) => heard.push(message));
    const queued = await send(
      handler,
      'POST',
      `/runs/${runId}/messages`,
      { input: 'and log the lot number 4471-secret', mode: 'queue', messageId: 'm-1' },
      as('owner'),
    );
    expect(queued.status).toBe(202);
    const answered = await send(handler, 'POST', `/runs/${runId}/answer`, { answers: 'K562' }, as('ada'));
    expect(answered.body.status).toBe('completed');
    subscription.unsubscribe();
    const types = heard.map((message) => (message.data as { type?: string }).type ?? message.event);
    expect(types).toEqual(expect.arrayContaining(['message_queued', 'message_delivered']));
    const delivered = heard.find(
      (message) => (message.data as { type?: string }).type === 'message_delivered',
    );
    expect(delivered?.data).toMatchObject({ messageId: 'm-1' });
    expect(delivered?.data).not.toHaveProperty('messages');
    expect(JSON.stringify(heard)).not.toContain('4471-secret');
  });

  it("refuses mode 'queue' in client-held mode (400)", async () => {
    const handler = createHandler({ agent: keptAgent() });
    const started = await send(handler, 'POST', '/runs', { input: 'thaw' });
    const refused = await send(handler, 'POST', `/runs/${started.body.runId}/messages`, {
      input: 'and log it',
      mode: 'queue',
      snapshot: started.body.snapshot,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain("mode 'queue' needs a store");
  });
});
