/**
 * An A2A server made with the real `@a2a-js/sdk` (its `DefaultRequestHandler`, in-memory task store
 * and framework-neutral `JsonRpcTransportHandler`, served on node:http — express is not installed)
 * whose executor asks `input-required` (with options) and completes on the answer, or fails,
 * rejects, or never answers, counting every message it receives.
 */
import { AgentCard, formatSSEEvent, type Message, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
} from '@a2a-js/sdk/server';
import { type Listening, listen } from '../http-fixtures.js';

/**
 * How the remote behaves on a new task: ask which box, fail, reject, never answer, or never answer
 * its first task and thaw at once on the next ones.
 */
export type RemoteMode = 'ask' | 'fail' | 'reject' | 'hang' | 'hang-once';

const servers: Listening[] = [];

export async function closeSdkServers(): Promise<void> {
  await Promise.all(servers.splice(0).map((server) => server.close()));
}

const text = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

const textOf = (message: Message) =>
  message.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

function agentMessage(task: { taskId: string; contextId: string }, parts: Part[]): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: task.contextId,
    taskId: task.taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A freezer agent: asks which box (B2-14 or B2-15), then reports the thaw. */
function freezerExecutor(mode: RemoteMode, received: Message[], taskIds: string[]): AgentExecutor {
  return {
    async execute(context, bus) {
      received.push(context.userMessage);
      const ids = { taskId: context.taskId, contextId: context.contextId };
      const now = () => new Date().toISOString();
      const answering = context.task !== undefined || (mode === 'hang-once' && taskIds.length > 0);
      if (!answering) {
        taskIds.push(context.taskId);
        if (mode === 'hang' || mode === 'hang-once') return new Promise(() => undefined);
        const state =
          mode === 'fail'
            ? TaskState.TASK_STATE_FAILED
            : mode === 'reject'
              ? TaskState.TASK_STATE_REJECTED
              : TaskState.TASK_STATE_INPUT_REQUIRED;
        const parts =
          mode === 'ask'
            ? [
                text('Which box holds K562?'),
                {
                  content: { $case: 'data' as const, value: { options: ['B2-14', 'B2-15'] } },
                  metadata: undefined,
                  filename: '',
                  mediaType: 'application/json',
                },
              ]
            : [text(mode === 'fail' ? 'The freezer is offline.' : 'I do not thaw on Sundays.')];
        const task: Task = {
          id: context.taskId,
          contextId: context.contextId,
          status: { state, message: agentMessage(ids, parts), timestamp: now() },
          artifacts: [],
          history: [context.userMessage],
          metadata: undefined,
        };
        bus.publish(AgentEvent.task(task));
        bus.finished();
        return;
      }
      if (!context.task) taskIds.push(context.taskId);
      bus.publish(
        AgentEvent.task({
          id: context.taskId,
          contextId: context.contextId,
          artifacts: [],
          history: [],
          metadata: undefined,
          ...context.task,
          status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() },
        }),
      );
      bus.publish(
        AgentEvent.artifactUpdate({
          ...ids,
          artifact: {
            artifactId: 'thaw',
            name: 'thaw',
            description: '',
            parts: [text(`Thawed K562 from ${textOf(context.userMessage)}`)],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      bus.publish(
        AgentEvent.statusUpdate({
          ...ids,
          status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: now() },
          metadata: undefined,
        }),
      );
      bus.finished();
    },
    cancelTask: async () => undefined,
  };
}

/** The remote: its base URL, the messages it received, and the ids of the tasks it created. */
export interface SdkRemote {
  url: string;
  received: Message[];
  taskIds: string[];
  card: AgentCard;
}

/** Serves the freezer agent with the SDK's server side, on a loopback port. */
export async function serveSdkAgent(mode: RemoteMode = 'ask'): Promise<SdkRemote> {
  const received: Message[] = [];
  const taskIds: string[] = [];
  const card: AgentCard = {
    name: 'freezer',
    description: 'Thaws vials from the LN2 freezer.',
    version: '1.0.0',
    supportedInterfaces: [{ url: '', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    freezerExecutor(mode, received, taskIds),
  );
  const transport = new JsonRpcTransportHandler(handler);
  const server = await listen(async (request) => {
    if (request.method === 'GET') return Response.json(AgentCard.toJSON(card));
    const version = request.headers.get('A2A-Version') ?? undefined;
    const answer = await transport.handle(
      await request.text(),
      new ServerCallContext({ requestedVersion: version }),
    );
    if (!(Symbol.asyncIterator in answer)) return Response.json(answer);
    const encoder = new TextEncoder();
    const events = answer as AsyncGenerator<unknown>;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await events.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(formatSSEEvent(next.value)));
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  });
  servers.push(server);
  card.supportedInterfaces[0]!.url = `${server.url}/a2a`;
  return { url: server.url, received, taskIds, card };
}
