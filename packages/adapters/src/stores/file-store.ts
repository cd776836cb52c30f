/**
 * `fileStore(dir)`: the embedded SnapshotStore for CLIs and single machines. Each run is a folder
 * holding its latest version as `<version>.json`. Versions are created exclusively (a hard link that
 * fails when the name exists), so two writers can never both succeed with one version, even when one
 * of them was paused past the per-run lock's staleness and the lock was broken (DESIGN §12). In row
 * layout 2 (DESIGN §17) the version file holds the head, and each write's new log text is a file of
 * its own, linked to the one before, so a write costs the new messages, not the history.
 */
import { link, readdir, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError, type KeepHistory, type SnapshotStore } from '@turnkit/core';
import {
  assembleSnapshot,
  checkLeaseMs,
  joinLog,
  leaseHeldError,
  logChunks,
  notInPartsError,
  type PartsWrite,
  type PendingIndexEntry,
  type PutOptions,
  pointsToKeep,
  type StoredParts,
  type StoredPoint,
  type StoredSnapshot,
  staleWriteError,
  stopMarkOf,
} from '@turnkit/core/store';
import {
  LOG_FILE,
  type LogOffsets,
  listVersions,
  logFileText,
  logName,
  type PartsFile,
  parseLogFile,
  parseRunFile,
  type RunFile,
  runIdsIn,
} from './file-store-files.js';
import { addMarkers, dropMarkers, listMarkers } from './file-store-inbox.js';
import {
  errorCode,
  exists,
  LOCK_NAME,
  readIfPresent,
  replaceFile,
  syncDirectory,
  withRunLock,
  writeNew,
  writeTemp,
} from './file-store-io.js';
import { assertSafeRunId, isSafeRunId } from './run-id.js';

/** Options of {@link fileStore}. */
export interface FileStoreOptions {
  /** A lock file older than this is taken to belong to a dead process and is broken. Default 10 000. */
  staleLockMs?: number | undefined;
  /** How long a writer waits for another writer's lock before giving up. Default 20 000. */
  lockTimeoutMs?: number | undefined;
  /**
   * The store's clock in epoch ms (default `Date.now`): it alone judges leases, and question expiry
   * unless a call passes `now` (reads and writes give it to sessions). Locks use the real clock.
   */
  now?: () => number;
  /**
   * How many versions of each run to keep for `sessions.history` and `sessions.fork` (default: all):
   * a kept version is its version file (head and the name of its newest log file), the logs being
   * shared. A rewrite (or a `put`) drops the versions before it.
   */
  keepHistory?: KeepHistory;
}

/** The latest version of a run and where it was read. */
interface Latest {
  run: RunFile;
  path: string;
}

/** Reads of a run retried while writers replace its files under the reader. */
const READ_ATTEMPTS = 50;

/** A run file's queue (DESIGN §30) as reads and writes return it: absent when empty. */
const queueOf = (run: Pick<RunFile, 'queued'>) => (run.queued?.length ? { queued: run.queued } : {});

/**
 * A {@link SnapshotStore} keeping each run in the folder `<dir>/<runId>/`, its latest version in
 * `<version>.json` as `{ version, expiresAt, lease, snapshot }`.
 *
 * - `put` takes the run's lock (`<runId>/.lock`, created exclusively; broken after `staleLockMs`),
 *   reads the latest version, checks the expected version and the lease, writes a temp file, fsyncs
 *   it and links it to `<version + 1>.json`, which fails if that name exists. It then checks that
 *   no newer version appeared and that the version it built on was not deleted; only then does it
 *   report success and remove the older version files. Readers never see half a snapshot.
 * - History (DESIGN §21): in layout 2 the older version files are the run's points, kept (all, or
 *   the latest `keepHistory`) until a rewrite or a `put` starts the logs anew; `listPoints` lists
 *   them, `getAt` reads one with its chain of log files (which later versions only extend).
 * - Row layout 2 (`putParts`, what sessions write): the version file holds `{ version, expiresAt,
 *   lease, head, log }`. A write that appends text first creates a new log file under a name no
 *   other writer can take (`log-<version>-<random>.txt`: the messages' and records' texts, after
 *   the name of the log file before it) — one per chunk of a long text (`PartsWrite.cuts`), each
 *   naming the one before — then links its version file naming the last; the version file stays
 *   the only fence, and a refused write removes its log files, so no reader ever sees its text.
 *   A reader follows the chain from the newest log file back; a rewrite starts a new chain and,
 *   once it has won, removes the log files of older versions. A write therefore costs its head and
 *   its new text; a read opens one file per chunk appended since the last rewrite (fine for the
 *   embedded use this store is for), a resume only those from the window's on (DESIGN §22). Log
 *   texts are kept raw (UTF-8): lone surrogates do not survive, as in any UTF-8 store; TurnKit's
 *   JSON escapes them.
 * - Leases are judged by `now` (the host clock by default). `renew` rewrites the current version's
 *   file in place (temp file, rename) under the lock: in layout 2 that is the head alone.
 *   `requestStop` marks the live lease the same way (`lease.stop`, the version unchanged), and
 *   `queueMessage` adds to the run's queue (`queued`, DESIGN §30), which later versions carry on.
 * - A run stored by the first release as `<dir>/<runId>.json` is still read, and moves into its
 *   folder on its next write. Stop processes of the first release before upgrading: they lock elsewhere.
 * - Run ids must be safe file names (`[A-Za-z0-9_.-]`, no leading dot, no `..`), else
 *   `TurnkitError` `CONFIG_INVALID`: no run id can reach outside `dir`.
 * - `listExpired` reads every run's latest version: fine for the embedded use this store is for.
 * - The inbox index (`listPending`): the version file lists the run's pending entries, and
 *   `<dir>/.inbox/` holds an empty marker file per entry, named in inbox order; a listing reads the
 *   marker names and the version files of one page only (see file-store-inbox.ts).
 *
 * Node only: it reads and writes files with `node:fs` (exclusive creates, fsync, links), which
 * Workers and Edge runtimes lack.
 *
 * @param dir Folder for the runs; created (recursively) on first write.
 */
export function fileStore(dir: string, options: FileStoreOptions = {}): SnapshotStore {
  const timing = {
    staleLockMs: options.staleLockMs ?? 10_000,
    lockTimeoutMs: options.lockTimeoutMs ?? 20_000,
  };
  const clock = options.now ?? Date.now;
  const keep = pointsToKeep(options.keepHistory, 'fileStore');
  const runDir = (runId: string) => join(dir, runId);
  const legacyPath = (runId: string) => join(dir, `${runId}.json`);

  /**
   * The logs of a layout-2 run file, following its chain of log files from the newest back; null
   * when a rewrite removed one meanwhile (read again). `window` (DESIGN §22): the transcript only
   * from the newest log file that starts at or before the window (`messagesAt`: where), and from
   * there on only the log files with resolved records (each names the one before it).
   */
  async function readLogs(
    runId: string,
    run: PartsFile,
    window = false,
  ): Promise<{ messages: string; resolved: string; messagesAt?: number } | null> {
    const messages: string[] = [];
    const resolved: string[] = [];
    let messagesAt = 0;
    let wanted = true;
    // A name met twice is a loop: read as no file (SNAPSHOT_INVALID naming it).
    const seen = new Set<string>();
    for (let name = run.log; name !== ''; ) {
      const path = join(runDir(runId), name);
      const text = !seen.has(name) && LOG_FILE.test(name) ? await readIfPresent(path) : '';
      seen.add(name);
      if (text === null) return null;
      const log = parseLogFile(text, path);
      if (wanted) messages.push(log.messages);
      resolved.push(log.resolved);
      name = log.previous;
      const start = log.links?.start;
      if (wanted && window && run.window !== undefined && start !== undefined && log.messages !== '') {
        if (start <= run.window && start > 0) {
          // The window's file: older ones are read only for their records.
          wanted = false;
          messagesAt = start;
        }
      }
      if (!wanted && log.links) name = log.links.rprev;
    }
    // Read newest first: joined oldest first.
    const inOrder = (texts: string[]) => texts.reduceRight((all, text) => joinLog(all, text), '');
    return {
      messages: inOrder(messages),
      resolved: inOrder(resolved),
      ...(messagesAt > 0 ? { messagesAt } : {}),
    };
  }

  /** A run as stored (whole, or as parts), read again whenever writers move its files meanwhile. */
  async function readRun(runId: string, window = false): Promise<StoredParts | StoredSnapshot | null> {
    for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      const latest = await readLatest(runId);
      if (!latest) return null;
      const { run } = latest;
      const lease = run.lease && { owner: run.lease.owner, live: run.lease.until > clock() };
      const queued = queueOf(run);
      if ('snapshot' in run)
        return { snapshot: run.snapshot, version: run.version, lease, now: clock(), ...queued };
      const logs = await readLogs(runId, run, window);
      if (logs) return { head: run.head, ...logs, version: run.version, lease, now: clock(), ...queued };
    }
    throw new ConflictError(`Run ${runId} kept changing while it was read. Retry.`);
  }

  /**
   * Checks a write under the run's lock (version, then lease) and returns what it builds on and the
   * fields the new version keeps besides its content.
   */
  async function admit(runId: string, opts: PutOptions) {
    const latest = await readLatest(runId);
    const current = latest?.run.version ?? null;
    if (current !== opts.expectedVersion) throw staleWriteError(runId, opts.expectedVersion, current);
    const held = latest?.run.lease;
    if (held && held.owner !== opts.lease?.owner && held.until > clock()) throw leaseHeldError(runId);
    // A stop mark stays with its lease: only the holder's own writes that keep the lease keep it.
    const stop = held?.stop !== undefined && held.owner === opts.lease?.owner ? { stop: held.stop } : {};
    const lease = opts.lease?.ms
      ? { owner: opts.lease.owner, until: clock() + opts.lease.ms, ...stop }
      : null;
    const pending = opts.pending ?? [];
    // The queue outlives versions (DESIGN §30): only the ids this write delivered leave it.
    const dequeue = new Set(opts.dequeue ?? []);
    const queued = (latest?.run.queued ?? []).filter((entry) => !dequeue.has(entry.id));
    return {
      latest,
      kept: {
        version: (current ?? 0) + 1,
        expiresAt: opts.expiresAt ?? null,
        lease,
        ...(pending.length > 0 ? { pending } : {}),
        ...(queued.length > 0 ? { queued } : {}),
      },
    };
  }

  /**
   * Writes a version with its inbox markers: the new entries' markers first (so none is ever
   * missing), the markers of entries it no longer lists after; a refused write takes back its own.
   */
  async function withMarkers(
    runId: string,
    latest: Latest | null,
    kept: { pending?: PendingIndexEntry[] },
    write: () => Promise<void>,
  ) {
    const before = latest?.run.pending ?? [];
    const after = kept.pending ?? [];
    await addMarkers(dir, runId, after);
    try {
      await write();
    } catch (error) {
      await dropMarkers(dir, runId, after, before);
      throw error;
    }
    await dropMarkers(dir, runId, before, after);
  }

  /** Removes the log files of a write that was refused (no version names them). */
  async function dropLogFiles(runId: string, names: string[]): Promise<void> {
    for (const name of names) await unlink(join(runDir(runId), name)).catch(() => undefined);
  }

  /**
   * After a write of `version` that started the logs anew (a rewrite, or a whole snapshot), removes
   * the log files older versions wrote: no version from `version` on names them.
   */
  async function dropOlderLogs(runId: string, version: number): Promise<void> {
    for (const name of await readdir(runDir(runId)).catch(() => [])) {
      const match = LOG_FILE.exec(name);
      if (match && Number(match[1]) < version) await unlink(join(runDir(runId), name)).catch(() => undefined);
    }
    // The versions kept as history name those logs: they go too.
    for (const older of (await listVersions(runDir(runId))).filter((kept) => kept < version)) {
      await unlink(join(runDir(runId), `${older}.json`)).catch(() => undefined);
    }
  }

  /** The latest version of a run, or null. Retries when a writer removes the file it was about to read. */
  async function readLatest(runId: string): Promise<Latest | null> {
    for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      const [newest] = await listVersions(runDir(runId));
      const path = newest === undefined ? legacyPath(runId) : join(runDir(runId), `${newest}.json`);
      const text = await readIfPresent(path);
      if (text !== null) return { run: parseRunFile(text, path), path };
      // No versions and no file of the previous layout, still: the run does not exist.
      if (newest === undefined && (await listVersions(runDir(runId))).length === 0) return null;
    }
    throw new ConflictError(`Run ${runId} kept changing while it was read. Retry.`);
  }

  /**
   * Makes `run` version `run.version` of `runId`, or throws `ConflictError` if another writer made
   * that version, a newer one, or deleted the version it was built on (`base`).
   */
  async function createVersion(runId: string, run: RunFile, base: Latest | null): Promise<void> {
    const folder = runDir(runId);
    const path = join(folder, `${run.version}.json`);
    const tempPath = await writeTemp(folder, JSON.stringify(run)).catch(
      deletedMeanwhile(runId, run.version - 1),
    );
    try {
      await link(tempPath, path);
    } catch (error) {
      // EEXIST: another writer made this version. ENOENT: a delete emptied the folder meanwhile.
      if (errorCode(error) !== 'EEXIST' && errorCode(error) !== 'ENOENT') throw error;
      throw staleWriteError(runId, run.version - 1, (await listVersions(folder))[0] ?? null);
    } finally {
      await unlink(tempPath).catch(() => undefined);
    }
    await syncDirectory(folder);
    const versions = await listVersions(folder);
    const newest = versions[0] ?? 0;
    if (newest > run.version || (base !== null && !(await exists(base.path)))) {
      await unlink(path).catch(() => undefined);
      throw staleWriteError(runId, run.version - 1, newest > run.version ? newest : null);
    }
    // Only the latest version is kept, and in layout 2 the points of history (`keepHistory`) before
    // it; readers that lose a file to this retry.
    const oldest = 'head' in run ? run.version - keep : run.version;
    for (const version of versions.filter((version) => version < run.version && version <= oldest)) {
      await unlink(join(folder, `${version}.json`)).catch(() => undefined);
    }
    if (base?.path === legacyPath(runId)) await unlink(base.path).catch(() => undefined);
  }

  /**
   * Rewrites the latest version's file in place with a new lease or queue (under the run's lock);
   * false, and the file removed, when a writer that broke the lock made a newer version meanwhile.
   */
  async function rewriteLease(
    runId: string,
    latest: Latest,
    changes: Pick<RunFile, 'lease'> | Pick<RunFile, 'queued'>,
  ): Promise<boolean> {
    const run = { ...latest.run, ...changes };
    await replaceFile(runDir(runId), latest.path, JSON.stringify(run)).catch(
      deletedMeanwhile(runId, latest.run.version),
    );
    const [newest] = await listVersions(runDir(runId));
    if (newest === undefined || newest <= latest.run.version) return true;
    await unlink(latest.path).catch(() => undefined);
    return false;
  }

  return {
    async get(runId): Promise<StoredSnapshot | null> {
      assertSafeRunId(runId, 'fileStore.get');
      const row = await readRun(runId);
      if (row === null || 'snapshot' in row) return row;
      const { version, lease, queued } = row;
      return { snapshot: assembleSnapshot(row), version, lease, now: clock(), ...(queued ? { queued } : {}) };
    },

    async getParts(runId, options) {
      assertSafeRunId(runId, 'fileStore.getParts');
      return readRun(runId, options?.transcript === 'window');
    },

    // The log files are read to measure the transcript (this store keeps no length apart), but
    // nothing is joined, assembled or parsed.
    async getHead(runId) {
      assertSafeRunId(runId, 'fileStore.getHead');
      const latest = await readLatest(runId);
      if (latest && 'head' in latest.run && latest.run.length !== undefined) {
        // The version file keeps the transcript's length: no log file is read.
        const { head, length, version, lease } = latest.run;
        const live = lease && { owner: lease.owner, live: lease.until > clock() };
        return { head, messagesLength: length, version, lease: live, now: clock() };
      }
      const row = await readRun(runId);
      if (row === null || 'snapshot' in row) return row;
      const { head, messages, version, lease, now } = row;
      return { head, messagesLength: messages.length, version, lease, ...(now !== undefined ? { now } : {}) };
    },

    async put(runId, snapshot, opts: PutOptions) {
      assertSafeRunId(runId, 'fileStore.put');
      if (opts.lease) checkLeaseMs(opts.lease.ms, 'fileStore.put');
      return withRunLock(runId, runDir(runId), timing, async () => {
        const { latest, kept } = await admit(runId, opts);
        await withMarkers(runId, latest, kept, () => createVersion(runId, { ...kept, snapshot }, latest));
        if (latest && 'head' in latest.run) await dropOlderLogs(runId, kept.version);
        return { version: kept.version, now: clock(), ...queueOf(kept) };
      });
    },

    async putParts(runId, write: PartsWrite, opts: PutOptions) {
      assertSafeRunId(runId, 'fileStore.putParts');
      if (opts.lease) checkLeaseMs(opts.lease.ms, 'fileStore.putParts');
      return withRunLock(runId, runDir(runId), timing, async () => {
        const { latest, kept } = await admit(runId, opts);
        const base = latest?.run;
        if (write.mode === 'append' && base && !('head' in base)) throw notInPartsError(runId);
        const append = write.mode === 'append' && base !== undefined;
        const previous = append && 'head' in base ? base.log : '';
        // Partial reads (DESIGN §22): known from a rewrite on, unknown on a chain written before them.
        const known: LogOffsets | undefined = !append
          ? { length: 0, rlog: '' }
          : 'head' in base && base.length !== undefined
            ? { length: base.length, rlog: base.rlog ?? '' }
            : undefined;
        let offsets: LogOffsets = {};
        // One log file per chunk of the messages' text (`PartsWrite.cuts`, DESIGN §22), each naming
        // the one before; the last one also holds the records' text.
        const written: string[] = [];
        if (write.messages !== '' || write.resolved !== '') {
          const length = known?.length ?? 0;
          const start = write.messages === '' ? length : length > 0 ? length + 1 : 0;
          const chunks = logChunks(write.messages, write.cuts);
          try {
            for (const [index, chunk] of chunks.entries()) {
              const name = logName(kept.version);
              const texts = {
                messages: chunk.text,
                resolved: index === chunks.length - 1 ? write.resolved : '',
              };
              const links = known && { start: start + chunk.at, rprev: known.rlog ?? '' };
              await writeNew(
                join(runDir(runId), name),
                logFileText(written.at(-1) ?? previous, texts, links),
              );
              written.push(name);
            }
          } catch (error) {
            await dropLogFiles(runId, written);
            return deletedMeanwhile(runId, opts.expectedVersion)(error);
          }
          if (known) {
            offsets = {
              length: write.messages === '' ? length : start + write.messages.length,
              rlog: write.resolved === '' ? (known.rlog ?? '') : written.at(-1)!,
            };
          }
        } else if (known) offsets = known;
        if (known) offsets.window = write.windowAt ?? 0;
        const log = written.at(-1) ?? previous;
        try {
          await withMarkers(runId, latest, kept, () =>
            createVersion(runId, { ...kept, head: write.head, log, at: clock(), ...offsets }, latest),
          );
        } catch (error) {
          await dropLogFiles(runId, written);
          throw error;
        }
        if (!append && latest) await dropOlderLogs(runId, kept.version);
        return { version: kept.version, now: clock(), ...queueOf(kept) };
      });
    },

    async listPoints(runId) {
      assertSafeRunId(runId, 'fileStore.listPoints');
      const points: StoredPoint[] = [];
      if (keep === 0) return points;
      for (const version of (await listVersions(runDir(runId))).reverse()) {
        const text = await readIfPresent(join(runDir(runId), `${version}.json`));
        // Gone meanwhile (a rewrite dropped it): no longer a point.
        if (text === null) continue;
        const run = parseRunFile(text, `${runId}/${version}.json`);
        if (!('head' in run)) continue;
        points.push({ version, at: new Date(run.at ?? 0).toISOString(), head: run.head });
      }
      return points;
    },

    async getAt(runId, version) {
      assertSafeRunId(runId, 'fileStore.getAt');
      if (!Number.isSafeInteger(version) || version < 1) return null;
      const text = await readIfPresent(join(runDir(runId), `${version}.json`));
      if (text === null) return null;
      const run = parseRunFile(text, `${runId}/${version}.json`);
      if (!('head' in run)) return null;
      const logs = await readLogs(runId, run);
      return logs && { head: run.head, ...logs };
    },

    async renew(runId, opts) {
      assertSafeRunId(runId, 'fileStore.renew');
      checkLeaseMs(opts.ms, 'fileStore.renew');
      return withRunLock(runId, runDir(runId), timing, async () => {
        const latest = await readLatest(runId);
        const current = latest?.run.version ?? null;
        if (!latest || current !== opts.version) throw staleWriteError(runId, opts.version, current);
        const held = latest.run.lease;
        if (held?.owner !== opts.owner) throw leaseHeldError(runId);
        if (!(await rewriteLease(runId, latest, { lease: { ...held, until: clock() + opts.ms } }))) {
          throw staleWriteError(runId, opts.version, (await listVersions(runDir(runId)))[0] ?? null);
        }
        return { stop: stopMarkOf(held.stop), ...queueOf(latest.run) };
      });
    },

    async queueMessage(runId, entry) {
      assertSafeRunId(runId, 'fileStore.queueMessage');
      return withRunLock(runId, runDir(runId), timing, async () => {
        for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
          const latest = await readLatest(runId);
          if (!latest) return null;
          const held = latest.run.lease;
          const live = held !== null && held.until > clock();
          const queued = latest.run.queued ?? [];
          if (queued.some((queuedEntry) => queuedEntry.id === entry.id)) return { live };
          const added = [...queued, { id: entry.id, messages: entry.messages }];
          if (await rewriteLease(runId, latest, { queued: added })) return { live };
        }
        throw new ConflictError(`Run ${runId} kept changing while a message was queued on it. Retry.`);
      });
    },

    async requestStop(runId, opts) {
      assertSafeRunId(runId, 'fileStore.requestStop');
      return withRunLock(runId, runDir(runId), timing, async () => {
        const latest = await readLatest(runId);
        const held = latest?.run.lease;
        if (!latest || !held || held.until <= clock()) return false;
        if (held.stop !== undefined) return true;
        return rewriteLease(runId, latest, { lease: { ...held, stop: opts.reason ?? '' } });
      });
    },

    async delete(runId) {
      assertSafeRunId(runId, 'fileStore.delete');
      const folder = runDir(runId);
      // Under the lock, so a delete never lands between another writer's check and its write. Temp
      // files go too: a writer whose lock was broken then fails instead of bringing the run back.
      await withRunLock(runId, folder, timing, async () => {
        const latest = await readLatest(runId).catch(() => null);
        await dropMarkers(dir, runId, latest?.run.pending ?? []);
        for (const name of await readdir(folder)) {
          if (name !== LOCK_NAME) await unlink(join(folder, name)).catch(() => undefined);
        }
        if (await exists(legacyPath(runId))) await unlink(legacyPath(runId)).catch(() => undefined);
      });
      // Fails harmlessly when another writer already took the lock again.
      await rmdir(folder).catch(() => undefined);
    },

    async listPending(filter, limit, cursor) {
      return listMarkers(dir, filter, limit, cursor, async (runId) => {
        if (!isSafeRunId(runId)) return [];
        return (await readLatest(runId).catch(() => null))?.run.pending ?? [];
      });
    },

    async listExpired(before, limit = Number.POSITIVE_INFINITY) {
      const cutoff = before === 'now' ? clock() : before.getTime();
      const due: { runId: string; at: number }[] = [];
      for (const runId of await runIdsIn(dir)) {
        const expiresAt = (await readLatest(runId))?.run.expiresAt;
        const at = expiresAt == null ? Number.NaN : Date.parse(expiresAt);
        if (at <= cutoff) due.push({ runId, at });
      }
      due.sort((a, b) => a.at - b.at || (a.runId < b.runId ? -1 : 1));
      return due.slice(0, limit).map(({ runId }) => runId);
    },
  };
}

/**
 * For a write whose run folder vanished (ENOENT): a delete ran while this writer was paused past its
 * lock, so the write is refused like any other stale one.
 */
function deletedMeanwhile(runId: string, expected: number | null): (error: unknown) => never {
  return (error) => {
    throw errorCode(error) === 'ENOENT' ? staleWriteError(runId, expected, null) : error;
  };
}
