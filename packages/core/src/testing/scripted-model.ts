/**
 * `scriptedModel`: a deterministic, offline model for tests and demos. It is stateless: the step it
 * plays is the number of assistant messages already in the request, so a run paused in one process
 * and resumed in another goes on with the right step. After a history compaction (DESIGN §22) the
 * request holds only the window's assistant messages: script long runs with function steps of the
 * request. A compaction request is answered by the `compaction` option, outside the script.
 */
import { ModelError } from '../errors.js';
import type {
  AssistantMessage,
  ChatMessage,
  ModelAdapter,
  ModelRequest,
  ModelUsage,
  ToolCall,
} from '../types.js';

/** One scripted tool call: `arguments` is an object (sent as JSON) or a raw string sent as is. */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments: unknown;
}

/**
 * One step of the script: the assistant's text, text and/or tool calls, or a function of the
 * request — which sees all the adapter would: the system message, `tools`, `settings` and
 * `responseFormat`, so a test can assert what reached the model.
 */
export type ScriptedStep =
  | string
  | { text?: string; toolCalls?: ScriptedToolCall[]; usage?: ModelUsage }
  | ((request: ModelRequest) => ScriptedStep | Promise<ScriptedStep>);

/** Options of {@link scriptedModel}. */
export interface ScriptedModelOptions {
  name?: string;
  /** Waits this long before answering (honouring the abort signal), to test aborts and spinners. */
  delayMs?: number;
  /**
   * What the model answers when asked to compact a long run's history (`request.purpose ===
   * 'compaction'`, DESIGN §22), outside the script: a step (its text is the summary; a function
   * gets the request). Default: `'A summary of the earlier conversation.'`
   */
  compaction?: ScriptedStep;
}

function abortError(): Error {
  const error = new Error('The model call was aborted.');
  error.name = 'AbortError';
  return error;
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** How many assistant messages a request holds: the step to play (counted, not filtered into a copy). */
function assistantMessagesIn(messages: readonly ChatMessage[]): number {
  let count = 0;
  for (let index = 0; index < messages.length; index++) if (messages[index]!.role === 'assistant') count++;
  return count;
}

/**
 * A model that plays `steps` in order, one per model call.
 *
 * @example
 * const model = scriptedModel([
 *   { toolCalls: [{ name: 'AskUserQuestion', arguments: { questions: [...] } }] },
 *   (request) => `You chose ${request.messages.at(-1)?.content}`,
 * ]);
 */
export function scriptedModel(steps: ScriptedStep[], options: ScriptedModelOptions = {}): ModelAdapter {
  return {
    name: options.name ?? 'scripted',
    async generate(request) {
      const compacting = request.purpose === 'compaction';
      const index = assistantMessagesIn(request.messages);
      if (options.delayMs) await wait(options.delayMs, request.signal);
      if (request.signal?.aborted) throw abortError();
      let step = compacting ? (options.compaction ?? 'A summary of the earlier conversation.') : steps[index];
      if (step === undefined) {
        throw new ModelError(
          `The scripted model has no step ${index + 1} (the script has ${steps.length}). Add a step for this point of the conversation.`,
        );
      }
      while (typeof step === 'function') step = await step(request);
      const { text, toolCalls, usage } =
        typeof step === 'string' ? { text: step, toolCalls: undefined, usage: undefined } : step;
      if (text && request.onDelta) {
        for (const piece of text.match(/\S+\s*|\s+/g) ?? []) request.onDelta(piece);
      }
      const message: AssistantMessage = { role: 'assistant', content: text ?? null };
      if (toolCalls && toolCalls.length > 0) {
        message.tool_calls = toolCalls.map(
          (call, position): ToolCall => ({
            id: call.id ?? `call_${index}_${position}`,
            type: 'function',
            function: {
              name: call.name,
              arguments:
                typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
            },
          }),
        );
      }
      return { message, usage: usage ?? { inputTokens: 0, outputTokens: 0 } };
    },
  };
}
