/**
 * The slice of the AI SDK provider spec that `aiSdkModel` speaks, written out here instead of
 * imported: spec v3 (AI SDK 6, `@ai-sdk/provider@3`) and spec v4 (AI SDK 7, `@ai-sdk/provider@4`)
 * agree on every field TurnKit sends and reads, but `@ai-sdk/provider@3` exports no v4 type and a
 * user has only one of the two installed. The published declarations therefore name none of the
 * spec's types; the adapters' type tests (`ai-sdk-model-types.test.ts`) check that what is sent here
 * is a prompt of both specs and that both specs' results and stream parts fit what is read here.
 */
import { TurnkitError } from '@turnkit/core';

/**
 * An AI SDK provider language model: anything `openai('gpt-4.1-mini')`, `anthropic('claude-…')` or
 * `createOpenAICompatible(…).chatModel(…)` returns, from the AI SDK 6 line (`LanguageModelV3`,
 * `@ai-sdk/openai@3`, `@ai-sdk/anthropic@3`, `@ai-sdk/openai-compatible@2`) or the AI SDK 7 line
 * (`LanguageModelV4`, `@ai-sdk/openai@4`, `@ai-sdk/anthropic@4`), and the `MockLanguageModelV3` /
 * `MockLanguageModelV4` of `ai/test`.
 *
 * Structural on purpose: it names no type of `@ai-sdk/provider`, so it type-checks whichever major
 * is installed. The methods' options are typed `never` because each major types its call options
 * its own way; `aiSdkModel` calls them with options valid in both specs.
 */
export interface AiSdkLanguageModel {
  /** The provider spec the model implements: `'v3'` (AI SDK 6) or `'v4'` (AI SDK 7). */
  readonly specificationVersion: 'v3' | 'v4';
  /** The provider id, e.g. `openai.chat` or `anthropic.messages`. */
  readonly provider: string;
  /** The provider's model id, e.g. `gpt-4.1-mini`. */
  readonly modelId: string;
  /** Generates a whole answer (`doGenerate` of the spec). */
  doGenerate(options: never): PromiseLike<unknown>;
  /** Streams an answer (`doStream` of the spec). */
  doStream(options: never): PromiseLike<unknown>;
}

/** A JSON Schema, as tools' `inputSchema` and `responseFormat.schema` carry it. */
export type JsonSchema = Record<string, unknown>;

/** How the model may pick a tool; the same in spec v3 and v4. */
export type AiSdkToolChoice =
  | { type: 'auto' }
  | { type: 'none' }
  | { type: 'required' }
  | { type: 'tool'; toolName: string };

/** Provider-specific options, per provider key (`{ openai: { user: 'lab-7' } }`). */
export type AiSdkProviderOptions = Record<string, Record<string, unknown>>;

/** What a tool result says, as TurnKit sends it: its text, flagged as an error or not. */
export type SpecToolResultOutput = { type: 'text'; value: string } | { type: 'error-text'; value: string };

/** A prompt message of the kinds TurnKit sends: a subset of both specs' messages. */
export type SpecMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: Array<{ type: 'text'; text: string }> }
  | {
      role: 'assistant';
      content: Array<
        | { type: 'text'; text: string }
        | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
      >;
    }
  | {
      role: 'tool';
      content: Array<{
        type: 'tool-result';
        toolCallId: string;
        toolName: string;
        output: SpecToolResultOutput;
      }>;
    };

/** A function tool, as both specs take it. */
export interface SpecFunctionTool {
  type: 'function';
  name: string;
  description?: string;
  inputSchema: JsonSchema;
}

/** The call options TurnKit sends (`doGenerate` / `doStream`). */
export interface SpecCallOptions {
  prompt: SpecMessage[];
  tools?: SpecFunctionTool[];
  toolChoice?: AiSdkToolChoice;
  maxOutputTokens?: number;
  temperature?: number;
  stopSequences?: string[];
  topP?: number;
  topK?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  seed?: number;
  responseFormat?:
    | { type: 'text' }
    | { type: 'json'; schema?: JsonSchema; name?: string; description?: string };
  headers?: Record<string, string | undefined>;
  providerOptions?: AiSdkProviderOptions;
  /** Spec v4 only. */
  reasoning?: string;
  abortSignal?: AbortSignal;
}

/** Token counts as both specs report them (nested totals); any of them may be missing. */
export interface SpecUsage {
  inputTokens: { total?: number | undefined };
  outputTokens: { total?: number | undefined };
}

/**
 * Why the model stopped. Spec v4 adds `interrupted`: the provider's stream ended without a
 * completion signal, so the answer may be cut short.
 */
export interface SpecFinishReason {
  unified: string;
}

/**
 * The parts of a generated answer that are read: text and tool calls. Others (reasoning, files,
 * sources, custom parts) arrive too and are skipped, so they are left out of the type.
 */
export type SpecContent =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: string; providerExecuted?: boolean };

/** What `doGenerate` answers. */
export interface SpecGenerateResult {
  content: readonly SpecContent[];
  usage?: SpecUsage;
  /** Spec v4: the text to parse as structured output when it is not all the text parts (drafts, then a final answer). */
  structuredOutputText?: string;
}

/**
 * The parts of `doStream`'s stream that `readStream` acts on. Others (`stream-start`, `text-start`,
 * reasoning, v4's `ping` and `custom`…) arrive too and are skipped, so they are left out of the type.
 */
export type SpecStreamPart =
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'tool-input-start'; id: string; toolName: string; providerExecuted?: boolean }
  | { type: 'tool-input-delta'; id: string; delta: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: string; providerExecuted?: boolean }
  | { type: 'finish'; usage: SpecUsage; finishReason: SpecFinishReason }
  | { type: 'error'; error: unknown };

/** The model as the adapter calls it, once its spec version is checked. */
export interface SpecModel {
  readonly specificationVersion: 'v3' | 'v4';
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: SpecCallOptions): PromiseLike<SpecGenerateResult>;
  doStream(options: SpecCallOptions): PromiseLike<{ stream: ReadableStream<SpecStreamPart> }>;
}

const SUPPORTED_SPECS: readonly unknown[] = ['v3', 'v4'];

/**
 * The model, checked: a provider model of spec v3 or v4 with both methods. Anything else — a spec
 * v2 model of the AI SDK 5 line, a gateway model id string, nothing — is a `CONFIG_INVALID` that
 * says which lines are supported.
 */
export function specModel(languageModel: unknown): SpecModel {
  const model = (typeof languageModel === 'object' && languageModel !== null ? languageModel : {}) as Record<
    string,
    unknown
  >;
  const spec = model.specificationVersion;
  if (
    SUPPORTED_SPECS.includes(spec) &&
    typeof model.doGenerate === 'function' &&
    typeof model.doStream === 'function'
  ) {
    return languageModel as SpecModel;
  }
  throw new TurnkitError(
    'CONFIG_INVALID',
    `aiSdkModel needs an AI SDK provider model of provider spec v3 (AI SDK 6) or v4 (AI SDK 7), got ${describe(languageModel, spec)}. ` +
      'Pass a model of a supported line, e.g. openai("gpt-4.1-mini") of @ai-sdk/openai@4 or @3, anthropic(…) of ' +
      '@ai-sdk/anthropic@4 or @3, or a model of @ai-sdk/openai-compatible@2; models of the AI SDK 5 line (spec v2) are ' +
      'not supported.',
  );
}

function describe(languageModel: unknown, spec: unknown): string {
  if (languageModel === undefined || languageModel === null) return 'no model';
  if (typeof languageModel === 'string') {
    return `the string "${languageModel}" (a gateway model id: aiSdkModel takes the provider's model object)`;
  }
  if (spec === undefined) return 'an object with no specificationVersion';
  return SUPPORTED_SPECS.includes(spec)
    ? `a spec ${String(spec)} model without doGenerate/doStream`
    : `spec ${String(spec)}`;
}
