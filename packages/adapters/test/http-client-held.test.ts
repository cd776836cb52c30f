import { defineAgent, TurnkitError } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { createHandler } from '../src/http/index.js';
import { inventoryAgent, SECRET, send } from './http-fixtures.js';

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
