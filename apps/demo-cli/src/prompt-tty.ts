/**
 * Arrow-key prompts on a terminal, each one form (`form.ts`): one panel holds the choices and the
 * text rows (Other, a note, edited JSON, a rationale), so choosing and typing happen on the same
 * screen. A free-text question is one text row. Every question card ends with a Skip row (this
 * question is answered `{ skipped: true }`) and a Cancel row (the model is told
 * `question_cancelled`); Esc or Ctrl-D stops without answering, and the run stays waiting. A
 * question with a deadline counts down on its card and closes when it passes. Tools' forms are
 * asked by `prompt-input.ts`.
 */
import type { ApprovalPayload, Question, QuestionAnswer } from '@turnkit/core';
import { type FormOutcome, type FormRow, runForm } from './form.js';
import {
  type ApprovalDecision,
  isFreeText,
  isStopped,
  isTimedOut,
  type Prompter,
  type Stopped,
  type TimedOut,
} from './prompt.js';
import { ttyInput } from './prompt-input.js';
import {
  type FormView,
  type Position,
  questionRows,
  renderApprovalCard,
  renderQuestionCard,
} from './render.js';
import { safeLine } from './sanitize.js';
import type { Ui } from './ui.js';

/** The answer core accepts for the rows as submitted: chosen labels plus free text, or the typed text. */
function questionAnswer(question: Question, view: FormView): QuestionAnswer {
  const rows = questionRows(question);
  const typed = (row: number | undefined) => (row === undefined ? '' : (view.texts.get(row) ?? '').trim());
  if (isFreeText(question)) return typed(rows.text);
  const selected = question.options
    .filter((_, index) => view.chosen.has(index))
    .map((option) => option.label);
  const other = view.chosen.has(rows.text) ? typed(rows.text) : '';
  const note = typed(rows.note);
  return { selected, ...(other === '' ? {} : { other }), ...(note === '' ? {} : { note }) };
}

/** The answer in one line, for the summary left on screen. */
function describeAnswer(ui: Ui, answer: QuestionAnswer): string {
  if (typeof answer === 'string') return safeLine(`“${answer}”`);
  if (!('selected' in answer)) return ui.t('skipped');
  const parts = [...answer.selected, ...(answer.other ? [`“${answer.other}”`] : [])].join(', ');
  return safeLine(answer.note ? `${parts} (${answer.note})` : parts);
}

/** Why the rows cannot be sent as they are, or undefined. */
function problemOf(ui: Ui, question: Question, view: FormView): string | undefined {
  const answer = questionAnswer(question, view);
  if (typeof answer === 'string') return answer === '' ? ui.t('needText') : undefined;
  if (!('selected' in answer)) return undefined;
  const otherChosen = view.chosen.has(questionRows(question).text);
  if (!question.multiSelect && otherChosen && !answer.other) return ui.t('needOther');
  if (question.multiSelect && answer.selected.length === 0 && !answer.other) return ui.t('needChoice');
  return undefined;
}

function askQuestion(ui: Ui, question: Question, position: Position) {
  const { t, color } = ui;
  const header = color.bold(safeLine(question.header));
  const rows: FormRow[] = isFreeText(question)
    ? [{ kind: 'text' }]
    : [
        ...question.options.map((_, i): FormRow => ({ kind: 'choice', shortcut: String(i + 1) })),
        { kind: 'text', selectable: true, shortcut: '0' },
        { kind: 'text' },
      ];
  rows.push({ kind: 'action', action: 'skip' }, { kind: 'action', action: 'cancel' });
  const summary = (outcome: FormOutcome | TimedOut | null): string => {
    if (outcome === null) return `${color.yellow('…')} ${header} › ${color.dim(t('unanswered'))}`;
    if (isTimedOut(outcome)) return `${color.yellow('⧗')} ${header} › ${color.dim(t('timedOut'))}`;
    if ('view' in outcome) {
      const answer = describeAnswer(ui, questionAnswer(question, outcome.view));
      return `${color.green('✔')} ${header} › ${color.cyan(answer)}`;
    }
    return outcome.action === 'skip'
      ? `${color.yellow('↷')} ${header} › ${color.dim(t('skipped'))}`
      : `${color.red('✗')} ${header} › ${color.dim(t('cancelled'))}`;
  };
  return runForm(ui, {
    rows,
    multiSelect: question.multiSelect,
    chosen: question.multiSelect || isFreeText(question) ? [] : [0],
    render: (view) => renderQuestionCard(ui, question, position, view),
    check: (view) => problemOf(ui, question, view),
    summary,
    ...(position.deadline === undefined ? {} : { deadline: position.deadline }),
  });
}

function approvalForm(ui: Ui, approval: ApprovalPayload, agentPath: readonly string[] | undefined) {
  const { t, color } = ui;
  const decisionOf = (view: FormView): ApprovalDecision => {
    const rationale = (view.texts.get(3) ?? '').trim();
    const extra = rationale === '' ? {} : { rationale };
    if (view.chosen.has(1)) return { decision: 'reject', ...extra };
    const edited: unknown = view.chosen.has(2) ? JSON.parse(view.texts.get(2) ?? '') : undefined;
    // Choosing the edit row without changing anything is a plain approval.
    if (edited === undefined || JSON.stringify(edited) === JSON.stringify(approval.input)) {
      return { decision: 'approve', ...extra };
    }
    return { decision: 'approve', editedInput: edited, ...extra };
  };
  const tool = color.bold(safeLine(approval.toolName));
  const summary = (outcome: FormOutcome | TimedOut | null): string => {
    if (outcome === null || !('view' in outcome))
      return `${color.yellow('…')} ${tool} › ${color.dim(t('unanswered'))}`;
    const decision = decisionOf(outcome.view);
    const word =
      decision.decision === 'reject'
        ? t('rejected')
        : 'editedInput' in decision
          ? t('approvedEdited')
          : t('approved');
    const mark = decision.decision === 'reject' ? color.red('✗') : color.green('✔');
    return `${mark} ${tool} › ${word}${decision.rationale ? ` (${safeLine(decision.rationale)})` : ''}`;
  };
  const form = runForm(ui, {
    rows: [
      { kind: 'choice', shortcut: '1' },
      { kind: 'choice', shortcut: '2' },
      { kind: 'text', selectable: true, shortcut: '3', initial: JSON.stringify(approval.input) },
      { kind: 'text' },
    ],
    multiSelect: false,
    chosen: [0],
    render: (view) => renderApprovalCard(ui, approval, { view, ...(agentPath ? { agentPath } : {}) }),
    check(view) {
      if (!view.chosen.has(2)) return undefined;
      try {
        JSON.parse(view.texts.get(2) ?? '');
        return undefined;
      } catch (error) {
        return t('invalidJson', { error: (error as Error).message });
      }
    },
    summary,
  });
  return { form, decisionOf };
}

export function ttyPrompter(ui: Ui): Prompter {
  const { t, color } = ui;
  return {
    async questions(questions, asked = {}) {
      ui.print(color.bold(t('asking')));
      const answers: QuestionAnswer[] = [];
      for (const [index, question] of questions.entries()) {
        const result = await askQuestion(ui, question, { index, total: questions.length, ...asked });
        if (isStopped(result) || isTimedOut(result)) return result;
        if ('view' in result) answers.push(questionAnswer(question, result.view));
        else if (result.action === 'skip') answers.push({ skipped: true });
        else return { cancelledQuestion: true };
      }
      return answers;
    },

    async approval(approval, agentPath) {
      const { form, decisionOf } = approvalForm(ui, approval, agentPath);
      const result = await form;
      // The approval form has no action rows and no deadline: it ends with its rows, or stopped.
      return 'view' in result ? decisionOf(result.view) : (result as Stopped);
    },

    input: (form, asked) => ttyInput(ui, form, asked),

    async message() {
      const typed = (view: FormView | undefined) => safeLine(view?.texts.get(0) ?? '');
      const result = await runForm(ui, {
        rows: [{ kind: 'text' }],
        multiSelect: false,
        chosen: [],
        render: (view) =>
          `${color.bold(t('messagePrompt'))}${typed(view)}${color.inverse(' ')}\n${color.dim(t('messageHint'))}`,
        check: () => undefined,
        summary: (outcome) =>
          `${color.bold(t('messagePrompt'))}${typed(outcome && 'view' in outcome ? outcome.view : undefined)}`,
      });
      if (isStopped(result)) return result;
      return 'view' in result ? (result.view.texts.get(0) ?? '').trim() : '';
    },

    close() {},
  };
}
