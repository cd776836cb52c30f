/**
 * The file store's file operations: the per-run lock, durable writes and reads that tolerate a file
 * vanishing. The lock is a `.lock` file created exclusively in the run's folder, so writers across
 * processes take turns; one older than `staleLockMs` is taken to belong to a dead process and is
 * broken. Breaking can be wrong (the holder was only paused), which is why the file store does not
 * rely on the lock for correctness: its version files are created exclusively (its fencing).
 */
import { randomBytes } from 'node:crypto';
import { link, lstat, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError, TurnkitError } from '@turnkit/core';

/** How long locks may be held and waited for (see `FileStoreOptions`). */
export interface LockTiming {
  staleLockMs: number;
  lockTimeoutMs: number;
}

/** The name of the lock in a run's folder; a leading dot keeps it apart from version files. */
export const LOCK_NAME = '.lock';

/** Runs `action` holding the lock of run `runId`, whose folder is `runDir` (created when missing). */
export async function withRunLock<T>(
  runId: string,
  runDir: string,
  timing: LockTiming,
  action: () => Promise<T>,
): Promise<T> {
  const lockPath = join(runDir, LOCK_NAME);
  const token = `${process.pid} ${randomBytes(6).toString('hex')}\n`;
  const deadline = Date.now() + timing.lockTimeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(token);
      await handle.close();
      break;
    } catch (error) {
      // ENOENT: the run has no folder yet, or a delete removed it meanwhile. ENOTDIR: a file is in
      // the way, which makeRunDir reports.
      if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') {
        await makeRunDir(runDir);
        continue;
      }
      if (errorCode(error) !== 'EEXIST') throw error;
    }
    if (await breakStaleLock(lockPath, timing.staleLockMs)) continue;
    if (Date.now() >= deadline) {
      throw new ConflictError(
        `Run ${runId} stayed locked by another writer for ${timing.lockTimeoutMs} ms. Retry later; if no ` +
          `process is writing to ${runDir}, delete ${lockPath}.`,
      );
    }
    // Jittered, growing waits: contenders spread out instead of retrying in lockstep.
    await sleep(Math.min(50, 2 + attempt * 2) * (0.5 + Math.random()));
  }
  try {
    return await action();
  } finally {
    // A lock broken as stale may be another writer's by now: only our own is removed.
    if ((await readFile(lockPath, 'utf8').catch(() => null)) === token) {
      await unlink(lockPath).catch(() => undefined);
    }
  }
}

async function makeRunDir(runDir: string): Promise<void> {
  try {
    await mkdir(runDir, { recursive: true });
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
    throw new TurnkitError(
      'CONFIG_INVALID',
      `${runDir} is a file, so the run cannot have its folder there (a run file of the previous layout ` +
        'whose name ends in .json?). Use another run id, or move that file away.',
      { cause: error },
    );
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

/** The `code` of a Node system error (`ENOENT`, `EEXIST`, …). */
export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A file's text, or null when it is gone (or is a run's folder, where the previous layout had a file). */
export async function readIfPresent(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'EISDIR') return null;
    throw error;
  }
}

/** Whether `path` is a file (a folder of the same name does not count). */
export async function exists(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isFile();
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
}

/** A fsynced temp file in `folder` (so link and rename stay on one file system). */
export async function writeTemp(folder: string, text: string): Promise<string> {
  // A leading dot: temp files are never mistaken for versions or runs.
  const tempPath = join(folder, `.${randomBytes(8).toString('hex')}.tmp`);
  await writeNew(tempPath, text);
  return tempPath;
}

/** Creates `path` with `text`, fsynced; fails with EEXIST when the name is taken (exclusive create). */
export async function writeNew(path: string, text: string): Promise<void> {
  const handle = await open(path, 'wx');
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Replaces `path` atomically: temp file, fsync, rename, fsync of the folder. */
export async function replaceFile(folder: string, path: string, text: string): Promise<void> {
  const tempPath = await writeTemp(folder, text);
  try {
    await rename(tempPath, path);
  } catch (error) {
    await unlink(tempPath).catch(() => undefined);
    throw error;
  }
  await syncDirectory(folder);
}

/** Makes a link or rename durable. Some platforms cannot open a folder; atomicity does not depend on it. */
export async function syncDirectory(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Durability of the directory entry is best effort.
  }
}
