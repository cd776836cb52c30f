import {
  askUserQuestion,
  compaction,
  createSessions,
  defineAgent,
  defineTool,
  type SnapshotStore,
} from '@turnkit/core';
import { replay, type ScriptedStep, scriptedModel } from '@turnkit/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { handoffAgents } from './helpers/handoff-agents.js';
import { countingChargeAgent } from './helpers/in-doubt-agent.js';
import { bundleInDoubtWorker, killedInsideExecute, LEASE_MS, leaseLapse } from './helpers/in-doubt-kill.js';
import { findServers, sharedStores } from './helpers/lease-stores.js';

const servers = findServers();
bundleInDoubtWorker();

const question = {
  question: 'Which K562 line?',
  header: 'Cell line',
  options: [
    { label: 'K562', description: 'Parental' },
    { label: 'K562-dTAG', description: 'Degron' },
  ],
};

/** The lab agent; `runs` counts every tool run; after 6 notes its history is compacted. */
function labAgent(steps: ScriptedStep[], runs: { thaw: number; note: number }) {
  const thaw = defineTool({
    name: 'record_thaw',
    description: 'Record a thaw',
    input: z.object({ cellLine: z.string(), vials: z.number() }),
    needsApproval: true,
    execute: async ({ vials }) => {
      runs.thaw++;
      return { thawed: vials };
    },
  });
  const note = defineTool({
    name: 'note',
    description: 'Note',
    input: z.object({ n: z.number() }),
    execute: async ({ n }) => {
      runs.note++;
      return `noted ${n} ${'lorem '.repeat(200)}`;
    },
  });
  return defineAgent({
    name: 'lab',
    instructions: 'Lab assistant.',
    model: scriptedModel(steps, { compaction: 'summary' }),
    tools: [thaw, note, askUserQuestion()],
    history: compaction({ maxTokens: 2500, keepRecent: 2 }),
  });
}

/**
 * The model's side: ask, thaw (approved with an edit), then — on the second message — 6 notes. Played
 * in call order (a scripted model counts the assistant messages it sees, which compaction removes).
 */
function labSteps(): ScriptedStep[] {
  const plan: ScriptedStep[] = [
    { toolCalls: [{ id: 'call_ask', name: 'AskUserQuestion', arguments: { questions: [question] } }] },
    { toolCalls: [{ id: 'call_thaw', name: 'record_thaw', arguments: { cellLine: 'K562-dTAG', vials: 2 } }] },
    'Thawed.',
    ...Array.from({ length: 6 }, (_, n) => ({
      toolCalls: [{ id: `call_note_${n}`, name: 'note', arguments: { n } }],
    })),
    'noted all',
  ];
  let call = 0;
  return Array.from({ length: 40 }, () => () => plan[call++]!);
}

async function recordAndReplay(store: SnapshotStore): Promise<void> {
  const runs = { thaw: 0, note: 0 };
  const sessions = createSessions({ agent: labAgent(labSteps(), runs), store });
  const r1 = await sessions.start('Thaw K562');
  await sessions.answer(r1.runId, { answers: { 'Cell line': 'K562-dTAG' } });
  await sessions.approve(
    r1.runId,
    { rationale: 'one', editedInput: { cellLine: 'K562-dTAG', vials: 1 } },
    { principal: 'ann' },
  );
  const last = await sessions.send(r1.runId, 'note six things');
  expect(last.output).toBe('noted all');
  expect(last.events.some((event) => event.type === 'history_compacted')).toBe(true);
  expect(runs).toEqual({ thaw: 1, note: 6 });
  // Another process: a new agent and sessions over the same store.
  const recording = await createSessions({ agent: labAgent([], runs), store }).recording(r1.runId);
  expect(recording.gaps).toBeUndefined();
  expect(recording.turns.map((turn) => [turn.trigger, turn.principal ?? null])).toEqual([
    ['input', null],
    ['respond', null],
    ['respond', 'ann'],
    ['input', null],
  ]);
  const { result, divergences } = await replay(labAgent([], runs), JSON.parse(JSON.stringify(recording)));
  expect(divergences).toEqual([]);
  expect(result?.output).toBe('noted all');
  expect(runs).toEqual({ thaw: 1, note: 6 });
}

describe('sessions.recording on the file, Redis and PostgreSQL stores', () => {
  for (const kind of ['file', 'redis', 'postgres'] as const) {
    it.skipIf(servers.missing(kind))(
      `${kind}: records a run another process replays with no divergence, running no tool`,
      async () => {
        const backend = await sharedStores(kind, 'replay', 1, servers.urls[kind]);
        try {
          await recordAndReplay(backend.stores[0]!);
        } finally {
          await backend.teardown();
        }
      },
    );
  }
});

describe('sessions.recording of a run whose worker died inside a tool (DESIGN §21)', () => {
  for (const kind of ['file', 'postgres'] as const) {
    for (const policy of ['ask', 'retry'] as const) {
      it.skipIf(servers.missing(kind))(
        `${kind}, onInDoubt ${policy}: replays as one turn, the call played once from its recorded result`,
        async () => {
          const backend = await sharedStores(kind, `replay-in-doubt-${policy}`, 1, servers.urls[kind]);
          try {
            const store = backend.stores[0]!;
            const runId = `run_replay_in_doubt_${policy}_${Date.now().toString(36)}`;
            const key = await killedInsideExecute({
              address: backend.address!,
              leaseMs: LEASE_MS,
              policy,
              runId,
            });
            await leaseLapse(store, runId);
            const { agent, executions } = countingChargeAgent(policy);
            const sessions = createSessions({ agent, store, leaseMs: LEASE_MS });
            const taken = await sessions.retry(runId);
            const done = policy === 'ask' ? await sessions.approve(runId) : taken;
            expect(done.status).toBe('completed');
            expect(executions).toEqual([key]);

            const recording = await sessions.recording(runId);
            expect(recording.turns).toHaveLength(1);
            const today = countingChargeAgent(policy);
            const { result, divergences } = await replay(today.agent, recording);
            expect(divergences).toEqual([]);
            expect(result?.output).toBe(done.output);
            expect(today.executions).toEqual([]);
          } finally {
            await backend.teardown();
          }
        },
        30_000,
      );
    }
  }
});

describe('sessions.recording of a run handed off and back (DESIGN §27)', () => {
  for (const kind of ['file', 'redis', 'postgres'] as const) {
    it.skipIf(servers.missing(kind))(
      `${kind}: another process records it from the store; it replays through the root, each step by its agent, running no tool`,
      async () => {
        const backend = await sharedStores(kind, 'replay-handoff', 1, servers.urls[kind]);
        try {
          const store = backend.stores[0]!;
          const played: string[] = [];
          const root = handoffAgents({ onExecute: (tool) => void played.push(tool) });
          const done = await createSessions({ agent: root, store }).start('Thaw K562');
          expect(done.activeAgent).toBe('triage');
          expect(played).toEqual(['look_up_ticket', 'record_thaw']);
          // Another process: the root alone, over the same store.
          const other = handoffAgents({ onExecute: (tool) => void played.push(tool) });
          const recording = await createSessions({ agent: other, store }).recording(done.runId);
          expect(recording.turns[0]!.steps.map((step) => step.agentPath[0])).toEqual([
            'triage',
            'freezer',
            'freezer',
            'triage',
          ]);
          expect(recording.turns[0]!.handoffs).toEqual([
            { from: 'triage', to: 'freezer' },
            { from: 'freezer', to: 'triage' },
          ]);
          const { result, divergences } = await replay(other, JSON.parse(JSON.stringify(recording)));
          expect(divergences).toEqual([]);
          expect(result?.output).toBe(done.output);
          expect(result?.messages).toEqual(done.messages);
          expect(played).toEqual(['look_up_ticket', 'record_thaw']);
        } finally {
          await backend.teardown();
        }
      },
      30_000,
    );
  }
});
