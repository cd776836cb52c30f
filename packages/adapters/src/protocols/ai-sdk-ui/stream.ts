/**
 * Plays a turn behind a streamed response. The answer must stay a plain problem response (409,
 * 422…) as long as nothing has run: core refuses an invalid answer, a run another request holds
 * or a lost claim *before* it calls a model or a tool, but only after it emitted `turn_started` and
 * `interaction_resolved`. So those events are held back, and the stream opens only at the first
 * event of real work (or when the turn ends without any); a turn that fails before that is thrown
 * to the caller, which answers with its problem. A failure after the stream opened ends the stream
 * with an `error` chunk.
 *
 * A client that leaves (a reload, a closed tab, `useChat`'s `stop()`) never stops the turn (DESIGN
 * §20, "Stop is not disconnect"): the stream stops writing, and the turn plays on to its end. In
 * store mode its result is stored under the chat id, and the client reads it when it comes back
 * (`GET <path>/:id`, `GET /runs/:id`); stopping a turn is `POST /runs/:id/stop`. In client-held
 * mode the turn still finishes, but its new snapshot rode only in the stream's `finish` chunk: it
 * reaches nobody unless the host keeps it (`onSettled`, `onEvent`, an event hub), and the client
 * goes on from the last snapshot it holds.
 */
import type { AgentEvent, TurnOptions, TurnResult } from '@turnkit/core';
import { toProblem } from '../../http/index.js';
import { chunkStream } from './chunks.js';
import { TurnChunkWriter, type WriterOptions } from './writer.js';

/** What {@link streamTurn} needs besides the turn. */
export interface StreamDeps {
  /** The options of the turn (clock, principal, onError); `onEvent` is added. */
  turnOptions: TurnOptions;
  /** Also receives every event (the handler's `onEvent` option). */
  onEvent?: (event: AgentEvent) => void;
  /** Server faults that happen after the stream opened. */
  report(error: unknown): void;
  /** Store mode: snapshot errors are the server's. */
  fromStore: boolean;
  /** Gets the turn's result once it is streamed. */
  onSettled?: (result: TurnResult<unknown>) => void;
  writer: WriterOptions;
}

type Settled = { result: TurnResult<unknown> } | { error: unknown };

/** Held-back events: those core emits before it claims the run and starts any work. */
const BEFORE_WORK = new Set<AgentEvent['type']>(['turn_started', 'interaction_resolved', 'turn_paused']);

/**
 * Starts `play` and answers with its UI message stream, or throws what it threw before any work.
 */
export async function streamTurn(
  play: (options: TurnOptions) => Promise<TurnResult<unknown>>,
  deps: StreamDeps,
): Promise<Response> {
  const held: AgentEvent[] = [];
  let live: ((event: AgentEvent) => void) | null = null;
  let markWorking: () => void = () => {};
  const working = new Promise<'working'>((resolve) => {
    markWorking = () => resolve('working');
  });
  const onEvent = (event: AgentEvent) => {
    deps.onEvent?.(event);
    if (live) return live(event);
    held.push(event);
    if (!BEFORE_WORK.has(event.type)) markWorking();
  };
  // No abort signal: the response stream's end is not the turn's.
  const settled: Promise<Settled> = play({ ...deps.turnOptions, onEvent }).then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  const first = await Promise.race([working, settled]);
  if (first !== 'working' && 'error' in first) throw first.error;

  const { response, push, close } = chunkStream();
  const writer = new TurnChunkWriter(push, deps.writer);
  writer.start();
  for (const event of held) writer.event(event);
  live = (event) => writer.event(event);
  void settled.then((outcome) => {
    try {
      if ('result' in outcome) writer.end(outcome.result);
      else {
        const { body, report } = toProblem(outcome.error, deps.fromStore);
        if (report) deps.report(outcome.error);
        writer.fail(body.detail);
      }
    } catch (error) {
      deps.report(error);
      writer.fail('The server failed to finish this response. Reload the chat.');
    }
    close();
    if ('result' in outcome) {
      try {
        deps.onSettled?.(outcome.result);
      } catch (error) {
        deps.report(error);
      }
    }
  });
  return response;
}
