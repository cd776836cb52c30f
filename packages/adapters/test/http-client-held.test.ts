import { createHmac } from 'node:crypto';
import { defineAgent, readSnapshotHeader, TurnkitError } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { createEventHub, createHandler } from '../src/http/public.js';
import { inventoryAgent, jsonRequest, readSse, SECRET, type SseEvent, send } from './http-fixtures.js';

const multiAnswer = { answers: { 'Cell lines': { selected: ['K562'], note: 'the young passage' } } };

function clientHandler() {
  const thawed: string[][] = [];
  const handler = createHandler({ agent: inventoryAgent({ thawed }), secret: SECRET });
  return { handler, thawed };
}

/** Replaces the first occurrence of `from` in a signed snapshot (the signature no longer matches). */
function tamper(snapshot: string, from: string, to: string): string {
  expect(snapshot).toContain(from);
  return snapshot.replace(from, to);
}

describe('createHandler in client-held mode', () => {
  it('refuses to be built without a signing secret of at least 32 characters', () => {
    const build = (options: { secret?: string; agentSecret?: string }) => () =>
      createHandler({ agent: inventoryAgent({ secret: options.agentSecret }), secret: options.secret });
    for (const attempt of [build({}), build({ secret: 'short' }), build({ agentSecret: 'short' })]) {
      expect(attempt).toThrow(TurnkitError);
      expect(attempt).toThrow(/at least 32 characters/);
    }
    expect(build({ agentSecret: SECRET })).not.toThrow();
    expect(() => createHandler({ agent: inventoryAgent(), secret: '' })).toThrow(/non-empty/);
  });

  it('plays a full run with the snapshot going back and forth in the bodies', async () => {
    const { handler, thawed } = clientHandler();
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw one' });
    expect(started.status).toBe(200);
    expect(started.headers.get('location')).toBeNull();
    const { runId, snapshot } = started.body;
    expect(typeof snapshot).toBe('string');
    expect(snapshot).toMatch(/,"sig":"[0-9a-f]{64}"\}$/);
    expect(started.body.version).toBeUndefined();

    const answered = await send(handler, 'POST', `/runs/${runId}/answer`, { ...multiAnswer, snapshot });
    expect(answered.status).toBe(200);
    expect(answered.body.pending[0].kind).toBe('approval');
    const approved = await send(handler, 'POST', `/runs/${runId}/approve`, {
      snapshot: answered.body.snapshot,
    });
    expect(approved.body.status).toBe('completed');
    expect(thawed).toEqual([['K562']]);

    const next = await send(handler, 'POST', `/runs/${runId}/messages`, {
      input: 'Thanks',
      snapshot: approved.body.snapshot,
    });
    expect(next.body.output).toBe('You are welcome.');
  });

  it('refuses a tampered snapshot with 403 SNAPSHOT_TAMPERED before anything runs', async () => {
    const { handler, thawed } = clientHandler();
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw one' });
    const answered = await send(handler, 'POST', `/runs/${started.body.runId}/answer`, {
      ...multiAnswer,
      snapshot: started.body.snapshot,
    });
    const edited = tamper(answered.body.snapshot, '\\"count\\":1', '\\"count\\":50');
    const response = await send(handler, 'POST', `/runs/${started.body.runId}/approve`, { snapshot: edited });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ code: 'SNAPSHOT_TAMPERED', title: 'Forbidden' });
    const unsigned = answered.body.snapshot.replace(/,"sig":"[0-9a-f]{64}"\}$/, '}');
    const stripped = await send(handler, 'POST', `/runs/${started.body.runId}/approve`, {
      snapshot: unsigned,
    });
    expect(stripped.status).toBe(403);
    expect(thawed).toEqual([]);
  });

  it('refuses a snapshot signed with another secret, and one sent to another run', async () => {
    const { handler } = clientHandler();
    const foreign = createHandler({ agent: inventoryAgent(), secret: `${SECRET}-other` });
    const theirs = await send(foreign, 'POST', '/runs', { input: 'Thaw one' });
    const wrongKey = await send(handler, 'POST', `/runs/${theirs.body.runId}/answer`, {
      ...multiAnswer,
      snapshot: theirs.body.snapshot,
    });
    expect(wrongKey.status).toBe(403);
    const mine = await send(handler, 'POST', '/runs', { input: 'Thaw one' });
    const elsewhere = await send(handler, 'POST', `/runs/${theirs.body.runId}/answer`, {
      ...multiAnswer,
      snapshot: mine.body.snapshot,
    });
    expect(elsewhere).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    expect(elsewhere.body.detail).toContain(mine.body.runId);
  });

  it('needs the snapshot in every body about a run, and keeps no runs to read', async () => {
    const { handler } = clientHandler();
    const missing = await send(handler, 'POST', '/runs/run_abc/answer', multiAnswer);
    expect(missing.status).toBe(400);
    expect(missing.body.issues[0].path).toEqual(['snapshot']);
    const read = await send(handler, 'GET', '/runs/run_abc');
    expect(read).toMatchObject({ status: 404, body: { code: 'RUN_NOT_FOUND' } });
    expect(read.body.detail).toMatch(/client-held/);
  });

  it('uses the handler secret over the agent secret', async () => {
    const agent = defineAgent({
      ...inventoryAgent(),
      tools: [...inventoryAgent().tools],
      snapshot: { secret: 'a'.repeat(40) },
    });
    const handler = createHandler({ agent, secret: SECRET });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw one' });
    const asAgent = createHandler({ agent });
    const refused = await send(asAgent, 'POST', `/runs/${started.body.runId}/cancel`, {
      snapshot: started.body.snapshot,
    });
    expect(refused.status).toBe(403);
    const accepted = await send(handler, 'POST', `/runs/${started.body.runId}/cancel`, {
      snapshot: started.body.snapshot,
    });
    expect(accepted.status).toBe(200);
  });
});

describe('client-held event streams', () => {
  // A caller without a principal: the HMAC of the run id alone (DESIGN §13).
  const expectedToken = (runId: string) =>
    createHmac('sha256', SECRET).update(`turnkit-events\0${runId}`).digest('base64url');

  it("gives every response the run's eventsToken, an HMAC of the run id and the caller", async () => {
    const { handler } = clientHandler();
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw one' });
    const { runId, eventsToken } = started.body;
    expect(eventsToken).toBe(expectedToken(runId));
    const answered = await send(handler, 'POST', `/runs/${runId}/answer`, {
      ...multiAnswer,
      snapshot: started.body.snapshot,
    });
    expect(answered.body.eventsToken).toBe(eventsToken);
  });

  it("streams a run's events only to a request showing its token, never for a bare or made-up id", async () => {
    const hub = createEventHub();
    const handler = createHandler({ agent: inventoryAgent(), secret: SECRET, eventHub: hub });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw one' });
    const { runId, eventsToken } = started.body;
    const other = await send(handler, 'POST', '/runs', { input: 'Thaw two' });
    const attempts: [string, Record<string, string>][] = [
      [runId, {}],
      [runId, { 'turnkit-events-token': 'guess' }],
      [runId, { 'turnkit-events-token': other.body.eventsToken }],
      ['run_madeUpIdThatNobodyHas00', { 'turnkit-events-token': eventsToken }],
      ['run_madeUpIdThatNobodyHas00', {}],
    ];
    for (const [id, headers] of attempts) {
      for (const method of ['GET', 'HEAD']) {
        const response = await handler(jsonRequest(method, `/runs/${id}/events`, undefined, headers));
        expect(response.status, `${method} ${id} ${JSON.stringify(headers)}`).toBe(404);
        await response.body?.cancel();
      }
      expect(hub.listeners(id)).toBe(0);
    }
    const response = await handler(
      jsonRequest('GET', `/runs/${runId}/events`, undefined, { 'TurnKit-Events-Token': eventsToken }),
    );
    expect(response.status).toBe(200);
    expect(hub.listeners(runId)).toBe(1);
    const events = readSse(response.body!);
    const seen: SseEvent[] = [];
    const reading = (async () => {
      for await (const event of events) {
        seen.push(event);
        if (event.event === 'state') break;
      }
    })();
    await send(handler, 'POST', `/runs/${runId}/answer`, { ...multiAnswer, snapshot: started.body.snapshot });
    await reading;
    expect(seen[0]).toMatchObject({ event: 'ready', data: { runId } });
    expect(seen.map((event) => event.event)).toContain('interaction_resolved');
    expect(seen.at(-1)!.data.snapshot).toBeUndefined();
    expect(hub.listeners(runId)).toBe(0);
  });
});

describe('client-held encryption', () => {
  const context = { badge: 'ada-lovelace-badge-4711' };

  it('with encrypt: true, holds snapshots whose transcript and context the client cannot read', async () => {
    const thawed: string[][] = [];
    const handler = createHandler({
      agent: inventoryAgent({ thawed }),
      secret: SECRET,
      encrypt: true,
      context: () => context,
    });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw one K562 vial' });
    const { runId, snapshot } = started.body;
    expect(readSnapshotHeader(snapshot).encrypted).toBe(true);
    expect(readSnapshotHeader(snapshot, { secret: SECRET }).runId).toBe(runId);
    for (const hidden of ['Thaw one K562 vial', 'Which cell lines', context.badge, 'AskUserQuestion']) {
      expect(snapshot).not.toContain(hidden);
    }
    const answered = await send(handler, 'POST', `/runs/${runId}/answer`, { ...multiAnswer, snapshot });
    expect(readSnapshotHeader(answered.body.snapshot).encrypted).toBe(true);
    const approved = await send(handler, 'POST', `/runs/${runId}/approve`, {
      snapshot: answered.body.snapshot,
    });
    expect(approved.body.status).toBe('completed');
    expect(thawed).toEqual([['K562']]);
    const edited = `${answered.body.snapshot.slice(0, -10)}AAAA${answered.body.snapshot.slice(-6)}`;
    expect((await send(handler, 'POST', `/runs/${runId}/approve`, { snapshot: edited })).status).toBe(403);
  });

  it('encrypts when the agent asks for it, and needs a secret to encrypt', async () => {
    const base = inventoryAgent();
    const agent = defineAgent({
      ...base,
      tools: [...base.tools],
      snapshot: { secret: SECRET, encrypt: true },
    });
    const started = await send(createHandler({ agent }), 'POST', '/runs', { input: 'Thaw one' });
    expect(readSnapshotHeader(started.body.snapshot).encrypted).toBe(true);
    expect(() => createHandler({ agent: inventoryAgent(), encrypt: true })).toThrow(/needs `secret`/);
  });
});
