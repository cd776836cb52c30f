/**
 * What the chat commands share: the agent (scripted or OpenAI), sessions over `fileStore`, the
 * prompter, and `turn()`, which runs one turn with the event printer and lets Ctrl-C abort it
 * gracefully (the run is saved as `aborted`, and `resume` retries it).
 */
import { fileStore } from '@turnkit/adapters/file';
import {
  type Agent,
  createSessions,
  type ModelAdapter,
  type Sessions,
  type TurnOptions,
} from '@turnkit/core';
import { CallLog, eventPrinter } from './events.js';
import { onInterrupt } from './interrupt.js';
import type { CliOptions } from './options.js';
import type { Prompter } from './prompter.js';
import { createAgent } from './scenario/agent.js';
import { scenarioModel } from './scenario/script.js';
import type { Ui } from './ui.js';

export interface App {
  ui: Ui;
  options: CliOptions;
  prompter: Prompter;
  agent: Agent;
  sessions: Sessions;
  calls: CallLog;
  /** Runs one turn: events are shown as they come, Ctrl-C aborts it. */
  turn<T>(work: (options: TurnOptions) => Promise<T>): Promise<T>;
  /** Which model answers (the offline script, or a named model at an address), for the first line of a chat. */
  modelBanner: string;
  /** Whether assistant text was streamed since the last call (if not, the final output is printed whole). */
  takeStreamed(): boolean;
}

/** How long the script "thinks" on a terminal, so the spinner is seen; pipes get answers at once. */
const SCRIPT_DELAY_MS = 350;

async function chooseModel(options: CliOptions, ui: Ui): Promise<{ model: ModelAdapter; banner: string }> {
  const apiKey = process.env.OPENAI_API_KEY;
  if (options.offline || !apiKey) {
    return {
      model: scenarioModel(options.lang, ui.out.isTTY ? SCRIPT_DELAY_MS : 0),
      banner: ui.t('offline'),
    };
  }
  // Loaded only here, so the offline demo never loads the `openai` package.
  const { openAIModel } = await import('@turnkit/adapters/openai');
  const model = options.model ?? 'gpt-4.1-mini';
  const baseURL = process.env.OPENAI_BASE_URL;
  return {
    model: openAIModel({ model, apiKey, ...(baseURL ? { baseURL } : {}) }),
    banner: ui.t('online', { model, baseURL: baseURL ?? 'https://api.openai.com/v1' }),
  };
}

export async function createApp(options: CliOptions, ui: Ui, prompter: Prompter): Promise<App> {
  const calls = new CallLog();
  const { model, banner } = await chooseModel(options, ui);
  const agent = createAgent({ lang: options.lang, model: calls.wrap(model) });
  const sessions = createSessions({ agent, store: fileStore(options.dir) });
  const printer = eventPrinter(ui, { json: options.json, calls });
  let announced = false;
  const onEvent: TurnOptions['onEvent'] = (event) => {
    if (!announced && event.type === 'turn_started') {
      announced = true;
      ui.print(ui.color.dim(ui.t('runStarted', { runId: event.runId, dir: options.dirLabel })));
    }
    printer.onEvent(event);
  };
  return {
    ui,
    options,
    prompter,
    agent,
    sessions,
    calls,
    modelBanner: banner,
    async turn(work) {
      const controller = new AbortController();
      const dispose = onInterrupt(() => controller.abort());
      try {
        return await work({ onEvent, signal: controller.signal });
      } finally {
        dispose();
      }
    },
    takeStreamed: printer.takeStreamed,
  };
}
