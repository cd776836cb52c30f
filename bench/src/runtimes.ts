/**
 * DESIGN §18 in `npm run bench`: cold start per runtime — process start to first HTTP response of
 * the app the runtime tests serve (tests/runtimes), each runtime from its npm package — and the
 * Workers quickstart bundle: TurnKit's own code against the 40 KB min+gzip goal, with zod, xstate,
 * hono and superjson reported apart, and @noble (a dependency of core and the adapters since they
 * ship one module per file) both apart and added to TurnKit's code.
 */
import { buildApps, RUNTIMES, serve } from '../../tests/runtimes/servers.js';
import { workersBundle } from './bundle-size.js';
import { type Goal, goal, ms, size, summarize, type Timing } from './report.js';

const STARTS = 3;
const OWN_GZIP_GOAL_KB = 40;

/** What {@link benchRuntimes} measured. */
export interface RuntimesResult {
  coldStartMs: Record<string, Timing>;
  workers: Awaited<ReturnType<typeof workersBundle>>;
}

/** Starts each runtime {@link STARTS} times, one at a time, and bundles the Workers quickstart. */
export async function benchRuntimes(): Promise<RuntimesResult> {
  await buildApps();
  const coldStartMs: Record<string, Timing> = {};
  for (const runtime of RUNTIMES) {
    const samples: number[] = [];
    for (let start = 0; start < STARTS; start++) {
      const served = await serve(runtime);
      served.stop();
      samples.push(served.coldStartMs);
    }
    coldStartMs[runtime.name] = summarize(samples);
  }
  return { coldStartMs, workers: await workersBundle() };
}

/** Prints the cold starts and the bundle; returns the bundle goal. */
export function reportRuntimes(result: RuntimesResult): Goal[] {
  console.log(`\nRuntimes (process start → first response, median of ${STARTS})`);
  for (const [name, timing] of Object.entries(result.coldStartMs)) {
    console.log(`  ${name.padEnd(13)} ${ms(timing.medianMs)}`);
  }
  const { own, ownAndNoble, all } = result.workers;
  const parts = Object.entries(all.byPackage)
    .sort((a, b) => b[1] - a[1])
    .map(([name, bytes]) => `${name} ${size(bytes)}`)
    .join(', ');
  console.log('Workers quickstart bundle (esbuild, platform=browser, minified)');
  console.log(`  TurnKit's own code: ${size(own.min)} min, ${size(own.gzip)} min+gzip`);
  console.log(
    `  with the @noble crypto it depends on: ${size(ownAndNoble.min)} min, ${size(ownAndNoble.gzip)} min+gzip`,
  );
  console.log(
    `  everything: ${size(all.min)} min, ${size(all.gzip)} min+gzip; minified by package: ${parts}`,
  );
  return [
    goal(
      'Workers bundle, TurnKit own min+gzip',
      own.gzip / 1000,
      OWN_GZIP_GOAL_KB,
      (kb) => `${kb.toFixed(1)} kB`,
    ),
  ];
}
