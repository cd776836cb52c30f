/**
 * `POST /runs/:id/fork` (route `fork`, DESIGN §21): a new run from a kept point of the run — a
 * version, or just before an interaction was answered — answered differently over HTTP, the source
 * left as it was; a caller who did not start the run gets 404, a bad body 400, an unknown point 404.
 */
import { memoryStore } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { createHandler, type RouteInfo } from '../src/http/public.js';
import { inventoryAgent, send } from './http-fixtures.js';

const answer = (id: string, label: string) => ({ id, answers: { 'Cell lines': [label] } });

describe('POST /runs/:id/fork', () => {
  it('forks a run just before its question was answered; the fork is answered differently and the source stays as it was', async () => {
    const routes: RouteInfo[] = [];
    const handler = createHandler({
      agent: inventoryAgent(),
      store: memoryStore(),
      authorize: (request, route) => {
        routes.push(route);
        const user = request.headers.get('x-user');
        return user ? { principal: `user:${user}` } : false;
      },
    });
    const ada = { 'x-user': 'ada' };
    const started = await send(handler, 'POST', '/runs', { input: 'thaw' }, ada);
    const runId = started.body.runId as string;
    const questionId = started.body.pending[0].id as string;
    const answered = await send(handler, 'POST', `/runs/${runId}/answer`, answer(questionId, 'HeLa'), ada);
    expect(answered.body.pending[0].kind).toBe('approval');

    const fork = await send(
      handler,
      'POST',
      `/runs/${runId}/fork`,
      { at: { interactionId: questionId } },
      ada,
    );
    expect(fork.status).toBe(201);
    expect(fork.body.runId).not.toBe(runId);
    expect(fork.body.status).toBe('needs_input');
    expect(fork.body.pending[0].id).toBe(questionId);
    expect(fork.body.forkedFrom).toEqual({ runId, version: started.body.version });
    expect(fork.headers.get('location')).toBe(`/runs/${fork.body.runId}`);
    expect(routes.at(-1)).toEqual({ name: 'fork', runId });
    const other = await send(
      handler,
      'POST',
      `/runs/${fork.body.runId}/answer`,
      answer(questionId, 'HEK293T'),
      ada,
    );
    expect(other.status).toBe(200);
    expect(other.body.pending[0].kind).toBe('approval');
    expect(other.body.forkedFrom).toEqual({ runId, version: started.body.version });
    const read = await send(handler, 'GET', `/runs/${fork.body.runId}`, undefined, ada);
    expect(read.body.forkedFrom).toEqual({ runId, version: started.body.version });
    // The source still waits for the approval its own answer led to.
    const source = await send(handler, 'GET', `/runs/${runId}`, undefined, ada);
    expect(source.body.pending[0].kind).toBe('approval');
    expect(source.body.forkedFrom).toBeUndefined();

    const atVersion = await send(handler, 'POST', `/runs/${runId}/fork`, { at: 1 }, ada);
    expect(atVersion.status).toBe(201);
    expect(atVersion.body.forkedFrom).toEqual({ runId, version: 1 });
  });

  it('answers 404 to another principal and to an unknown point, 400 to a bad body', async () => {
    const handler = createHandler({
      agent: inventoryAgent(),
      store: memoryStore(),
      authorize: (request) => {
        const user = request.headers.get('x-user');
        return user ? { principal: `user:${user}` } : false;
      },
    });
    const ada = { 'x-user': 'ada' };
    const started = await send(handler, 'POST', '/runs', { input: 'thaw' }, ada);
    const runId = started.body.runId as string;
    const eve = await send(handler, 'POST', `/runs/${runId}/fork`, { at: 1 }, { 'x-user': 'eve' });
    expect(eve).toMatchObject({ status: 404, body: { code: 'RUN_NOT_FOUND' } });
    const unknown = await send(handler, 'POST', `/runs/${runId}/fork`, { at: 99 }, ada);
    expect(unknown).toMatchObject({ status: 404, body: { code: 'POINT_NOT_FOUND' } });
    expect(unknown.body.detail).toMatch(/version 99/);
    for (const body of [{}, { at: 'one' }, { at: { interactionId: 3 } }, { at: 1, extra: true }]) {
      const bad = await send(handler, 'POST', `/runs/${runId}/fork`, body, ada);
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }
  });
});
