/**
 * `turnkit-demo stop <runId> [reason…]`: the stop key for a run anywhere (DESIGN §20). Ctrl-C stops
 * the turn this process plays; `stop` stops a run from any other terminal: a turn playing elsewhere
 * ends `aborted` before its next model or tool call (a tool already running finishes), a run waiting
 * for an answer has its questions cancelled and rests `aborted`. `resume` continues it.
 */
import type { App } from '../app.js';
import { safeLine } from '../sanitize.js';
import { EXIT_FAILED, EXIT_OK } from './drive.js';

export async function stop(app: App, args: string[]): Promise<number> {
  const { ui } = app;
  const [runId, ...words] = args;
  if (runId === undefined) {
    process.stderr.write(`${ui.t('stopUsage')}\n`);
    return EXIT_FAILED;
  }
  const reason = words.join(' ').trim();
  const result = await app.sessions.stop(runId, reason === '' ? {} : { reason });
  const key =
    result.stop === 'requested'
      ? 'stopRequested'
      : result.stop === 'stopped'
        ? 'stopStopped'
        : 'stopNotRunning';
  ui.print(ui.t(key, { runId: safeLine(runId), status: result.status }));
  return EXIT_OK;
}
