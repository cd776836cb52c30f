import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ConflictError, SnapshotError, TurnkitError } from '@turnkit/core';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileStore } from '../src/file-store.js';
import { describeStoreContract, freshRunId } from './store-contract.js';

const scratch: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'turnkit-file-store-'));
  scratch.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
});

describeStoreContract('fileStore', async () => ({
  store: fileStore(join(await tempDir(), 'nested', 'runs')),
}));

describe('fileStore files', () => {
  it('keeps one file per run holding { version, expiresAt, snapshot }, and no temp or lock files', async () => {
    const dir = await tempDir();
    const store = fileStore(dir);
    await store.put('run-1', '{"a":1}', { expectedVersion: null, expiresAt: '2030-01-01T00:00:00.000Z' });
    await store.put('run-1', '{"a":2}', { expectedVersion: 1, expiresAt: '2030-01-02T00:00:00.000Z' });
    expect(await readdir(dir)).toEqual(['run-1.json']);
    expect(JSON.parse(await readFile(join(dir, 'run-1.json'), 'utf8'))).toEqual({
      version: 2,
      expiresAt: '2030-01-02T00:00:00.000Z',
      snapshot: '{"a":2}',
    });
  });

  it('refuses a run file that is not its own, naming the file', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'broken.json'), '{"version":');
    await writeFile(join(dir, 'alien.json'), '{"hello":"world"}');
    const store = fileStore(dir);
    await expect(store.get('broken')).rejects.toThrow(SnapshotError);
    await expect(store.get('broken')).rejects.toThrow(/broken\.json is not valid JSON/);
    await expect(store.get('alien')).rejects.toThrow(/not a TurnKit run file/);
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
    await writeFile(join(dir, 'run-stale.lock'), '99999\n');
    const old = new Date(Date.now() - 5_000);
    await utimes(join(dir, 'run-stale.lock'), old, old);
    expect(await store.put('run-stale', 'ok', { expectedVersion: null })).toEqual({ version: 1 });
    expect(await readdir(dir)).toEqual(['run-stale.json']);
  });

  it('waits for a live lock, then gives up with ConflictError after lockTimeoutMs', async () => {
    const dir = await tempDir();
    const store = fileStore(dir, { lockTimeoutMs: 200 });
    await writeFile(join(dir, 'run-held.lock'), `${process.pid}\n`);
    const started = Date.now();
    const error = await store.put('run-held', 'x', { expectedVersion: null }).then(
      () => expect.fail('expected a lock timeout'),
      (caught: unknown) => caught as Error,
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.message).toContain('run-held.lock');
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });

  it('proceeds as soon as a live lock is released', async () => {
    const dir = await tempDir();
    const store = fileStore(dir);
    await writeFile(join(dir, 'run-busy.lock'), `${process.pid}\n`);
    setTimeout(() => void rm(join(dir, 'run-busy.lock')), 100);
    expect(await store.put('run-busy', 'x', { expectedVersion: null })).toEqual({ version: 1 });
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
      alias: { '@turnkit/core': fileURLToPath(new URL('../../core/src/index.ts', import.meta.url)) },
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
      expect(await store.get(runId)).toEqual({ snapshot: `writer${winner}:${runId}`, version: 2 });
    }
    expect((await readdir(dir)).filter((name) => !name.endsWith('.json'))).toEqual([]);
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
