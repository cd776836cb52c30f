/**
 * What the chat commands share: the agent (on the offline script, or on the model `--model` or
 * `TURNKIT_MODEL` names), sessions over `fileStore`, the prompter, and `turn()`, which runs one
 * turn with the event printer and lets Ctrl-C abort it gracefully (the run is saved as `aborted`,
 * and `resume` retries it). A failed call of a real model is one line on stderr.
 */
import { join } from 'node:path';
import { jsonlEventLog } from '@turnkit/adapters';
import { fileStore } from '@turnkit/adapters/file';
import {
  type Agent,
  createSessions,
  type ModelAdapter,
  type Sessions,
  type TurnOptions,
} from '@turnkit/core';
import type { ThawPlanValue } from '@turnkit/demo-models';
import { chooseModel, describeModelFailure, deskScript } from '@turnkit/demo-models';
import { CallLog, eventPrinter } from './events.js';
import { onInterrupt } from './interrupt.js';
import type { CliOptions } from './options.js';
import type { Prompter } from './prompt.js';
import { reviewFromEnv } from './review.js';
import { safeLine } from './sanitize.js';
import { AGENT_NAME, createAgent } from './scenario/agent.js';
import { scenarioModel } from './scenario/script.js';
import { storageScenarioModel } from './scenario/storage.js';
import type { Ui } from './ui.js';

export interface App {
  ui: Ui;
  options: CliOptions;
  prompter: Prompter;
  /** The LN2 agent; its final answer is a typed thaw plan. */
  agent: Agent<ThawPlanValue>;
  sessions: Sessions<ThawPlanValue>;
  calls: CallLog;
  /** Where every event of every run is logged (a `.events` folder beside the runs), for `record`. */
  eventsDir: string;
  /** Runs one turn: events are shown as they come, Ctrl-C aborts it. */
  turn<T>(work: (options: TurnOptions) => Promise<T>): Promise<T>;
  /** Which model answers (the offline script, or a named model at an address), for the first line of a chat. */
  modelBanner: string;
  /** Whether assistant text was streamed since the last call (if not, the final output is printed whole). */
  takeStreamed(): boolean;
}

/** How long the script "thinks" on a terminal, so the spinner is seen; pipes get answers at once. */
const SCRIPT_DELAY_MS = 350;

/** The models of the lead agent, its storage sub-agent and the lab desk (the same one when online). */
interface Models {
  model: ModelAdapter;
  storageModel: ModelAdapter;
  deskModel: ModelAdapter;
  banner: string;
  /** Where a turn reports a failed model call (online only): one line on stderr. */
  onError?: TurnOptions['onError'];
}

/**
 * The offline script unless a model is named; a named one comes from its provider's key and base
 * URL variables (a missing key throws `ModelChoiceError`, which the CLI prints as one line).
 */
async function models(options: CliOptions, ui: Ui): Promise<Models> {
  const choice = options.model === undefined ? null : await chooseModel(options.model, process.env);
  if (!choice) {
    const delay = ui.out.isTTY ? SCRIPT_DELAY_MS : 0;
    return {
      model: scenarioModel(options.lang, delay),
      storageModel: storageScenarioModel(options.lang, delay),
      deskModel: deskScript({
        leadName: AGENT_NAME,
        language: options.lang === 'zh-CN' ? 'zh' : 'en',
        delayMs: delay,
      }),
      banner: ui.t('offline'),
    };
  }
  return {
    model: choice.model,
    storageModel: choice.model,
    deskModel: choice.model,
    banner: ui.t('online', { model: choice.spec, baseURL: choice.baseURL }),
    onError: (error) => {
      const line = describeModelFailure(error, choice) ?? String((error as Error)?.message ?? error);
      process.stderr.write(`${safeLine(line)}\n`);
    },
  };
}

/**
 * `TURNKIT_BUDGET_STEPS`: how many model calls a run may make before it asks (0: no budget);
 * unset or not a whole number: the demo's default.
 */
export function budgetFromEnv(env: NodeJS.ProcessEnv): { budget?: { steps: number } | null } {
  const text = env.TURNKIT_BUDGET_STEPS?.trim();
  if (!text || !/^\d+$/.test(text)) return {};
  const steps = Number(text);
  return { budget: steps === 0 ? null : { steps } };
}

export async function createApp(options: CliOptions, ui: Ui, prompter: Prompter): Promise<App> {
  const calls = new CallLog();
  const { model, storageModel, deskModel, banner, onError } = await models(options, ui);
  const agent = createAgent({
    lang: options.lang,
    model: calls.wrap(model),
    storageModel: calls.wrap(storageModel),
    deskModel: calls.wrap(deskModel),
    questionTimeoutMs: options.questionTimeoutMs,
    ...budgetFromEnv(process.env),
    ...reviewFromEnv(process.env, options.lang),
  });
  const sessions = createSessions({ agent, store: fileStore(options.dir) });
  const printer = eventPrinter(ui, { json: options.json, calls });
  // Every event is kept, so `record` can save a run whole (its sub-agents' conversations too).
  const eventsDir = join(options.dir, '.events');
  const log = jsonlEventLog(eventsDir, {
    filter: (event) => event.type !== 'model_delta',
    // A log that cannot be written loses only `record`'s best source: it falls back to the store.
    onError: () => {},
  });
  let announced = false;
  const onEvent: TurnOptions['onEvent'] = (event) => {
    if (!announced && event.type === 'turn_started') {
      announced = true;
      ui.print(ui.color.dim(ui.t('runStarted', { runId: event.runId, dir: options.dirLabel })));
    }
    printer.onEvent(event);
    log.onEvent(event);
  };
  return {
    ui,
    options,
    prompter,
    agent,
    sessions,
    calls,
    eventsDir,
    modelBanner: banner,
    async turn(work) {
      const controller = new AbortController();
      // Ctrl-C once stops the turn gracefully (it ends `aborted`, saved); twice exits at once.
      const dispose = onInterrupt(() => {
        if (controller.signal.aborted) process.exit(130);
        ui.print(ui.color.yellow(ui.t('stopping')));
        controller.abort();
      });
      try {
        return await work({ onEvent, signal: controller.signal, ...(onError ? { onError } : {}) });
      } finally {
        dispose();
        await log.flush().catch(() => {});
      }
    },
    takeStreamed: printer.takeStreamed,
  };
}
