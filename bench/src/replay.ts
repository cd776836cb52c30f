/**
 * Replay of a 1 000-step recording (DESIGN §28, issue 46): a run of 10 turns of 100 model steps
 * each (a tool call per step), played with the scripted model through sessions — which write each
 * step's results as they go — over the file store (the embedded default, DESIGN §7) and over the
 * memory store, and recorded from its events; then the recording replayed through the same agent
 * (no tool runs, no store, one client-held snapshot per turn). Prints the medians and the ratios;
 * the goal (replay ≥ 20× faster) is against the file store: a replay plays today's loop itself, so
 * against sessions on the memory store — that loop plus in-memory writes — it gains only what the
 * writes cost. `npm run bench` includes it; `npm run replay` (in bench/) runs it alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileStore } from '@turnkit/adapters/file';
import {
  type AgentEvent,
  createSessions,
  defineAgent,
  defineTool,
  memoryStore,
  type SnapshotStore,
} from '@turnkit/core';
import { type Recording, recordingOf, replay, type ScriptedStep, scriptedModel } from '@turnkit/core/testing';
import { z } from 'zod';
import { type Goal, goalAtLeast, goalsTable, ms, summarize, type Timing, table, times } from './report.js';

const TURNS = 10;
const STEPS_PER_TURN = 100;
/** Timed plays of each, after one untimed. */
const PLAYS = 5;
/** DESIGN §28 / issue 46: replay at least 20× faster than playing the run through sessions. */
const GOAL_SPEEDUP = 20;

/** The agent: one `note` tool; the model calls it 100 times per user message, then answers. */
function noteAgent() {
  const note = defineTool({
    name: 'note',
    description: 'Writes a note',
    input: z.object({ n: z.number() }),
    execute: async ({ n }) => ({ saved: n }),
  });
  // Stateless, as a scripted model is: the step is the assistant messages so far.
  const step: ScriptedStep = (request) => {
    const count = request.messages.filter((message) => message.role === 'assistant').length;
    const inTurn = count % (STEPS_PER_TURN + 1);
    return inTurn === STEPS_PER_TURN
      ? `noted ${STEPS_PER_TURN}`
      : { toolCalls: [{ id: `call_${count}`, name: 'note', arguments: { n: count } }] };
  };
  return defineAgent({
    name: 'desk',
    instructions: 'You keep notes.',
    model: scriptedModel(Array.from({ length: TURNS * (STEPS_PER_TURN + 1) }, () => step)),
    tools: [note],
    maxSteps: STEPS_PER_TURN + 1,
  });
}

/** Plays the run through sessions over `store`; returns its events. */
async function playThroughSessions(store: SnapshotStore): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  const sessions = createSessions({ agent: noteAgent(), store });
  const onEvent = (event: AgentEvent) => events.push(event);
  const first = await sessions.start(`notes 1`, { onEvent });
  for (let turn = 2; turn <= TURNS; turn++) await sessions.send(first.runId, `notes ${turn}`, { onEvent });
  return events;
}

async function timed(work: () => Promise<unknown>, plays = PLAYS): Promise<number[]> {
  if (plays > 1) await work();
  const samples: number[] = [];
  for (let play = 0; play < plays; play++) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  return samples;
}

export async function benchReplay(): Promise<Goal[]> {
  const recording: Recording = recordingOf(await playThroughSessions(memoryStore()));
  const steps = recording.turns.reduce((sum, turn) => sum + turn.steps.length, 0);
  const check = await replay(noteAgent(), recording);
  if (check.divergences.length > 0 || check.result?.status !== 'completed') {
    throw new Error(`The ${steps}-step replay diverged: ${JSON.stringify(check.divergences[0])}`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'turnkit-bench-replay-'));
  let onFile: Timing;
  try {
    // Each step is a durable write (about 30 ms a step here): one play is enough to measure.
    onFile = summarize(await timed(() => playThroughSessions(fileStore(dir)), 1));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const inMemory = summarize(await timed(() => playThroughSessions(memoryStore())));
  const replayed = summarize(await timed(() => replay(noteAgent(), recording)));
  console.log(
    `\nReplay (DESIGN §28): a ${steps}-step recording (${TURNS} turns), median of ${PLAYS} (fileStore: one play)`,
  );
  console.log(
    table(
      ['played', 'median', 'p75', 'vs replay'],
      [
        [
          'scripted model through sessions, fileStore',
          ms(onFile.medianMs),
          ms(onFile.p75Ms),
          times(onFile.medianMs / replayed.medianMs),
        ],
        [
          'scripted model through sessions, memoryStore',
          ms(inMemory.medianMs),
          ms(inMemory.p75Ms),
          times(inMemory.medianMs / replayed.medianMs),
        ],
        ['replay of its recording', ms(replayed.medianMs), ms(replayed.p75Ms), times(1)],
      ],
    ),
  );
  const goals = [
    goalAtLeast(
      `replay of a ${steps}-step recording vs playing it through sessions (fileStore)`,
      onFile.medianMs / replayed.medianMs,
      GOAL_SPEEDUP,
      times,
    ),
  ];
  console.log(goalsTable(goals));
  return goals;
}
