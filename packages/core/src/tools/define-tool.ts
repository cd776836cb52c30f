/**
 * `defineTool`'s checked description of a function tool (`toolFrom`; the package's `defineTool`
 * adds the machinery of its asks, interpreter/define-tool.ts): a function tool the model can call. A tool is a plain description; running it
 * (parsing arguments, asking for approval, timeouts) is the interpreter's job.
 */
import { z } from 'zod';
import { TurnkitError } from '../errors.js';
import { sha256Hex } from '../snapshot/index.js';
import type { FunctionTool, FunctionToolConfig } from './definitions.js';
import { checkKeptAsk } from './kept-asks.js';
import { checkApprovalPolicy } from './policy.js';

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Tool names follow the OpenAI rule; anything else is a `CONFIG_INVALID` programming error. */
export function checkName(name: string): void {
  if (!TOOL_NAME.test(name)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `Tool name ${JSON.stringify(name)} is not allowed: use 1 to 64 letters, digits, '_' or '-' (the OpenAI rule).`,
    );
  }
}

/** A short, stable hash of a JSON Schema (key order as produced by zod, which is deterministic). */
export function hashSchema(schema: unknown): string {
  return sha256Hex(JSON.stringify(schema)).slice(0, 16);
}

/**
 * The JSON Schema of what the model must write to pass `schema` (its input side), without the
 * `$schema` marker. `owner` names the schema in the error, e.g. "Tool x: its input schema".
 */
export function toJsonSchema(owner: string, schema: z.ZodType): Record<string, unknown> {
  try {
    const { $schema: _drop, ...json } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
    return json;
  } catch (error) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `${owner} cannot be expressed as JSON Schema (${(error as Error).message}). Use plain zod types (objects, strings, numbers, enums, arrays).`,
      { cause: error },
    );
  }
}

/** A JSON Schema offered as given (`parameters`), without its `$schema` marker. */
function given(config: { name: string; parameters?: unknown }): Record<string, unknown> {
  const schema = config.parameters;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `Tool ${config.name}: \`parameters\` must be a JSON Schema object.`,
    );
  }
  const { $schema: _drop, ...rest } = schema as Record<string, unknown>;
  return rest;
}

/**
 * A function tool from its config, checked. The package's `defineTool` (interpreter/define-tool.ts)
 * is this with the machinery of the tool's own asks (`ctx.ask`) put on it.
 */
export function toolFrom<Input, Output, Context = unknown>(
  config: FunctionToolConfig<Input, Output, Context>,
): FunctionTool<Input, Output, Context> {
  checkName(config.name);
  for (const hook of ['execute', 'resume', 'errorMessage'] as const) {
    if (config[hook] !== undefined && typeof config[hook] !== 'function') {
      throw new TurnkitError('CONFIG_INVALID', `Tool ${config.name}: \`${hook}\` must be a function.`);
    }
  }
  if (config.approval !== undefined) {
    checkApprovalPolicy(`Tool ${config.name}`, config.approval);
    checkKeptAsk(`Tool ${config.name}: approval`, config.approval, config.approvalTimeoutMs !== undefined);
  }
  const inDoubt = config.onInDoubt;
  if (inDoubt !== undefined && inDoubt !== 'retry' && inDoubt !== 'ask' && typeof inDoubt !== 'function') {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `Tool ${config.name}: \`onInDoubt\` must be 'retry', 'ask' or a function (input, ctx) => result, got ${JSON.stringify(inDoubt)}.`,
    );
  }
  const parameters =
    config.parameters === undefined
      ? toJsonSchema(`Tool ${config.name}: its input schema`, config.input)
      : given(config);
  return {
    ...config,
    kind: 'function',
    spec: { type: 'function', function: { name: config.name, description: config.description, parameters } },
    schemaHash: hashSchema(parameters),
  };
}
