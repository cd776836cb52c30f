/**
 * Picks how the CLI asks a person: `ttyPrompter` reads keys on a terminal; `linePrompter` reads
 * lines from a pipe. Both render the same cards (see `render.ts`).
 */
import type { Prompter } from './prompt.js';
import { linePrompter } from './prompt-lines.js';
import { ttyPrompter } from './prompt-tty.js';
import type { Ui } from './ui.js';

/** The prompter for this terminal: keys on a TTY, lines on a pipe. */
export function createPrompter(ui: Ui): Prompter {
  return ui.interactive ? ttyPrompter(ui) : linePrompter(ui);
}
