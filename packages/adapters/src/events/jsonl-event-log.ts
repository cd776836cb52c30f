/**
 * `jsonlEventLog(dir)`: an `onEvent` sink that appends every event of every run to
 * `<dir>/<runId>/events-YYYYMMDD.jsonl` — an append-only audit trail of each question, answer,
 * approval and rationale — and `readEvents(dir, runId)` to replay it.
 */
import { appendFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentEvent, ChatMessage } from '@turnkit/core';
import { SnapshotError } from '@turnkit/core';
import { assertSafeRunId } from '../stores/index.js';

/** Options of {@link jsonlEventLog}. */
export interface JsonlEventLogOptions {
  /** Keep only the events this returns true for (e.g. drop `model_delta` to keep logs small). Default: all. */
  filter?: (event: AgentEvent) => boolean;
  /**
   * Called when an event cannot be written (a bad run id, a full disk…). `onEvent` never throws, so
   * this (and the rejection of the next `flush`) is where failures show. Default: `console.error`.
   */
  onError?: (error: unknown, event: AgentEvent) => void;
  /**
   * Fields masked before an event is written (DESIGN §12), as dot paths matched wherever the chain
   * of keys occurs in the event, `*` for any key or index: `['payload.input.ssn']` masks the SSN of
   * an approval's input in `interaction_requested` (`interaction.payload.input.ssn`), and
   * `['editedInput.ssn']` the one a human typed into an edited approval. The value becomes
   * `"[redacted]"`. Text inside strings is not searched, with two exceptions: the arguments of
   * each tool call in `model_finished`'s message are a JSON string, and they are the tool's input,
   * so they are parsed and matched as if they stood at `payload.input` (`'payload.input.ssn'`,
   * `'input.ssn'` and `'ssn'` all mask them; arguments that are not JSON are masked whole); and a
   * tool result (`tool_finished`, `interaction_resolved`) that is JSON is matched as if it stood at
   * `result`, the input a human edited into it at `editedInput` and `payload.input`. The messages a
   * turn adds (`turn_started.input`, `message_delivered.messages`) are masked alike: their tool
   * calls' arguments as inputs, their tool messages' content as results.
   */
  redact?: string[];
}

/** What a masked field is written as. */
export const REDACTED = '[redacted]';

/** Masks the `paths` of an event (see {@link JsonlEventLogOptions.redact}); the event itself is not changed. */
export function redactEvent(event: AgentEvent, paths: readonly string[]): AgentEvent {
  const patterns = paths.map((path) => path.split('.'));
  const copy = JSON.parse(JSON.stringify(event)) as AgentEvent;
  const apply = (node: Record<string, unknown>, pattern: string[], index: number): void => {
    const key = pattern[index]!;
    const keys = key === '*' ? Object.keys(node) : Object.hasOwn(node, key) ? [key] : [];
    for (const name of keys) {
      if (index === pattern.length - 1) node[name] = REDACTED;
      else if (typeof node[name] === 'object' && node[name] !== null) {
        apply(node[name] as Record<string, unknown>, pattern, index + 1);
      }
    }
  };
  const mask = (root: unknown): void => {
    const stack: unknown[] = [root];
    while (stack.length > 0) {
      const node = stack.pop();
      if (typeof node !== 'object' || node === null) continue;
      for (const pattern of patterns) apply(node as Record<string, unknown>, pattern, 0);
      for (const child of Object.values(node)) stack.push(child);
    }
  };
  mask(copy);
  if (copy.type === 'model_finished' && copy.message) maskMessages([copy.message], mask);
  // Messages a turn adds (its input, a queued message as it is delivered) hold the same JSON texts.
  if (copy.type === 'turn_started' && copy.input) maskMessages(copy.input, mask);
  if (copy.type === 'message_delivered' && copy.messages) maskMessages(copy.messages, mask);
  if ((copy.type === 'tool_finished' || copy.type === 'interaction_resolved') && copy.result) {
    copy.result = maskResult(copy.result, mask);
  }
  return copy;
}

/**
 * The JSON texts inside chat messages, masked as the events that carry them alone are: each tool
 * call's arguments as the tool's input (`model_finished`), each tool message's content as a
 * tool result (`tool_finished`).
 */
function maskMessages(messages: ChatMessage[], mask: (root: unknown) => void): void {
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        call.function.arguments = maskArguments(call.function.arguments, mask);
      }
    } else if (message.role === 'tool') {
      message.content = maskResult(message.content, mask);
    }
  }
}

/**
 * A tool result masked as JSON data at `result` — and the input a human edited into it (the
 * `input_edited_by_user` an approved call's result carries) as `editedInput` would be; a result
 * that is not JSON is text, not searched.
 */
function maskResult(text: string, mask: (root: unknown) => void): string {
  let result: unknown;
  try {
    result = JSON.parse(text);
  } catch {
    return text;
  }
  const before = JSON.stringify(result);
  const edited = (result as { input_edited_by_user?: unknown } | null)?.input_edited_by_user;
  mask({ result, ...(edited !== undefined ? { editedInput: edited, payload: { input: edited } } : {}) });
  const after = JSON.stringify(result);
  // Unmasked, the result stays the very text the model read.
  return after === before ? text : after;
}

/** A tool call's arguments masked as its input would be at `payload.input`; unreadable ones whole. */
function maskArguments(text: string, mask: (root: unknown) => void): string {
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    return REDACTED;
  }
  const view = { payload: { input } };
  mask(view);
  return JSON.stringify(view.payload.input);
}

/** The sink returned by {@link jsonlEventLog}. */
export interface JsonlEventLog {
  /** Queues the event for writing. Synchronous and never throws: pass it as `onEvent`. */
  onEvent(event: AgentEvent): void;
  /** Resolves once every event queued so far is written; rejects with the first write error since the last flush. */
  flush(): Promise<void>;
  /** Flushes, then ignores further events. */
  close(): Promise<void>;
}

interface QueuedLine {
  path: string;
  folder: string;
  line: string;
  event: AgentEvent;
}

/**
 * Creates an event sink writing one JSON line per event to `<dir>/<runId>/events-YYYYMMDD.jsonl`,
 * where the date is the UTC day of `event.at` (so files rotate daily). Lines are appended in the
 * order `onEvent` received them: writes go through one queue, and events that arrive while a
 * write is under way are appended together by the next one. Run ids are validated like the file
 * store's, so no event can be written outside `dir`.
 *
 * @example
 * const log = jsonlEventLog('./.turnkit/events');
 * const result = await runTurn(agent, { input }, { onEvent: log.onEvent });
 * await log.flush();
 */
export function jsonlEventLog(dir: string, options: JsonlEventLogOptions = {}): JsonlEventLog {
  const onError =
    options.onError ?? ((error) => console.error('[turnkit] jsonlEventLog could not write an event:', error));
  const createdFolders = new Set<string>();
  let queue: QueuedLine[] = [];
  let draining: Promise<void> | null = null;
  let firstError: unknown = null;
  let closed = false;

  const fail = (error: unknown, event: AgentEvent) => {
    firstError ??= error;
    try {
      onError(error, event);
    } catch {
      // A throwing error handler must not turn into an unhandled rejection in the write queue.
    }
  };

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      // Consecutive lines for the same file become one append: deltas stream in fast.
      for (let start = 0; start < batch.length; ) {
        let end = start + 1;
        while (end < batch.length && batch[end]!.path === batch[start]!.path) end++;
        const group = batch.slice(start, end);
        const first = group[0]!;
        try {
          if (!createdFolders.has(first.folder)) {
            await mkdir(first.folder, { recursive: true });
            createdFolders.add(first.folder);
          }
          await appendFile(first.path, group.map((item) => item.line).join(''), 'utf8');
        } catch (error) {
          for (const item of group) fail(error, item.event);
        }
        start = end;
      }
    }
  }

  const startDraining = () => {
    draining = drain().finally(() => {
      draining = null;
      // An event queued between the loop's last check and here would otherwise wait for the next one.
      if (queue.length > 0) startDraining();
    });
  };

  const onEvent = (event: AgentEvent): void => {
    try {
      if (closed || (options.filter && !options.filter(event))) return;
      assertSafeRunId(event.runId, 'jsonlEventLog');
      const folder = join(dir, event.runId);
      const path = join(folder, `events-${utcDay(event.at)}.jsonl`);
      const written = options.redact?.length ? redactEvent(event, options.redact) : event;
      queue.push({ path, folder, line: `${JSON.stringify(written)}\n`, event });
      if (!draining) startDraining();
    } catch (error) {
      fail(error, event);
    }
  };

  const flush = async (): Promise<void> => {
    while (draining) await draining;
    const error = firstError;
    firstError = null;
    if (error !== null) throw error;
  };

  return {
    onEvent,
    flush,
    async close() {
      closed = true;
      await flush();
    },
  };
}

/**
 * Reads every event logged for `runId` under `dir`, oldest day first, in the order they were written.
 * Returns `[]` for a run with no log. A last line cut short by a crash (no final newline) is skipped;
 * any other unreadable line throws `SnapshotError` `SNAPSHOT_INVALID` naming the file and line.
 */
export async function readEvents(dir: string, runId: string): Promise<AgentEvent[]> {
  assertSafeRunId(runId, 'readEvents');
  const folder = join(dir, runId);
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const dayFiles = names.filter((name) => /^events-\d{8}\.jsonl$/.test(name)).sort();
  const events: AgentEvent[] = [];
  for (const name of dayFiles) {
    const path = join(folder, name);
    const lines = (await readFile(path, 'utf8')).split('\n');
    // Whatever follows the last newline is empty, or a line whose write was cut short.
    lines.pop();
    lines.forEach((line, index) => {
      if (line === '') return;
      try {
        events.push(JSON.parse(line) as AgentEvent);
      } catch (error) {
        throw new SnapshotError(
          'SNAPSHOT_INVALID',
          `${path}:${index + 1} is not a JSON event; repair or remove that line.`,
          {
            cause: error,
          },
        );
      }
    });
  }
  return events;
}

/** `YYYYMMDD` of the UTC day of an ISO time; today's when `at` is not a date, so the event is still kept. */
function utcDay(at: string): string {
  const ms = Date.parse(at);
  return new Date(Number.isNaN(ms) ? Date.now() : ms).toISOString().slice(0, 10).replaceAll('-', '');
}
