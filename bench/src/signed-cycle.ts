/**
 * `npm run signed-cycle -- <baseline dist> [--unsigned]`: the signed (or, with `--unsigned`, the
 * plain) pause → store → resume cycle of the built `@turnkit/core` side by side with another build of
 * core (a `dist` folder, e.g. the one before a change), at 10 and 1000 messages, in alternating
 * rounds with the JSON floor so all three see the same machine. Prints each side's lowest round
 * median, each side's ratio to the floor and the ratio current / baseline (medians of the per-round
 * ratios; DESIGN §18: at most 1.10× for the signed cycle, §16: ≤ 10× the floor at 10 messages).
 */
import { loadavg } from 'node:os';
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

/** The JSON floor of the bench (DESIGN §10): the least any snapshot round trip of `history` costs. */
function floor(history: ChatMessage[]): () => Promise<void> {
  return async () => {
    if (JSON.parse(JSON.stringify(history)).length !== history.length) throw new Error('floor broke');
  };
}

/** One cycle of `core` (signed unless `secret` is undefined), checked: pause, resume to completion. */
function cycleOf(core: Core, history: ChatMessage[], secret: string | undefined): () => Promise<void> {
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
    ...(secret === undefined ? {} : { snapshot: { secret } }),
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

function load(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: node dist/signed-cycle.js <baseline core dist folder> [--unsigned]');
  const secret = process.argv.includes('--unsigned') ? undefined : SECRET;
  const base = pathToFileURL(resolve(dir)).href;
  const baseline = {
    ...(await import(`${base}/index.js`)),
    ...(await import(`${base}/testing.js`)),
  } as Core;
  const now = { ...current, scriptedModel: currentTesting.scriptedModel } as Core;
  const startLoad = load();
  const rows: string[][] = [];
  for (const length of LENGTHS) {
    const history = buildHistory(length);
    const cycles = {
      baseline: cycleOf(baseline, history, secret),
      current: cycleOf(now, history, secret),
      floor: floor(history),
    };
    const medians = { baseline: [] as number[], current: [] as number[], floor: [] as number[] };
    const names = ['baseline', 'current', 'floor'] as const;
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate who goes first, so none always runs on another's garbage or warm caches.
      for (let turn = 0; turn < names.length; turn++) {
        const name = names[(round + turn) % names.length]!;
        medians[name].push(await medianMs(cycles[name]));
      }
    }
    const ratio = (name: 'baseline' | 'current', to: number[]) =>
      times(summarize(medians[name].map((value, round) => value / to[round]!)).medianMs);
    rows.push([
      String(length),
      ms(Math.min(...medians.floor)),
      `${ms(Math.min(...medians.baseline))} (${ratio('baseline', medians.floor)})`,
      `${ms(Math.min(...medians.current))} (${ratio('current', medians.floor)})`,
      ratio('current', medians.baseline),
    ]);
  }
  console.log(
    `${secret === undefined ? 'unsigned' : 'signed'} cycle; load average at the start ${startLoad}, at the end ${load()}`,
  );
  const headers = ['messages', 'JSON floor', 'baseline (× floor)', 'current (× floor)', 'current / baseline'];
  console.log(table(headers, rows));
}

await main();
