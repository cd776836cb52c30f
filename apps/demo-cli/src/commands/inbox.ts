/**
 * `turnkit-demo inbox`: the pending asks of every saved run (DESIGN §20, `sessions.inbox`, read from
 * the file store's index), oldest first, numbered with their run, kind, summary and when they were
 * asked; then a prompt to pick one, which is answered as `resume` would (the run goes on in this
 * process). With `--json`, the items as JSON lines and no prompt.
 */
import type { InboxItem, QuestionAnswer } from '@turnkit/core';
import type { App } from '../app.js';
import { isQuestionCancelled, isStopped, isTimedOut } from '../prompt.js';
import { safeLine } from '../sanitize.js';
import { truncate } from '../text.js';
import { EXIT_OK } from './drive.js';
import { resume } from './resume.js';

/** How many asks are listed (the first page of the inbox). */
const LIMIT = 50;

function localTime(iso: string): string {
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** What an ask is: its kind and summary. */
function describe(item: InboxItem): string {
  return `${item.kind}: ${truncate(safeLine(item.summary), 60)}`;
}

/** The options' labels: what each ask is, its number added where two would read the same. */
function labelsOf(items: InboxItem[]): string[] {
  const texts = items.map(describe);
  return texts.map((text, index) =>
    texts.indexOf(text) !== texts.lastIndexOf(text) ? `${text} (${index + 1})` : text,
  );
}

/** The label chosen, whatever shape the prompter answered in. */
function chosenLabel(answer: QuestionAnswer | undefined): string | undefined {
  if (typeof answer === 'string') return answer;
  if (Array.isArray(answer)) return answer[0];
  if (answer && 'selected' in answer) return answer.selected[0];
  return undefined;
}

export async function inbox(app: App): Promise<number> {
  const { ui, sessions, options, prompter } = app;
  const { t, color } = ui;
  const page = await sessions.inbox({ limit: LIMIT });
  if (options.json) {
    for (const item of page.items) process.stdout.write(`${JSON.stringify(item)}\n`);
    return EXIT_OK;
  }
  if (page.items.length === 0) {
    ui.print(t('inboxEmpty', { dir: options.dirLabel }));
    return EXIT_OK;
  }
  ui.print(color.bold(t('inboxTitle', { count: String(page.items.length) })));
  for (const [index, item] of page.items.entries()) {
    ui.print(
      `${index + 1}. ${describe(item)}  ${color.dim(
        t('inboxRow', {
          runId: safeLine(item.runId),
          asked: localTime(item.askedAt),
          expires: item.expiresAt ? localTime(item.expiresAt) : '—',
        }),
      )}`,
    );
  }
  if (page.cursor) ui.print(color.dim(t('inboxMore', { count: String(LIMIT) })));
  const labels = labelsOf(page.items);
  const answer = await prompter.questions([
    {
      id: 'ask',
      header: t('inboxHeader'),
      question: t('inboxPick'),
      multiSelect: false,
      options: page.items.map((item, index) => ({
        label: labels[index] as string,
        description: safeLine(item.runId),
      })),
    },
  ]);
  if (isStopped(answer) || isQuestionCancelled(answer) || isTimedOut(answer)) return EXIT_OK;
  const label = chosenLabel(answer[0]);
  const picked = label === undefined ? undefined : page.items[labels.indexOf(label)];
  if (!picked) {
    ui.print(color.red(t('inboxNone')));
    return EXIT_OK;
  }
  return resume(app, picked.runId);
}
