/**
 * Playing a request's action as an AG-UI event stream. The response starts only once the turn has
 * started real work (its first model or tool call): until then the request may still be refused
 * (an invalid answer, a run another request holds, a replayed snapshot) and is answered with a 4xx
 * problem, nothing having run. After that every failure is a `RUN_ERROR` event, and the text the
 * model streams reaches the client as it comes.
 *
 * A client that leaves (`abortRun()`, a reload, a dropped connection) never stops the turn (DESIGN
 * §20, "Stop is not disconnect"): the stream ends, the turn plays on. In store mode its result is
 * stored under the thread id and the next run reads it (`GET /runs/:id` too); stopping a turn is
 * `POST /runs/:id/stop`. In client-held mode the turn still finishes, but its new snapshot rode only
 * in the stream's `STATE_SNAPSHOT`: it reaches nobody unless the host keeps it (`onSettled`,
 * `onEvent`, an event hub), and the client goes on from the last state it holds.
 */
import type { AgentEvent, TurnOptions, TurnResult } from '@turnkit/core';
import { toProblem } from '../../http/index.js';
import { type AgUiEvent, STATE_KEY } from './events.js';
import type { RunAgentInput } from './input.js';
import type { AgUiConfig } from './options.js';
import { eventStream } from './stream.js';
import type { Action, Thread } from './thread.js';
import type { Translator } from './translate.js';

/** Events that show the turn has started work: from here on the request is streamed. */
const WORK = new Set<AgentEvent['type']>(['model_started', 'tool_started']);

type Settled = { result: TurnResult<unknown> } | { error: unknown };

/** The state a client-held run gets back: the client's own keys, and the new snapshot. */
function stateWith(input: RunAgentInput, snapshot: string): Record<string, unknown> {
  const state = input.state;
  const own = typeof state === 'object' && state !== null && !Array.isArray(state) ? state : {};
  return { ...own, [STATE_KEY]: snapshot };
}

/** Where a run's events go: held until {@link playAction} opens the stream, then sent there. */
export interface RunOutput {
  write(event: AgUiEvent): void;
  /** Sends the held events to `send`, and every later one. */
  sendTo(send: (event: AgUiEvent) => void): void;
}

/** Creates a run's output. */
export function runOutput(): RunOutput {
  let target: ((event: AgUiEvent) => void) | null = null;
  const waiting: AgUiEvent[] = [];
  return {
    write(event) {
      if (target) target(event);
      else waiting.push(event);
    },
    sendTo(send) {
      for (const event of waiting.splice(0)) send(event);
      target = send;
    },
  };
}

/** What {@link playAction} plays. */
export interface Play {
  input: RunAgentInput;
  thread: Thread;
  action: Action;
  options: TurnOptions;
  translator: Translator;
  output: RunOutput;
}

/**
 * Plays the action on the thread and answers with its event stream, or throws (for a problem
 * response) when the turn fails before it started any work.
 */
export async function playAction(request: Request, play: Play, config: AgUiConfig): Promise<Response> {
  const { input, thread, action, translator, output } = play;
  output.write({ type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId });
  translator.startAt(thread.current?.messages.length ?? (action.type === 'start' ? action.input.length : 0));

  let working!: () => void;
  const started = new Promise<void>((resolve) => {
    working = resolve;
  });
  const forward = config.eventsForRequest?.() ?? config.onEvent;
  const onEvent = (event: AgentEvent) => {
    translator.onAgentEvent(event);
    if (WORK.has(event.type)) working();
    forward?.(event);
  };
  // Not `request.signal`: the request's end is not the turn's.
  const options = { ...play.options, onEvent };
  const playing = thread.play(action, options);
  const first = await Promise.race([
    started.then(() => null),
    playing.then(
      (result): Settled => ({ result }),
      (error: unknown): Settled => ({ error }),
    ),
  ]);
  if (first !== null && 'error' in first) {
    await thread.giveBack();
    throw first.error;
  }

  const stream = eventStream(request, config);
  output.sendTo(stream.send);
  const finish = async () => {
    try {
      const played = first !== null ? first.result : await playing;
      const result = await thread.settle(played, play.options, request.signal);
      try {
        config.onSettled?.(result);
      } catch (error) {
        config.onError(error, request);
      }
      translator.finish(result, {
        agent: config.agent,
        messages: config.messages,
        ...(config.store ? {} : { state: stateWith(input, result.snapshot) }),
      });
    } catch (error) {
      const { body, report } = toProblem(error, Boolean(config.store));
      if (report) config.onError(error, request);
      translator.fail(body.code, body.detail);
    } finally {
      stream.end();
    }
  };
  void finish();
  return stream.response;
}
