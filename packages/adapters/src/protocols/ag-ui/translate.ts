/**
 * TurnKit's turn as AG-UI events, in the order things happen. The top agent's text streams live
 * (`TEXT_MESSAGE_START/CONTENT/END` from `model_delta`, one message per model call). Just before
 * each model call, and when the turn ends, the transcript messages written since are announced:
 * text a model did not stream, each tool call (`TOOL_CALL_START/ARGS/END`, under its assistant
 * message) and each result (`TOOL_CALL_RESULT`). The run ends with `MESSAGES_SNAPSHOT` (the whole
 * transcript, ids stable across runs), `STATE_SNAPSHOT` in client-held mode, and one
 * `RUN_FINISHED` or `RUN_ERROR`: completed → success with the output as `result`; paused →
 * `interrupt`; aborted → `cancelled`; failed or out of steps → `RUN_ERROR` with the code. A
 * sub-agent's own text is not streamed: it is not part of the parent's transcript. Which agent
 * plays (DESIGN §27) is a `CUSTOM` `turnkit.active_agent` event at each handoff, and before the
 * end of a run its root does not play.
 */
import type { AgentEvent, AnyAgent, ChatMessage, TurnResult } from '@turnkit/core';
import {
  ACTIVE_AGENT_EVENT,
  type AgUiEvent,
  type AgUiMessage,
  type AgUiUsage,
  INTERRUPT_EXPIRED_EVENT,
} from './events.js';
import { toInterrupt } from './interrupts.js';
import { type ConversationMessage, messageIds, toAgUiMessage } from './messages.js';

/** What the end of a run needs besides the result. */
export interface Ending {
  agent: AnyAgent;
  /** Send `MESSAGES_SNAPSHOT` (the handler's `messages` option). */
  messages: boolean;
  /** Client-held mode: the `STATE_SNAPSHOT` to send (it carries the new snapshot). */
  state?: Record<string, unknown>;
}

/** Options of {@link createTranslator}. */
export interface TranslatorOptions {
  threadId: string;
  runId: string;
  /** The client's conversation: its ids are kept where its messages match the transcript's. */
  client: readonly ConversationMessage[];
  /** Where every AG-UI event goes, in order. */
  write(event: AgUiEvent): void;
}

/** Turns one run into AG-UI events. */
export interface Translator {
  /** Transcript messages before `position` were there before the run: they are not announced. */
  startAt(position: number): void;
  /** Takes every event of the turn as it happens. */
  onAgentEvent(event: AgentEvent): void;
  /** Called with the transcript just before each model call of the top agent. */
  beforeModel(transcript: readonly ChatMessage[]): void;
  /** Ends the run from the turn's result. */
  finish(result: TurnResult<unknown>, ending: Ending): void;
  /** Ends the run with `RUN_ERROR` (the turn threw once the stream was open). */
  fail(code: string, message: string): void;
}

function usageOf(result: TurnResult<unknown>): { usage?: AgUiUsage[] } {
  const { modelCalls, inputTokens, outputTokens } = result.usage;
  if (modelCalls === 0) return {};
  return { usage: [{ inputTokens, outputTokens, totalTokens: inputTokens + outputTokens }] };
}

/** The event that ends a run, from its result. */
function ending(
  result: TurnResult<unknown>,
  agent: AnyAgent,
  run: { threadId: string; runId: string },
): AgUiEvent {
  const usage = usageOf(result);
  switch (result.status) {
    case 'completed':
      return {
        type: 'RUN_FINISHED',
        ...run,
        outcome: { type: 'success' },
        ...(result.output !== null ? { result: result.output } : {}),
        ...usage,
      };
    case 'needs_input': {
      const interrupts = result.pending.map((interaction) => toInterrupt(interaction, agent));
      return { type: 'RUN_FINISHED', ...run, outcome: { type: 'interrupt', interrupts }, ...usage };
    }
    case 'aborted':
      return { type: 'RUN_FINISHED', ...run, outcome: { type: 'cancelled' }, ...usage };
    case 'max_steps':
      return {
        type: 'RUN_ERROR',
        code: 'MAX_STEPS',
        message: `The agent used all ${agent.maxSteps} model calls of this run without finishing. Run the agent again to let it go on.`,
        ...usage,
      };
    case 'running':
      return {
        type: 'RUN_ERROR',
        code: 'CONFLICT',
        message: `Another request is still working on thread ${run.threadId}. Run the agent again once it is done to read the thread.`,
      };
    default:
      return {
        type: 'RUN_ERROR',
        code: result.error?.code ?? 'MODEL_ERROR',
        message: result.error?.message ?? 'The run failed. Run the agent again to retry it.',
        ...usage,
      };
  }
}

/** Creates the translator of one run. */
export function createTranslator(options: TranslatorOptions): Translator {
  const { write } = options;
  const run = { threadId: options.threadId, runId: options.runId };
  const ids = messageIds(options.client);
  /** Transcript messages before this position are announced (or were there before the run). */
  let announced = 0;
  /** Where the model call under way writes its message. */
  let next = 0;
  /** The message whose text is streaming now, if any. */
  let streaming: string | null = null;
  /** Positions whose text already streamed. */
  const streamed = new Set<number>();

  function closeText(): void {
    if (streaming !== null) write({ type: 'TEXT_MESSAGE_END', messageId: streaming });
    streaming = null;
  }

  function announce(message: ChatMessage, position: number): void {
    const messageId = ids.at(position, message);
    if (message.role === 'tool') {
      const { tool_call_id: toolCallId, content } = message;
      write({ type: 'TOOL_CALL_RESULT', messageId, toolCallId, content, role: 'tool' });
    }
    if (message.role !== 'assistant') return;
    if (message.content && !streamed.has(position)) {
      write({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' });
      write({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: message.content });
      write({ type: 'TEXT_MESSAGE_END', messageId });
    }
    for (const call of message.tool_calls ?? []) {
      const toolCallId = call.id;
      write({
        type: 'TOOL_CALL_START',
        toolCallId,
        toolCallName: call.function.name,
        parentMessageId: messageId,
      });
      if (call.function.arguments !== '')
        write({ type: 'TOOL_CALL_ARGS', toolCallId, delta: call.function.arguments });
      write({ type: 'TOOL_CALL_END', toolCallId });
    }
  }

  function announceUpTo(transcript: readonly ChatMessage[]): void {
    for (; announced < transcript.length; announced++) announce(transcript[announced]!, announced);
  }

  return {
    startAt(position) {
      announced = position;
    },
    onAgentEvent(event) {
      if (event.type === 'interaction_resolved') {
        if (event.resolution === 'timed_out' || event.resolution === 'defaulted') {
          const value = { interruptId: event.interactionId, resolution: event.resolution };
          write({ type: 'CUSTOM', name: INTERRUPT_EXPIRED_EVENT, value });
        }
      } else if (event.type === 'handoff') {
        closeText();
        write({ type: 'CUSTOM', name: ACTIVE_AGENT_EVENT, value: { agent: event.to, from: event.from } });
      } else if (event.agentPath.length === 1 && event.type === 'model_delta' && event.text !== '') {
        if (streaming === null) {
          streaming = ids.fresh(next);
          streamed.add(next);
          write({ type: 'TEXT_MESSAGE_START', messageId: streaming, role: 'assistant' });
        }
        write({ type: 'TEXT_MESSAGE_CONTENT', messageId: streaming, delta: event.text });
      } else if (event.agentPath.length === 1 && event.type === 'model_finished') {
        closeText();
      }
    },
    beforeModel(transcript) {
      closeText();
      announceUpTo(transcript);
      next = transcript.length;
    },
    finish(result, how) {
      closeText();
      announced = Math.min(announced, result.messages.length);
      announceUpTo(result.messages);
      if (how.messages) {
        const messages = result.messages
          .map((message, position) => toAgUiMessage(message, ids.at(position, message)))
          .filter((message): message is AgUiMessage => message !== null);
        write({ type: 'MESSAGES_SNAPSHOT', messages });
      }
      if (how.state) write({ type: 'STATE_SNAPSHOT', snapshot: how.state });
      // A run played by another agent than its root says so before it ends (runs without handoffs keep their events).
      if (result.activeAgent !== how.agent.name) {
        write({ type: 'CUSTOM', name: ACTIVE_AGENT_EVENT, value: { agent: result.activeAgent } });
      }
      write(ending(result, how.agent, run));
    },
    fail(code, message) {
      closeText();
      write({ type: 'RUN_ERROR', code, message });
    },
  };
}
