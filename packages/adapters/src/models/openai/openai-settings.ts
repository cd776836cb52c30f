/**
 * What `request.settings` and `request.responseFormat` (DESIGN §23) become in a Chat Completions
 * request body. Only the fields that are set are sent, so a call without settings sends none.
 */
import type { ModelRequest, ModelSettings, ResponseFormat } from '@turnkit/core';

/** The body fields mapped from the request's settings and structured-output format. */
export function settingsBody(request: ModelRequest): Record<string, unknown> {
  const settings: ModelSettings = request.settings ?? {};
  const body: Record<string, unknown> = {};
  if (settings.temperature !== undefined) body.temperature = settings.temperature;
  if (settings.topP !== undefined) body.top_p = settings.topP;
  if (settings.maxOutputTokens !== undefined) body.max_completion_tokens = settings.maxOutputTokens;
  if (settings.toolChoice !== undefined) {
    const choice = settings.toolChoice;
    body.tool_choice =
      typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
  }
  // The API refuses parallel_tool_calls on a request without tools.
  if (settings.parallelToolCalls !== undefined && request.tools.length > 0) {
    body.parallel_tool_calls = settings.parallelToolCalls;
  }
  if (settings.stop !== undefined) body.stop = settings.stop;
  if (settings.seed !== undefined) body.seed = settings.seed;
  if (request.responseFormat) body.response_format = responseFormatBody(request.responseFormat);
  return { ...body, ...settings.providerOptions?.openai };
}

/**
 * `json_schema` with `strict: true` when OpenAI's strict mode can take the schema, else `strict:
 * false` with the schema as given. Strict mode constrains decoding to the schema, but the API
 * refuses (400) a schema outside its subset: every property required, `additionalProperties:
 * false`, a short list of keywords. A zod schema with an optional field or a `.min()` on a string
 * would then fail every call, so such schemas go non-strict (the model is guided, and TurnKit
 * checks the answer and sends issues back either way).
 */
function responseFormatBody(format: ResponseFormat): Record<string, unknown> {
  const strictSchema = toStrict(format.schema, true);
  return {
    type: 'json_schema',
    json_schema: strictSchema
      ? { name: format.name, schema: strictSchema, strict: true }
      : { name: format.name, schema: format.schema, strict: false },
  };
}

/** Keywords OpenAI's strict mode supports (its structured-outputs guide). */
const strictKeywords = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'description',
  'title',
  '$defs',
  '$ref',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);

/**
 * The schema in strict form, or undefined when strict mode cannot take it. Objects get
 * `additionalProperties: false`: zod's `io: 'input'` schemas leave it out, and a `z.object` drops
 * unknown keys anyway, so forbidding them changes no parsed answer.
 */
function toStrict(schema: unknown, root = false): unknown {
  if (Array.isArray(schema)) {
    const items = schema.map((item) => toStrict(item));
    return items.includes(undefined) ? undefined : items;
  }
  if (typeof schema !== 'object' || schema === null) return schema;
  const node = schema as Record<string, unknown>;
  if (root && node.type !== 'object') return undefined;
  const strict: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!strictKeywords.has(key)) return undefined;
    if (key === 'properties' || key === '$defs') {
      const entries = Object.entries(value as Record<string, unknown>).map(([name, child]) => [
        name,
        toStrict(child),
      ]);
      if (entries.some(([, child]) => child === undefined)) return undefined;
      strict[key] = Object.fromEntries(entries);
    } else if (key === 'items' || key === 'anyOf') {
      const child = toStrict(value);
      if (child === undefined) return undefined;
      strict[key] = child;
    } else {
      strict[key] = value;
    }
  }
  if (node.type === 'object' || node.properties !== undefined) {
    const names = Object.keys((node.properties as Record<string, unknown> | undefined) ?? {});
    const required = new Set((node.required as string[] | undefined) ?? []);
    if (!names.every((name) => required.has(name))) return undefined;
    if (node.additionalProperties !== undefined && node.additionalProperties !== false) return undefined;
    strict.additionalProperties = false;
  }
  return strict;
}
