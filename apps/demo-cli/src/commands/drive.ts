/**
 * The conversation loop shared by `chat` and `resume`: render what the run waits for, send the
 * answers, show the next turn, until the person stops. Every state it stops in is already saved by
 * the sessions, so stopping is always safe; the exit code says how it stopped.
 */
import {
  AnswerError,
  type ApprovalPayload,
  type PendingInteraction,
  type QuestionPayload,
  type ResponseInput,
  type SessionResult,
} from '@turnkit/core';
import type { App } from '../app.js';
import { onInterrupt } from '../interrupt.js';
import { type Cancelled, isCancelled } from '../prompter.js';

/** Exit codes: 0 done or stopped at a prompt by end of input, 1 the run failed, 130 Ctrl-C. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_INTERRUPTED = 130;

type Stop = Cancelled & { kind: PendingInteraction['kind'] };

async function collect(app: App, pending: PendingInteraction[]): Promise<ResponseInput[] | Stop> {
  const responses: ResponseInput[] = [];
  for (const interaction of pending) {
    if (interaction.kind === 'question') {
      const answers = await app.prompter.questions((interaction.payload as QuestionPayload).questions);
      if (isCancelled(answers)) return { ...answers, kind: 'question' };
      responses.push({ id: interaction.id, type: 'answer', answers });
    } else {
      const decision = await app.prompter.approval(interaction.payload as ApprovalPayload);
      if (isCancelled(decision)) return { ...decision, kind: 'approval' };
      const rationale = decision.rationale === undefined ? {} : { rationale: decision.rationale };
      if (decision.decision === 'reject') {
        responses.push({ id: interaction.id, type: 'reject', ...rationale });
      } else {
        const edited = decision.editedInput === undefined ? {} : { editedInput: decision.editedInput };
        responses.push({ id: interaction.id, type: 'approve', ...edited, ...rationale });
      }
    }
  }
  return responses;
}

/** The person stopped answering; the run stays exactly as saved. */
function stopped(app: App, runId: string, how: Stop): number {
  const { ui } = app;
  ui.print();
  const key =
    how.cancelled === 'interrupt'
      ? 'interrupted'
      : how.kind === 'question'
        ? 'questionCancelled'
        : 'approvalCancelled';
  ui.print(ui.color.yellow(ui.t(key, { runId })));
  ui.print(ui.t('resumeHint', { runId }));
  return how.cancelled === 'interrupt' ? EXIT_INTERRUPTED : EXIT_OK;
}

function printOutput(app: App, result: SessionResult): void {
  if (app.takeStreamed() || !result.output) return;
  const { ui } = app;
  ui.print(`${ui.color.bold(ui.color.magenta(ui.t('agent')))} › ${result.output}`);
}

export async function drive(app: App, initial: SessionResult): Promise<number> {
  let runId = initial.runId;
  const dispose = onInterrupt(() =>
    process.exit(stopped(app, runId, { cancelled: 'interrupt', kind: 'question' })),
  );
  try {
    return await loop(app, initial, (id) => {
      runId = id;
    });
  } finally {
    dispose();
  }
}

async function loop(app: App, initial: SessionResult, track: (runId: string) => void): Promise<number> {
  const { ui, sessions, prompter } = app;
  const { t, color } = ui;
  let result = initial;
  for (;;) {
    app.calls.learn(result.messages);
    const { runId } = result;
    track(runId);
    switch (result.status) {
      case 'needs_input': {
        const responses = await collect(app, result.pending);
        if (!Array.isArray(responses)) return stopped(app, runId, responses);
        try {
          result = await app.turn((options) => sessions.respond(runId, responses, options));
        } catch (error) {
          if (!(error instanceof AnswerError)) throw error;
          ui.print(color.red(t('answerRejected')));
          for (const issue of error.issues) {
            ui.print(color.red(`  - ${issue.path.join('.')}: ${issue.message}`));
          }
        }
        break;
      }
      case 'completed': {
        printOutput(app, result);
        const message = await prompter.message();
        if (isCancelled(message) || message === '') {
          ui.print(color.dim(t('finished', { runId })));
          return isCancelled(message) && message.cancelled === 'interrupt' ? EXIT_INTERRUPTED : EXIT_OK;
        }
        result = await app.turn((options) => sessions.send(runId, message, options));
        break;
      }
      case 'aborted':
        ui.print(color.yellow(t('aborted', { runId })));
        ui.print(t('resumeHint', { runId }));
        return EXIT_INTERRUPTED;
      case 'failed':
      case 'max_steps': {
        const reason =
          result.status === 'failed'
            ? t('failed', { code: result.error?.code ?? 'ERROR', message: result.error?.message ?? '' })
            : t('maxSteps', { maxSteps: app.agent.maxSteps });
        ui.print(color.red(reason));
        ui.print(t('retryHint', { runId }));
        return EXIT_FAILED;
      }
      case 'running':
        ui.print(color.yellow(t('busy', { runId })));
        return EXIT_FAILED;
    }
  }
}
