/**
 * Handoffs that survive a pause (DESIGN §27): the active agent lives in the snapshot (plain, signed,
 * encrypted, store rows), a resume is always given the root, and the run goes on in the agent that
 * asked — with its sub-agents, its tools' drift (§21), forks (§21), compaction (§22) and the run's
 * budget counted across agents. Agents are defined afresh for each call, as another process would.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  agentTool,
  answerQuestion,
  approve,
  askUserQuestion,
  compaction,
  createSessions,
  type DecodedSnapshot,
  defineAgent,
  defineTool,
  memoryStore,
  parseSnapshot,
  runTurn,
  SnapshotError,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { call, deskAgents } from './fixtures/desk-agents.js';
import { errorCode, expectOneResultPerCall, toolResults } from './helpers.js';

const question = { question: 'Which line?', header: 'Line', options: ['K562', 'HeLa'] };
const toFreezer = { toolCalls: [call('transfer_to_freezer', {}, 'h1')] };
/** triage hands off; the freezer desk counts vials, asks which line, then answers. */
const script = {
  triage: { 0: toFreezer },
  freezer: {
    1: { toolCalls: [call('count_vials', { cellLine: 'K562' }, 'c1')] },
    2: { toolCalls: [call('AskUserQuestion', { questions: [question] }, 'q1')] },
    3: 'Thaw the K562 vial.',
  },
};

describe('a run paused after a handoff', () => {
  it('is resumed with the root, in any process, and goes on in the agent that asked', async () => {
    const first = deskAgents(script);
    const paused = await runTurn(first.triage, { input: 'Thaw a vial' });
    expect(paused.status).toBe('needs_input');
    expect(paused.activeAgent).toBe('freezer');
    expect(paused.pendingQuestion).toMatchObject({
      agentPath: ['freezer'],
      id: expect.stringMatching(/^freezer:/),
    });
    const second = deskAgents(script);
    const done = await answerQuestion(second.triage, paused.snapshot, { answers: { Line: 'K562' } });
    expect(done.output).toBe('Thaw the K562 vial.');
    expect(done.activeAgent).toBe('freezer');
    expect(second.requests.triage).toEqual([]);
    expect([...first.log, ...second.log]).toEqual(['count:K562']);
    expect(done.events.some((event) => event.type === 'handoff')).toBe(false);
    expectOneResultPerCall(done);
  });

  it.each([
    ['signed', { secret: 's3cret', encrypt: false }],
    ['encrypted', { secret: 's3cret', encrypt: true }],
  ])('keeps the active agent in %s snapshots', async (_kind, keys) => {
    const config = { triageConfig: { snapshot: keys } };
    const paused = await runTurn(deskAgents({ ...script, ...config }).triage, { input: 'Thaw a vial' });
    const again = deskAgents({ ...script, ...config });
    const done = await answerQuestion(again.triage, paused.snapshot, { answers: { Line: 'K562' } });
    expect(done.activeAgent).toBe('freezer');
    expect(again.requests.freezer).toHaveLength(1);
    if (keys.encrypt) {
      expect(paused.snapshot).not.toContain('freezer');
      return;
    }
    const edited = paused.snapshot.replace('"name":"freezer"', '"name":"triage"');
    expect(edited).not.toBe(paused.snapshot);
    await expect(answerQuestion(again.triage, edited, { answers: { Line: 'K562' } })).rejects.toThrow(
      SnapshotError,
    );
  });

  it('refuses an active agent the root no longer reaches, naming it; the root’s migrate may re-point it', async () => {
    const paused = await runTurn(deskAgents(script).triage, { input: 'Thaw a vial' });
    const stranded = deskAgents({ ...script, triageHandoffs: () => [] });
    const refused = await answerQuestion(stranded.triage, paused.snapshot, {
      answers: { Line: 'K562' },
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SnapshotError);
    expect(refused).toMatchObject({
      code: 'SNAPSHOT_INCOMPATIBLE',
      message: expect.stringContaining('"freezer"'),
    });
    expect(stranded.log).toEqual([]);

    const desk2 = defineAgent({
      name: 'desk2',
      instructions: 'The new freezer desk.',
      model: scriptedModel(['unused', 'unused', 'unused', 'Desk 2 here.']),
      tools: [],
    });
    const migrated = deskAgents({
      ...script,
      triageHandoffs: () => [desk2],
      triageConfig: {
        version: '2',
        migrate: (decoded: DecodedSnapshot) => ({
          ...decoded,
          activeAgent: { name: 'desk2', from: 'triage' },
        }),
      },
    });
    const done = await answerQuestion(migrated.triage, paused.snapshot, { answers: { Line: 'K562' } });
    expect(done.activeAgent).toBe('desk2');
    expect(done.output).toBe('Desk 2 here.');
  });

  it('keeps loading the handed-off snapshot this release wrote (test/fixtures/handoff-snapshots)', async () => {
    const written = readFileSync(
      new URL('./fixtures/handoff-snapshots/v2-handed-off-question.txt', import.meta.url),
      'utf8',
    );
    const desk = deskAgents({ triage: {}, freezer: { 2: 'Thawing K562.' } });
    const done = await answerQuestion(desk.triage, written, { answers: { Line: 'K562' } });
    expect(done.activeAgent).toBe('freezer');
    expect(done.output).toBe('Thawing K562.');
  });

  it('loads a snapshot without an active agent (older, or never handed off) in the root', async () => {
    const paused = await runTurn(deskAgents(script).triage, { input: 'Thaw a vial' });
    const decoded = parseSnapshot(paused.snapshot);
    expect(decoded.activeAgent).toEqual({ name: 'freezer', from: 'triage' });
    const rootOnly = defineAgent({
      name: 'triage',
      instructions: 'x',
      model: scriptedModel(['a', 'b', 'c', 'Triage again.']),
      tools: [],
    });
    const { activeAgent: _dropped, ...older } = decoded;
    const done = await answerQuestion(rootOnly, JSON.stringify(older), { answers: { Line: 'K562' } });
    expect(done.activeAgent).toBe('triage');
    expect(done.output).toBe('Triage again.');
  });
});

describe('across a handoff', () => {
  it('counts the run’s budget (the root’s) across agents', async () => {
    const desk = deskAgents({ ...script, triageConfig: { budget: { steps: 2 } } });
    const paused = await runTurn(desk.triage, { input: 'Thaw a vial' });
    expect(paused.status).toBe('needs_input');
    expect(paused.pendingQuestion?.kind).toBe('budget');
    expect(paused.spend.steps).toBe(2);
    expect(paused.activeAgent).toBe('freezer');
    expect(desk.log).toEqual(['count:K562']);
  });

  it('plays sub-agents of the handed-to agent, and resumes them with the root', async () => {
    const runs: string[] = [];
    const checker = () =>
      defineAgent({
        name: 'checker',
        instructions: 'Check the line.',
        model: scriptedModel([
          { toolCalls: [call('AskUserQuestion', { questions: [question] }, 'cq')] },
          (request) => {
            runs.push('checker-answered');
            return `checked ${request.messages.length}`;
          },
        ]),
        tools: [askUserQuestion()],
      });
    const make = () => {
      const tool = agentTool(checker(), { description: 'Checks a cell line.' });
      return deskAgents({
        triage: { 0: toFreezer },
        freezer: { 1: { toolCalls: [call('checker', { input: 'K562?' }, 's1')] }, 2: 'Checked.' },
        freezerConfig: { tools: [tool] },
      });
    };
    const paused = await runTurn(make().triage, { input: 'check' });
    expect(paused.pendingQuestion?.agentPath).toEqual(['freezer', 'checker']);
    const done = await answerQuestion(make().triage, paused.snapshot, { answers: { Line: 'K562' } });
    expect(done.output).toBe('Checked.');
    expect(done.activeAgent).toBe('freezer');
    expect(runs).toEqual(['checker-answered']);
    expectOneResultPerCall(done);
  });

  it('judges a pending call of the handed-to agent by its tool now (drift, §21)', async () => {
    const thaw = { 1: { toolCalls: [call('record_thaw', { cellLine: 'K562' }, 't1')] }, 2: 'Done.' };
    const paused = await runTurn(deskAgents({ triage: { 0: toFreezer }, freezer: thaw }).triage, {
      input: 'thaw',
    });
    expect(paused.pendingQuestion).toMatchObject({ kind: 'approval', agentPath: ['freezer'] });
    const changedRuns: string[] = [];
    const changed = deskAgents({
      triage: { 0: toFreezer },
      freezer: thaw,
      freezerConfig: {
        tools: [
          defineTool({
            name: 'record_thaw',
            description: 'Record a thaw of some vials',
            input: z.object({ cellLine: z.string(), vials: z.number() }),
            needsApproval: true,
            execute: () => {
              changedRuns.push('thaw');
              return 'ok';
            },
          }),
        ],
      },
    });
    const done = await approve(changed.triage, paused.snapshot);
    expect(errorCode(toolResults(done).t1)).toBe('tool_changed');
    expect(changedRuns).toEqual([]);
    expect(done.activeAgent).toBe('freezer');
  });

  it('compacts with the playing agent’s history, and keeps the whole transcript in the store', async () => {
    const longScript = {
      triage: { 0: toFreezer },
      freezer: {
        1: { text: 'x'.repeat(400), toolCalls: [call('count_vials', { cellLine: 'K562' }, 'c1')] },
        2: 'Counted.',
      },
    };
    const make = () =>
      deskAgents({
        ...longScript,
        // The freezer desk's tools alone take about 1 300 tokens; the user's message 1 000 more.
        freezerConfig: { history: compaction({ maxTokens: 1800, keepRecent: 1, compact: 'drop' }) },
      });
    const sessions = createSessions({ agent: make().triage, store: memoryStore() });
    const done = await sessions.start({ input: 'y'.repeat(4000) });
    expect(done.output).toBe('Counted.');
    const compacted = done.events.filter((event) => event.type === 'history_compacted');
    expect(compacted.length).toBeGreaterThan(0);
    expect(compacted[0]!.agentPath).toEqual(['freezer']);
    const full = await sessions.get(done.runId, { transcript: 'full' });
    expect(full.activeAgent).toBe('freezer');
    expect(full.messages[0]).toEqual({ role: 'user', content: 'y'.repeat(4000) });
    expect(full.messages).toHaveLength(6);
  });
});

describe('sessions', () => {
  it('show the active agent on get and in the head, and a fork goes on in it, with the root', async () => {
    const make = () => deskAgents(script);
    const store = memoryStore();
    const sessions = createSessions({ agent: make().triage, store });
    const paused = await sessions.start({ input: 'Thaw a vial' });
    expect(paused.activeAgent).toBe('freezer');
    expect((await sessions.get(paused.runId)).activeAgent).toBe('freezer');
    expect((await sessions.getHead(paused.runId)).status).toBe('needs_input');
    const forkedAfter = await sessions.fork(paused.runId, { at: paused.version });
    expect(forkedAfter.activeAgent).toBe('freezer');
    expect(forkedAfter.pendingQuestion?.agentPath).toEqual(['freezer']);
    const again = createSessions({ agent: make().triage, store });
    const answered = await again.answer(forkedAfter.runId, { answers: { Line: 'HeLa' } });
    expect(answered.output).toBe('Thaw the K562 vial.');
    expect(answered.activeAgent).toBe('freezer');
  });

  it('refuse a stored run whose active agent the root no longer reaches, and write nothing', async () => {
    const store = memoryStore();
    const sessions = createSessions({ agent: deskAgents(script).triage, store });
    const paused = await sessions.start({ input: 'Thaw a vial' });
    const stranded = createSessions({
      agent: deskAgents({ ...script, triageHandoffs: () => [] }).triage,
      store,
    });
    const refused = await stranded
      .answer(paused.runId, { answers: { Line: 'K562' } })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'SNAPSHOT_INCOMPATIBLE' });
    const still = await sessions.get(paused.runId);
    expect(still.version).toBe(paused.version);
    expect(still.status).toBe('needs_input');
  });
});
