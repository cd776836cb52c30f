/**
 * Command-line parsing (node:util parseArgs): `turnkit-demo [message]`, `resume <runId>`, `runs`, `inbox`,
 * `stop <runId>`, `ask '<json>'`, and the options shared by all of them.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { MODEL_VARIABLE, ModelChoiceError, parseModelSpec } from '@turnkit/demo-models';
import { type Lang, langFromEnv, parseLang, translator } from './i18n.js';

export type Command = 'chat' | 'resume' | 'runs' | 'inbox' | 'stop' | 'ask' | 'help' | 'version';

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
const COMMANDS = new Set<string>(['resume', 'runs', 'inbox', 'stop', 'ask', 'help']);

export function parseCli(
  argv: string[],
  env: NodeJS.ProcessEnv,
): { ok: true; options: CliOptions } | { ok: false; message: string } {
  let parsed: ReturnType<typeof parseCliArgs>;
  try {
    parsed = parseCliArgs(argv);
  } catch (error) {
    const t = translator(langFromEnv(env));
    return { ok: false, message: t('unknownCommand', { detail: (error as Error).message }) };
  }
  const { values, positionals } = parsed;
  const lang = values.lang === undefined ? langFromEnv(env) : parseLang(values.lang);
  if (lang === undefined)
    return { ok: false, message: translator(langFromEnv(env))('badLang', { lang: String(values.lang) }) };
  const seconds =
    values['timeout-seconds'] === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(values['timeout-seconds']);
  if (!Number.isFinite(seconds) || seconds < 0 || values['timeout-seconds']?.trim() === '') {
    const t = translator(lang);
    return { ok: false, message: t('badTimeout', { value: String(values['timeout-seconds']) }) };
  }
  const model = values.offline ? undefined : (values.model ?? (env[MODEL_VARIABLE]?.trim() || undefined));
  if (model !== undefined) {
    try {
      parseModelSpec(model, values.model !== undefined ? '--model' : MODEL_VARIABLE);
    } catch (error) {
      if (!(error instanceof ModelChoiceError)) throw error;
      return { ok: false, message: error.message };
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

function parseCliArgs(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      lang: { type: 'string' },
      json: { type: 'boolean' },
      dir: { type: 'string' },
      model: { type: 'string' },
      offline: { type: 'boolean' },
      'timeout-seconds': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}
