/**
 * `turnkit-demo record [runId] [file]` and `turnkit-demo replay <recording.json>` (DESIGN §28): a
 * bug report is a file. `record` saves the recording of a run (the newest one by default) — from its
 * event log when the demo kept one (sub-agents' conversations included), else from the store —
 * and `replay` plays a recording through today's demo agent, with no model, no tool and no person,
 * and prints where today's agent acts otherwise. With `--model`, today's model answers: an eval.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { readEvents } from '@turnkit/adapters';
import { formatDivergences, type Recording, readRecording, recordingOf, replay } from '@turnkit/core/testing';
import type { App } from '../app.js';
import { safeLine, safeText } from '../sanitize.js';
import { initialFreezer } from '../scenario/freezer.js';
import { EXIT_FAILED, EXIT_OK } from './drive.js';
import { newestRun } from './runs.js';

/** The run's recording: its event log when the demo kept every event of it, else the store's. */
async function recordingOfRun(app: App, runId: string): Promise<Recording> {
  const events = await readEvents(app.eventsDir, runId);
  const first = events[0];
  // A log that starts with the run's first turn holds all of it (runs made before the demo kept logs do not).
  if (first?.type === 'turn_started' && first.turn === 1) {
    return recordingOf(events, { agentVersion: app.agent.version });
  }
  return app.sessions.recording(runId);
}

export async function record(app: App, args: string[]): Promise<number> {
  const { ui, options } = app;
  const runId = args[0] ?? (await newestRun(options.dir));
  if (runId === undefined) {
    ui.print(ui.t('noRuns', { dir: options.dirLabel }));
    return EXIT_FAILED;
  }
  const recording = await recordingOfRun(app, runId);
  const file = resolve(process.env.INIT_CWD ?? process.cwd(), args[1] ?? `${runId}.recording.json`);
  await writeFile(file, `${JSON.stringify(recording, null, 2)}\n`);
  ui.print(
    ui.t('recordSaved', { runId: safeLine(runId), turns: recording.turns.length, file: safeLine(file) }),
  );
  return EXIT_OK;
}

export async function replayFile(app: App, args: string[]): Promise<number> {
  const { ui, options } = app;
  if (args[0] === undefined) {
    process.stderr.write(`${ui.t('replayUsage')}\n`);
    return EXIT_FAILED;
  }
  const file = resolve(process.env.INIT_CWD ?? process.cwd(), args[0]);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    process.stderr.write(
      `${ui.t('replayUnreadable', { file: safeLine(file), message: (error as Error).message })}\n`,
    );
    return EXIT_FAILED;
  }
  const recording = readRecording(json);
  // A recording holds no application context: every demo run starts from the same freezer.
  const { divergences } = await replay(app.agent, recording, {
    model: options.model ? 'live' : 'recorded',
    context: initialFreezer(),
  });
  if (divergences.length === 0) {
    ui.print(ui.t('replayOk', { runId: safeLine(recording.runId), turns: recording.turns.length }));
    return EXIT_OK;
  }
  ui.print(
    safeText(formatDivergences(`Replay of run ${recording.runId} (agent ${recording.agent})`, divergences)),
  );
  return EXIT_FAILED;
}
