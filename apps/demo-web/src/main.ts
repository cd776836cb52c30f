/**
 * `npm run demo:web`: starts the web demo and prints its URL. Offline (the scripted model) unless
 * `--model provider:model` or `TURNKIT_MODEL` names a real one, whose key and base URL come from
 * the provider's variables; a model call that fails is one line on stderr. See {@link HELP}.
 */
import { parseArgs } from 'node:util';
import { toolPolicy } from '@turnkit/core';
import { chooseModel, describeModelFailure, type ModelChoice, ModelChoiceError } from '@turnkit/demo-models';
import { startDemoServer } from './server.js';

const HELP = `Usage: node dist/main.js [--model provider:model]   (npm run demo:web -- --model …)

The TurnKit web demo: an LN2 freezer assistant whose questions and approvals are cards.

Options:
  --model provider:model  Run on a real model instead of the offline script (default: TURNKIT_MODEL,
                          else offline). Providers: openai (Responses API), openai-chat (Chat
                          Completions, for OpenAI-compatible servers), anthropic (Messages API).
                          e.g. openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5
  -h, --help              Show this help

Environment:
  TURNKIT_MODEL                        the model when --model is not given
  OPENAI_API_KEY, OPENAI_BASE_URL      key and endpoint of openai and openai-chat
  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL  key and endpoint of anthropic
  PORT (8787), HOST (127.0.0.1), TURNKIT_WEB_DIR (.turnkit/web-runs),
  TURNKIT_QUESTION_TIMEOUT_SECONDS (300; 0 for no limit)
`;

/** The model the command line asks for (null: offline), or the exit code after saying why not. */
async function modelOfCommandLine(): Promise<ModelChoice | null | number> {
  let flags: { model?: string | undefined; help?: boolean | undefined };
  try {
    flags = parseArgs({
      options: { model: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (flags.help) {
    process.stdout.write(HELP);
    return 0;
  }
  try {
    return await chooseModel(flags.model, process.env);
  } catch (error) {
    if (!(error instanceof ModelChoiceError)) throw error;
    process.stderr.write(error.kind === 'usage' ? `${error.message}\n\n${HELP}` : `${error.message}\n`);
    return error.kind === 'usage' ? 2 : 1;
  }
}

const choice = await modelOfCommandLine();
if (typeof choice === 'number') process.exit(choice);

const port = Number(process.env.PORT ?? 8787);
const timeout = Number(process.env.TURNKIT_QUESTION_TIMEOUT_SECONDS ?? 300);
const server = await startDemoServer({
  port: Number.isInteger(port) && port >= 0 ? port : 8787,
  hostname: process.env.HOST ?? '127.0.0.1',
  dataDir: process.env.TURNKIT_WEB_DIR ?? '.turnkit/web-runs',
  questionTimeoutMs: Number.isFinite(timeout) && timeout >= 0 ? Math.round(timeout * 1000) : 300_000,
  // TURNKIT_REVIEW_THAWS=1: every thaw waits on a review card (DESIGN §26) before its approval.
  ...(process.env.TURNKIT_REVIEW_THAWS === '1'
    ? {
        hooks: [
          toolPolicy({
            name: 'thaw-review',
            ask: ['thaw_vials'],
            reason: 'Thaws are reviewed by the lab manager.',
          }),
        ],
      }
    : {}),
  ...(choice
    ? {
        model: choice.model,
        // A failed model call is one line (which model, what the provider said), not a stack.
        onError: (error: unknown) => console.error(describeModelFailure(error, choice) ?? error),
      }
    : {}),
});
const running = choice ? `model ${choice.spec} at ${choice.baseURL}` : 'offline scripted LN2 model';
console.log(`TurnKit web demo (${running}): ${server.url}`);
console.log('Open it in a browser; press Ctrl+C to stop.');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
