/**
 * Arrow-key prompts on a terminal, built on `@inquirer/core`: one panel holds the choices and the
 * text rows (Other, a note, edited JSON, a rationale), so choosing and typing happen on the same
 * screen. ↑/↓ move, space toggles (multi-select), digits jump, enter confirms, Esc or Ctrl-D quit.
 */
import {
  createPrompt,
  isDownKey,
  isEnterKey,
  isNumberKey,
  isSpaceKey,
  isUpKey,
  useEffect,
  useKeypress,
  useState,
} from '@inquirer/core';
import type { ApprovalPayload, Question, QuestionAnswer } from '@turnkit/core';
import type { ApprovalDecision, Cancelled, Prompter } from './prompter.js';
import { type FormView, renderApprovalCard, renderQuestionCard } from './render.js';
import type { Ui } from './ui.js';

interface FormRow {
  kind: 'choice' | 'text';
  /** A text row that is itself a choice (Other, Edit input): under the cursor of a single-select form, it is the one chosen. */
  selectable?: boolean;
  /** The digit that jumps to the row. */
  shortcut?: string;
  initial?: string;
}

interface FormConfig {
  rows: FormRow[];
  multiSelect: boolean;
  chosen: number[];
  render(view: FormView): string;
  /** Why the form cannot be submitted as it is, or undefined. */
  check(view: FormView): string | undefined;
  /** What stays on screen once the form is answered (or, for `null`, left without an answer). */
  summary(view: FormView | null): string;
}

type FormResult = { view: FormView } | Cancelled;

const HIDE_CURSOR = '\u001b[?25l';

/**
 * What enter submits. Single-select: the row under the cursor when it is a choice, else the one
 * chosen before (the cursor is on a note or rationale row). Multi-select: the toggled rows, or the
 * row under the cursor when nothing is toggled or typed yet.
 */
function chosenOnEnter(config: FormConfig, cursor: number, chosen: ReadonlySet<number>): ReadonlySet<number> {
  const row = config.rows[cursor]!;
  const isChoice = row.kind === 'choice' || row.selectable === true;
  if (!config.multiSelect) return isChoice ? new Set([cursor]) : chosen;
  return chosen.size === 0 && row.kind === 'choice' ? new Set([cursor]) : chosen;
}

const form = createPrompt<FormResult, FormConfig>((config, done) => {
  const { rows, multiSelect } = config;
  const [cursor, setCursor] = useState(0);
  const [chosen, setChosen] = useState<ReadonlySet<number>>(new Set(config.chosen));
  const [texts, setTexts] = useState<ReadonlyMap<number, string>>(
    new Map(rows.flatMap((row, index) => (row.initial === undefined ? [] : [[index, row.initial] as const]))),
  );
  const [error, setError] = useState<string | undefined>(undefined);
  const [answered, setAnswered] = useState<FormView | null | undefined>(undefined);

  // Ctrl-D on an empty line makes readline close before any key handler runs: that is end of input too.
  useEffect((rl) => {
    const onClose = () => done({ cancelled: 'eof' });
    rl.on('close', onClose);
    return () => {
      rl.removeListener('close', onClose);
    };
  }, []);

  useKeypress((key, rl) => {
    const row = rows[cursor]!;
    if (key.name === 'escape' || (key.ctrl && key.name === 'd')) {
      setAnswered(null);
      done({ cancelled: 'eof' });
      return;
    }
    if (isEnterKey(key)) {
      const view = { cursor, chosen: chosenOnEnter(config, cursor, chosen), texts };
      setChosen(view.chosen);
      const problem = config.check(view);
      if (problem === undefined) {
        setAnswered(view);
        done({ view });
        return;
      }
      setError(problem);
      // readline empties its line on enter; put the row's text back so it can be corrected.
      if (row.kind === 'text') rl.write(texts.get(cursor) ?? '');
      return;
    }
    // Moving never changes the choice: space, a digit, enter or typing an Other answer does.
    const move = (next: number, select: boolean) => {
      rl.clearLine(0);
      if (rows[next]!.kind === 'text') rl.write(texts.get(next) ?? '');
      if (select && !multiSelect) setChosen(new Set([next]));
      setCursor(next);
      setError(undefined);
    };
    if (isUpKey(key) || isDownKey(key) || key.name === 'tab') {
      const backwards = isUpKey(key) || (key.name === 'tab' && (key as { shift?: boolean }).shift === true);
      move((cursor + (backwards ? -1 : 1) + rows.length) % rows.length, false);
      return;
    }
    if (row.kind === 'text') {
      const value = rl.line;
      setTexts(new Map(texts).set(cursor, value));
      if (row.selectable && multiSelect) {
        const next = new Set(chosen);
        if (value.trim() === '') next.delete(cursor);
        else next.add(cursor);
        setChosen(next);
      } else if (row.selectable && value.trim() !== '') {
        setChosen(new Set([cursor]));
      }
      setError(undefined);
      return;
    }
    // Typing on a choice row edits nothing: drop what readline collected.
    rl.clearLine(0);
    if (isSpaceKey(key)) {
      const next = new Set(multiSelect ? chosen : []);
      if (multiSelect && next.has(cursor)) next.delete(cursor);
      else next.add(cursor);
      setChosen(next);
      setError(undefined);
    } else if (isNumberKey(key)) {
      const target = rows.findIndex((candidate) => candidate.shortcut === key.name);
      if (target !== -1) move(target, true);
    }
  });

  if (answered !== undefined) return config.summary(answered);
  return `${config.render({ cursor, chosen, texts, ...(error === undefined ? {} : { error }) })}${HIDE_CURSOR}`;
});

/** Runs a form; Ctrl-C (which inquirer reports as an error) becomes a cancellation like Esc. */
async function runForm(ui: Ui, config: FormConfig): Promise<FormResult> {
  try {
    return await form(config, { input: ui.input, output: ui.out });
  } catch (error) {
    if (error instanceof Error && error.name === 'ExitPromptError') return { cancelled: 'interrupt' };
    throw error;
  }
}

/** The answer form core accepts: chosen labels plus free text. */
type ChoiceAnswer = { selected: string[]; other?: string; note?: string };

function questionAnswer(question: Question, view: FormView): ChoiceAnswer {
  const otherRow = question.options.length;
  const selected = question.options
    .filter((_, index) => view.chosen.has(index))
    .map((option) => option.label);
  const other = view.chosen.has(otherRow) ? (view.texts.get(otherRow) ?? '').trim() : '';
  const note = (view.texts.get(otherRow + 1) ?? '').trim();
  return { selected, ...(other === '' ? {} : { other }), ...(note === '' ? {} : { note }) };
}

function describeAnswer(answer: ChoiceAnswer): string {
  const parts = [...answer.selected, ...(answer.other ? [`“${answer.other}”`] : [])].join(', ');
  return answer.note ? `${parts} (${answer.note})` : parts;
}

function askQuestion(ui: Ui, question: Question, index: number, total: number) {
  const { t, color } = ui;
  const otherRow = question.options.length;
  const rows: FormRow[] = [
    ...question.options.map((_, i): FormRow => ({ kind: 'choice', shortcut: String(i + 1) })),
    { kind: 'text', selectable: true, shortcut: '0' },
    { kind: 'text' },
  ];
  return runForm(ui, {
    rows,
    multiSelect: question.multiSelect,
    chosen: question.multiSelect ? [] : [0],
    render: (view) => renderQuestionCard(ui, question, { index, total }, view),
    check(view) {
      const answer = questionAnswer(question, view);
      if (!question.multiSelect && view.chosen.has(otherRow) && !answer.other) return t('needOther');
      if (question.multiSelect && answer.selected.length === 0 && !answer.other) return t('needChoice');
      return undefined;
    },
    summary: (view) =>
      view === null
        ? `${color.yellow('…')} ${color.bold(question.header)} › ${color.dim(t('unanswered'))}`
        : `${color.green('✔')} ${color.bold(question.header)} › ${color.cyan(describeAnswer(questionAnswer(question, view)))}`,
  });
}

export function ttyPrompter(ui: Ui): Prompter {
  const { t, color } = ui;
  return {
    async questions(questions) {
      ui.print(color.bold(t('asking')));
      const answers: QuestionAnswer[] = [];
      for (const [index, question] of questions.entries()) {
        const result = await askQuestion(ui, question, index, questions.length);
        if ('cancelled' in result) return result;
        answers.push(questionAnswer(question, result.view));
      }
      return answers;
    },

    async approval(approval: ApprovalPayload): Promise<ApprovalDecision | Cancelled> {
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
      const result = await runForm(ui, {
        rows: [
          { kind: 'choice', shortcut: '1' },
          { kind: 'choice', shortcut: '2' },
          { kind: 'text', selectable: true, shortcut: '3', initial: JSON.stringify(approval.input) },
          { kind: 'text' },
        ],
        multiSelect: false,
        chosen: [0],
        render: (view) => renderApprovalCard(ui, approval, view),
        check(view) {
          if (!view.chosen.has(2)) return undefined;
          try {
            JSON.parse(view.texts.get(2) ?? '');
            return undefined;
          } catch (error) {
            return t('invalidJson', { error: (error as Error).message });
          }
        },
        summary(view) {
          if (view === null)
            return `${color.yellow('…')} ${color.bold(approval.toolName)} › ${color.dim(t('unanswered'))}`;
          const decision = decisionOf(view);
          const word =
            decision.decision === 'reject'
              ? t('rejected')
              : 'editedInput' in decision
                ? t('approvedEdited')
                : t('approved');
          const mark = decision.decision === 'reject' ? color.red('✗') : color.green('✔');
          return `${mark} ${color.bold(approval.toolName)} › ${word}${decision.rationale ? ` (${decision.rationale})` : ''}`;
        },
      });
      return 'cancelled' in result ? result : decisionOf(result.view);
    },

    async message() {
      const result = await runForm(ui, {
        rows: [{ kind: 'text' }],
        multiSelect: false,
        chosen: [],
        render: (view) =>
          `${color.bold(t('messagePrompt'))}${view.texts.get(0) ?? ''}${color.inverse(' ')}\n${color.dim(t('messageHint'))}`,
        check: () => undefined,
        summary: (view) => `${color.bold(t('messagePrompt'))}${view?.texts.get(0) ?? ''}`,
      });
      return 'cancelled' in result ? result : (result.view.texts.get(0) ?? '').trim();
    },

    close() {},
  };
}
