/**
 * The one arrow-key form every terminal prompt is made of, built on `@inquirer/core`: rows that
 * are choices, text fields (typed into where they stand) or actions (Skip, Cancel), one cursor.
 * ↑/↓ (or tab) move, space toggles, digits jump to a row, enter submits, Esc or Ctrl-D stop
 * without answering, Ctrl-C interrupts. In a multi-select form, digits with commas choose their
 * rows, as a piped line does: `1,3` then enter answers rows 1 and 3. A form with a deadline is redrawn as its countdown runs
 * and closes by itself when it passes. What the rows mean, and how they are drawn, is the
 * caller's (`prompt-tty.ts`, `prompt-input.ts`, `render.ts`).
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
  useRef,
  useState,
} from '@inquirer/core';
import type { Stopped, TimedOut } from './prompt.js';
import type { FormView } from './render.js';
import type { Ui } from './ui.js';

/** What an action row does when enter is pressed on it: skip the question, or cancel it. */
export type FormAction = 'skip' | 'cancel';

/** One row of a form. */
export interface FormRow {
  kind: 'choice' | 'text' | 'action';
  /** A text row that is itself a choice (Other, Edit input): under the cursor of a single-select form, it is the one chosen. */
  selectable?: boolean;
  /** The number that jumps to the row (typed as digits, see {@link jumpTarget}). */
  shortcut?: string;
  initial?: string;
  /** For an action row: what enter on it does. */
  action?: FormAction;
}

/** How a form ended with an answer: the rows as submitted, or an action row. */
export type FormOutcome = { view: FormView } | { action: FormAction };

/** How a form ended. */
export type FormResult = FormOutcome | Stopped | TimedOut;

/** A form: its rows, how it is drawn, and what may be submitted. */
export interface FormConfig {
  rows: FormRow[];
  multiSelect: boolean;
  chosen: number[];
  render(view: FormView): string;
  /** Why the form cannot be submitted as it is, or undefined. */
  check(view: FormView): string | undefined;
  /** What stays on screen once the form is answered (or, for `null`, left without an answer). */
  summary(outcome: FormOutcome | TimedOut | null): string;
  /** When the interaction expires (epoch ms): the form closes then, with {@link TimedOut}. */
  deadline?: number;
}

const HIDE_CURSOR = '\u001b[?25l';

/** Digits typed closer together than this make one number: `1`, `2` jumps to row 12 when there is one. */
const DIGIT_PAUSE_MS = 1000;

/** What separates the row numbers of a list (`1,3`), as a piped line takes them. */
const LIST_SEPARATORS = new Set([',', '，', '、']);

/** How often a form with a deadline is redrawn, so its countdown moves. */
const COUNTDOWN_TICK_MS = 500;

/** A form closes this long after its deadline, so whoever resolves it finds it expired by any clock. */
const EXPIRY_MARGIN_MS = 50;

/**
 * Where a digit key jumps: to the row numbered by the digits typed just before it and this one
 * (so rows past 9 are reached with two keys), else to the row of this digit alone. With nine
 * options or fewer, every digit jumps at once.
 */
function jumpTarget(
  rows: FormRow[],
  before: string,
  digit: string,
): { row: number; typed: string } | undefined {
  for (const typed of before === '' ? [digit] : [before + digit, digit]) {
    const row = rows.findIndex((candidate) => candidate.shortcut === typed);
    if (row !== -1) return { row, typed };
  }
  return undefined;
}

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
  const [answered, setAnswered] = useState<FormOutcome | TimedOut | null | undefined>(undefined);
  const [, setNow] = useState(Date.now());
  const digits = useRef({ typed: '', at: 0 });
  /** Whether a list of row numbers (`1,3`) is being typed: each row it names is chosen. */
  const listing = useRef(false);

  useEffect(() => {
    const { deadline } = config;
    if (deadline === undefined) return;
    const tick = setInterval(() => setNow(Date.now()), COUNTDOWN_TICK_MS);
    const end = setTimeout(
      () => {
        const outcome: TimedOut = { timedOut: true };
        setAnswered(outcome);
        done(outcome);
      },
      Math.max(0, deadline - Date.now()) + EXPIRY_MARGIN_MS,
    );
    return () => {
      clearInterval(tick);
      clearTimeout(end);
    };
  }, []);

  // Ctrl-D on an empty line makes readline close before any key handler runs: that is end of input too.
  useEffect((rl) => {
    const onClose = () => done({ stopped: 'eof' });
    rl.on('close', onClose);
    return () => {
      rl.removeListener('close', onClose);
    };
  }, []);

  const finish = (outcome: FormOutcome) => {
    setAnswered(outcome);
    done(outcome);
  };

  useKeypress((key, rl) => {
    const row = rows[cursor]!;
    if (key.name === 'escape' || (key.ctrl && key.name === 'd')) {
      setAnswered(null);
      done({ stopped: 'eof' });
      return;
    }
    if (isEnterKey(key)) {
      if (row.action) return finish({ action: row.action });
      const view = { cursor, chosen: chosenOnEnter(config, cursor, chosen), texts };
      setChosen(view.chosen);
      const problem = config.check(view);
      if (problem === undefined) return finish({ view });
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
      listing.current = false;
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
    // Typing on a choice or action row edits nothing: drop what readline collected.
    rl.clearLine(0);
    const sequence = (key as { sequence?: string }).sequence ?? '';
    if (isSpaceKey(key) && row.kind === 'choice') {
      listing.current = false;
      const next = new Set(multiSelect ? chosen : []);
      if (multiSelect && next.has(cursor)) next.delete(cursor);
      else next.add(cursor);
      setChosen(next);
      setError(undefined);
    } else if (isNumberKey(key)) {
      const now = Date.now();
      const before = now - digits.current.at < DIGIT_PAUSE_MS ? digits.current.typed : '';
      const target = jumpTarget(rows, before, key.name);
      digits.current = { typed: target?.typed ?? '', at: now };
      if (target) move(target.row, true);
      // The row a number after a comma names is chosen at once; the first is chosen by its comma.
      if (target && listing.current && rows[target.row]!.kind === 'choice')
        setChosen(new Set(chosen).add(target.row));
    } else if (multiSelect && LIST_SEPARATORS.has(sequence) && row.kind === 'choice') {
      listing.current = true;
      digits.current = { typed: '', at: 0 };
      setChosen(new Set(chosen).add(cursor));
      setError(undefined);
    }
  });

  if (answered !== undefined) return config.summary(answered);
  return `${config.render({ cursor, chosen, texts, ...(error === undefined ? {} : { error }) })}${HIDE_CURSOR}`;
});

/** Runs a form; Ctrl-C (which inquirer reports as an error) becomes an interruption. */
export async function runForm(ui: Ui, config: FormConfig): Promise<FormResult> {
  try {
    return await form(config, { input: ui.input, output: ui.out });
  } catch (error) {
    if (error instanceof Error && error.name === 'ExitPromptError') return { stopped: 'interrupt' };
    throw error;
  }
}
