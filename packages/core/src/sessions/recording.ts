/**
 * `sessions.recording(runId)` (DESIGN §28): the recording of a stored run, from the whole transcript
 * the store keeps (row layout 2 keeps it past a compaction) and the record of each resolved
 * interaction — who responded, how, and when.
 */
import { decodedOf, type Run } from '../interpreter/index.js';
import { type Recording, recordingOfRun } from '../testing/index.js';
import { readTranscript } from './rows.js';
import type { SnapshotStore } from './store.js';

/** The recording of a loaded run; a store that kept only a compacted run's window says so in `gaps`. */
export async function storedRecording(store: SnapshotStore, run: Run): Promise<Recording> {
  const decoded = decodedOf(run);
  const { messages, window } = decoded.state.context;
  const transcript = await readTranscript(store, run);
  const whole = !window || transcript.length >= window.from + messages.length - window.summary;
  return whole
    ? recordingOfRun(decoded, transcript, { window: false })
    : recordingOfRun(decoded, messages, { window: true });
}
