/**
 * `turnkit-demo runs`: every run saved in the folder, newest first, with its status and what it
 * waits for. Run ids come from the names `fileStore` writes (a `<runId>/` folder per run, or a
 * `<runId>.json` file from an earlier release); everything else is read through the sessions, as
 * `resume` would.
 */
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApprovalPayload, PendingInteraction, QuestionPayload, SessionResult } from '@turnkit/core';
import type { App } from '../app.js';
import type { Translate } from '../i18n.js';
import { safeLine } from '../sanitize.js';
import { displayWidth, padEnd, truncate } from '../text.js';
import { EXIT_OK } from './drive.js';

interface RunRow {
  runId: string;
  status: string;
  updatedAt: Date;
  waitingFor: string;
}

/** Saved runs and where each lives (its folder, or a file of an earlier release). */
async function savedRuns(dir: string): Promise<{ runId: string; path: string }[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const runs = new Map<string, string>();
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) runs.set(entry.name, join(dir, entry.name));
    else if (entry.name.endsWith('.json') && !runs.has(entry.name.slice(0, -5))) {
      runs.set(entry.name.slice(0, -5), join(dir, entry.name));
    }
  }
  return [...runs].map(([runId, path]) => ({ runId, path }));
}

/** The run saved last (its folder or file changed last), or undefined when there is none. */
export async function newestRun(dir: string): Promise<string | undefined> {
  let newest: { runId: string; at: number } | undefined;
  for (const { runId, path } of await savedRuns(dir)) {
    const at = (await stat(path)).mtimeMs;
    if (!newest || at > newest.at) newest = { runId, at };
  }
  return newest?.runId;
}

/** Whether an interaction's time to answer has passed: it waits for nobody, the next resume expires it. */
function hasExpired(interaction: PendingInteraction, now: number): boolean {
  return interaction.expiresAt !== null && Date.parse(interaction.expiresAt) <= now;
}

function waitingFor(result: SessionResult<unknown>, t: Translate, now: number): string {
  return result.pending
    .map((interaction) => {
      const what =
        interaction.kind === 'question'
          ? (interaction.payload as QuestionPayload).questions.map((question) => question.header).join(', ')
          : interaction.kind === 'input'
            ? t('formOf', { tool: interaction.toolName })
            : t('approvalOf', { tool: (interaction.payload as ApprovalPayload).toolName });
      return hasExpired(interaction, now) ? t('expiredTag', { what }) : what;
    })
    .join('; ');
}

/** A waiting run whose every interaction has expired is listed as `expired`, not as waiting. */
function statusOf(result: SessionResult<unknown>, now: number): string {
  const expired =
    result.status === 'needs_input' &&
    result.pending.length > 0 &&
    result.pending.every((interaction) => hasExpired(interaction, now));
  return expired ? 'expired' : result.status;
}

function localTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export async function runs(app: App): Promise<number> {
  const { ui, sessions, options } = app;
  const { t, color } = ui;
  const rows: RunRow[] = [];
  for (const { runId, path } of await savedRuns(options.dir)) {
    const updatedAt = (await stat(path)).mtime;
    try {
      const result = await sessions.get(runId);
      const now = Date.now();
      rows.push({ runId, status: statusOf(result, now), updatedAt, waitingFor: waitingFor(result, t, now) });
    } catch (error) {
      rows.push({
        runId,
        status: 'unreadable',
        updatedAt,
        waitingFor: t('unreadable', { message: (error as Error).message }),
      });
    }
  }
  rows.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime());
  if (options.json) {
    for (const row of rows)
      process.stdout.write(`${JSON.stringify({ ...row, updatedAt: row.updatedAt.toISOString() })}\n`);
    return EXIT_OK;
  }
  if (rows.length === 0) {
    ui.print(t('noRuns', { dir: options.dirLabel }));
    return EXIT_OK;
  }
  // Run ids are folder names and questions are model text: both are drawn made safe.
  const idWidth = Math.max(
    ...rows.map((row) => displayWidth(safeLine(row.runId))),
    displayWidth(t('colRun')),
  );
  const statusWidth = Math.max(12, t('colStatus').length);
  const cells = (run: string, status: string, updated: string, waiting: string) =>
    `${padEnd(run, idWidth)}  ${padEnd(status, statusWidth)}  ${padEnd(updated, 16)}  ${waiting}`;
  ui.print(color.bold(cells(t('colRun'), t('colStatus'), t('colUpdated'), t('colWaiting'))));
  for (const row of rows) {
    const status =
      row.status === 'needs_input'
        ? color.yellow(row.status)
        : row.status === 'expired'
          ? color.red(row.status)
          : row.status === 'completed'
            ? color.green(row.status)
            : row.status;
    ui.print(
      cells(safeLine(row.runId), status, localTime(row.updatedAt), truncate(safeLine(row.waitingFor), 60)),
    );
  }
  return EXIT_OK;
}
