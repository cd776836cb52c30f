/**
 * The conversation loop shared by `chat` and `resume`: render what the run waits for, send the
 * answers, show the next turn, until the person stops. Every state it stops in is already saved by
 * the sessions, so stopping is always safe; the exit code says how it stopped. An interaction whose
 * deadline passes (while its card is open, or before it is shown) is resolved with
 * `sessions.expire`: the model is told it timed out, and the run goes on.
 */
import {
  AnswerError,
  type ApprovalPayload,
  type BudgetLimits,
  type BudgetPayload,
  type InputPayload,
  type PendingInteraction,
  type QuestionPayload,
  type ResponseInput,
  type ReviewPayload,
  type SessionResult,
} from '@turnkit/core';
import type { ThawPlanValue } from '@turnkit/demo-models';
import type { App } from '../app.js';
import { budgetApproval, spendText } from '../budget.js';
import { onInterrupt } from '../interrupt.js';
import { planLines, readPlan } from '../plan.js';
import {
  type AskContext,
  isQuestionCancelled,
  isStopped,
  isTimedOut,
  type Stopped,
  type TimedOut,
} from '../prompt.js';
import { reviewApproval, reviewResponse } from '../review.js';
import { safeLine, safeText } from '../sanitize.js';

/** Exit codes: 0 done or stopped at a prompt by end of input, 1 the run failed, 130 Ctrl-C. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_INTERRUPTED = 130;

type Stop = Stopped & { kind: PendingInteraction['kind'] };

/** What the model is told when the person cancels a question (`/cancel`, the Cancel row). */
const CANCEL_REASON = 'The user cancelled the question.';
/** What the model is told when the person cancels a tool's form. */
const CANCEL_FORM_REASON = 'The user cancelled the form.';

/** Who asked, and until when (the card counts down to it). */
function askContext(interaction: PendingInteraction): AskContext {
  const { expiresAt, agentPath } = interaction;
  return { agentPath, ...(expiresAt === null ? {} : { deadline: Date.parse(expiresAt) }) };
}

/** Whether an interaction's deadline has passed (it is resolved, not shown). */
function hasExpired(pending: PendingInteraction[], now = Date.now()): boolean {
  return pending.some(
    (interaction) => interaction.expiresAt !== null && Date.parse(interaction.expiresAt) <= now,
  );
}

async function collect(app: App, pending: PendingInteraction[]): Promise<ResponseInput[] | Stop | TimedOut> {
  const responses: ResponseInput[] = [];
  for (const interaction of pending) {
    const { id } = interaction;
    const asked = askContext(interaction);
    if (interaction.kind === 'question') {
      const { questions } = interaction.payload as QuestionPayload;
      const answers = await app.prompter.questions(questions, asked);
      if (isStopped(answers)) return { ...answers, kind: 'question' };
      if (isTimedOut(answers)) return answers;
      // The same response as sessions.cancel(runId, { id, reason }), sent with the others.
      if (isQuestionCancelled(answers)) responses.push({ id, type: 'cancel', reason: CANCEL_REASON });
      else responses.push({ id, type: 'answer', answers });
    } else if (interaction.kind === 'input') {
      const form = interaction.payload as InputPayload;
      const filled = await app.prompter.input(form, { ...asked, toolName: interaction.toolName });
      if (isStopped(filled)) return { ...filled, kind: 'input' };
      if (isTimedOut(filled)) return filled;
      // The same response as sessions.provideInput(runId, { id, value }), sent with the others.
      if (isQuestionCancelled(filled)) responses.push({ id, type: 'cancel', reason: CANCEL_FORM_REASON });
      else responses.push({ id, type: 'input', value: filled.value });
    } else if (interaction.kind === 'budget') {
      // The run spent its budget: asked as an approval whose (editable) input is the extension.
      const decision = await app.prompter.approval(
        budgetApproval(app.ui, interaction.payload as BudgetPayload),
        interaction.agentPath,
      );
      if (isStopped(decision)) return { ...decision, kind: 'approval' };
      const rationale = decision.rationale === undefined ? {} : { rationale: decision.rationale };
      if (decision.decision === 'reject') responses.push({ id, type: 'reject', ...rationale });
      else {
        const extend = (decision.editedInput ??
          budgetApproval(app.ui, interaction.payload as BudgetPayload).input) as BudgetLimits;
        responses.push({ id, type: 'approve', extend, ...rationale });
      }
    } else if (interaction.kind === 'review') {
      // A hook's review (DESIGN §26): the approval card, with what is under review as its input.
      const payload = interaction.payload as ReviewPayload;
      const decision = await app.prompter.approval(reviewApproval(app.ui, payload), interaction.agentPath);
      if (isStopped(decision)) return { ...decision, kind: 'review' };
      responses.push(reviewResponse(id, decision));
    } else {
      const decision = await app.prompter.approval(
        interaction.payload as ApprovalPayload,
        interaction.agentPath,
      );
      if (isStopped(decision)) return { ...decision, kind: 'approval' };
      const rationale = decision.rationale === undefined ? {} : { rationale: decision.rationale };
      if (decision.decision === 'reject') {
        responses.push({ id, type: 'reject', ...rationale });
      } else {
        const edited = decision.editedInput === undefined ? {} : { editedInput: decision.editedInput };
        responses.push({ id, type: 'approve', ...edited, ...rationale });
      }
    }
  }
  return responses;
}

/** The person stopped answering; the run stays exactly as saved. */
function stopped(app: App, runId: string, how: Stop): number {
  const { ui } = app;
  ui.print();
  const left = {
    question: 'questionLeft',
    approval: 'approvalCancelled',
    input: 'formLeft',
    // A call in doubt (DESIGN §21) is decided like an approval.
    in_doubt: 'approvalCancelled',
    budget: 'approvalCancelled',
    review: 'approvalCancelled',
  } as const;
  const key = how.stopped === 'interrupt' ? 'interrupted' : left[how.kind];
  ui.print(ui.color.yellow(ui.t(key, { runId })));
  ui.print(ui.t('resumeHint', { runId }));
  return how.stopped === 'interrupt' ? EXIT_INTERRUPTED : EXIT_OK;
}

function printOutput(app: App, result: SessionResult<ThawPlanValue>): void {
  if (app.takeStreamed() || !result.output) return;
  const { ui } = app;
  const output: unknown = result.output;
  const plan = readPlan(output);
  if (plan) {
    for (const line of planLines(ui, ui.t('agent'), plan)) ui.print(line);
    return;
  }
  const text = typeof output === 'string' ? output : JSON.stringify(output);
  ui.print(`${ui.color.bold(ui.color.magenta(ui.t('agent')))} › ${safeText(text)}`);
}

export async function drive(app: App, initial: SessionResult<ThawPlanValue>): Promise<number> {
  let runId = initial.runId;
  const dispose = onInterrupt(() =>
    process.exit(stopped(app, runId, { stopped: 'interrupt', kind: 'question' })),
  );
  try {
    return await loop(app, initial, (id) => {
      runId = id;
    });
  } finally {
    dispose();
  }
}

async function loop(
  app: App,
  initial: SessionResult<ThawPlanValue>,
  track: (runId: string) => void,
): Promise<number> {
  const { ui, sessions, prompter } = app;
  const { t, color } = ui;
  let result = initial;
  for (;;) {
    app.calls.learn(result.messages);
    const { runId } = result;
    track(runId);
    // The status line of a run with a budget: what it has spent against its limits.
    const spend = spendText(ui, result.spend, result.budget);
    if (spend && result.status !== 'budget_exceeded') ui.print(color.dim(t('budgetLine', { spend })));
    switch (result.status) {
      case 'needs_input': {
        const expired: TimedOut = { timedOut: true };
        const responses = hasExpired(result.pending) ? expired : await collect(app, result.pending);
        if (isTimedOut(responses)) {
          // Core resolves what has expired (the printer shows it) and the run goes on.
          result = await app.turn((options) => sessions.expire(runId, options));
          break;
        }
        if (!Array.isArray(responses)) return stopped(app, runId, responses);
        try {
          result = await app.turn((options) => sessions.respond(runId, responses, options));
        } catch (error) {
          if (!(error instanceof AnswerError)) throw error;
          ui.print(color.red(t('answerRejected')));
          for (const issue of error.issues) {
            ui.print(color.red(`  - ${safeLine(`${issue.path.join('.')}: ${issue.message}`)}`));
          }
        }
        break;
      }
      case 'budget_exceeded':
      case 'completed': {
        if (result.status === 'completed') printOutput(app, result);
        else {
          const spend = spendText(ui, result.spend, result.budget);
          ui.print(color.yellow(t('budgetExceeded', { runId, spend })));
        }
        const message = await prompter.message();
        if (isStopped(message) || message === '') {
          ui.print(color.dim(t('finished', { runId })));
          return isStopped(message) && message.stopped === 'interrupt' ? EXIT_INTERRUPTED : EXIT_OK;
        }
        result = await app.turn((options) => sessions.send(runId, message, options));
        break;
      }
      case 'aborted':
        ui.print(color.yellow(t('aborted', { runId })));
        ui.print(t('resumeHint', { runId }));
        return EXIT_INTERRUPTED;
      case 'failed':
      case 'blocked':
      case 'max_steps': {
        const reason =
          result.status !== 'max_steps'
            ? t(result.status === 'blocked' ? 'blocked' : 'failed', {
                code: result.error?.code ?? 'ERROR',
                message: safeText(result.error?.message ?? ''),
              })
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
