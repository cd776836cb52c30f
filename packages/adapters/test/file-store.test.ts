/**
 * fileStore: the contract suite on a fake clock, its folder layout, the previous layout, its lock,
 * its fencing (a writer paused past its lock never wins a version another writer won), and a race
 * of separate Node processes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ConflictError, runTurn, SnapshotError, TurnkitError } from '@turnkit/core';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fileStore } from '../src/stores/file-store.js';
import { assembledParts, expectConflict, partsHead } from './helpers/store-fixtures.js';
import { approvalAgent, expectResumedAsLayout2, priorMessages } from './helpers/store-resume.js';
import { describeStoreContract, fakeClock, freshRunId } from './store-contract.js';
import { expectKeepsLatestTwo } from './store-contract-forks.js';

/**
 * A pause the next temp file the store opens waits on: the store has read and checked the run under
 * its lock and is about to write, exactly where a process stopped by the OS (or a long GC) would
 * outlive its lock. Every other call passes straight through.
 */
const gate = vi.hoisted(() => ({ next: null as null | { reached: () => void; release: Promise<void> } }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const open: typeof actual.open = async (path, ...rest) => {
    const pause = gate.next;
    if (pause && String(path).endsWith('.tmp')) {
      gate.next = null;
      pause.reached();
      await pause.release;
    }
    return actual.open(path, ...rest);
  };
  return { ...actual, open };
});

/**
 * Starts `write`, pauses it just before it writes and waits until its lock has gone stale (other
 * writers then break it). Returns `resume`, which lets it go on and gives its outcome.
 */
async function pausedPastLock(write: () => Promise<unknown>): Promise<() => Promise<unknown>> {
  let reached!: () => void;
  let release!: () => void;
  const paused = new Promise<void>((resolve) => {
    reached = resolve;
  });
  gate.next = { reached, release: new Promise<void>((resolve) => (release = resolve)) };
  const outcome = write();
  await paused;
  await sleep(STALE_LOCK_MS * 2.5);
  return () => {
    release();
    return outcome;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The lock of a paused writer goes stale fast, so a second writer breaks it. */
const STALE_LOCK_MS = 50;

const scratch: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'turnkit-file-store-'));
  scratch.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
});

describeStoreContract('fileStore', async () => {
  const clock = fakeClock();
  return { store: fileStore(join(await tempDir(), 'nested', 'runs'), { now: clock.now }), clock };
});

describe('fileStore files', () => {
  it('keeps a folder per run holding only its latest version, and no temp or lock files', async () => {
    const dir = await tempDir();
    const store = fileStore(dir, { now: () => 1_000 });
    await store.put('run-1', '{"a":1}', { expectedVersion: null, expiresAt: '2030-01-01T00:00:00.000Z' });
    await store.put('run-1', '{"a":2}', {
      expectedVersion: 1,
      expiresAt: '2030-01-02T00:00:00.000Z',
      lease: { owner: 'worker-a', ms: 500 },
    });
    expect(await readdir(dir)).toEqual(['run-1']);
    expect(await readdir(join(dir, 'run-1'))).toEqual(['2.json']);
    expect(JSON.parse(await readFile(join(dir, 'run-1', '2.json'), 'utf8'))).toEqual({
      version: 2,
      expiresAt: '2030-01-02T00:00:00.000Z',
      lease: { owner: 'worker-a', until: 1_500 },
      snapshot: '{"a":2}',
    });
    await store.renew('run-1', { owner: 'worker-a', version: 2, ms: 700 });
    expect(await readdir(join(dir, 'run-1'))).toEqual(['2.json']);
    expect(JSON.parse(await readFile(join(dir, 'run-1', '2.json'), 'utf8')).lease).toEqual({
      owner: 'worker-a',
      until: 1_700,
    });
    await store.delete('run-1');
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses a run file that is not its own, naming the file', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'broken.json'), '{"version":');
    await writeFile(join(dir, 'alien.json'), '{"hello":"world"}');
    await mkdir(join(dir, 'bad-lease'));
    await writeFile(
      join(dir, 'bad-lease', '1.json'),
      '{"version":1,"expiresAt":null,"lease":{},"snapshot":""}',
    );
    const store = fileStore(dir);
    await expect(store.get('broken')).rejects.toThrow(SnapshotError);
    await expect(store.get('broken')).rejects.toThrow(/broken\.json is not valid JSON/);
    await expect(store.get('alien')).rejects.toThrow(/not a TurnKit run file/);
    await expect(store.get('bad-lease')).rejects.toThrow(/1\.json is not a TurnKit run file/);
  });

  it('never lets a reader miss a run while writers replace its versions', async () => {
    const store = fileStore(await tempDir());
    await store.put('busy', '0', { expectedVersion: null });
    let writing = true;
    const writer = (async () => {
      for (let version = 1; version <= 60; version++) {
        await store.put('busy', String(version), { expectedVersion: version });
      }
      writing = false;
    })();
    let last = 0;
    while (writing) {
      const run = await store.get('busy');
      expect(run).not.toBeNull();
      expect(run!.version).toBeGreaterThanOrEqual(last);
      last = run!.version;
    }
    await writer;
    expect((await store.get('busy'))?.version).toBe(61);
  });
});

describe('fileStore in row layout 2', () => {
  const parts = (label: string, mode: 'append' | 'rewrite', messages: string, resolved = '') => ({
    head: partsHead(label),
    mode,
    messages,
    resolved,
  });
  const logFiles = async (dir: string) =>
    (await readdir(join(dir, 'run'))).filter((name) => name.startsWith('log-')).sort();

  it('keeps the version files of the latest points only, with keepHistory (issue 32)', async () => {
    const dir = await tempDir();
    await expectKeepsLatestTwo(fileStore(dir, { keepHistory: 2 }));
    const [run] = await readdir(dir);
    expect((await readdir(join(dir, run!))).filter((name) => name.endsWith('.json')).sort()).toEqual([
      '3.json',
      '4.json',
    ]);
  });

  it('keeps the head in the version file and each appended text in a log file of its own', async () => {
    const dir = await tempDir();
    const store = fileStore(dir, { now: () => 1_000 });
    await store.putParts!('run', parts('one', 'rewrite', '1'), { expectedVersion: null });
    await store.putParts!('run', parts('two', 'append', ''), { expectedVersion: 1 });
    await store.putParts!('run', parts('three', 'append', '2', '"a"'), { expectedVersion: 2 });
    const logs = await logFiles(dir);
    expect(logs.map((name) => name.split('-')[1])).toEqual(['1', '3']);
    const versionFile = JSON.parse(await readFile(join(dir, 'run', '3.json'), 'utf8'));
    expect(versionFile).toEqual({
      version: 3,
      expiresAt: null,
      lease: null,
      head: partsHead('three'),
      log: logs.find((name) => name.startsWith('log-3-')),
      // When it was written (the store's clock): a point of history (DESIGN §21).
      at: 1_000,
      // Partial reads (DESIGN §22): the transcript log's length (`1,2`), the window's start, the
      // newest log file with resolved records.
      length: 3,
      window: 0,
      rlog: versionFile.log,
    });
    // The newest log file names the one before it, where its messages start and the one before it
    // with records (none), then holds its own text.
    expect(await readFile(join(dir, 'run', versionFile.log), 'utf8')).toBe(`${logs[0]}\t2\t\n1\n2"a"`);
    expect((await store.get('run'))?.snapshot).toBe(assembledParts('three', '1,2', '"a"'));
    // A rewrite starts again and removes the older log files; so does a whole snapshot.
    await store.putParts!('run', parts('four', 'rewrite', '9'), { expectedVersion: 3 });
    expect((await logFiles(dir)).map((name) => name.split('-')[1])).toEqual(['4']);
    await store.put('run', 'whole', { expectedVersion: 4 });
    expect(await readdir(join(dir, 'run'))).toEqual(['5.json']);
  });

  it('keeps a long text in one log file per chunk, each naming the one before; a refused write leaves none (issue 43)', async () => {
    const dir = await tempDir();
    const options = { staleLockMs: STALE_LOCK_MS };
    const store = fileStore(dir, options);
    await store.putParts!(
      'run',
      { ...parts('one', 'rewrite', '1,22,333'), cuts: [1, 4] },
      { expectedVersion: null },
    );
    const chunks = await logFiles(dir);
    expect(chunks.map((name) => name.split('-')[1])).toEqual(['1', '1', '1']);
    // Newest first, back along the chain: each file says where its text starts in the log.
    const versionFile = JSON.parse(await readFile(join(dir, 'run', '1.json'), 'utf8'));
    const chain: string[] = [];
    for (let name: string = versionFile.log; name !== ''; ) {
      const text = await readFile(join(dir, 'run', name), 'utf8');
      const [previous = '', start] = text.slice(0, text.indexOf('\n')).split('\t');
      chain.push(`${start}:${text.slice(text.lastIndexOf('\n') + 1)}`);
      name = previous;
    }
    expect(chain).toEqual(['5:333', '2:22', '0:1']);
    const resume = await pausedPastLock(() =>
      store.putParts!(
        'run',
        { ...parts('paused', 'append', '4,55', '"r"'), cuts: [1] },
        { expectedVersion: 1 },
      ),
    );
    await fileStore(dir, options).putParts!('run', parts('second', 'append', '6'), { expectedVersion: 1 });
    await expectConflict(resume());
    expect((await logFiles(dir)).map((name) => name.split('-')[1])).toEqual(['1', '1', '1', '2']);
    expect(await store.getParts!('run')).toMatchObject({ messages: '1,22,333,6', resolved: '', version: 2 });
  });

  it('refuses a log file that is not its own, naming the file', async () => {
    const dir = await tempDir();
    const store = fileStore(dir);
    await store.putParts!('run', parts('one', 'rewrite', '1'), { expectedVersion: null });
    const [log] = await logFiles(dir);
    await writeFile(join(dir, 'run', log!), 'not a log');
    await expect(store.get('run')).rejects.toThrow(/is not a TurnKit log file/);
  });

  it('lets a writer paused past its lock lose, leaving no log file behind', async () => {
    const dir = await tempDir();
    const options = { staleLockMs: STALE_LOCK_MS };
    const store = fileStore(dir, options);
    await store.putParts!('run', parts('base', 'rewrite', '0'), { expectedVersion: null });
    const resume = await pausedPastLock(() =>
      store.putParts!('run', parts('paused', 'append', '1', '"paused"'), { expectedVersion: 1 }),
    );
    await fileStore(dir, options).putParts!('run', parts('second', 'append', '2'), { expectedVersion: 1 });
    await expectConflict(resume());
    expect(await store.getParts!('run')).toMatchObject({
      head: partsHead('second'),
      messages: '0,2',
      resolved: '',
      version: 2,
      lease: null,
    });
    expect((await logFiles(dir)).map((name) => name.split('-')[1])).toEqual(['1', '2']);
  });

  it('resumes runs an earlier release wrote (a version file, or <runId>.json) and rewrites them as layout 2', async () => {
    const dir = await tempDir();
    const store = fileStore(dir);
    const agent = approvalAgent(10);
    const inFolder = await runTurn(agent, { input: priorMessages(10), runId: 'previous-release' });
    await mkdir(join(dir, inFolder.runId));
    await writeFile(
      join(dir, inFolder.runId, '1.json'),
      JSON.stringify({ version: 1, expiresAt: null, lease: null, snapshot: inFolder.snapshot }),
    );
    await expectResumedAsLayout2(store, agent, inFolder.runId);
    const firstRelease = await runTurn(agent, { input: priorMessages(10), runId: 'first-release' });
    await writeFile(
      join(dir, `${firstRelease.runId}.json`),
      JSON.stringify({ version: 2, expiresAt: null, snapshot: firstRelease.snapshot }),
    );
    await expectResumedAsLayout2(store, agent, firstRelease.runId);
    expect((await readdir(dir)).sort()).toEqual(['first-release', 'previous-release']);
  });
});

describe('fileStore with runs of the previous layout (<dir>/<runId>.json)', () => {
  const old = { version: 3, expiresAt: '2001-01-01T00:00:00.000Z', snapshot: '{"old":true}' };

  it('reads and lists them, and moves each into its folder on its next write', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'old-run.json'), JSON.stringify(old));
    const store = fileStore(dir);
    expect(await store.get('old-run')).toMatchObject({ snapshot: '{"old":true}', version: 3, lease: null });
    expect(await store.listExpired(new Date('2001-01-02T00:00:00.000Z'))).toEqual(['old-run']);
    await expectConflict(store.put('old-run', 'x', { expectedVersion: 2 }));
    await expectConflict(store.renew('old-run', { owner: 'worker-a', version: 3, ms: 1_000 }));
    expect(
      await store.put('old-run', '{"new":true}', { expectedVersion: 3, lease: { owner: 'w', ms: 1_000 } }),
    ).toMatchObject({
      version: 4,
    });
    expect(await readdir(dir)).toEqual(['old-run']);
    expect(await readdir(join(dir, 'old-run'))).toEqual(['4.json']);
    expect(await store.get('old-run')).toMatchObject({
      snapshot: '{"new":true}',
      version: 4,
      lease: { owner: 'w', live: true },
    });
  });

  it('refuses a run whose folder would collide with a run file of that layout, saying why', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'old-run.json'), JSON.stringify(old));
    const store = fileStore(dir);
    expect(await store.get('old-run.json')).toBeNull();
    await expect(store.put('old-run.json', 'x', { expectedVersion: null })).rejects.toThrow(/is a file/);
    expect(await store.get('old-run')).toMatchObject({ snapshot: '{"old":true}', version: 3, lease: null });
  });

  it('deletes them', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'old-run.json'), JSON.stringify(old));
    const store = fileStore(dir);
    await store.delete('old-run');
    expect(await store.get('old-run')).toBeNull();
    expect(await readdir(dir)).toEqual([]);
  });

  const escapes = [
    '../outside',
    '..',
    '.',
    '.hidden',
    'a/b',
    '/etc/passwd',
    'a\\b',
    'C:\\x',
    'a\0b',
    '',
    'a..b',
  ];
  it.each(escapes)(
    'refuses the run id %j with TurnkitError CONFIG_INVALID before touching the disk',
    async (runId) => {
      const dir = await tempDir();
      const store = fileStore(join(dir, 'runs'));
      for (const attempt of [
        () => store.get(runId),
        () => store.put(runId, 'x', { expectedVersion: null }),
        () => store.renew(runId, { owner: 'w', version: 1, ms: 1 }),
        () => store.delete(runId),
      ]) {
        const error = await attempt().then(
          () => expect.fail('expected a refusal'),
          (caught: unknown) => caught as TurnkitError,
        );
        expect(error).toBeInstanceOf(TurnkitError);
        expect(error.code).toBe('CONFIG_INVALID');
      }
      expect(await readdir(dir)).toEqual([]);
    },
  );

  it('refuses run ids longer than 200 characters', async () => {
    const store = fileStore(await tempDir());
    await expect(store.get('a'.repeat(201))).rejects.toThrow(/1-200 characters/);
    await store.put('a'.repeat(200), 'ok', { expectedVersion: null });
  });
});

describe('fileStore lock', () => {
  it('breaks a lock left by a dead process once it is older than staleLockMs', async () => {
    const dir = await tempDir();
    const store = fileStore(dir, { staleLockMs: 1_000 });
    await mkdir(join(dir, 'run-stale'));
    await writeFile(join(dir, 'run-stale', '.lock'), '99999\n');
    const old = new Date(Date.now() - 5_000);
    await utimes(join(dir, 'run-stale', '.lock'), old, old);
    expect(await store.put('run-stale', 'ok', { expectedVersion: null })).toMatchObject({ version: 1 });
    expect(await readdir(join(dir, 'run-stale'))).toEqual(['1.json']);
  });

  it('waits for a live lock, then gives up with ConflictError after lockTimeoutMs', async () => {
    const dir = await tempDir();
    const store = fileStore(dir, { lockTimeoutMs: 200 });
    await mkdir(join(dir, 'run-held'));
    await writeFile(join(dir, 'run-held', '.lock'), `${process.pid}\n`);
    const started = Date.now();
    const error = await store.put('run-held', 'x', { expectedVersion: null }).then(
      () => expect.fail('expected a lock timeout'),
      (caught: unknown) => caught as Error,
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.message).toContain(join('run-held', '.lock'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });

  it('proceeds as soon as a live lock is released', async () => {
    const dir = await tempDir();
    const store = fileStore(dir);
    await mkdir(join(dir, 'run-busy'));
    await writeFile(join(dir, 'run-busy', '.lock'), `${process.pid}\n`);
    setTimeout(() => void rm(join(dir, 'run-busy', '.lock')), 100);
    expect(await store.put('run-busy', 'x', { expectedVersion: null })).toMatchObject({ version: 1 });
  });
});

describe('fileStore fencing: a writer paused past its lock', () => {
  const options = { staleLockMs: STALE_LOCK_MS };

  it('loses the version a second writer took meanwhile: exactly one success per version', async () => {
    const dir = await tempDir();
    const store = fileStore(dir, options);
    await store.put('run', 'base', { expectedVersion: null });
    const resume = await pausedPastLock(() => store.put('run', 'paused writer', { expectedVersion: 1 }));
    expect(await fileStore(dir, options).put('run', 'second writer', { expectedVersion: 1 })).toMatchObject({
      version: 2,
    });
    await expectConflict(resume());
    expect(await store.get('run')).toMatchObject({ snapshot: 'second writer', version: 2, lease: null });
    expect(await readdir(join(dir, 'run'))).toEqual(['2.json']);
  });

  it('loses even when the version it wanted was written and pruned again', async () => {
    const dir = await tempDir();
    const store = fileStore(dir, options);
    await store.put('run', 'base', { expectedVersion: null });
    const resume = await pausedPastLock(() => store.put('run', 'paused writer', { expectedVersion: 1 }));
    const other = fileStore(dir, options);
    await other.put('run', 'second', { expectedVersion: 1 });
    await other.put('run', 'third', { expectedVersion: 2 });
    // Version 2 is gone: the paused writer's exclusive create of 2.json now succeeds, and must still lose.
    expect(await readdir(join(dir, 'run'))).toEqual(['3.json']);
    await expectConflict(resume());
    expect(await store.get('run')).toMatchObject({ snapshot: 'third', version: 3, lease: null });
    expect(await readdir(join(dir, 'run'))).toEqual(['3.json']);
  });

  it('cannot bring back a run deleted meanwhile', async () => {
    const dir = await tempDir();
    const store = fileStore(dir, options);
    await store.put('run', 'base', { expectedVersion: null });
    await store.put('run', 'second', { expectedVersion: 1 });
    const resume = await pausedPastLock(() => store.put('run', 'paused writer', { expectedVersion: 2 }));
    await fileStore(dir, options).delete('run');
    await expectConflict(resume());
    expect(await store.get('run')).toBeNull();
  });

  it("refuses a paused claimer once another owner's lease is written", async () => {
    const dir = await tempDir();
    const store = fileStore(dir, options);
    await store.put('run', 'waiting', { expectedVersion: null });
    const resume = await pausedPastLock(() =>
      store.put('run', 'a', { expectedVersion: 1, lease: { owner: 'worker-a', ms: 60_000 } }),
    );
    await fileStore(dir, options).put('run', 'b', {
      expectedVersion: 1,
      lease: { owner: 'worker-b', ms: 60_000 },
    });
    await expectConflict(resume());
    expect((await store.get('run'))?.lease).toEqual({ owner: 'worker-b', live: true });
  });

  it('fails a renewal that a takeover overtook, and leaves no file of the old version', async () => {
    const dir = await tempDir();
    const clock = fakeClock();
    const store = fileStore(dir, { ...options, now: clock.now });
    await store.put('run', 'a', { expectedVersion: null, lease: { owner: 'worker-a', ms: 1_000 } });
    const resume = await pausedPastLock(() =>
      store.renew('run', { owner: 'worker-a', version: 1, ms: 1_000 }),
    );
    await clock.elapse(2_000);
    await store.put('run', 'b', { expectedVersion: 1, lease: { owner: 'worker-b', ms: 1_000 } });
    await expectConflict(resume());
    expect(await store.get('run')).toMatchObject({
      snapshot: 'b',
      version: 2,
      lease: { owner: 'worker-b', live: true },
    });
    expect(await readdir(join(dir, 'run'))).toEqual(['2.json']);
  });
});

describe('fileStore across processes', () => {
  const WRITERS = 4;
  const RUNS = 25;
  let bundle: string;
  beforeAll(async () => {
    bundle = join(await tempDir(), 'race-writer.mjs');
    await build({
      entryPoints: [fileURLToPath(new URL('./fixtures/race-writer.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: bundle,
      alias: {
        '@turnkit/core': fileURLToPath(new URL('../../core/src/index.ts', import.meta.url)),
        '@turnkit/core/store': fileURLToPath(new URL('../../core/src/store.ts', import.meta.url)),
      },
      logLevel: 'silent',
    });
  });

  it(`lets exactly one of ${WRITERS} Node processes win each compare-and-set`, async () => {
    const dir = await tempDir();
    const store = fileStore(dir);
    const runIds = Array.from({ length: RUNS }, () => freshRunId('xproc'));
    for (const runId of runIds) await store.put(runId, 'base', { expectedVersion: null });

    const writers = Array.from({ length: WRITERS }, (_, index) =>
      spawn(process.execPath, [bundle, dir, `writer${index}`, ...runIds], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    const lines = writers.map(lineReader);
    // Every process is up and waiting before any writes: the writes really overlap.
    for (const next of lines) expect(await next()).toBe('ready');
    for (const writer of writers) writer.stdin!.write('go\n');
    const results = (await Promise.all(lines.map((next) => next()))).map(
      (line) => JSON.parse(line) as Record<string, string>,
    );

    for (const runId of runIds) {
      const outcomes = results.map((result) => result[runId]);
      expect(outcomes.filter((outcome) => outcome === 'won')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome === 'conflict')).toHaveLength(WRITERS - 1);
      const winner = outcomes.indexOf('won');
      expect(await store.get(runId)).toMatchObject({
        snapshot: `writer${winner}:${runId}`,
        version: 2,
        lease: null,
      });
      expect(await readdir(join(dir, runId))).toEqual(['2.json']);
    }
  });
});

/** Reads a child's stdout one line at a time. */
function lineReader(child: ChildProcess): () => Promise<string> {
  const iterator = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return async () => {
    const { value, done } = await iterator.next();
    if (done) throw new Error(`writer ${child.pid} exited early (code ${child.exitCode})`);
    return value as string;
  };
}
