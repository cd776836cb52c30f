/**
 * Reads a provider-spec stream (`doStream`, v3 or v4) into one assistant message: text deltas go to
 * `onDelta` as they arrive, tool calls are taken from their `tool-call` parts (or assembled from
 * their input deltas when a provider sends no final part), usage from `finish`. An `error` part, a
 * stream that ends without `finish`, or a v4 `finish` marked `interrupted` (the provider saw the
 * stream end without a completion signal) is a failure; an abort cancels the stream at once.
 */
import type { ModelResponse, ToolCall } from '@turnkit/core';
import { argumentsText, toolCall, toResponse, toUsage } from './model-convert.js';
import type { SpecStreamPart, SpecUsage } from './model-spec.js';

/** An `error` part of the stream: what the provider reported, raw (often `{ type, message }`). */
export class StreamPartError extends Error {
  override name = 'StreamPartError';
  constructor(readonly error: unknown) {
    super('the provider reported an error in the stream');
  }
}

/**
 * A stream that ended with no `finish` part and no error, or whose v4 `finish` says `interrupted`:
 * the connection was cut, and the answer may be missing its end.
 */
export class StreamEndedError extends Error {
  override name = 'StreamEndedError';
  constructor() {
    super('the stream ended before its finish part');
  }
}

/** Whether text has reached `onDelta`: a failure after that must not be retried (the text would repeat). */
export interface StreamProgress {
  emitted: boolean;
}

interface PartialCall {
  name: string;
  input: string;
  /** The call's `tool-call` part came: its input is whole. */
  done: boolean;
}

/** Reads the stream to its `finish`, or throws; an aborted `signal` cancels it (the caller throws the abort). */
export async function readStream(
  stream: ReadableStream<SpecStreamPart>,
  onDelta: ((text: string) => void) | undefined,
  signal: AbortSignal | undefined,
  progress: StreamProgress,
): Promise<ModelResponse> {
  const reader = stream.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', cancel, { once: true });
  let text = '';
  let usage: SpecUsage | undefined;
  let finished = false;
  // Ordered by first appearance, as the model wrote them.
  const calls = new Map<string, PartialCall>();
  try {
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done || signal?.aborted) break;
      switch (part.type) {
        case 'text-delta':
          if (part.delta === '') break;
          text += part.delta;
          progress.emitted = true;
          onDelta?.(part.delta);
          break;
        case 'tool-input-start':
          if (!part.providerExecuted) calls.set(part.id, { name: part.toolName, input: '', done: false });
          break;
        case 'tool-input-delta': {
          const call = calls.get(part.id);
          if (call && !call.done) call.input += part.delta;
          break;
        }
        case 'tool-call':
          if (part.providerExecuted) break;
          calls.set(part.toolCallId, {
            name: part.toolName,
            input: argumentsText(part.input),
            done: true,
          });
          break;
        case 'finish':
          // AI SDK 7 providers end a cut stream with this finish; AI SDK 6 ones say `other`, which
          // cannot be told from a whole answer.
          if (part.finishReason?.unified === 'interrupted') throw new StreamEndedError();
          usage = part.usage;
          finished = true;
          break;
        case 'error':
          throw new StreamPartError(part.error);
      }
    }
  } catch (error) {
    cancel();
    throw error;
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
  if (signal?.aborted) return toResponse(text, [], undefined);
  if (!finished) throw new StreamEndedError();
  const toolCalls: ToolCall[] = [...calls].map(([id, call]) => toolCall(id, call.name, call.input));
  return toResponse(text, toolCalls, toUsage(usage));
}
