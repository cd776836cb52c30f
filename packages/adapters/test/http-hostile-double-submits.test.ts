/**
 * The stop, fork and answer-link routes (DESIGN §20–§21) submitted twice at once, on every store:
 * a double-clicked stop of a paused run and of a playing turn, a fork sent twice, and an answer link
 * used twice over real HTTP (exactly one 200 and one 410).
 */
import { createSessions, memoryStore } from '@turnkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createEventHub, createHandler, type HubMessage } from '../src/http/public.js';
import { slowApprovalAgent } from './helpers/lease-agent.js';
import { sharedStores } from './helpers/lease-stores.js';
import { inventoryAgent, SECRET, send } from './http-fixtures.js';
import {
  ada,
  answerK562,
  bearer,
  call,
  closeServers,
  paused,
  STORES,
  serve,
  servers,
  storedState,
  TOKEN,
} from './http-hostile-fixtures.js';

afterEach(closeServers);

/** The event types a hub delivered for a run. */
function heard(hub: ReturnType<typeof createEventHub>, runId: string): string[] {
  const types: string[] = [];
  hub.subscribe(runId, (message: HubMessage) => {
    const type = (message.data as { type?: unknown }).type;
    if (message.event !== 'state' && typeof type === 'string') types.push(type);
  });
  return types;
}

describe('the stop, fork and answer-link routes submitted twice', () => {
  for (const kind of STORES) {
    it.skipIf(servers.missing(kind))(
      `${kind}: a double-clicked stop of a paused run stops it once; the other click finds it at rest`,
      async () => {
        const backend = await sharedStores(kind, 'hostile-stop', 2, servers.urls[kind]);
        try {
          const hub = createEventHub();
          const handlers = backend.stores.map((store) =>
            createHandler({ agent: inventoryAgent(), store, eventHub: hub }),
          );
          const started = (await send(handlers[0]!, 'POST', '/runs', { input: 'thaw' })).body;
          const types = heard(hub, started.runId);
          const clicks = await Promise.all(
            handlers.map((handler) =>
              send(handler, 'POST', `/runs/${started.runId}/stop`, { reason: 'changed my mind' }),
            ),
          );
          expect(clicks.map((click) => click.status)).toEqual([200, 200]);
          expect(clicks.map((click) => click.body.stop).sort()).toEqual(['not_running', 'stopped']);
          expect(clicks.map((click) => click.body.status)).toEqual(['aborted', 'aborted']);
          expect(types.filter((type) => type === 'turn_aborted')).toHaveLength(1);
          const run = (await send(handlers[1]!, 'GET', `/runs/${started.runId}`)).body;
          expect([run.status, run.pending, run.version]).toEqual(['aborted', [], clicks[0]!.body.version]);
          expect(clicks[1]!.body.version).toBe(run.version);
          const third = await send(handlers[0]!, 'POST', `/runs/${started.runId}/stop`, {});
          expect([third.body.stop, third.body.version]).toEqual(['not_running', run.version]);
        } finally {
          await backend.teardown();
        }
      },
    );
  }

  it('a double-clicked stop while a turn plays: both are requests, the turn ends aborted once, its tool ran once', async () => {
    const hub = createEventHub();
    const executed: string[] = [];
    let toolStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      toolStarted = resolve;
    });
    const agent = slowApprovalAgent({
      toolMs: 300,
      onExecute: (key) => {
        executed.push(key);
        toolStarted();
      },
    });
    const handler = createHandler({ agent, store: memoryStore(), eventHub: hub });
    const run = (await send(handler, 'POST', '/runs', { input: 'Thaw one K562 vial' })).body;
    const types = heard(hub, run.runId);
    const playing = send(handler, 'POST', `/runs/${run.runId}/approve`, {});
    await started;
    const clicks = await Promise.all([0, 1].map(() => send(handler, 'POST', `/runs/${run.runId}/stop`, {})));
    expect(clicks.map((click) => [click.status, click.body.stop])).toEqual([
      [200, 'requested'],
      [200, 'requested'],
    ]);
    const played = await playing;
    expect([played.status, played.body.status]).toEqual([200, 'aborted']);
    expect(executed).toHaveLength(1);
    expect(types.filter((type) => type === 'turn_aborted')).toHaveLength(1);
  });

  it('a fork sent twice makes two new runs, each answerable on its own, and leaves the source as it was', async () => {
    const setup = await paused();
    const before = await storedState(setup);
    const forks = await Promise.all(
      [0, 1].map(() => send(setup.handler, 'POST', `/runs/${setup.runId}/fork`, { at: 1 }, ada)),
    );
    expect(forks.map((fork) => fork.status)).toEqual([201, 201]);
    const ids = forks.map((fork) => fork.body.runId);
    expect(new Set([setup.runId, ...ids]).size).toBe(3);
    for (const fork of forks) {
      expect(fork.body.forkedFrom).toEqual({ runId: setup.runId, version: 1 });
      expect(fork.headers.get('location')).toBe(`/runs/${fork.body.runId}`);
    }
    const answered = await send(setup.handler, 'POST', `/runs/${ids[0]}/answer`, answerK562, ada);
    expect(answered.body.pending[0].kind).toBe('approval');
    expect((await send(setup.handler, 'GET', `/runs/${ids[1]}`, undefined, ada)).body.pending[0].kind).toBe(
      'question',
    );
    const after = await storedState(setup);
    expect([after.status, after.version, after.pending]).toEqual([
      before.status,
      before.version,
      before.pending,
    ]);
    expect(after.inbox.map((item: { runId: string }) => item.runId).sort()).toEqual(
      [setup.runId, ...ids].sort(),
    );
  });

  for (const kind of STORES) {
    it.skipIf(servers.missing(kind))(
      `${kind}: an answer link used twice at once over HTTP answers once: one 200, one 410`,
      async () => {
        const backend = await sharedStores(kind, 'hostile-link', 2, servers.urls[kind]);
        try {
          const agent = inventoryAgent({ secret: SECRET });
          const workers = await Promise.all(
            backend.stores.map((store) => serve(createHandler({ agent, store, token: TOKEN }))),
          );
          const json = { 'content-type': 'application/json' };
          const started = await call(workers[0]!, 'POST', '/runs', '{"input":"thaw"}', {
            ...bearer,
            ...json,
          });
          const sessions = createSessions({ agent, store: backend.stores[0]! });
          const link = await sessions.answerLink(started.body.runId, started.body.pending[0].id, {
            ttlMs: 600_000,
          });
          const uses = await Promise.all(
            workers.map((worker, index) =>
              call(
                worker,
                'POST',
                `/interactions/${link}`,
                JSON.stringify({ answers: { 'Cell lines': [index === 0 ? 'K562' : 'HeLa'] } }),
                json,
              ),
            ),
          );
          expect(uses.map((use) => use.status).sort()).toEqual([200, 410]);
          const refused = uses.find((use) => use.status === 410)!;
          expect(refused.body).toMatchObject({
            code: 'LINK_INVALID',
            detail: expect.stringMatching(/used already/),
          });
          const winner = uses.find((use) => use.status === 200)!;
          const run = await call(workers[1]!, 'GET', `/runs/${started.body.runId}`, undefined, bearer);
          expect(run.body.version).toBe(winner.body.version);
          expect(run.body.pending[0].kind).toBe('approval');
          // The approval names the one answer that won.
          expect(run.body.pending[0].payload.input.cellLines).toEqual(['K562']);
        } finally {
          await backend.teardown();
        }
      },
    );
  }
});
