/**
 * The translations `aiSdkModel` makes on every call: TurnKit's transcript (OpenAI chat format) and
 * tool specs into a provider-spec prompt and tools (the same in spec v3 and v4 for the parts TurnKit
 * sends), and a result back into an OpenAI-style assistant message. Tool-call ids cross both ways unchanged, so a tool result written in one
 * process is matched to its call in another.
 */
import type {
  AssistantMessage,
  ChatMessage,
  ModelResponse,
  ModelUsage,
  ToolCall,
  ToolSpec,
} from '@turnkit/core';
import type {
  JsonSchema,
  SpecContent,
  SpecFunctionTool,
  SpecMessage,
  SpecToolResultOutput,
  SpecUsage,
} from './model-spec.js';

/** Every error result TurnKit gives a model starts so (DESIGN §6): providers may flag it as an error. */
const ERROR_RESULT_PREFIX = '{"ok":false,';

/**
 * The transcript as a prompt: user text as a text part, an assistant's calls as `tool-call` parts
 * (arguments parsed), consecutive tool messages as one `tool` message whose results carry the name
 * of the call they answer.
 */
export function toPrompt(messages: readonly ChatMessage[]): SpecMessage[] {
  const prompt: SpecMessage[] = [];
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'system') prompt.push({ role: 'system', content: message.content });
    else if (message.role === 'user') {
      prompt.push({ role: 'user', content: [{ type: 'text', text: message.content }] });
    } else if (message.role === 'assistant') {
      const converted = assistantMessage(message, toolNames);
      if (converted) prompt.push(converted);
    } else {
      const part = {
        type: 'tool-result' as const,
        toolCallId: message.tool_call_id,
        toolName: toolNames.get(message.tool_call_id) ?? 'unknown',
        output: toolOutput(message.content),
      };
      const last = prompt.at(-1);
      if (last?.role === 'tool') last.content.push(part);
      else prompt.push({ role: 'tool', content: [part] });
    }
  }
  return prompt;
}

/** An assistant message's text and calls as parts; one with neither is left out (providers refuse it). */
function assistantMessage(
  message: AssistantMessage,
  toolNames: Map<string, string>,
): SpecMessage | undefined {
  const content: Extract<SpecMessage, { role: 'assistant' }>['content'] = [];
  if (message.content) content.push({ type: 'text', text: message.content });
  for (const call of message.tool_calls ?? []) {
    toolNames.set(call.id, call.function.name);
    content.push({
      type: 'tool-call',
      toolCallId: call.id,
      toolName: call.function.name,
      input: parseArguments(call.function.arguments),
    });
  }
  return content.length > 0 ? { role: 'assistant', content } : undefined;
}

/**
 * A prompt's tool-call input is an object. Arguments that are not a JSON object (a model's broken
 * JSON) are sent as `{}`: the call's `invalid_arguments` result already tells the model what was wrong,
 * and providers such as Anthropic refuse anything but an object.
 */
function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** A tool message's text, exactly as written; error results as `error-text` (Anthropic's `is_error`). */
function toolOutput(content: string): SpecToolResultOutput {
  return content.startsWith(ERROR_RESULT_PREFIX)
    ? { type: 'error-text', value: content }
    : { type: 'text', value: content };
}

/** OpenAI-shaped tool specs as function tools. */
export function toTools(specs: readonly ToolSpec[]): SpecFunctionTool[] {
  return specs.map((spec) => ({
    type: 'function',
    name: spec.function.name,
    description: spec.function.description,
    inputSchema: spec.function.parameters as JsonSchema,
  }));
}

/** A tool call's `input` is JSON text (both specs); a provider that sends an object gets it serialized. */
export function argumentsText(input: unknown): string {
  return typeof input === 'string' ? input : (JSON.stringify(input ?? {}) ?? '{}');
}

/** A call in the OpenAI shape, its id as the provider gave it. */
export function toolCall(id: string, name: string, input: unknown): ToolCall {
  return { id, type: 'function', function: { name, arguments: argumentsText(input) } };
}

/**
 * The text and the calls of a generated result: text parts joined, the model's own function calls
 * kept with their ids; reasoning, sources, files and calls the provider executed itself are not part
 * of an OpenAI-format transcript and are left out.
 */
export function fromContent(content: readonly SpecContent[]): {
  text: string;
  toolCalls: ToolCall[];
} {
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const part of content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'tool-call' && !part.providerExecuted) {
      toolCalls.push(toolCall(part.toolCallId, part.toolName, part.input));
    }
  }
  return { text, toolCalls };
}

/** The specs' nested usage as TurnKit's; none when the provider reported no totals (e.g. a stream without usage). */
export function toUsage(usage: SpecUsage | undefined): ModelUsage | undefined {
  const input = usage?.inputTokens?.total;
  const output = usage?.outputTokens?.total;
  if (input === undefined && output === undefined) return undefined;
  return { inputTokens: input ?? 0, outputTokens: output ?? 0 };
}

/** The assistant message: content `null` beside calls and no text, as in the OpenAI format. */
export function toResponse(
  text: string,
  toolCalls: ToolCall[],
  usage: ModelUsage | undefined,
): ModelResponse {
  const message: AssistantMessage = {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
  return usage ? { message, usage } : { message };
}
