/**
 * Tools the model can call: `defineTool` for functions the loop runs, and the question tool made by
 * `askUserQuestion`. A tool is a plain description; running it (parsing arguments, asking for
 * approval, timeouts) is the loop's job (see `step.ts`).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Agent } from './agent.js';
import { TurnkitError } from './errors.js';
import {
  defaultQuestionDescription,
  parseQuestionInput,
  type QuestionLimits,
  questionParametersSchema,
  resolveQuestionLimits,
} from './questions/index.js';
import type { Question, ToolSpec } from './types.js';

/** What a tool's `execute` (and `needsApproval`) receives besides its input. */
export interface ToolContext<Context = unknown> {
  /** Aborted when the turn is aborted or the tool's timeout passes. */
  signal: AbortSignal;
  runId: string;
  toolCallId: string;
  /** Name of the agent running the tool. */
  agent: string;
  /** Agent names from the top agent down to this one. */
  agentPath: string[];
  /** `<runId>:<toolCallId>`: the same when an interrupted call runs again, so side effects can deduplicate. */
  idempotencyKey: string;
  /** The application's own state for this run; changes are saved in the snapshot. */
  context: Context;
}

/** `true`/a reason string (shown to the human) when the call must be approved first. */
export type ApprovalDecider<Input, Context = unknown> =
  | boolean
  | ((input: Input, ctx: ToolContext<Context>) => boolean | string | Promise<boolean | string>);

/** Definition of a function tool, as passed to {@link defineTool}. */
export interface FunctionToolConfig<Input, Output, Context = unknown> {
  name: string;
  description: string;
  /** zod schema of the input; offered to the model as JSON Schema. */
  input: z.ZodType<Input>;
  execute: (input: Input, ctx: ToolContext<Context>) => Output | Promise<Output>;
  needsApproval?: ApprovalDecider<Input, Context>;
  /** The call fails with `tool_timeout` after this long. No limit when unset. */
  timeoutMs?: number;
  /** A pending approval expires (result `approval_timeout`) this long after it was asked. */
  approvalTimeoutMs?: number;
}

/** A function tool, made by {@link defineTool}. */
export interface FunctionTool<Input = unknown, Output = unknown, Context = unknown>
  extends FunctionToolConfig<Input, Output, Context> {
  kind: 'function';
  /** The OpenAI tool spec, computed once. */
  spec: ToolSpec;
  /** Hash of the input JSON Schema; a pending call resumes only while it is unchanged. */
  schemaHash: string;
}

/** Options of {@link askUserQuestion}. */
export interface AskUserQuestionOptions {
  /** Tool name the model sees; default `AskUserQuestion`. */
  name?: string;
  /** What the model reads about the tool; the default explains when (not) to ask. */
  description?: string;
  /** Overrides of the limits (else `ASK_*` environment variables, else 4 questions, 4 options…). */
  limits?: Partial<QuestionLimits>;
  /** A pending question expires this long after it was asked. */
  timeoutMs?: number;
  /** What an expired question gives the model: a `question_timeout` error, or each question's first option. */
  onExpire?: 'timeout' | 'recommended';
}

/** The question tool, made by {@link askUserQuestion}. */
export interface QuestionTool {
  kind: 'question';
  name: string;
  description: string;
  limits: QuestionLimits;
  timeoutMs: number | undefined;
  onExpire: 'timeout' | 'recommended';
  spec: ToolSpec;
  schemaHash: string;
  /** Parses and validates the model's raw arguments. */
  parse(rawArguments: string): { ok: true; questions: Question[] } | { ok: false; message: string };
}

/**
 * A function tool of any input type. `never` (not `any`) keeps variance honest: any typed tool
 * fits, and the loop passes it only input that its own schema produced.
 */
export interface AnyFunctionTool {
  kind: 'function';
  name: string;
  description: string;
  input: z.ZodType;
  execute: (input: never, ctx: ToolContext<never>) => unknown;
  needsApproval?:
    | boolean
    | ((input: never, ctx: ToolContext<never>) => boolean | string | Promise<boolean | string>);
  timeoutMs?: number;
  approvalTimeoutMs?: number;
  spec: ToolSpec;
  schemaHash: string;
  /** Set on tools made by `agentTool`: the loop runs the child agent instead of `execute`. */
  subagent?: SubagentBinding;
  /** Set on the built-in `answer_subagent` tool. */
  builtin?: 'answer_subagent';
}

/** How a sub-agent's own questions and approvals travel (see `agentTool`). */
export type SubagentQuestionPolicy = 'bubble' | 'parent' | 'reject';

/** What ties an agent tool to its child agent. */
export interface SubagentBinding {
  agent: Agent;
  questions: SubagentQuestionPolicy;
}

/** Any tool an agent can hold. Sub-agent tools (`agentTool`) are function tools too. */
export type Tool = AnyFunctionTool | QuestionTool;

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function checkName(name: string): void {
  if (!TOOL_NAME.test(name)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `Tool name ${JSON.stringify(name)} is not allowed: use 1 to 64 letters, digits, '_' or '-' (the OpenAI rule).`,
    );
  }
}

/** A short, stable hash of a JSON Schema (key order as produced by zod, which is deterministic). */
export function hashSchema(schema: unknown): string {
  return createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 16);
}

function toJsonSchema(name: string, input: z.ZodType): Record<string, unknown> {
  try {
    const { $schema: _drop, ...schema } = z.toJSONSchema(input, { io: 'input' }) as Record<string, unknown>;
    return schema;
  } catch (error) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `Tool ${name}: its input schema cannot be expressed as JSON Schema (${(error as Error).message}). Use plain zod types (objects, strings, numbers, enums, arrays).`,
      { cause: error },
    );
  }
}

/**
 * Defines a function tool the model can call.
 *
 * @example
 * const queryInventory = defineTool({
 *   name: 'query_inventory',
 *   description: 'Find vials of a cell line in the freezer.',
 *   input: z.object({ cellLine: z.string() }),
 *   execute: async ({ cellLine }) => ({ cellLine, vials: 3 }),
 * });
 */
export function defineTool<Input, Output, Context = unknown>(
  config: FunctionToolConfig<Input, Output, Context>,
): FunctionTool<Input, Output, Context> {
  checkName(config.name);
  const parameters = toJsonSchema(config.name, config.input);
  return {
    ...config,
    kind: 'function',
    spec: { type: 'function', function: { name: config.name, description: config.description, parameters } },
    schemaHash: hashSchema(parameters),
  };
}

/**
 * The AskUserQuestion tool: the model asks the human 1–4 multiple-choice questions, and the turn
 * pauses with `needsInput` until `answerQuestion` supplies the answers.
 */
export function askUserQuestion(options: AskUserQuestionOptions = {}): QuestionTool {
  const name = options.name ?? 'AskUserQuestion';
  checkName(name);
  const limits = resolveQuestionLimits(options.limits);
  const description = options.description ?? defaultQuestionDescription(limits);
  const parameters = questionParametersSchema(limits);
  return {
    kind: 'question',
    name,
    description,
    limits,
    timeoutMs: options.timeoutMs,
    onExpire: options.onExpire ?? 'timeout',
    spec: { type: 'function', function: { name, description, parameters } },
    schemaHash: hashSchema(parameters),
    parse: (rawArguments) => parseQuestionInput(rawArguments, limits),
  };
}
