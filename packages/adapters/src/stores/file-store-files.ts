/**
 * What the file store's files hold and how they are named: the version file of a run
 * (`<version>.json`: a whole snapshot, or a head and its newest log file) and the log files of row
 * layout 2 (`log-<version>-<random>.txt`), parsed strictly so a file TurnKit did not write is
 * reported by name rather than misread.
 */
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { SnapshotError } from '@turnkit/core';
import type { PendingIndexEntry, QueuedMessage, SnapshotParts } from '@turnkit/core/store';
import { errorCode } from './file-store-io.js';
import { isSafeRunId } from './run-id.js';

/**
 * What `<dir>/<runId>/<version>.json` holds: a whole snapshot (layout 1), or a head and the name of
 * its newest log file, '' when the logs are empty (layout 2). The first release's
 * `<dir>/<runId>.json` has no `lease`.
 */
export type RunFile = {
  version: number;
  expiresAt: string | null;
  /** The run's entries in the inbox index (absent: none). */
  pending?: PendingIndexEntry[];
  /** `until` is epoch ms on the store's clock; `stop` the reason of a stop request ('' for none). */
  lease: { owner: string; until: number; stop?: string } | null;
  /** Late input (DESIGN §30): messages queued beside the run, kept across versions until dequeued. */
  queued?: QueuedMessage[];
} & ({ snapshot: string } | ({ head: string; log: string; at?: number } & LogOffsets));

/**
 * What a layout-2 version file records for partial reads (DESIGN §22), absent in files written
 * before them (such a chain is read whole until its next rewrite): the transcript log's length
 * (UTF-16 units), where the window starts in it, and the newest log file with resolved records.
 */
export interface LogOffsets {
  length?: number;
  window?: number;
  rlog?: string;
}

/** A layout-2 run file. */
export type PartsFile = Extract<RunFile, { head: string }>;

export const VERSION_FILE = /^([1-9][0-9]*)\.json$/;

/** A log file: `log-<version that wrote it>-<random>.txt`. */
export const LOG_FILE = /^log-([1-9][0-9]*)-[0-9a-f]{16}\.txt$/;
export const logName = (version: number) => `log-${version}-${randomBytes(8).toString('hex')}.txt`;

/** Where a log file's messages start in the transcript log, and the log file before it with records. */
export interface LogLinks {
  start: number;
  /** The newest earlier log file whose resolved text is not empty ('' for none). */
  rprev: string;
}

/**
 * A log file's text: the name of the log file before it (or nothing) — then, tab-separated, where
 * its messages start in the transcript log and the earlier log file with records ({@link LogLinks},
 * absent in files written before them) — the length of the messages' text, then the messages' and
 * the records' texts, raw.
 */
export function logFileText(
  previous: string,
  texts: Pick<SnapshotParts, 'messages' | 'resolved'>,
  links?: LogLinks,
): string {
  const first = links ? `${previous}\t${links.start}\t${links.rprev}` : previous;
  return `${first}\n${texts.messages.length}\n${texts.messages}${texts.resolved}`;
}

/** Reads a log file's text (see {@link logFileText}); `path` names it when it is not one. */
export function parseLogFile(
  text: string,
  path: string,
): { previous: string; messages: string; resolved: string; links?: LogLinks } {
  const first = text.indexOf('\n');
  const second = first < 0 ? -1 : text.indexOf('\n', first + 1);
  const length = Number(text.slice(first + 1, second));
  const [previous = '', start, rprev] = text.slice(0, Math.max(first, 0)).split('\t');
  const linked = start !== undefined;
  if (
    second < 0 ||
    !Number.isSafeInteger(length) ||
    length < 0 ||
    second + 1 + length > text.length ||
    (linked && (!Number.isSafeInteger(Number(start)) || Number(start) < 0 || rprev === undefined))
  ) {
    throw new SnapshotError(
      'SNAPSHOT_INVALID',
      `${path} is not a TurnKit log file; restore it or delete the run.`,
    );
  }
  return {
    previous,
    messages: text.slice(second + 1, second + 1 + length),
    resolved: text.slice(second + 1 + length),
    ...(linked ? { links: { start: Number(start), rprev: rprev! } } : {}),
  };
}

/** Every run in `dir`: its folders, and the files of the previous layout. */
export async function runIdsIn(dir: string): Promise<Set<string>> {
  const runIds = new Set<string>();
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return [];
    throw error;
  });
  for (const entry of entries) {
    if (entry.isDirectory() && isSafeRunId(entry.name)) runIds.add(entry.name);
    else if (entry.isFile() && entry.name.endsWith('.json') && isSafeRunId(entry.name.slice(0, -5))) {
      runIds.add(entry.name.slice(0, -5));
    }
  }
  return runIds;
}

/** The version numbers stored in a run's folder, newest first; none when there is no folder. */
export async function listVersions(folder: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    // ENOTDIR: the name is a file of the previous layout (a run whose id ends in .json).
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return [];
    throw error;
  }
  return names
    .flatMap((name) => {
      const match = VERSION_FILE.exec(name);
      return match ? [Number(match[1])] : [];
    })
    .sort((a, b) => b - a);
}

export function parseRunFile(text: string, path: string): RunFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SnapshotError('SNAPSHOT_INVALID', `${path} is not valid JSON; restore it or delete it.`, {
      cause: error,
    });
  }
  const run = value as {
    version?: unknown;
    expiresAt?: unknown;
    lease?: RunFile['lease'];
    snapshot?: unknown;
    head?: unknown;
    log?: unknown;
    pending?: unknown;
    at?: unknown;
    length?: unknown;
    window?: unknown;
    rlog?: unknown;
    queued?: unknown;
  } | null;
  const lease = run?.lease;
  const content =
    typeof run?.snapshot === 'string' || (typeof run?.head === 'string' && typeof run.log === 'string');
  if (
    typeof run !== 'object' ||
    run === null ||
    !Number.isInteger(run.version) ||
    !content ||
    !(run.expiresAt === null || typeof run.expiresAt === 'string') ||
    !(
      lease == null ||
      (typeof lease.owner === 'string' &&
        Number.isFinite(lease.until) &&
        (lease.stop === undefined || typeof lease.stop === 'string'))
    )
  ) {
    throw new SnapshotError(
      'SNAPSHOT_INVALID',
      `${path} is not a TurnKit run file ({ version, expiresAt, lease, snapshot } or { …, head, log }); restore it or delete it.`,
    );
  }
  const kept = {
    version: run.version as number,
    expiresAt: run.expiresAt as string | null,
    lease: lease ?? null,
    ...(Array.isArray(run.pending) && run.pending.length > 0
      ? { pending: run.pending as PendingIndexEntry[] }
      : {}),
    ...(queuedIn(run.queued) ? { queued: run.queued } : {}),
  };
  return typeof run.snapshot === 'string'
    ? { ...kept, snapshot: run.snapshot }
    : {
        ...kept,
        head: run.head as string,
        log: run.log as string,
        // When the version was written (the store's clock), for history (DESIGN §21).
        ...(Number.isFinite(run.at) ? { at: run.at as number } : {}),
        // Partial reads (DESIGN §22): all three, or none (a chain written before them).
        ...(Number.isSafeInteger(run.length) &&
        Number.isSafeInteger(run.window) &&
        typeof run.rlog === 'string'
          ? { length: run.length as number, window: run.window as number, rlog: run.rlog }
          : {}),
      };
}

/** Whether a run file's `queued` is a non-empty list of queued messages (older files have none). */
function queuedIn(value: unknown): value is QueuedMessage[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((entry) => typeof entry?.id === 'string' && typeof entry.messages === 'string')
  );
}
