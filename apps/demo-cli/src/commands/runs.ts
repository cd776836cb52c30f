/**
 * `turnkit-demo runs`: every run saved in the folder, newest first, with its status and what it
 * waits for. Run ids come from the file names `fileStore` writes (`<runId>.json`); everything else
 * is read through the sessions, as `resume` would.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApprovalPayload, QuestionPayload, SessionResult } from '@turnkit/core';
import type { App } from '../app.js';
import type { Translate } from '../i18n.js';
import { padEnd, truncate } from '../text.js';
import { EXIT_OK } from './drive.js';

interface RunRow {
  runId: string;
  status: string;
  updatedAt: Date;
  waitingFor: string;
}

async function runIds(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir))
      .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
      .map((name) => name.slice(0, -5));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

function waitingFor(result: SessionResult, t: Translate): string {
  return result.pending
    .map((interaction) =>
      interaction.kind === 'question'
        ? (interaction.payload as QuestionPayload).questions.map((question) => question.header).join(', ')
        : t('approvalOf', { tool: (interaction.payload as ApprovalPayload).toolName }),
    )
    .join('; ');
}

function localTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export async function runs(app: App): Promise<number> {
  const { ui, sessions, options } = app;
  const { t, color } = ui;
  const rows: RunRow[] = [];
  for (const runId of await runIds(options.dir)) {
    const updatedAt = (await stat(join(options.dir, `${runId}.json`))).mtime;
    try {
      const result = await sessions.get(runId);
      rows.push({ runId, status: result.status, updatedAt, waitingFor: waitingFor(result, t) });
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
  const idWidth = Math.max(...rows.map((row) => row.runId.length), t('colRun').length);
  const statusWidth = Math.max(12, t('colStatus').length);
  const cells = (run: string, status: string, updated: string, waiting: string) =>
    `${padEnd(run, idWidth)}  ${padEnd(status, statusWidth)}  ${padEnd(updated, 16)}  ${waiting}`;
  ui.print(color.bold(cells(t('colRun'), t('colStatus'), t('colUpdated'), t('colWaiting'))));
  for (const row of rows) {
    const status =
      row.status === 'needs_input'
        ? color.yellow(row.status)
        : row.status === 'completed'
          ? color.green(row.status)
          : row.status;
    ui.print(cells(row.runId, status, localTime(row.updatedAt), truncate(row.waitingFor, 60)));
  }
  return EXIT_OK;
}
