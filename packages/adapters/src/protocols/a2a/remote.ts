/**
 * Talking to a remote A2A agent with the SDK's client: connecting (from its card, or its URL's
 * card), sending a message, waiting while its task works, and reading where the task came to rest
 * — done (its artifacts), asking (`input-required`), or over without an answer (`failed`,
 * `rejected`, `canceled`, `auth-required`), which is an {@link A2aRemoteError}. Every wait honours
 * the tool's signal, so a remote that never answers ends with the tool's timeout.
 */
import {
  type AgentCard,
  type Message,
  type Part,
  Role,
  type SendMessageRequest,
  type Task,
  TaskState,
} from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { A2aRemoteError } from './wire.js';

/** Where the remote agent is, and how to reach it. */
export interface RemoteTarget {
  url?: string | undefined;
  card?: AgentCard | undefined;
  /** Headers of every request to the remote (its bearer token). */
  headers?: Record<string, string> | undefined;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch | undefined;
  /** Interval of `tasks/get` while a remote task is working. */
  pollMs: number;
}

/** Where a remote task came to rest. */
export type RemoteOutcome = { type: 'done'; result: unknown } | { type: 'asking'; task: Task };

const TEXT = 'text/plain';

const textPart = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: TEXT,
});

const dataPart = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

/** A user message: text, or data (an answer shaped for a TurnKit remote). */
export function userMessage(
  messageId: string,
  body: { text: string } | { data: unknown },
  taskId = '',
): SendMessageRequest {
  const message: Message = {
    messageId,
    contextId: '',
    taskId,
    role: Role.ROLE_USER,
    parts: ['text' in body ? textPart(body.text) : dataPart(body.data)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

/** `base` with `headers` added to every request (the remote's bearer token). */
export function fetchWithHeaders(base: typeof fetch, headers: Record<string, string>): typeof fetch {
  return (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return base(input, { ...init, headers: merged });
  };
}

/** A client of the remote agent, from its card or the card at its URL. */
export function connect(target: RemoteTarget): Promise<Client> {
  const fetchImpl = fetchWithHeaders(target.fetch ?? fetch, target.headers ?? {});
  // A remote that speaks only A2A 0.3 (its card, or its interface) is spoken to in 0.3.
  const legacyCompat = { enabled: true };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat }),
    }),
  );
  return target.card ? factory.createFromAgentCard(target.card) : factory.createFromUrl(target.url!);
}

/** The text of some parts, and their data. */
function contents(parts: Part[]): { text: string; data: unknown[] } {
  const texts: string[] = [];
  const data: unknown[] = [];
  for (const part of parts) {
    if (part.content?.$case === 'text') texts.push(part.content.value);
    else if (part.content?.$case === 'data') data.push(part.content.value);
    else if (part.content?.$case === 'url') texts.push(part.content.value);
  }
  return { text: texts.join('\n'), data };
}

/** What a done task answered: its artifacts' text, or their data when they hold no text. */
function resultOf(parts: Part[]): unknown {
  const { text, data } = contents(parts);
  if (text !== '' || data.length === 0) return text;
  return data.length === 1 ? data[0] : data;
}

/** The text of a task's status message (why it failed, what it asks). */
export function statusText(task: Task): string {
  return task.status?.message ? contents(task.status.message.parts).text : '';
}

/** The data of a task's status message. */
export function statusData(task: Task): unknown[] {
  return task.status?.message ? contents(task.status.message.parts).data : [];
}

const ENDED: Partial<Record<TaskState, string>> = {
  [TaskState.TASK_STATE_FAILED]: 'failed',
  [TaskState.TASK_STATE_REJECTED]: 'rejected',
  [TaskState.TASK_STATE_CANCELED]: 'canceled',
  [TaskState.TASK_STATE_AUTH_REQUIRED]: 'needs authentication TurnKit cannot give',
};

/**
 * Sends `request` and follows the remote task until it rests: done, or asking. A task that ends
 * without an answer is an {@link A2aRemoteError} saying how, with the remote's own words.
 */
export async function exchange(
  client: Client,
  request: SendMessageRequest,
  target: RemoteTarget,
  signal: AbortSignal,
): Promise<RemoteOutcome> {
  const answer = await client.sendMessage(request, { signal });
  if (!('status' in answer)) return { type: 'done', result: resultOf(answer.parts) };
  let task: Task = answer;
  while (true) {
    const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
    if (state === TaskState.TASK_STATE_COMPLETED) {
      return { type: 'done', result: resultOf(task.artifacts.flatMap((artifact) => artifact.parts)) };
    }
    if (state === TaskState.TASK_STATE_INPUT_REQUIRED) return { type: 'asking', task };
    const ended = ENDED[state];
    if (ended) {
      const why = statusText(task);
      throw new A2aRemoteError(`The remote agent's task ${task.id} ${ended}${why ? `: ${why}` : '.'}`);
    }
    // Submitted or working: ask again until it rests (the tool's timeout aborts `signal`).
    await new Promise((resolve) => setTimeout(resolve, target.pollMs));
    signal.throwIfAborted();
    task = await client.getTask({ tenant: '', id: task.id }, { signal });
  }
}
