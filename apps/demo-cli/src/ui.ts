/**
 * The terminal the CLI talks to: which stream people read (stdout, or stderr when stdout carries
 * JSON), whether keys can be read one by one (a TTY) or only lines, colours, width and language.
 */
import pc from 'picocolors';
import { type Lang, type Translate, translator } from './i18n.js';

export type Colors = ReturnType<typeof pc.createColors>;

export interface Ui {
  lang: Lang;
  t: Translate;
  /** Where people read: cards, prompts, streamed text. */
  out: NodeJS.WriteStream;
  input: NodeJS.ReadStream;
  /** Arrow-key prompts when both ends are terminals; numbered line input otherwise. */
  interactive: boolean;
  color: Colors;
  /** Width of cards: the terminal's, capped, or a fixed 76 when not a terminal (stable output in pipes). */
  width: number;
  print(text?: string): void;
}

const MAX_WIDTH = 76;
const MIN_WIDTH = 40;

export function createUi(options: {
  lang: Lang;
  out: NodeJS.WriteStream;
  input: NodeJS.ReadStream;
  env?: NodeJS.ProcessEnv;
}): Ui {
  const { out, input, lang, env = process.env } = options;
  const interactive = Boolean(input.isTTY && out.isTTY);
  const { NO_COLOR, FORCE_COLOR, TERM } = env;
  const forced = FORCE_COLOR !== undefined && FORCE_COLOR !== '0' && FORCE_COLOR !== 'false';
  const colorEnabled = forced || (Boolean(out.isTTY) && NO_COLOR === undefined && TERM !== 'dumb');
  const columns = out.isTTY && out.columns ? out.columns : 80;
  return {
    lang,
    t: translator(lang),
    out,
    input,
    interactive,
    color: pc.createColors(colorEnabled),
    width: Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, columns - 2)),
    print(text = '') {
      out.write(`${text}\n`);
    },
  };
}
