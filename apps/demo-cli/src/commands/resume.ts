/**
 * `turnkit-demo resume <runId>`: loads a run saved by any earlier process and carries on: answers
 * what it waits for, retries a failed or interrupted turn, or takes the next message.
 */

import { ConflictError, type SessionResult, StateError } from '@turnkit/core';
import type { ThawPlanValue } from '@turnkit/demo-models';
import type { App } from '../app.js';
import { readPlan } from '../plan.js';
import { safeLine } from '../sanitize.js';
import { truncate } from '../text.js';
import { drive, EXIT_FAILED } from './drive.js';

/**
 * The questions answered since the person's last message, `header: answer` (from the results the
 * model read), so a run resumed at a later question or an approval shows what was already decided.
 */
function answeredSinceLastMessage(result: SessionResult<ThawPlanValue>): [header: string, answer: string][] {
  const start = result.messages.findLastIndex((message) => message.role === 'user') + 1;
  return result.messages.slice(start).flatMap((message) => {
    if (message.role !== 'tool' || !message.content.startsWith('{"answers":')) return [];
    try {
      const { answers } = JSON.parse(message.content) as { answers: Record<string, string> };
      return Object.entries(answers);
    } catch {
      return [];
    }
  });
}

/**
 * The last thing each side said, and what was answered since, so the person knows where the
 * conversation stands. The spend is not recapped: `drive` shows it (the budget line, or the line of
 * a budget exceeded) for the state it takes up.
 */
function recap(app: App, result: SessionResult<ThawPlanValue>): void {
  const { ui } = app;
  const lastText = (role: 'user' | 'assistant') =>
    [...result.messages]
      .reverse()
      .find(
        (message) => message.role === role && typeof message.content === 'string' && message.content !== '',
      )?.content as string | undefined;
  const user = lastText('user');
  const said = lastText('assistant');
  // A final answer is a thaw plan's JSON: its summary is what the agent said.
  const agent = readPlan(said)?.summary ?? said;
  if (user) ui.print(ui.color.dim(`${ui.t('you')} › ${truncate(safeLine(user), ui.width - 8)}`));
  for (const [header, answer] of answeredSinceLastMessage(result)) {
    const line = ui.t('answeredBefore', { header: safeLine(header), answer: safeLine(answer) });
    ui.print(`  ${ui.color.green('↳')} ${ui.color.dim(truncate(line, ui.width - 4))}`);
  }
  if (agent && result.status !== 'completed')
    ui.print(ui.color.dim(`${ui.t('agent')} › ${truncate(safeLine(agent), ui.width - 8)}`));
}

export async function resume(app: App, runId: string | undefined): Promise<number> {
  const { ui, sessions } = app;
  const { t, color } = ui;
  if (!runId) {
    ui.print(color.red(t('resumeUsage')));
    return EXIT_FAILED;
  }
  let result: SessionResult<ThawPlanValue>;
  try {
    result = await sessions.get(runId);
  } catch (error) {
    if (error instanceof StateError && error.code === 'RUN_NOT_FOUND') {
      ui.print(color.red(t('notFound', { runId, dir: app.options.dirLabel })));
      return EXIT_FAILED;
    }
    throw error;
  }
  ui.print(color.dim(app.modelBanner));
  ui.print(color.dim(t('resumed', { runId, status: result.status })));
  recap(app, result);
  if (['failed', 'aborted', 'max_steps', 'running'].includes(result.status)) {
    try {
      result = await app.turn((options) => sessions.retry(runId, options));
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      ui.print(color.yellow(t('busy', { runId })));
      return EXIT_FAILED;
    }
  }
  return drive(app, result);
}
