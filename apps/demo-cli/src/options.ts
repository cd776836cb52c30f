/**
 * Command-line parsing (node:util parseArgs): `turnkit-demo [message]`, `resume <runId>`, `runs`,
 * `ask '<json>'`, and the options shared by all of them.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type Lang, langFromEnv, parseLang, translator } from './i18n.js';

export type Command = 'chat' | 'resume' | 'runs' | 'ask' | 'help' | 'version';

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
  model: string | undefined;
  offline: boolean;
}

export const DEFAULT_DIR = '.turnkit/runs';
const COMMANDS = new Set<string>(['resume', 'runs', 'ask', 'help']);

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
      model: values.model ?? env.OPENAI_MODEL,
      offline: values.offline ?? false,
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
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}
