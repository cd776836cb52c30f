/**
 * What a `RunAgentInput` asks of its thread. An AG-UI client posts its whole conversation every
 * time, so the request is read against the run as it is:
 *
 * 1. a thread without a run starts one from the client's conversation (which must hold a user
 *    message); a `resume` there is refused;
 * 2. answers — `resume` entries, or tool messages for a pending interrupt's `toolCallId` — go on
 *    with the run (an answer the run already applied is read back, idempotently);
 * 3. user messages typed since the transcript was last sent are the next message (superseding
 *    whatever was pending);
 * 4. otherwise a failed, aborted or out-of-steps run is retried, and any other run is read as it is
 *    (a reconnect, a request sent again): its messages, state and outcome are sent again.
 *
 * `tools` (front-end tools) and `context` entries of the input are not used: the agent's tools are
 * its own, and the application context comes from the handler's `context` option.
 */
import type { AnyAgent } from '@turnkit/core';
import { HttpProblem } from '../../http/index.js';
import { toResponses } from './answers.js';
import type { RunAgentInput } from './input.js';
import { conversation, newUserMessages, toChatMessages } from './messages.js';
import type { Action, Thread } from './thread.js';

/** What the plan needs besides the input and the thread. */
export interface PlanContext {
  agent: AnyAgent;
  clientHeld: boolean;
  /** The application context of a new run. */
  context: () => unknown | Promise<unknown>;
}

/** Decides the action of a request (see the file comment). Throws a 4xx problem when there is none. */
export async function plan(input: RunAgentInput, thread: Thread, how: PlanContext): Promise<Action> {
  const client = conversation(input.messages);
  const current = thread.current;
  if (!current) {
    if (input.resume?.length) {
      throw how.clientHeld
        ? new HttpProblem(
            'BAD_REQUEST',
            `\`resume\` needs the thread's state: send back the state of its last STATE_SNAPSHOT (state.turnkit) with it.`,
          )
        : new HttpProblem(
            'RUN_NOT_FOUND',
            `Thread ${input.threadId} has no run to resume: start it with a user message.`,
          );
    }
    // Tool calls and results are what the run did: only the run records them, as the REST routes
    // say. A client's own would be forged history the model reads as real (an approval never given).
    const forged = client.find(
      (message) => message.role === 'tool' || (message.role === 'assistant' && message.toolCalls?.length),
    );
    if (forged) {
      throw new HttpProblem(
        'BAD_REQUEST',
        `Thread ${input.threadId} has no run yet, and its messages hold a ${forged.role === 'tool' ? 'tool result' : 'tool call'} (message ${JSON.stringify(forged.id)}): a new thread starts from user and assistant text only, since tool calls and results are recorded by the run itself. Leave them out, or answer a pending interrupt of an existing thread.`,
      );
    }
    const messages = toChatMessages(client);
    if (!messages.some((message) => message.role === 'user')) {
      throw new HttpProblem(
        'BAD_REQUEST',
        `Thread ${input.threadId} has no run yet and the request holds no user message: send one to start it.`,
      );
    }
    return { type: 'start', input: messages, context: await how.context() };
  }
  const responses = toResponses(input.resume ?? [], input.messages, {
    threadId: input.threadId,
    agent: how.agent,
    pending: current.pending,
    transcript: current.messages,
    resolvedKind: (id) => thread.resolvedKind(id),
  });
  if (responses.length > 0) return { type: 'respond', responses };
  const fresh = newUserMessages(client, current.messages);
  if (fresh.length > 0) return { type: 'send', input: fresh };
  if (current.status === 'failed' || current.status === 'aborted' || current.status === 'max_steps') {
    return { type: 'retry' };
  }
  return { type: 'read' };
}
