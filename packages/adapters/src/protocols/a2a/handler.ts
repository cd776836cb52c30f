/**
 * TurnKit's A2A request handler: the SDK's `A2ARequestHandler` over core's sessions, so a task is a
 * run in the handler's store — any process answers it, two requests never both continue it, and a
 * caller bound to another principal finds no task. The SDK's JSON-RPC transport handlers (1.0, and
 * 0.3 through its compatibility layer) parse the requests and frame the answers; this file decides.
 * Push notifications, task lists and the extended card are not offered (the card says so).
 */
import type {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
} from '@a2a-js/sdk';
import {
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { AgentEvent, Sessions, TurnOptions, TurnResult } from '@turnkit/core';
import { forNewRun } from '../../http/index.js';
import { isSafeRunId } from '../../stores/index.js';
import { messageData, messageText, responsesFrom } from './answers.js';
import { a2aError } from './errors.js';
import { outcomeEvents, playStream, taskEvent, workingTask } from './stream.js';
import { isTerminal, toTask } from './tasks.js';

/** What one request brings to the handler, through `ServerCallContext.state`. */
export interface CallInfo {
  /** The turn options of this caller (principal, clock, error reporting), with `onEvent` for the hub. */
  turnOptions(): TurnOptions & { onEvent: (event: AgentEvent) => void };
  /** The application context of a run this request starts. */
  context(): unknown | Promise<unknown>;
  /** Publishes a finished turn to the handler's event hub. */
  settled(run: TurnResult<unknown>): void;
  /** Reports a server fault. */
  report(error: unknown): void;
}

/** The key of {@link CallInfo} in `ServerCallContext.state`. */
export const CALL_KEY = 'turnkit';

/** How long a resubscription follows a run that another request is playing. */
const FOLLOW_MS = 60_000;
const POLL_MS = 200;

const callOf = (context: ServerCallContext) => context.state.get(CALL_KEY) as CallInfo;

function taskId(id: string): string {
  if (!isSafeRunId(id)) throw new RequestMalformedError('The task id is missing or malformed.');
  return id;
}

/** The user's input of a new task: its text, or its data as JSON text when it holds only data. */
function inputOf(message: Message): string {
  const text = messageText(message);
  if (text.trim() !== '') return text;
  const data = messageData(message);
  if (data.length > 0) return JSON.stringify(data.length === 1 ? data[0] : data);
  throw new RequestMalformedError('The message holds no text and no data: say what the agent should do.');
}

function messageOf(params: SendMessageRequest): Message {
  const message = params.message;
  if (!message || message.parts.length === 0) {
    throw new RequestMalformedError('params.message with at least one part is required.');
  }
  return message;
}

/** The handler of one agent, over `sessions`. */
export function turnkitRequestHandler(
  sessions: Sessions<unknown>,
  card: () => AgentCard,
  maxQueuedBytes: number,
): A2ARequestHandler {
  /** Runs `body`, turning any failure into A2A's error (server faults reported). */
  async function guarded<T>(context: ServerCallContext, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      throw a2aError(error, (fault) => callOf(context).report(fault));
    }
  }

  /**
   * Checks what the message asks of its task — a new run, or the answers to a paused one — and
   * returns the turn that does it, so a stream opens only on a request that can be played.
   */
  async function prepare(
    message: Message,
    call: CallInfo,
    runId: string | undefined,
  ): Promise<(onEvent?: (event: AgentEvent) => void) => Promise<TurnResult<unknown>>> {
    const options = call.turnOptions();
    const withEvents = (onEvent?: (event: AgentEvent) => void) => {
      if (!onEvent) return options;
      const hub = options.onEvent;
      return {
        ...options,
        onEvent: (event: AgentEvent) => {
          hub(event);
          onEvent(event);
        },
      };
    };
    if (!message.taskId) {
      const input = inputOf(message);
      const context = await call.context();
      const start = {
        input,
        ...(runId ? { runId } : {}),
        ...(context === undefined ? {} : { context }),
      };
      return async (onEvent) => settle(call, await sessions.start(start, forNewRun(withEvents(onEvent))));
    }
    const id = taskId(message.taskId);
    const current = await sessions.get(id, options);
    if (current.status === 'running') {
      throw new UnsupportedOperationError(
        `Task ${id} is working: follow it with tasks/resubscribe (SubscribeToTask) and answer once it asks.`,
      );
    }
    if (current.status !== 'needs_input') {
      throw new UnsupportedOperationError(
        `Task ${id} is over (${current.status}): a message without taskId starts a new task.`,
      );
    }
    const responses = responsesFrom(message, current.pending);
    return async (onEvent) => settle(call, await sessions.respond(id, responses, withEvents(onEvent)));
  }

  function settle(call: CallInfo, run: TurnResult<unknown>): TurnResult<unknown> {
    call.settled(run);
    return run;
  }

  /** Yields a run's state while another request plays it, then its outcome. */
  async function* follow(id: string, options: TurnOptions, run: TurnResult<unknown>) {
    yield taskEvent(toTask(run));
    const deadline = Date.now() + FOLLOW_MS;
    while (run.status === 'running' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      run = await sessions.get(id, options);
    }
    if (run.status !== 'running') yield* outcomeEvents(run);
  }

  return {
    // The card served to callers is the mount's (it holds the request's URL); the SDK's 0.3 handler asks here for its capabilities.
    getAgentCard: async () => card(),
    getAuthenticatedExtendedAgentCard: async () => {
      throw new ExtendedAgentCardNotConfiguredError('This agent has no extended card.');
    },
    sendMessage: (params, context) =>
      guarded(context, async () => {
        const play = await prepare(messageOf(params), callOf(context), undefined);
        return toTask(await play(), params.configuration?.historyLength);
      }),
    async *sendMessageStream(params, context): AsyncGenerator<StreamResponse, void, undefined> {
      const call = callOf(context);
      try {
        const message = messageOf(params);
        const runId = message.taskId ? taskId(message.taskId) : crypto.randomUUID();
        const play = await prepare(message, call, runId);
        yield* playStream(runId, workingTask(runId), play, maxQueuedBytes);
      } catch (error) {
        throw a2aError(error, call.report);
      }
    },
    getTask: (params: GetTaskRequest, context) =>
      guarded(context, async () => {
        const run = await sessions.get(taskId(params.id), callOf(context).turnOptions());
        return toTask(run, params.historyLength);
      }),
    cancelTask: (params: CancelTaskRequest, context) =>
      guarded(context, async (): Promise<Task> => {
        const id = taskId(params.id);
        const call = callOf(context);
        const options = call.turnOptions();
        const current = await sessions.get(id, options);
        if (isTerminal(current)) throw new TaskNotCancelableError(`Task ${id} is over (${current.status}).`);
        const stopped = await sessions.stop(
          id,
          { reason: 'Canceled by the A2A caller (tasks/cancel).' },
          options,
        );
        return toTask(settle(call, stopped));
      }),
    async *resubscribe(params: SubscribeToTaskRequest, context) {
      const call = callOf(context);
      try {
        const id = taskId(params.id);
        const options = call.turnOptions();
        const run = await sessions.get(id, options);
        if (isTerminal(run)) throw new UnsupportedOperationError(`Task ${id} is over (${run.status}).`);
        yield* follow(id, options, run);
      } catch (error) {
        throw a2aError(error, call.report);
      }
    },
    listTasks: async () => {
      throw new UnsupportedOperationError('This agent does not list tasks: keep the ids it gave you.');
    },
    createTaskPushNotificationConfig: async () => {
      throw new PushNotificationNotSupportedError();
    },
    getTaskPushNotificationConfig: async () => {
      throw new PushNotificationNotSupportedError();
    },
    listTaskPushNotificationConfigs: async () => {
      throw new PushNotificationNotSupportedError();
    },
    deleteTaskPushNotificationConfig: async () => {
      throw new PushNotificationNotSupportedError();
    },
  };
}
