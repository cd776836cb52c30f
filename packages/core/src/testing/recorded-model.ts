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
   * Whose responses to play: the top agent (default) or a sub-agent, by its path
   * (`['lead', 'researcher']`). A sub-agent called more than once replays as one conversation:
   * give such runs to `replay`, which tells the calls apart by turn.
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
  const path = (options.agentPath ?? [recording.agent]).join('/');
  const steps: ScriptedStep[] = recording.turns.flatMap((turn) =>
    turn.steps.flatMap(({ agentPath, message }) => {
      if (!message || agentPath.join('/') !== path) return [];
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
