/**
 * `npm run profile --workspace=@turnkit/bench`: where the time of one cycle goes. Samples the CPU
 * (the V8 profiler, as `node --cpu-prof` does, every 100 µs) while cycles run, attributes each
 * sample to a phase by its stack, then times the phases' building blocks alone. The raw profiles
 * are written next to this package (`profile-*.cpuprofile`, open them in Chrome DevTools).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { approve, type ChatMessage, createSessions, memoryStore, runTurn } from '@turnkit/core';
import { buildingBlocks } from './blocks.js';
import { cycleAgent, runCycle, SECRET } from './cycle.js';
import { buildHistory } from './history.js';
import { ms, summarize, table } from './report.js';
import { approvalAgent, expectApproval, expectDone } from './store-cycle.js';

interface Frame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: Frame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}
type StackTest = (stack: Frame[]) => boolean;

/** A frame of the built core by function name (the bundler may add a numeric suffix). */
const core = (...names: string[]): StackTest => {
  const pattern = new RegExp(`^(${names.join('|')})\\d*$`);
  return (stack) =>
    stack.some((frame) => pattern.test(frame.functionName) && frame.url.includes('/core/dist/'));
};
const url =
  (pattern: RegExp): StackTest =>
  (stack) =>
    stack.some((frame) => pattern.test(frame.url));
const zod = url(/\/zod\//);

/** Phases, most specific first: a sample goes to the first phase its stack matches. */
const PHASES: Array<[phase: string, test: StackTest]> = [
  ['HMAC-SHA256 (sign ×2, verify ×1)', core('signText', 'verifySignature')],
  ['JSON.parse of the snapshot', core('readEnvelope', 'openEnvelope', 'parseObject')],
  ['message check (checkMessages)', core('checkMessages')],
  ['envelope shape check (checkShape)', core('checkShape')],
  ['superjson', url(/\/(superjson|copy-anything|is-what)\//)],
  ['context check (assertSerializable, guard)', core('assertSerializable', 'contextProblem', 'guarded')],
  ['JSON.stringify of the snapshot (×2)', core('encodeSnapshot', 'stringifyWithTranscript')],
  ['machine: the chart’s transitions', core('transition', 'take', 'choose')],
  ['xstate', url(/\/xstate\//)],
  ['question: parse input (fast path; zod for errors)', core('parseQuestionInput')],
  ['answers: normalize + format', core('normalizeAnswers', 'formatAnswersResult')],
  ['scripted model', url(/\/core\/dist\/testing/)],
  ['run id (randomBytes)', core('newRunId')],
  ['events (emit)', core('emit')],
  ['other zod', zod],
  ['garbage collector', (stack) => stack[0]!.functionName === '(garbage collector)'],
  ['other TurnKit', url(/\/core\/dist\//)],
  ['bench harness, memoryStore', url(/\/bench\/dist\//)],
];
const OTHER = 'other (runtime, promises)';

/** Sampled milliseconds per phase. */
function attribute(profile: CpuProfile): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const phaseOfNode = new Map<number, string>();
  const phaseOf = (id: number): string => {
    let phase = phaseOfNode.get(id);
    if (phase === undefined) {
      const stack: Frame[] = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
        stack.push(byId.get(at)!.callFrame);
      phase = PHASES.find(([, test]) => test(stack))?.[0] ?? OTHER;
      phaseOfNode.set(id, phase);
    }
    return phase;
  };
  const totals = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    if (byId.get(id)!.callFrame.functionName === '(idle)') return;
    const phase = phaseOf(id);
    totals.set(phase, (totals.get(phase) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  return totals;
}

interface Profiled {
  label: string;
  /** Median cycle without the profiler: the sampled shares are scaled to it. */
  cycleMs: number;
  shares: Map<string, number>;
}

async function profileCycles(
  session: Session,
  label: string,
  history: ChatMessage[],
  secret?: string,
): Promise<Profiled> {
  const agent = cycleAgent(history, secret ? { secret } : {});
  const store = memoryStore();
  // Warm up, then the cycle's cost when least disturbed: the lowest median of six blocks.
  const blockMedians: number[] = [];
  for (let block = 0; block < 7; block++) {
    const durations: number[] = [];
    for (let index = 0; index < 60; index++) {
      const t0 = performance.now();
      await runCycle(agent, history, store);
      durations.push(performance.now() - t0);
    }
    if (block > 0) blockMedians.push(summarize(durations).medianMs);
  }
  const cycleMs = Math.min(...blockMedians);
  await session.post('Profiler.start');
  const t0 = performance.now();
  while (performance.now() - t0 < 2500) await runCycle(agent, history, store);
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
  await writeFile(new URL(`../profile-${label}.cpuprofile`, import.meta.url), JSON.stringify(profile));
  const sampled = attribute(profile);
  const total = [...sampled.values()].reduce((sum, value) => sum + value, 0);
  return { label, cycleMs, shares: new Map([...sampled].map(([phase, value]) => [phase, value / total])) };
}

/** TurnKit's source files by the functions they declare (the bundle keeps the names, maybe with a digit suffix). */
function sourceFilesByFunction(): Map<string, string> {
  const byName = new Map<string, string>();
  for (const pkg of ['core', 'adapters']) {
    const root = fileURLToPath(new URL(`../../packages/${pkg}/src/`, import.meta.url));
    for (const path of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
      if (!path.endsWith('.ts')) continue;
      const text = readFileSync(join(root, path), 'utf8');
      const declared = /(?:function\*?\s+|(?:const|let)\s+)([A-Za-z_$][\w$]*)\s*(?:[=(<:])/g;
      for (const [, name] of text.matchAll(declared)) {
        if (!byName.has(name!)) byName.set(name!, `${pkg}/${path.replace(/\.ts$/, '')}`);
      }
    }
  }
  return byName;
}

/**
 * Self time per file: each sample counts for the file of the function it was in — for TurnKit's
 * bundled code, the source file declaring the nearest named function on its stack; else the
 * package, or the runtime.
 */
function selfByFile(profile: CpuProfile, files: Map<string, string>): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const fileOfNode = (id: number): string => {
    const frame = byId.get(id)!.callFrame;
    if (/\/(core|adapters)\/dist\//.test(frame.url)) {
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const name = byId.get(at)!.callFrame.functionName.replace(/\d+$/, '');
        const file = files.get(name);
        if (file) return file;
      }
      return 'TurnKit (unnamed)';
    }
    const dependency = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(frame.url);
    if (dependency) return dependency[1]!;
    if (frame.url.includes('/bench/dist/')) return 'bench harness';
    return frame.functionName.startsWith('(') ? frame.functionName : 'runtime (JSON, promises, strings)';
  };
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, index) => {
    if (byId.get(id)!.callFrame.functionName === '(idle)') return;
    const delta = profile.timeDeltas[index] ?? 0;
    const file = fileOfNode(id);
    totals.set(file, (totals.get(file) ?? 0) + delta);
    all += delta;
  });
  return new Map([...totals].map(([file, value]) => [file, value / all]));
}

/** One mode's cycle, profiled for 2.5 s after a warm-up: the shares of self time by file. */
async function profileMode(
  session: Session,
  cycle: () => Promise<void>,
  files: Map<string, string>,
): Promise<Map<string, number>> {
  for (let index = 0; index < 300; index++) await cycle();
  await session.post('Profiler.start');
  const t0 = performance.now();
  while (performance.now() - t0 < 2500) await cycle();
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
  return selfByFile(profile, files);
}

/**
 * Issue 49: one approval cycle at 10 messages per mode — client-held (`runTurn`, `approve` on the
 * snapshot string) and store mode (`createSessions` over `memoryStore`: start, fresh sessions
 * approve) — as self time by file, the twelve largest of each.
 */
async function printByFile(session: Session): Promise<void> {
  const history = buildHistory(10);
  const agent = approvalAgent(history);
  const store = memoryStore();
  const files = sourceFilesByFunction();
  const modes: [string, () => Promise<void>][] = [
    [
      'client-held',
      async () => {
        const paused = await runTurn(agent, { input: history });
        expectApproval(paused, 'runTurn');
        expectDone(await approve(agent, paused.snapshot), 'approve');
      },
    ],
    [
      'store (memoryStore)',
      async () => {
        const started = await createSessions({ agent, store }).start({ input: history });
        expectApproval(started, 'start');
        expectDone(await createSessions({ agent, store }).approve(started.runId), 'approve');
        await store.delete(started.runId);
      },
    ],
  ];
  for (const [mode, cycle] of modes) {
    const shares = await profileMode(session, cycle, files);
    const top = [...shares].sort((a, b) => b[1] - a[1]).slice(0, 12);
    console.log(`\nOne approval cycle at 10 messages, ${mode}: self time by file (CPU samples)`);
    console.log(
      table(
        ['file', 'share'],
        top.map(([file, share]) => [file, `${(100 * share).toFixed(1)}%`]),
      ),
    );
  }
}

async function main(): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  const runs = [
    await profileCycles(session, 'cycle-1000', buildHistory(1000)),
    await profileCycles(session, 'cycle-1000-signed', buildHistory(1000), SECRET),
    await profileCycles(session, 'cycle-10', buildHistory(10)),
  ];

  console.log('Where a cycle goes: CPU samples by phase, as a share of the samples and scaled to the');
  console.log('median cycle measured without the profiler (ms per cycle)');
  const phases = [...PHASES.map(([phase]) => phase), OTHER];
  console.log(
    table(
      ['phase', ...runs.map((run) => run.label)],
      [
        ...phases.map((phase) => [
          phase,
          ...runs.map((run) => {
            const share = run.shares.get(phase) ?? 0;
            return `${ms(share * run.cycleMs)} ${(100 * share).toFixed(1).padStart(4)}%`;
          }),
        ]),
        ['cycle (median, no profiler)', ...runs.map((run) => ms(run.cycleMs))],
      ],
    ),
  );

  for (const length of [1000, 10]) {
    console.log(`\nBuilding blocks at ${length} messages (medians, each timed alone)`);
    const blocks = await buildingBlocks(buildHistory(length));
    console.log(
      table(
        ['operation', 'median'],
        blocks.map(([name, value]) => [name, ms(value)]),
      ),
    );
  }
  await printByFile(session);
  session.disconnect();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
