/**
 * `npm run signed-cycle -- <baseline dist>`: the signed pause → store → resume cycle of the built
 * `@turnkit/core` side by side with another build of core (a `dist` folder, e.g. the one before a
 * change to the crypto), at 10 and 1000 messages, in alternating rounds so both see the same machine.
 * Prints each side's lowest round median and the median of the per-round ratios current / baseline
 * (DESIGN §18: at most 1.10×).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ChatMessage } from '@turnkit/core';
import * as current from '@turnkit/core';
import * as currentTesting from '@turnkit/core/testing';
import { ANSWER, QUESTION, SECRET } from './cycle.js';
import { assistantTurns, buildHistory } from './history.js';
import { ms, summarize, table, times } from './report.js';

type Core = typeof current & Pick<typeof currentTesting, 'scriptedModel'>;

const LENGTHS = [10, 1000] as const;
const ROUNDS = 12;
const ROUND_MS = 300;

/** The median time of one cycle over about {@link ROUND_MS}, after a short warm-up, on a collected heap. */
async function medianMs(cycle: () => Promise<void>): Promise<number> {
  for (let i = 0; i < 3; i++) await cycle();
  (globalThis as { gc?: () => void }).gc?.();
  const samples: number[] = [];
  const end = performance.now() + ROUND_MS;
  while (performance.now() < end || samples.length < 5) {
    const start = performance.now();
    await cycle();
    samples.push(performance.now() - start);
  }
  return summarize(samples).medianMs;
}

/** One signed cycle of `core`, checked: pause on the question, resume to completion. */
function signedCycle(core: Core, history: ChatMessage[]): () => Promise<void> {
  const steps: (string | { toolCalls: { name: string; arguments: unknown }[] })[] = Array.from(
    { length: assistantTurns(history) },
    () => 'never played',
  );
  steps.push({ toolCalls: [{ name: 'AskUserQuestion', arguments: QUESTION }] }, 'Rack A it is.');
  const agent = core.defineAgent({
    name: 'bench',
    instructions: 'Ask before choosing a rack.',
    model: core.scriptedModel(steps),
    tools: [core.askUserQuestion()],
    snapshot: { secret: SECRET },
  });
  const store = core.memoryStore();
  return async () => {
    const paused = await core.runTurn(agent, { input: history });
    if (!paused.needsInput) throw new Error(`did not pause: ${paused.status}`);
    const stored = await store.put(paused.runId, paused.snapshot, { expectedVersion: null });
    const row = await store.get(paused.runId);
    const done = await core.answerQuestion(agent, row!.snapshot, ANSWER);
    if (done.status !== 'completed') throw new Error(`did not complete: ${done.status}`);
    await store.put(done.runId, done.snapshot, { expectedVersion: stored.version });
    await store.delete(done.runId);
  };
}

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: node dist/signed-cycle.js <baseline core dist folder>');
  const base = pathToFileURL(resolve(dir)).href;
  const baseline = {
    ...(await import(`${base}/index.js`)),
    ...(await import(`${base}/testing.js`)),
  } as Core;
  const now = { ...current, scriptedModel: currentTesting.scriptedModel } as Core;
  const rows: string[][] = [];
  for (const length of LENGTHS) {
    const history = buildHistory(length);
    const cycles = { baseline: signedCycle(baseline, history), current: signedCycle(now, history) };
    const medians = { baseline: [] as number[], current: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate who goes first, so neither always runs on the other's garbage or warm caches.
      const order = round % 2 === 0 ? (['baseline', 'current'] as const) : (['current', 'baseline'] as const);
      for (const name of order) medians[name].push(await medianMs(cycles[name]));
    }
    const ratios = medians.current.map((value, round) => value / medians.baseline[round]!);
    rows.push([
      String(length),
      ms(Math.min(...medians.baseline)),
      ms(Math.min(...medians.current)),
      times(summarize(ratios).medianMs),
    ]);
  }
  console.log(table(['messages', 'baseline', 'current', 'current / baseline (median of rounds)'], rows));
}

await main();
