/**
 * Shows a turn as it happens, from its `onEvent` stream: a spinner while the model thinks, its text
 * as it streams in, one compact line per tool call, per handoff and per resolved interaction (an interaction
 * that timed out says so in the seed's words: "Question timed out, the agent will continue"). With
 * `--json`, every event is also written to stdout as one JSON line.
 */
import type { AgentEvent, ChatMessage, ModelAdapter, ResolutionKind } from '@turnkit/core';
import type { MessageKey } from './i18n.js';
import { planLines, readPlan } from './plan.js';
import { safeLine, safeText } from './sanitize.js';
import { AGENT_NAME } from './scenario/agent.js';
import { createSpinner } from './spinner.js';
import { truncate } from './text.js';
import type { Ui } from './ui.js';

/** Tool-call arguments by call id, so a tool line can show what was called (events carry only ids). */
export class CallLog {
  private readonly calls = new Map<string, string>();

  /** Learns the calls of a transcript (a resumed run's calls were made by another process). */
  learn(messages: ChatMessage[]): void {
    for (const message of messages) {
      if (message.role !== 'assistant') continue;
      for (const call of message.tool_calls ?? []) this.calls.set(call.id, call.function.arguments);
    }
  }

  /** An approval decided with an edited input: the tool runs with that, so its line shows that. */
  edit(toolCallId: string, input: unknown): void {
    this.calls.set(toolCallId, JSON.stringify(input));
  }

  argumentsOf(toolCallId: string): string {
    return this.calls.get(toolCallId) ?? '';
  }

  /** The model, recording the calls it makes. */
  wrap(model: ModelAdapter): ModelAdapter {
    return {
      name: model.name,
      generate: async (request) => {
        const response = await model.generate(request);
        this.learn([response.message]);
        return response;
      },
    };
  }
}

const RESOLUTION_WORDS: Record<ResolutionKind, MessageKey> = {
  answered: 'answered',
  approved: 'approved',
  rejected: 'rejected',
  cancelled: 'cancelled',
  timed_out: 'expired',
  defaulted: 'expired',
  superseded: 'superseded',
};

export interface EventPrinter {
  onEvent(event: AgentEvent): void;
  /** Whether assistant text was streamed since the last call. */
  takeStreamed(): boolean;
}

export function eventPrinter(ui: Ui, options: { json: boolean; calls: CallLog }): EventPrinter {
  const { color, t } = ui;
  const spinner = createSpinner(ui);
  let streaming = false;
  let streamed = false;
  /**
   * The text of a model call that starts as JSON: the agent's structured final answer (a thaw
   * plan), held until the call ends and then drawn as a plan, not streamed as raw JSON.
   */
  let held: string | null = null;
  let heldPath: string[] = [];
  const endText = () => {
    if (streaming) ui.print();
    streaming = false;
  };
  const line = (text: string) => {
    spinner.stop();
    endText();
    ui.print(text);
  };
  // A sub-agent's text is labelled with its path below the top agent: `Agent · storage`; after a
  // handoff (DESIGN §27) another agent plays the run, and is named too: `Agent · lab-desk`.
  const speaker = (agentPath: string[]) => {
    const named = agentPath[0] === AGENT_NAME ? agentPath.slice(1) : agentPath;
    return [t('agent'), ...named.map(safeLine)].join(named.length > 0 ? ' · ' : '');
  };
  const compact = (text: string) => truncate(safeLine(text).replace(/\s+/g, ' '), ui.width - 4);

  const onEvent = (event: AgentEvent) => {
    if (options.json) process.stdout.write(`${JSON.stringify(event)}\n`);
    switch (event.type) {
      case 'model_started':
        spinner.start(t('thinking'));
        break;
      case 'model_delta':
        if (held !== null || (!streaming && event.text.trimStart().startsWith('{'))) {
          held = (held ?? '') + event.text;
          heldPath = event.agentPath;
          break;
        }
        spinner.stop();
        if (!streaming) ui.out.write(`${color.bold(color.magenta(speaker(event.agentPath)))} › `);
        streaming = true;
        streamed = true;
        ui.out.write(safeText(event.text));
        break;
      case 'model_finished': {
        spinner.stop();
        endText();
        if (held === null) break;
        const plan = event.message.tool_calls?.length ? null : readPlan(held);
        const speakerName = speaker(heldPath);
        for (const text of plan
          ? planLines(ui, speakerName, plan)
          : [`${color.bold(color.magenta(speakerName))} › ${safeText(held)}`])
          ui.print(text);
        held = null;
        streamed = true;
        break;
      }
      case 'tool_started':
        spinner.start(t('runningTool', { tool: safeLine(event.toolName) }));
        break;
      case 'tool_finished': {
        const mark = event.ok ? color.green('✓') : color.red('✗');
        const detail = event.ok ? '' : ` · ${event.errorCode}`;
        line(
          `  ${mark} ${compact(`${event.toolName} ${options.calls.argumentsOf(event.toolCallId)}${detail}`)}`,
        );
        break;
      }
      case 'handoff':
        line(`  ${color.cyan('⇄')} ${t('handoff', { to: safeLine(event.to) })}`);
        break;
      case 'interaction_requested':
        spinner.stop();
        endText();
        break;
      case 'interaction_resolved': {
        if (event.editedInput !== undefined) options.calls.edit(event.toolCallId, event.editedInput);
        if (event.resolution === 'timed_out') {
          line(`  ${color.yellow('⧗')} ${color.yellow(t('questionTimeout'))}`);
          break;
        }
        const word = t(RESOLUTION_WORDS[event.resolution]);
        const shown =
          event.kind === 'question'
            ? event.result
            : `${word}${event.rationale ? ` (${event.rationale})` : ''}`;
        line(`  ${color.green('↳')} ${color.dim(compact(shown))}`);
        break;
      }
      case 'message_delivered':
        // Late input (DESIGN §30): `tell` from another terminal, added before this model call.
        line(`  ${color.cyan('✉')} ${color.dim(t('messageDelivered'))}`);
        break;
      case 'turn_paused':
        line(color.dim(t('paused')));
        break;
      case 'turn_completed':
      case 'turn_failed':
      case 'turn_aborted':
      case 'turn_max_steps':
        spinner.stop();
        endText();
        break;
    }
  };
  return {
    onEvent,
    takeStreamed() {
      const value = streamed;
      streamed = false;
      return value;
    },
  };
}
