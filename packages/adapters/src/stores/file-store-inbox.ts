/**
 * The inbox index of `fileStore` (DESIGN §20). A run's version file holds its pending entries (the
 * truth, written atomically with the version); beside the runs, the folder `.inbox` holds one empty
 * marker file per entry, named so that the names alone give the inbox order. A writer adds the
 * markers of its entries before it creates its version and removes the ones it no longer lists
 * after, so no pending entry ever lacks a marker; a listing reads the marker names, then only the
 * version files of the page it returns, and skips markers their run no longer lists (a writer that
 * died between the two steps, or a write that was refused).
 */
import { mkdir, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  matchesPending,
  type PendingFilter,
  type PendingIndexEntry,
  type PendingItem,
  type PendingPage,
  pendingKey,
} from '@turnkit/core/store';
import { writeNew } from './file-store-io.js';

/** The markers folder: its name cannot be a run id (those never start with a dot). */
export const INBOX_FOLDER = '.inbox';

const MARKER = /^(\d{15})-([0-9a-f]+)-(.+)$/;

function hexOf(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex');
}

/** The marker file name of an entry: askedAt (ms, 15 digits), the id in hex, the run id. */
function markerName(runId: string, entry: PendingIndexEntry): string {
  const [ms] = pendingKey({ ...entry, runId }).split('\n');
  return `${ms}-${hexOf(entry.id)}-${runId}`;
}

/** Adds the markers of `entries` (those already there are kept). */
export async function addMarkers(dir: string, runId: string, entries: PendingIndexEntry[]): Promise<void> {
  if (entries.length > 0) await mkdir(join(dir, INBOX_FOLDER), { recursive: true });
  for (const entry of entries) {
    await writeNew(join(dir, INBOX_FOLDER, markerName(runId, entry)), '').catch((error: unknown) => {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
    });
  }
}

/** Removes the markers of `entries` that `keep` does not list. */
export async function dropMarkers(
  dir: string,
  runId: string,
  entries: PendingIndexEntry[],
  keep: PendingIndexEntry[] = [],
): Promise<void> {
  const kept = new Set(keep.map((entry) => markerName(runId, entry)));
  for (const entry of entries) {
    const name = markerName(runId, entry);
    if (!kept.has(name)) await unlink(join(dir, INBOX_FOLDER, name)).catch(() => undefined);
  }
}

/**
 * One page of the index: markers in key order after `cursor`, each checked against its run's
 * latest version (`pendingOf`), then against `filter`.
 */
export async function listMarkers(
  dir: string,
  filter: PendingFilter,
  limit: number,
  cursor: string | null,
  pendingOf: (runId: string) => Promise<PendingIndexEntry[]>,
): Promise<PendingPage> {
  const names = await readdir(join(dir, INBOX_FOLDER)).catch(() => [] as string[]);
  const markers = names
    .flatMap((name) => {
      const match = MARKER.exec(name);
      if (!match) return [];
      const id = Buffer.from(match[2]!, 'hex').toString('utf8');
      const runId = match[3]!;
      return [{ key: `${match[1]}\n${runId}\n${id}`, runId, id }];
    })
    .filter((marker) => cursor === null || marker.key > cursor)
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const runs = new Map<string, PendingIndexEntry[]>();
  const items: PendingItem[] = [];
  for (const marker of markers) {
    let pending = runs.get(marker.runId);
    if (!pending) {
      pending = await pendingOf(marker.runId);
      runs.set(marker.runId, pending);
    }
    const entry = pending.find(
      (candidate) =>
        candidate.id === marker.id && pendingKey({ ...candidate, runId: marker.runId }) === marker.key,
    );
    if (!entry || !matchesPending(entry, filter)) continue;
    if (items.length === limit) return { items, cursor: pendingKey(items.at(-1)!) };
    items.push({ ...entry, runId: marker.runId });
  }
  return { items, cursor: null };
}
