/**
 * The error classes TurnKit throws. Every one extends {@link TurnkitError} and carries a stable
 * string `code` (one closed union, below), so callers can branch on `err.code` and HTTP layers can
 * map codes to statuses in one table.
 */

/** Every error code TurnKit can throw. */
export type TurnkitErrorCode =
  | 'SNAPSHOT_INVALID'
  | 'SNAPSHOT_TAMPERED'
  | 'SNAPSHOT_VERSION'
  | 'SNAPSHOT_INCOMPATIBLE'
  | 'NOT_WAITING'
  | 'INTERACTION_NOT_FOUND'
  | 'AMBIGUOUS_INTERACTION'
  | 'WRONG_KIND'
  | 'RUN_NOT_FOUND'
  | 'NOT_ASSIGNEE'
  | 'POINT_NOT_FOUND'
  | 'CONTEXT_UNSERIALIZABLE'
  | 'ANSWER_INVALID'
  | 'CONFLICT'
  | 'MODEL_ERROR'
  | 'CONFIG_INVALID'
  | 'QUEUE_UNAVAILABLE'
  // An answer link that cannot be used (DESIGN §20).
  | 'LINK_INVALID'
  // A recording replay cannot read (DESIGN §28).
  | 'RECORDING_INVALID';

const marker = Symbol.for('turnkit.error');

/**
 * Base class of every error TurnKit throws. Use {@link TurnkitError.isInstance} rather than
 * `instanceof` when two copies of the package may be installed side by side.
 */
export class TurnkitError extends Error {
  readonly [marker] = true;
  readonly code: TurnkitErrorCode;

  constructor(code: TurnkitErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }

  /** True for any TurnKit error, from any copy of the package. */
  static isInstance(value: unknown): value is TurnkitError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}

/** A snapshot string that cannot be used: unreadable, edited, too new, or no longer matching the agent. */
export class SnapshotError extends TurnkitError {
  constructor(
    code: 'SNAPSHOT_INVALID' | 'SNAPSHOT_TAMPERED' | 'SNAPSHOT_VERSION' | 'SNAPSHOT_INCOMPATIBLE',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** The run is not in a state that accepts this call (already completed, unknown interaction…). */
export class StateError extends TurnkitError {
  constructor(
    code:
      | 'NOT_WAITING'
      | 'INTERACTION_NOT_FOUND'
      | 'AMBIGUOUS_INTERACTION'
      | 'WRONG_KIND'
      | 'RUN_NOT_FOUND'
      | 'NOT_ASSIGNEE'
      // An answer link that cannot be used (DESIGN §20).
      | 'LINK_INVALID'
      | 'POINT_NOT_FOUND',
    message: string,
  ) {
    super(code, message);
  }
}

/**
 * An answer link (DESIGN §20) that cannot be used: `LINK_INVALID`. `forged` is true when the token
 * was not signed with the agent's secret, or was altered (HTTP 403); false when it was used
 * already or has expired (HTTP 410).
 */
export class LinkError extends StateError {
  readonly forged: boolean;

  constructor(message: string, forged: boolean) {
    super('LINK_INVALID', message);
    this.forged = forged;
  }
}

/** One problem found in an answer, with the path of the value at fault. */
export interface AnswerIssue {
  path: (string | number)[];
  message: string;
}

/** An answer (or an edited approval input) that does not fit the pending interaction. Nothing changed. */
export class AnswerError extends TurnkitError {
  readonly issues: AnswerIssue[];

  constructor(issues: AnswerIssue[], subject = 'The answer') {
    const lines = issues.map((issue) => `- ${formatIssuePath(issue.path)}${issue.message}`);
    super(
      'ANSWER_INVALID',
      `${subject} was not accepted and nothing changed; fix these and send it again:\n${lines.join('\n')}`,
    );
    this.issues = issues;
  }
}

/** Another writer got there first (a stale compare-and-set, or a different answer already applied). */
export class ConflictError extends TurnkitError {
  constructor(message: string) {
    super('CONFLICT', message);
  }
}

/**
 * The model call failed (after the adapter's own retries). `status` is the HTTP status when there
 * was one. `message` is for operators (it may hold the provider's text, a base URL, a model id);
 * `publicMessage` is what clients, snapshots and events see (DESIGN §13).
 */
export class ModelError extends TurnkitError {
  readonly status: number | undefined;
  readonly publicMessage: string;

  constructor(message: string, options?: { status?: number; cause?: unknown; publicMessage?: string }) {
    super('MODEL_ERROR', message, options);
    this.status = options?.status;
    this.publicMessage = options?.publicMessage ?? publicModelMessage(options?.status);
  }
}

/** What a client may read about a failed model call: the status class, never the provider's text. */
export function publicModelMessage(status: number | undefined): string {
  if (status === undefined) return 'The model call failed. Retry the turn later.';
  if (status === 429) return 'The model provider is limiting requests (429). Retry the turn later.';
  if (status >= 500) return `The model provider failed (${status}). Retry the turn later.`;
  return `The model provider refused the request (${status}).`;
}

/** `['questions', 0, 'header']` → `questions[0].header: ` (empty for the root), as zod prints paths. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '';
  let text = '';
  for (const part of path) {
    text += typeof part === 'number' ? `[${part}]` : text === '' ? String(part) : `.${String(part)}`;
  }
  return `${text}: `;
}
