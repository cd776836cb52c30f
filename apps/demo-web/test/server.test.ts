import { describe, expect, it } from 'vitest';
import { labelsOf } from '../src/script.js';
import { useDemoServer } from './demo-server.js';

const { url, post } = useDemoServer();
describe('the demo server', () => {
  it('serves the page with a strict CSP, and nothing outside public/', async () => {
    const page = await fetch(url());
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<script type="module" src="/app.js"></script>');
    for (const path of ['app.js', 'i18n.js', 'style.css', 'cards.css']) {
      expect((await fetch(new URL(path, url()))).status).toBe(200);
    }
    for (const path of ['/../package.json', '/%2e%2e/package.json', '/src/server.ts', '/nope.js']) {
      expect((await fetch(`${url().replace(/\/$/, '')}${path}`)).status).toBe(404);
    }
  });

  it('plays the scripted LN2 story through /api: inventory → question → approval → report', async () => {
    const started = await post('/api/runs', { input: 'Thaw vials for tomorrow' });
    expect(started.status).toBe(201);
    const question = started.body.pending[0];
    expect(question.payload.questions.map((q: { header: string }) => q.header)).toEqual([
      'Cell lines',
      'Medium',
    ]);
    const runId = started.body.runId;
    const answered = await post(`/api/runs/${runId}/answer`, {
      id: question.id,
      answers: { lines: { selected: ['K562'], other: 'MCF-7' }, medium: 'DMEM' },
    });
    expect(answered.body.pending[0].payload.input).toEqual({ cellLines: ['K562', 'MCF-7'], medium: 'DMEM' });
    const done = await post(`/api/runs/${runId}/approve`, { id: answered.body.pending[0].id });
    expect(done.body.status).toBe('completed');
    // The final answer is the agent's typed thaw plan (output: ThawPlan), an object in the view.
    expect(done.body.output.summary).toContain('K562 (A3-12)');
    expect(done.body.output.summary).toContain('MCF-7: not in this freezer');
    expect(done.body.output.thawed).toContainEqual({
      cellLine: 'K562',
      box: 'A3',
      positions: ['A3-12'],
      // K562 had three vials (A3-12, A3-13, A3-17): two are left.
      vialsLeft: 2,
    });
    const again = await post('/api/runs', { input: '再解冻一支' });
    expect(again.body.messages[1].content).toBe('我先查一下液氮罐的库存。');
  });

  it('hands a storage request to the sub-agent: its free-text question is answered with text', async () => {
    const started = await post('/api/runs', { input: 'Store 2 new vials of HeLa' });
    const [question] = started.body.pending;
    expect(question.agentPath).toEqual(['ln2-web', 'storage']);
    expect(question.payload.questions[0]).toMatchObject({ id: 'position', header: 'Position', options: [] });
    const runId = started.body.runId;
    const answered = await post(`/api/runs/${runId}/answer`, {
      id: question.id,
      answers: { position: 'B2-14' },
    });
    const [approval] = answered.body.pending;
    expect(approval).toMatchObject({ agentPath: ['ln2-web', 'storage'], kind: 'approval' });
    expect(approval.payload.input).toEqual({ cellLine: 'HeLa', positions: ['B2-14'] });
    const done = await post(`/api/runs/${runId}/approve`, { id: approval.id });
    expect(done.body.output).toEqual({
      summary: 'The storage agent reports: Stored 1 vial(s) of HeLa at B2-14.',
      thawed: [],
      medium: null,
      followUps: [],
      nextSteps: [],
    });
  });

  it('reads the labels back from an answer result', () => {
    expect(labelsOf('K562, HeLa, Other (custom: MCF-7, early passage) (note: be quick)')).toEqual([
      'K562',
      'HeLa',
      'MCF-7, early passage',
    ]);
    expect(labelsOf('RPMI-1640 (Recommended)')).toEqual(['RPMI-1640']);
    expect(labelsOf('RPMI-1640（推荐）')).toEqual(['RPMI-1640']);
  });
});

const toolNames = (messages: { role: string; tool_calls?: { function: { name: string } }[] }[]) =>
  messages.flatMap((message) => (message.tool_calls ?? []).map((call) => call.function.name));

// The handoff story (DESIGN §27): an incubator question goes from the LN2 assistant to the lab desk,
// which asks which incubator — a pause in the agent handed to — reads it and hands the run back.
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
