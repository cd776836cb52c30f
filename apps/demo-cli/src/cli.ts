/**
 * `turnkit-demo`: parses the command line, picks where people read (stdout, or stderr when stdout
 * carries JSON) and how they answer (keys on a terminal, lines from a pipe), and runs the command.
 */
import { TurnkitError } from '@turnkit/core';
import { version } from '../package.json';
import { createApp } from './app.js';
import { ask } from './commands/ask.js';
import { chat } from './commands/chat.js';
import { EXIT_FAILED, EXIT_INTERRUPTED } from './commands/drive.js';
import { inbox } from './commands/inbox.js';
import { record, replayFile } from './commands/replay.js';
import { resume } from './commands/resume.js';
import { runs } from './commands/runs.js';
import { stop } from './commands/stop.js';
import { tell } from './commands/tell.js';
import { helpText } from './help.js';
import { langFromEnv, translator } from './i18n.js';
import { onInterrupt } from './interrupt.js';
import { type CliOptions, parseCli } from './options.js';
import { createPrompter } from './prompter.js';
import { safeText } from './sanitize.js';
import { createUi, type Ui } from './ui.js';

async function run(options: CliOptions, ui: Ui): Promise<number> {
  const prompter = createPrompter(ui);
  try {
    if (options.command === 'ask') return await ask(prompter, options.args);
    const app = await createApp(options, ui, prompter);
    if (options.command === 'runs') return await runs(app);
    if (options.command === 'inbox') return await inbox(app);
    if (options.command === 'resume') return await resume(app, options.args[0]);
    if (options.command === 'stop') return await stop(app, options.args);
    if (options.command === 'tell') return await tell(app, options.args);
    if (options.command === 'record') return await record(app, options.args);
    if (options.command === 'replay') return await replayFile(app, options.args);
    return await chat(app, options.args);
  } finally {
    prompter.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const parsed = parseCli(argv, process.env);
  if (!parsed.ok) {
    // One line of what was wrong and where to look, not the whole help under it.
    const seeHelp = parsed.seeHelp ? `${translator(langFromEnv(process.env))('seeHelp')}\n` : '';
    process.stderr.write(`${parsed.message}\n${seeHelp}`);
    return EXIT_FAILED;
  }
  const { options } = parsed;
  if (options.command === 'help') {
    process.stdout.write(helpText(options.lang));
    return 0;
  }
  if (options.command === 'version') {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  const toStderr = options.json || options.command === 'ask';
  const ui = createUi({
    lang: options.lang,
    out: toStderr ? process.stderr : process.stdout,
    input: process.stdin,
  });
  // Ctrl-C before a run exists; later handlers (the drive loop, a turn) take over while they are active.
  const dispose = onInterrupt(() => {
    ui.print();
    process.exit(EXIT_INTERRUPTED);
  });
  try {
    return await run(options, ui);
  } catch (error) {
    const t = translator(options.lang);
    const message =
      error instanceof TurnkitError
        ? `${error.message} (${error.code})`
        : String((error as Error).message ?? error);
    process.stderr.write(`${t('error', { message: safeText(message) })}\n`);
    return EXIT_FAILED;
  } finally {
    dispose();
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
