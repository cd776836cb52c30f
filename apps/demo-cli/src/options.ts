/**
 * Command-line parsing (node:util parseArgs): `turnkit-demo [message]`, `resume <runId>`, `runs`, `inbox`,
 * `stop <runId>`, `record [runId] [file]`, `replay <recording.json>`, `ask '<json>'`, and the options shared by all of them.
 */
import { resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { MODEL_VARIABLE, ModelChoiceError, parseModelSpec } from '@turnkit/demo-models';
import { type Lang, langFromEnv, parseLang, type Translate, translator } from './i18n.js';

export type Command =
  | 'chat'
  | 'resume'
  | 'runs'
  | 'inbox'
  | 'stop'
  | 'tell'
  | 'record'
  | 'replay'
  | 'ask'
  | 'help'
  | 'version';

export interface CliOptions {
  command: Command;
  /** Positionals after the command (for `chat`, the words of the first message). */
  args: string[];
  lang: Lang;
  json: boolean;
  /** Absolute folder of the run files. */
  dir: string;
  /** As given (or the default), for messages. */
  dirLabel: string;
  /**
   * The real model to run on, `provider:model` (`--model`, else `TURNKIT_MODEL`), checked; undefined
   * runs the offline script (also whenever `--offline` is given).
   */
  model: string | undefined;
  /** How long the agent's questions wait for an answer, in ms (`--timeout-seconds`); 0: no limit. */
  questionTimeoutMs: number;
}

export const DEFAULT_DIR = '.turnkit/runs';
/** The seed's question timeout: five minutes. */
export const DEFAULT_TIMEOUT_SECONDS = 300;
const COMMANDS = new Set<string>([
  'resume',
  'runs',
  'inbox',
  'stop',
  'tell',
  'record',
  'replay',
  'ask',
  'help',
]);

const OPTIONS = {
  lang: { type: 'string' },
  json: { type: 'boolean' },
  dir: { type: 'string' },
  model: { type: 'string' },
  offline: { type: 'boolean' },
  'timeout-seconds': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const satisfies ParseArgsConfig['options'];

/**
 * Misused options are told apart by `misusedOption`, in the interface's language, rather than in
 * node:util's strict words (which name the option twice and suggest `--` for a positional).
 */
const PARSE = { allowPositionals: true, strict: false, tokens: true, options: OPTIONS } as const;

/** The values once no option is misused: each has its option's type. */
type OptionValues = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>['values'];

type Token = NonNullable<ReturnType<typeof parseArgs<typeof PARSE>>['tokens']>[number];

/**
 * What the command line asks for, or why it cannot be run: `message` is one line, and `seeHelp`
 * says whether the line pointing to `--help` should follow it (a misused option says so itself).
 */
export function parseCli(
  argv: string[],
  env: NodeJS.ProcessEnv,
): { ok: true; options: CliOptions } | { ok: false; message: string; seeHelp: boolean } {
  const { values: given, positionals, tokens } = parseArgs({ args: argv, ...PARSE });
  const lang = typeof given.lang === 'string' ? parseLang(given.lang) : langFromEnv(env);
  const misuse = misusedOption(tokens, translator(lang ?? langFromEnv(env)));
  if (misuse) return { ok: false, message: misuse, seeHelp: false };
  const values = given as OptionValues;
  if (lang === undefined)
    return {
      ok: false,
      message: translator(langFromEnv(env))('badLang', { lang: String(values.lang) }),
      seeHelp: true,
    };
  const seconds =
    values['timeout-seconds'] === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(values['timeout-seconds']);
  if (!Number.isFinite(seconds) || seconds < 0 || values['timeout-seconds']?.trim() === '') {
    const t = translator(lang);
    return {
      ok: false,
      message: t('badTimeout', { value: String(values['timeout-seconds']) }),
      seeHelp: true,
    };
  }
  const model = values.offline ? undefined : (values.model ?? (env[MODEL_VARIABLE]?.trim() || undefined));
  if (model !== undefined) {
    try {
      parseModelSpec(model, values.model !== undefined ? '--model' : MODEL_VARIABLE);
    } catch (error) {
      if (!(error instanceof ModelChoiceError)) throw error;
      return { ok: false, message: error.message, seeHelp: true };
    }
  }
  const [first, ...rest] = positionals;
  let command: Command = first !== undefined && COMMANDS.has(first) ? (first as Command) : 'chat';
  if (values.help) command = 'help';
  else if (values.version) command = 'version';
  const dirLabel = values.dir ?? env.TURNKIT_DIR ?? DEFAULT_DIR;
  // Under `npm run demo`, npm runs the script in the package folder; INIT_CWD is where the user typed it.
  const base = env.INIT_CWD ?? process.cwd();
  return {
    ok: true,
    options: {
      command,
      args: command === 'chat' ? positionals : rest,
      lang,
      json: values.json ?? false,
      dir: resolve(base, dirLabel),
      dirLabel,
      model,
      questionTimeoutMs: Math.round(seconds * 1000),
    },
  };
}

/** The first option that is unknown, lacks its value, or has one it does not take: one sentence. */
function misusedOption(tokens: Token[], t: Translate): string | undefined {
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const option = token.rawName;
    const known = (OPTIONS as Record<string, { type: 'string' | 'boolean' }>)[token.name];
    if (!known) return t('unknownOption', { option });
    // `--dir --json` is a forgotten value, not a folder named "--json" (as node:util's strict mode has it).
    const missing = token.value === undefined || (!token.inlineValue && token.value.startsWith('-'));
    if (known.type === 'string' && missing) return t('optionNeedsValue', { option });
    if (known.type === 'boolean' && token.value !== undefined) return t('optionTakesNoValue', { option });
  }
  return undefined;
}
