/**
 * The inbox (DESIGN §20): where the pending asks of every run wait for the people who answer them.
 * Sessions hand the store each run's pending interactions on every write (`PutOptions.pending`),
 * so the store keeps an index beside the runs and `sessions.inbox` reads one page of it, oldest
 * first, without loading any run. Cursors are opaque to callers: the last key of the page, encoded.
 */
import { TurnkitError } from '../errors.js';
import { type Run, stateOf } from '../interpreter/index.js';
import { pendingInteractions, type StoredInteraction } from '../machine/index.js';
import { fromBase64url, toBase64url } from '../snapshot/index.js';
import { type PendingFilter, type PendingIndexEntry, pendingKey, type SnapshotStore } from './store.js';

/** What {@link Sessions.inbox} takes: every field given must match. */
export interface InboxFilter {
  /** Asks whose assignees include this principal. */
  assignee?: string | undefined;
  /** Asks of runs bound to this principal (who started them); null: of runs bound to none. */
  principal?: string | null | undefined;
  /** Asks a caller with this principal may see: of its own runs, or naming it among the assignees. */
  visibleTo?: string | undefined;
  /** `question`, `approval`, `input`… */
  kind?: string;
  /** Asks that expire at or before this time; asks that never expire are left out. */
  expiringBefore?: Date | string;
  /** At most this many items (default 50, at most 500). */
  limit?: number;
  /** The `cursor` of the previous page; absent or null for the first. */
  cursor?: string | null;
}

/** One pending ask in the inbox. */
export interface InboxItem {
  runId: string;
  /** The interaction id (what `answer`, `approve`… take as `id`). */
  id: string;
  kind: string;
  agentPath: string[];
  /** A short text: the first question, the form's message, or the tool name and "approval". */
  summary: string;
  askedAt: string;
  expiresAt?: string;
  assignees?: string[];
}

/** A page of the inbox: oldest first; `cursor` is null on the last page. */
export interface InboxPage {
  items: InboxItem[];
  cursor: string | null;
}

const SUMMARY_LENGTH = 200;
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

/** A short text for one pending interaction. */
function summaryOf(interaction: StoredInteraction): string {
  let text: string;
  if (interaction.kind === 'question') {
    text = interaction.questions?.[0]?.question ?? 'A question';
  } else if (interaction.kind === 'input') {
    text = interaction.form?.message || `${interaction.toolName} input`;
  } else if (interaction.kind === 'approval') {
    text = `${interaction.toolName} approval`;
  } else if (interaction.review) {
    // A hook's review (DESIGN §26): its reason, else which hook asks at which point.
    const { hook, point } = interaction.review;
    text =
      interaction.reason ??
      `Review by ${hook} at ${point}${interaction.toolName ? ` (${interaction.toolName})` : ''}`;
  } else {
    text = `${interaction.toolName} ${interaction.kind}`;
  }
  return text.length > SUMMARY_LENGTH ? `${text.slice(0, SUMMARY_LENGTH - 1)}…` : text;
}

/** The assignees an interaction was asked with, when it names some (resolved when asked). */
function assigneesOf(interaction: StoredInteraction): string[] | undefined {
  const assignees = (interaction as { assignees?: unknown }).assignees;
  return Array.isArray(assignees) && assignees.every((item) => typeof item === 'string')
    ? [...assignees]
    : undefined;
}

/** The index entries of a run: its pending interactions while it rests waiting for them, else none. */
export function pendingEntries(run: Run): PendingIndexEntry[] {
  if (stateOf(run) !== 'waitingInput') return [];
  return pendingInteractions(run.state.context).map((interaction) => {
    const assignees = assigneesOf(interaction);
    return {
      id: interaction.id,
      kind: interaction.kind,
      agentPath: [...interaction.agentPath],
      summary: summaryOf(interaction),
      askedAt: interaction.createdAt,
      ...(interaction.expiresAt !== null ? { expiresAt: interaction.expiresAt } : {}),
      ...(assignees ? { assignees } : {}),
      ...(run.principal !== undefined ? { principal: run.principal } : {}),
    };
  });
}

function invalid(message: string): TurnkitError {
  return new TurnkitError('CONFIG_INVALID', `sessions.inbox: ${message}`);
}

function optionalText(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw invalid(`\`${name}\` must be a non-empty string.`);
  return value;
}

/** Checks a filter from outside and turns it into the store's. */
function storeFilter(filter: InboxFilter): PendingFilter {
  const out: PendingFilter = {};
  const assignee = optionalText(filter.assignee, 'assignee');
  if (assignee !== undefined) out.assignee = assignee;
  if (filter.principal === null) out.principal = null;
  else {
    const principal = optionalText(filter.principal, 'principal');
    if (principal !== undefined) out.principal = principal;
  }
  const visibleTo = optionalText(filter.visibleTo, 'visibleTo');
  if (visibleTo !== undefined) out.visibleTo = visibleTo;
  const kind = optionalText(filter.kind, 'kind');
  if (kind !== undefined) out.kind = kind;
  if (filter.expiringBefore !== undefined) {
    const at = filter.expiringBefore;
    const ms = at instanceof Date ? at.getTime() : typeof at === 'string' ? Date.parse(at) : Number.NaN;
    if (!Number.isFinite(ms)) throw invalid('`expiringBefore` must be a valid Date or ISO date string.');
    out.expiringBefore = new Date(ms).toISOString();
  }
  return out;
}

function limitOf(limit: unknown): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_LIMIT) {
    throw invalid(`\`limit\` must be a whole number from 1 to ${MAX_LIMIT}, got ${String(limit)}.`);
  }
  return limit as number;
}

/** The opaque cursor of a store key (base64url of its UTF-8 bytes). */
function encodeCursor(key: string): string {
  return toBase64url(new TextEncoder().encode(key));
}

/** The store key of a cursor, or an error saying the cursor is not one the inbox returned. */
function decodeCursor(cursor: unknown): string | null {
  if (cursor === undefined || cursor === null) return null;
  const refused = invalid(
    '`cursor` is not one an inbox page returned: pass the `cursor` of the previous page.',
  );
  const bytes = typeof cursor === 'string' && cursor.length <= 4096 ? fromBase64url(cursor) : null;
  if (!bytes) throw refused;
  let key: string;
  try {
    key = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw refused;
  }
  if (!/^\d{15}\n[^\n]+\n[^\n]+$/.test(key)) throw refused;
  return key;
}

/** One page of the inbox from `store`; see {@link Sessions.inbox}. */
export async function readInbox(store: SnapshotStore, filter: InboxFilter = {}): Promise<InboxPage> {
  if (typeof filter !== 'object' || filter === null) throw invalid('the filter must be an object.');
  if (typeof store.listPending !== 'function') {
    throw new TurnkitError(
      'CONFIG_INVALID',
      'sessions.inbox: this store keeps no inbox index (it has no `listPending`). Use memoryStore, fileStore, redisStore or postgresStore, or implement `listPending`.',
    );
  }
  const limit = limitOf(filter.limit);
  const page = await store.listPending(storeFilter(filter), limit, decodeCursor(filter.cursor));
  const items = page.items.map(({ principal: _principal, ...item }) => item);
  const last = items.at(-1);
  return { items, cursor: page.cursor !== null && last ? encodeCursor(pendingKey(last)) : null };
}
