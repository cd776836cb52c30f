/**
 * The measured cycle (DESIGN §10): `runTurn` pauses on an AskUserQuestion call → the snapshot
 * string goes into a store → it is read back → `answerQuestion` resumes → the run completes.
 * The model is a zero-latency `scriptedModel`, so what is left is TurnKit's own overhead.
 */
import {
  type Agent,
  type AnyHook,
  answerQuestion,
  askUserQuestion,
  type ChatMessage,
  defineAgent,
  runTurn,
  type SnapshotStore,
  type Telemetry,
  type TurnResult,
} from '@turnkit/core';
import { type ScriptedStep, scriptedModel } from '@turnkit/core/testing';
import { assistantTurns } from './history.js';

/** The secret of the signed rows (HMAC-SHA256, DESIGN §4). */
export const SECRET = 'bench-secret-0123456789abcdef';

/** What the scripted model asks: one question, two options. */
export const QUESTION = {
  questions: [
    {
      question: 'Which freezer rack should the thawed vial come from?',
      header: 'Rack',
      options: [
        { label: 'Rack A (Recommended)', description: 'Oldest lot first; 12 vials left.' },
        { label: 'Rack B', description: 'Newest lot; keep it for the next passage.' },
      ],
    },
  ],
};

/** The human's answer. */
export const ANSWER = { answers: { Rack: 'Rack A (Recommended)' } };

/** A small application context with rich types, so superjson has real work (the "with context" rows). */
export function sampleContext(): unknown {
  return {
    userId: 'user_42',
    startedAt: new Date(Date.UTC(2025, 0, 1)),
    cart: new Map([
      ['K562', 1],
      ['HeLa', 2],
    ]),
    tags: new Set(['lab-3', 'ln2']),
  };
}

/** Options of a cycle agent. */
export interface CycleAgentOptions {
  /** Sign snapshots (HMAC). */
  secret?: string;
  /** Spans of every turn (the otel rows: `otelTelemetry` on a sampled-out tracer). */
  telemetry?: Telemetry;
  /** Hooks of the agent (the hooks row: three that pass everything through). */
  hooks?: AnyHook[];
}

/**
 * An agent whose model, after `history`, asks {@link QUESTION} and then answers with text.
 * The scripted model plays the step numbered by the assistant messages already in the request,
 * so the steps before the pause are placeholders that never play.
 */
export function cycleAgent(history: ChatMessage[], options: CycleAgentOptions = {}): Agent {
  const steps: ScriptedStep[] = Array.from({ length: assistantTurns(history) }, () => 'never played');
  steps.push(
    { toolCalls: [{ name: 'AskUserQuestion', arguments: QUESTION }] },
    'Rack A it is: one K562 vial is reserved.',
  );
  return defineAgent({
    name: 'bench',
    instructions: 'You are an LN2 inventory assistant. Ask before choosing a rack.',
    model: scriptedModel(steps),
    tools: [askUserQuestion()],
    ...(options.secret ? { snapshot: { secret: options.secret } } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
    ...(options.hooks ? { hooks: options.hooks } : {}),
  });
}

/** A run that did not pause or did not complete: the bench is broken, not slow. */
export class BrokenRunError extends Error {
  override name = 'BrokenRunError';
}

/** Throws unless the turn paused on exactly the scripted question. */
export function expectPaused(result: TurnResult, where: string): void {
  if (!result.needsInput || result.pending.length !== 1 || result.pendingQuestion?.kind !== 'question') {
    throw new BrokenRunError(
      `${where}: expected a pause on one question, got status ${result.status} (${result.error?.message ?? 'no error'})`,
    );
  }
}

/** Throws unless the resumed turn completed. */
export function expectCompleted(result: TurnResult, where: string): void {
  if (result.status !== 'completed' || result.output === null) {
    throw new BrokenRunError(
      `${where}: expected the resumed run to complete, got status ${result.status} (${result.error?.message ?? 'no error'})`,
    );
  }
}

/** One measured cycle and what it produced. */
export interface Cycle {
  paused: TurnResult;
  done: TurnResult;
}

/**
 * pause → serialize → store → load → resume → completed, verified. The final snapshot is written
 * back as a handler would, then the row is dropped so memory stays flat across iterations.
 */
export async function runCycle(
  agent: Agent,
  history: ChatMessage[],
  store: SnapshotStore,
  context?: unknown,
): Promise<Cycle> {
  const paused = await runTurn(
    agent,
    context === undefined ? { input: history } : { input: history, context },
  );
  expectPaused(paused, 'runTurn');
  const stored = await store.put(paused.runId, paused.snapshot, { expectedVersion: null });
  const row = await store.get(paused.runId);
  if (!row) throw new BrokenRunError('the store lost the paused snapshot');
  const done = await answerQuestion(agent, row.snapshot, ANSWER);
  expectCompleted(done, 'answerQuestion');
  await store.put(done.runId, done.snapshot, { expectedVersion: stored.version });
  await store.delete(done.runId);
  return { paused, done };
}
