/**
 * `recordedModel` (DESIGN §28): the scripted model of the demos and tests made from a recording, so
 * a bug report is a file — the run's model responses, played in order.
 */
import type { ModelAdapter } from '../types.js';
import type { Recording } from './recording-format.js';
import { type ScriptedStep, scriptedModel } from './scripted-model.js';

/** Options of {@link recordedModel}. */
export interface RecordedModelOptions {
  /**
   * Whose responses to play: the conversation (default: every step of the top agent and of each
   * agent it handed the run to, DESIGN §27 — give the same model to every agent of the handoff
   * graph), or one agent by its path (`['lead', 'researcher']` for a sub-agent). A sub-agent called
   * more than once replays as one conversation: give such runs to `replay`, which tells the calls
   * apart by turn.
   */
  agentPath?: string[];
}

/**
 * A {@link scriptedModel} that plays a recording's model responses (text and tool calls, with their
 * recorded ids) for one agent, in order. Like every scripted model it is stateless: the step it
 * plays is the number of assistant messages in the request, so a run paused in one process goes on
 * in another. Failed model calls of the recording are not played again.
 *
 * @example
 * const agent = defineAgent({ ...demoAgentConfig, model: recordedModel(recording) });
 */
export function recordedModel(recording: Recording, options: RecordedModelOptions = {}): ModelAdapter {
  const path = options.agentPath?.join('/');
  // The transcript is shared across a handoff, so the scripted step (its assistant messages) counts every agent's.
  const played = (agentPath: string[]) =>
    path === undefined ? agentPath.length === 1 : agentPath.join('/') === path;
  const steps: ScriptedStep[] = recording.turns.flatMap((turn) =>
    turn.steps.flatMap(({ agentPath, message }) => {
      if (!message || !played(agentPath)) return [];
      const toolCalls = (message.tool_calls ?? []).map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      }));
      return [
        {
          ...(message.content !== null ? { text: message.content } : {}),
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
        },
      ];
    }),
  );
  return scriptedModel(steps, { name: `recorded(${recording.agent})` });
}
