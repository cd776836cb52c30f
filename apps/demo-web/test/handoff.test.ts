/**
 * The handoff story of the web demo through /api (DESIGN §27): an incubator question goes from
 * the LN2 assistant to the lab desk, which asks which incubator — a pause in the agent handed to —
 * then reads it and hands the run back, and the LN2 assistant asks which lines to thaw. The page
 * reads who speaks from the transcript (the transfer results) and the live `handoff` events.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../src/server.js';

let server: DemoServer;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'turnkit-web-handoff-'));
  server = await startDemoServer({ port: 0, dataDir: dir, paceMs: 0, thinkMs: 0 });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function post(path: string, body: unknown) {
  const response = await fetch(new URL(path, server.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const toolNames = (messages: { role: string; tool_calls?: { function: { name: string } }[] }[]) =>
  messages.flatMap((message) => (message.tool_calls ?? []).map((call) => call.function.name));

describe('the lab desk of the web demo', () => {
  it('takes an incubator question, asks which one, and hands the run back for the vials', async () => {
    const started = await post('/api/runs', { input: 'Check the CO2 incubator, then thaw vials' });
    expect(started.status).toBe(201);
    const asked = started.body.pending[0];
    expect(asked).toMatchObject({ kind: 'question', agentPath: ['lab-desk'] });
    expect(asked.payload.questions[0].options.map((option: { label: string }) => option.label)).toEqual([
      'Incubator 1',
      'Incubator 2',
    ]);
    const answered = await post(`/api/runs/${started.body.runId}/answer`, {
      id: asked.id,
      answers: { [asked.payload.questions[0].id]: 'Incubator 2' },
    });
    expect(answered.status).toBe(200);
    expect(answered.body.pending[0].agentPath).toEqual(['ln2-web']);
    expect(answered.body.pending[0].payload.questions.map((q: { header: string }) => q.header)).toEqual([
      'Cell lines',
      'Medium',
    ]);
    expect(toolNames(answered.body.messages)).toEqual([
      'transfer_to_lab-desk',
      'AskUserQuestion',
      'read_incubator',
      'transfer_to_ln2-web',
      'query_inventory',
      'AskUserQuestion',
    ]);
    const said = answered.body.messages.find(
      (message: { role: string; content: string | null }) =>
        message.role === 'assistant' && message.content?.startsWith('Incubator 2 reads'),
    );
    expect(said).toBeDefined();
  });
});
