/**
 * Run ids become file and folder names in the file store and the event log, so they are checked
 * before any path is built: whatever a caller (or an attacker) passes, nothing lands outside `dir`.
 */
import { TurnkitError } from '@turnkit/core';

/** Longest accepted run id: leaves room for suffixes under the usual 255-byte file-name limit. */
const MAX_RUN_ID_LENGTH = 200;

/** Letters, digits, `_`, `-` and `.`; no leading dot (hidden files, `.`, `..`). */
const SAFE_RUN_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/**
 * Throws `TurnkitError` `CONFIG_INVALID` unless `runId` is safe to use as a single path segment:
 * 1–200 characters from `A-Z a-z 0-9 _ - .`, not starting with a dot and without `..`. That rules
 * out separators (`/`, `\`), absolute paths, drive letters, NUL and parent references.
 */
export function assertSafeRunId(runId: unknown, where: string): asserts runId is string {
  if (isSafeRunId(runId)) return;
  const shown = typeof runId === 'string' ? JSON.stringify(runId.slice(0, 80)) : String(runId);
  throw new TurnkitError(
    'CONFIG_INVALID',
    `${where}: run id ${shown} cannot be used as a file name. Use 1-${MAX_RUN_ID_LENGTH} characters ` +
      'from A-Z a-z 0-9 _ - . that do not start with a dot and contain no "..".',
  );
}

/** Whether `runId` passes {@link assertSafeRunId}: for telling run folders from other entries of a folder. */
export function isSafeRunId(runId: unknown): runId is string {
  return (
    typeof runId === 'string' &&
    runId.length <= MAX_RUN_ID_LENGTH &&
    SAFE_RUN_ID.test(runId) &&
    !runId.includes('..')
  );
}
