/**
 * What the `aiSdkModel` unit tests send (a transcript with every message kind, a tool round trip and
 * an error result) and the provider error they throw, shared by the answer and failure suites.
 */
import { APICallError } from '@ai-sdk/provider';
import { APICallError as APICallErrorV4 } from '@ai-sdk/provider-4';
import type { ChatMessage, ToolSpec } from '@turnkit/core';
import type { SpecMajor } from './ai-sdk-mock.js';

export const tools: ToolSpec[] = [
  {
    type: 'function',
    function: {
      name: 'query_inventory',
      description: 'Count vials.',
      parameters: { type: 'object', properties: { cellLine: { type: 'string' } }, required: ['cellLine'] },
    },
  },
];

export const transcript: ChatMessage[] = [
  { role: 'system', content: 'You are an LN2 inventory assistant.' },
  { role: 'user', content: 'How many K562 and HeLa vials?' },
  {
    role: 'assistant',
    content: 'Checking both.',
    tool_calls: [
      {
        id: 'call_a',
        type: 'function',
        function: { name: 'query_inventory', arguments: '{"cellLine":"K562"}' },
      },
      { id: 'call_b', type: 'function', function: { name: 'query_inventory', arguments: '{broken' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_a', content: '{"vials":3}' },
  {
    role: 'tool',
    tool_call_id: 'call_b',
    content: '{"ok":false,"error_code":"invalid_arguments","message":"Unexpected token"}',
  },
];

/**
 * The `APICallError` a provider of the given major throws for a refused call, from that major's
 * `@ai-sdk/provider` (the adapter knows both by their `Symbol.for` marker, not by class).
 */
export function apiError(
  major: SpecMajor,
  statusCode: number,
  message: string,
  headers: Record<string, string> = {},
): Error {
  const ErrorClass = major === 3 ? APICallError : APICallErrorV4;
  return new ErrorClass({
    message,
    url: 'https://llm.internal.example/v1/chat/completions',
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    responseBody: JSON.stringify({ error: { message } }),
  });
}
