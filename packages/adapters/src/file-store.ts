/**
 * `fileStore(dir)`: the embedded SnapshotStore for CLIs and single machines. One JSON file per run;
 * writes are atomic (temp file, fsync, rename) and compare-and-set is safe across processes thanks to
 * a per-run lock file created with O_EXCL.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ConflictError,
  type PutOptions,
  SnapshotError,
  type SnapshotStore,
  type StoredSnapshot,
  staleWriteError,
} from '@turnkit/core';
import { assertSafeRunId } from './run-id.js';

/** Options of {@link fileStore}. */
export interface FileStoreOptions {
  /** A lock file older than this is taken to belong to a dead process and is broken. Default 10 000. */
  staleLockMs?: number;
  /** How long a writer waits for another writer's lock before giving up. Default 20 000. */
  lockTimeoutMs?: number;
}

/** What `<dir>/<runId>.json` holds. */
interface RunFile {
  version: number;
  expiresAt: string | null;
  snapshot: string;
}

/**
 * A {@link SnapshotStore} keeping each run in `<dir>/<runId>.json` as `{ version, expiresAt, snapshot }`.
 *
 * - `put` takes `<dir>/<runId>.lock` (created exclusively), re-reads the version, writes a temp file,
 *   fsyncs it and renames it over the run file, so readers never see half a snapshot and two
 *   processes can never both win a compare-and-set. A lock left by a crashed process is broken after
 *   `staleLockMs`.
 * - Run ids must be safe file names (`[A-Za-z0-9_.-]`, no leading dot, no `..`), else
 *   `TurnkitError` `CONFIG_INVALID`: no run id can reach outside `dir`.
 * - `listExpired` reads every run file: fine for the embedded use this store is for.
 *
 * @param dir Folder for the run files; created (recursively) on first use.
 */
export function fileStore(dir: string, options: FileStoreOptions = {}): SnapshotStore {
  const staleLockMs = options.staleLockMs ?? 10_000;
  const lockTimeoutMs = options.lockTimeoutMs ?? 20_000;
  let ready: Promise<unknown> | null = null;
  const ensureDir = () => {
    ready ??= mkdir(dir, { recursive: true }).catch((error: unknown) => {
      ready = null;
      throw error;
    });
    return ready;
  };
  const runPath = (runId: string) => join(dir, `${runId}.json`);

  async function withLock<T>(runId: string, action: () => Promise<T>): Promise<T> {
    await ensureDir();
    const lockPath = join(dir, `${runId}.lock`);
    const deadline = Date.now() + lockTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        const handle = await open(lockPath, 'wx');
        await handle.writeFile(`${process.pid}\n`);
        await handle.close();
        break;
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      }
      if (await breakStaleLock(lockPath, staleLockMs)) continue;
      if (Date.now() >= deadline) {
        throw new ConflictError(
          `Run ${runId} stayed locked by another writer for ${lockTimeoutMs} ms. Retry later; if no ` +
            `process is writing to ${dir}, delete ${lockPath}.`,
        );
      }
      // Jittered, growing waits: contenders spread out instead of retrying in lockstep.
      await sleep(Math.min(50, 2 + attempt * 2) * (0.5 + Math.random()));
    }
    try {
      return await action();
    } finally {
      await unlink(lockPath).catch(() => undefined);
    }
  }

  async function readRun(runId: string): Promise<RunFile | null> {
    const path = runPath(runId);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return null;
      throw error;
    }
    return parseRunFile(text, path);
  }

  return {
    async get(runId): Promise<StoredSnapshot | null> {
      assertSafeRunId(runId, 'fileStore.get');
      const run = await readRun(runId);
      return run ? { snapshot: run.snapshot, version: run.version } : null;
    },

    async put(runId, snapshot, opts: PutOptions) {
      assertSafeRunId(runId, 'fileStore.put');
      return withLock(runId, async () => {
        const current = (await readRun(runId))?.version ?? null;
        if (current !== opts.expectedVersion) throw staleWriteError(runId, opts.expectedVersion, current);
        const run: RunFile = { version: (current ?? 0) + 1, expiresAt: opts.expiresAt ?? null, snapshot };
        await writeAtomically(dir, runPath(runId), JSON.stringify(run));
        return { version: run.version };
      });
    },

    async delete(runId) {
      assertSafeRunId(runId, 'fileStore.delete');
      // Under the lock, so a delete never lands between another writer's check and its rename.
      await withLock(runId, () => unlink(runPath(runId)).catch(ignoreMissing));
    },

    async listExpired(now) {
      await ensureDir();
      const limit = now.getTime();
      const expired: string[] = [];
      for (const name of await readdir(dir)) {
        if (!name.endsWith('.json') || name.startsWith('.')) continue;
        const runId = name.slice(0, -'.json'.length);
        const run = await readRun(runId);
        if (run?.expiresAt != null && Date.parse(run.expiresAt) <= limit) expired.push(runId);
      }
      return expired;
    },
  };
}

/** Temp file in the same folder (so rename is atomic), fsynced before and after the rename. */
async function writeAtomically(dir: string, path: string, text: string): Promise<void> {
  // A leading dot: temp files are never mistaken for runs (run ids cannot start with a dot).
  const tempPath = join(dir, `.${randomBytes(8).toString('hex')}.tmp`);
  const handle = await open(tempPath, 'w');
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(tempPath, path);
  } catch (error) {
    await unlink(tempPath).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dir);
}

/** Makes the rename itself durable. Some platforms cannot open a folder; the rename is still atomic there. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Durability of the directory entry is best effort; atomicity does not depend on it.
  }
}

/**
 * Breaks a lock older than `staleLockMs`. The lock is first renamed aside (only one contender can
 * move a given file), then its age is checked again: if a live writer re-created it in between, it
 * is linked back (link fails rather than overwrite a newer lock).
 */
async function breakStaleLock(lockPath: string, staleLockMs: number): Promise<boolean> {
  const age = await lockAge(lockPath);
  if (age === null) return true;
  if (age < staleLockMs) return false;
  const asidePath = `${lockPath}.${randomBytes(6).toString('hex')}.stale`;
  try {
    await rename(lockPath, asidePath);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return true;
    throw error;
  }
  const asideAge = await lockAge(asidePath);
  if (asideAge !== null && asideAge < staleLockMs) await link(asidePath, lockPath).catch(() => undefined);
  await unlink(asidePath).catch(() => undefined);
  return true;
}

async function lockAge(path: string): Promise<number | null> {
  try {
    return Date.now() - (await stat(path)).mtimeMs;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  }
}

function parseRunFile(text: string, path: string): RunFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SnapshotError('SNAPSHOT_INVALID', `${path} is not valid JSON; restore it or delete it.`, {
      cause: error,
    });
  }
  const run = value as Partial<RunFile> | null;
  if (
    typeof run !== 'object' ||
    run === null ||
    !Number.isInteger(run.version) ||
    typeof run.snapshot !== 'string' ||
    !(run.expiresAt === null || typeof run.expiresAt === 'string')
  ) {
    throw new SnapshotError(
      'SNAPSHOT_INVALID',
      `${path} is not a TurnKit run file ({ version, expiresAt, snapshot }); restore it or delete it.`,
    );
  }
  return run as RunFile;
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

function ignoreMissing(error: unknown): void {
  if (errorCode(error) !== 'ENOENT') throw error;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
