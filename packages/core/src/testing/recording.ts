/**
 * `Recording` (DESIGN §28): a run as plain, versioned JSON — each turn's input, each model response,
 * each tool's result and each human response with who gave it — built from an event log
 * (`recordingOf(events)`) or a snapshot, and played back through today's agent by `replay`.
 */
import { TurnkitError } from '../errors.js';
import { parseSnapshot } from '../snapshot/index.js';
import type { AgentEvent } from '../types.js';
import { recordingOfEvents } from './recording-events.js';
import type { Recording } from './recording-format.js';
import { recordingOfRun } from './recording-run.js';

/** What {@link recordingOf} reads: a run's events (as `readEvents` returns them, or JSONL text), or a snapshot. */
export type RecordingSource = AgentEvent[] | string;

/** Options of {@link recordingOf}. */
export interface RecordingOfOptions {
  /** The agent's snapshot secret, to read a signed or encrypted snapshot. */
  secret?: string;
  /** An event log holding several runs: the one to record (default: the first event's). */
  runId?: string;
  /** An event log: the agent `version` that played the run (events do not carry it). */
  agentVersion?: string;
}

function isSnapshotText(text: string): boolean {
  return /^\s*\{\s*"format"\s*:\s*"turnkit\.snapshot"/.test(text);
}

function eventsOfJsonl(text: string): AgentEvent[] {
  const events: AgentEvent[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    try {
      events.push(JSON.parse(line) as AgentEvent);
    } catch {
      throw new TurnkitError(
        'RECORDING_INVALID',
        `recordingOf: line ${index + 1} of the event log is not JSON. Pass the JSONL text of a run's events, an array of events, or a snapshot.`,
      );
    }
  }
  return events;
}

/**
 * Builds the {@link Recording} of a run from its event log (§9: an array of events, or the JSONL
 * text `jsonlEventLog` writes) or from a snapshot string. The event log is the complete source;
 * a snapshot holds the transcript and the resolved interactions, so it records no finished
 * sub-agent's conversation and, for a compacted run, only the window (both listed in `gaps`).
 * Values a log redacted stay `"[redacted]"`: replay reports `missing` where it needs them.
 *
 * @example
 * const recording = recordingOf(await readEvents('./.turnkit/events', runId));
 * await writeFile('test/recordings/thaw.json', JSON.stringify(recording, null, 2));
 */
export function recordingOf(source: RecordingSource, options: RecordingOfOptions = {}): Recording {
  if (Array.isArray(source)) return recordingOfEvents(source, options);
  if (typeof source !== 'string') {
    throw new TurnkitError(
      'RECORDING_INVALID',
      'recordingOf takes an array of events, the JSONL text of an event log, or a snapshot string.',
    );
  }
  if (isSnapshotText(source)) {
    const decoded = parseSnapshot(source, options.secret ? { secret: options.secret } : {});
    return recordingOfRun(decoded, decoded.state.context.messages, { window: true });
  }
  return recordingOfEvents(eventsOfJsonl(source), options);
}
