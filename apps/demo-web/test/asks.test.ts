/**
 * Issues 13 and 14 through the demo's API: `thaw_vials` asks which box mid-execution (an input
 * form with its JSON Schema in `pending`, filled in with `POST /runs/:id/input`, its `execute`
 * running once and its `resume` once, in the page's language), and the server's sweeper lets a
 * run whose question timed out go on.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileStore } from '@turnkit/adapters/file';
import { parseSnapshot } from '@turnkit/core';
import { sayOnly } from '@turnkit/demo-models';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Freezer } from '../src/freezer.js';
import { type DemoServer, startDemoServer } from '../src/server.js';

let dir: string;
const servers: DemoServer[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'turnkit-web-asks-'));
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await rm(dir, { recursive: true, force: true });
});

async function start(name: string, options: { questionTimeoutMs?: number; sweepMs?: number } = {}) {
  const dataDir = join(dir, name);
  const server = await startDemoServer({ port: 0, dataDir, paceMs: 0, thinkMs: 0, ...options });
  servers.push(server);
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(new URL(path, server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  const get = async (path: string) => (await fetch(new URL(path, server.url))).json();
  /** The steps of thaw_vials the run's audit trail saw. */
  const steps = async (runId: string) => {
    const stored = await fileStore(dataDir).get(runId);
    const freezer = (parseSnapshot(stored!.snapshot).context as unknown as { json: Freezer }).json;
    return (freezer.audit ?? []).map((entry) => `${entry.tool}.${entry.step}`);
  };
  return { post, get, steps };
}

/** Starts a thaw of HeLa (in boxes B1 and D2) and K562 (one box), and approves it. */
async function thawToForm(api: Awaited<ReturnType<typeof start>>, headers: Record<string, string> = {}) {
  const started = await api.post('/api/runs', { input: 'Thaw vials for tomorrow' }, headers);
  const runId = started.body.runId as string;
  const answered = await api.post(`/api/runs/${runId}/answer`, {
    id: started.body.pending[0].id,
    answers: { lines: ['K562', 'HeLa'], medium: 'DMEM' },
  });
  const approved = await api.post(`/api/runs/${runId}/approve`, { id: answered.body.pending[0].id });
  return { runId, form: approved.body.pending[0] };
}

describe('thaw_vials asks which box, mid-execution', () => {
  it('pends an input form with its JSON Schema; the value resumes the tool, which ran execute once', async () => {
    const api = await start('form');
    const { runId, form } = await thawToForm(api);
    expect(form).toMatchObject({ kind: 'input', toolName: 'thaw_vials', agentPath: ['ln2-web'] });
    expect(form.payload.message).toBe(
      'Some of these lines are in more than one box. Which box should each vial come from?',
    );
    expect(form.payload.schema).toMatchObject({
      type: 'object',
      properties: {
        HeLa: { type: 'string', enum: ['B1', 'D2'], description: 'B1: 2 vial(s) · D2: 2 vial(s)' },
      },
      required: ['HeLa'],
    });
    expect(await api.steps(runId)).toEqual(['thaw_vials.execute']);

    const refused = await api.post(`/api/runs/${runId}/input`, { id: form.id, value: { HeLa: 'Z9' } });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('ANSWER_INVALID');

    const done = await api.post(`/api/runs/${runId}/input`, { id: form.id, value: { HeLa: 'D2' } });
    expect(done.body.status).toBe('completed');
    expect(done.body.output.summary).toContain('I thawed K562 (A3-12), HeLa (D2-11) into DMEM.');
    expect(await api.steps(runId)).toEqual(['thaw_vials.execute', 'thaw_vials.resume']);
  });

  it('speaks the language the page asked in, and tells the model when the form is dismissed', async () => {
    const api = await start('zh');
    const { runId, form } = await thawToForm(api, { 'accept-language': 'zh-CN' });
    expect(form.payload.message).toBe('有的细胞系分放在多个盒子里。每支从哪个盒子取？');
    expect(form.payload.schema.properties.HeLa.description).toBe('B1 盒 2 支 · D2 盒 2 支');
    const dismissed = await api.post(`/api/runs/${runId}/cancel`, { id: form.id });
    expect(dismissed.body.output).toEqual(sayOnly('No box was chosen, so nothing was thawed.'));
    expect(await api.steps(runId)).toEqual(['thaw_vials.execute']);
  });
});

describe('timeouts that fire', () => {
  it('sweeps a question whose time is up: the run goes on without an answer', async () => {
    const api = await start('sweep', { questionTimeoutMs: 300, sweepMs: 100 });
    const started = await api.post('/api/runs', { input: 'Thaw vials for tomorrow' });
    expect(started.body.pending[0].expiresAt).toEqual(expect.any(String));
    const runId = started.body.runId as string;
    await expect
      .poll(async () => (await api.get(`/api/runs/${runId}`)).status, { timeout: 5000 })
      .toBe('completed');
    const run = await api.get(`/api/runs/${runId}`);
    expect(run.output).toEqual(sayOnly('No problem, I did not thaw anything. Tell me when you are ready.'));
    const asked = run.messages.at(-2);
    expect(asked.role).toBe('tool');
    expect(JSON.parse(asked.content)).toMatchObject({ ok: false, error_code: 'question_timeout' });
  });
});
