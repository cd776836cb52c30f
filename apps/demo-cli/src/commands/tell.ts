/**
 * `turnkit-demo tell <runId> <message…>`: late input from any terminal (DESIGN §30). The message is
 * queued on the saved run (`sessions.send` with `mode: 'queue'`): while another process plays a turn
 * (a slow count_vials, say) that process adds it before its next model call, once, and shows it; a
 * run waiting for an answer keeps it until it is answered; a run at rest plays it now, here.
 */
import type { App } from '../app.js';
import { safeLine } from '../sanitize.js';
import { EXIT_FAILED, EXIT_OK } from './drive.js';

export async function tell(app: App, args: string[]): Promise<number> {
  const { ui } = app;
  const [runId, ...words] = args;
  const message = words.join(' ').trim();
  if (runId === undefined || message === '') {
    process.stderr.write(`${ui.t('tellUsage')}\n`);
    return EXIT_FAILED;
  }
  const result = await app.sessions.send(runId, message, { mode: 'queue' });
  const key = !result.queued ? 'tellPlayed' : result.status === 'running' ? 'tellQueued' : 'tellWaiting';
  ui.print(ui.t(key, { runId: safeLine(runId), status: result.status }));
  return EXIT_OK;
}
