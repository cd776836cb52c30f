/**
 * Tools that ask mid-execution (DESIGN §14): `ctx.ask(request, state)` makes an {@link AskSignal}
 * the tool returns; the step turns it into a pending interaction (a question, an approval or an
 * input form) that keeps the tool's `state`; the human's response is stored with the call, and the
 * next step runs the tool's `resume` with it. `execute` never runs twice.
 */
import { z } from 'zod';
import type { StoredInteraction } from '../machine/index.js';
import { type NormalizedAnswer, parseQuestionInput, resolveQuestionLimits } from '../questions/index.js';
import { toolErrorResult } from '../results.js';
import { contextProblem, deserializeContext, serializeChecked } from '../snapshot/index.js';
import type {
  AnsweredQuestion,
  AnyFunctionTool,
  AskRequest,
  AskResponse,
  AskSignal,
} from '../tools/index.js';
import type { Question } from '../types.js';
import { unsafeFormSchema } from './form-guard.js';
import type { Run } from './run.js';

/** Signals made by `ctx.ask`: a tool cannot fake one by returning a look-alike object. */
const signals = new WeakSet<object>();

/** What `ctx.ask` returns. */
export function askSignal(request: AskRequest, state: unknown): AskSignal {
  const signal: AskSignal = Object.freeze({ kind: 'turnkit.ask', request, state });
  signals.add(signal);
  return signal;
}

/** Whether a tool's return value is a signal made by `ctx.ask`. */
export function isAskSignal(value: unknown): value is AskSignal {
  return typeof value === 'object' && value !== null && signals.has(value);
}

/** An interaction before the step gives it an id, a path and a time. */
export type AskDraft = Omit<StoredInteraction, 'id' | 'agentPath' | 'createdAt' | 'toolCallId' | 'toolName'>;

const fail = (tool: AnyFunctionTool, problem: string) => ({
  result: toolErrorResult('tool_error', `${tool.name} asked the user something it cannot ask: ${problem}`),
});

/** The limits of the agent's question tool, or the defaults: asks follow the same rules. */
function questionLimits(run: Run) {
  for (const tool of run.agent.tools) if (tool.kind === 'question') return tool.limits;
  return resolveQuestionLimits();
}

/**
 * Turns a signal into the interaction to store, or the `tool_error` result when the request (or
 * its state) is not something TurnKit can keep: the app's bug, reported to the model like a throw.
 */
export function askDraft(
  run: Run,
  tool: AnyFunctionTool,
  rawInput: string,
  signal: AskSignal,
  expiresAt: (timeoutMs: number | undefined) => string | null,
): { draft: AskDraft } | { result: string } {
  const { request, state } = signal;
  if (typeof tool.resume !== 'function') {
    return {
      result: toolErrorResult(
        'tool_error',
        `${tool.name} asked the user (ctx.ask) but has no resume function to continue with the answer. Define resume in defineTool.`,
      ),
    };
  }
  const problem = contextProblem(state, run.agent.serializer, 'state');
  if (problem) return fail(tool, `${problem}, which a snapshot cannot keep`);
  const timeoutMs = typeof request?.timeoutMs === 'number' ? request.timeoutMs : undefined;
  // The drafts below add keys to `base` with Object.assign, not a spread (see machine/extend.ts):
  // every key here is TurnKit's own, none is `__proto__`.
  const base = {
    schemaHash: tool.schemaHash,
    expiresAt: expiresAt(timeoutMs),
    ask: { state: serializeChecked(state, run.agent.serializer) },
  };
  if (request && 'questions' in request) {
    const limits = request.limits ? resolveQuestionLimits(request.limits) : questionLimits(run);
    const parsed = parseQuestionInput(JSON.stringify({ questions: request.questions }), limits);
    if (!parsed.ok) return fail(tool, parsed.message);
    const question = { kind: 'question', questions: parsed.questions, limits, onExpire: 'timeout' } as const;
    return { draft: Object.assign({}, base, question) };
  }
  if (request && 'approval' in request && typeof request.approval?.reason === 'string') {
    const proposed =
      request.approval.input === undefined ? rawInput || '{}' : JSON.stringify(request.approval.input);
    if (proposed === undefined) return fail(tool, 'approval.input is not JSON data');
    const approval = { kind: 'approval', input: proposed, reason: request.approval.reason } as const;
    return { draft: Object.assign({}, base, approval) };
  }
  if (request && 'input' in request && typeof request.input?.message === 'string') {
    const form = request.input as { message: string; schema?: z.ZodType; jsonSchema?: unknown };
    // Checked before zod reads a given schema, and after a zod schema is converted.
    const unsafe = unsafeFormSchema(form.jsonSchema);
    const schema =
      unsafe ?? (form.jsonSchema !== undefined ? givenSchema(form.jsonSchema) : zodSchema(form.schema));
    const refused = typeof schema === 'string' ? null : unsafeFormSchema(schema);
    if (unsafe || refused)
      return fail(
        tool,
        `its form schema ${unsafe ?? refused}: refused, as checking a value could take too long`,
      );
    if (typeof schema === 'string') return fail(tool, schema);
    return {
      draft: Object.assign({}, base, { kind: 'input' as const, form: { message: form.message, schema } }),
    };
  }
  return fail(
    tool,
    'the request must be { questions }, { approval: { reason, input? } } or { input: { message, schema | jsonSchema } }',
  );
}

/**
 * A form's zod schema as JSON Schema, or why it has none. Read as the input it accepts (a field
 * with a default may be left out), but a plain `z.object` keeps the `additionalProperties: false`
 * that `z.toJSONSchema` writes for it: zod would drop an unknown key in silence, and the value is
 * checked against this JSON Schema, so the form refuses the key instead and the person sees it.
 */
function zodSchema(schema: z.ZodType | undefined): Record<string, unknown> | string {
  try {
    const { $schema: _drop, ...rest } = z.toJSONSchema(schema as z.ZodType, {
      io: 'input',
      override: ({ zodSchema, jsonSchema }) => {
        const def = zodSchema._zod.def as { type: string; catchall?: unknown };
        if (def.type === 'object' && def.catchall === undefined) jsonSchema.additionalProperties = false;
      },
    }) as Record<string, unknown>;
    return rest;
  } catch (error) {
    return `its form schema cannot be expressed as JSON Schema (${(error as Error).message})`;
  }
}

/** A form's JSON Schema kept as given, once checked usable for validating the value; or why not. */
function givenSchema(schema: unknown): Record<string, unknown> | string {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return 'its form jsonSchema is not an object';
  try {
    z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    return `its form jsonSchema cannot check a value (${(error as Error).message})`;
  }
  const { $schema: _drop, ...rest } = schema as Record<string, unknown>;
  return rest;
}

/** The answers as `resume` reads them: keyed by header. */
export function answersByHeader(
  questions: Question[],
  answers: NormalizedAnswer[],
): Record<string, AnsweredQuestion> {
  const byId = new Map(answers.map((answer) => [answer.questionId, answer]));
  const out: Record<string, AnsweredQuestion> = {};
  for (const question of questions) {
    const answer = byId.get(question.id);
    if (!answer || 'skipped' in answer) out[question.header] = { skipped: true };
    else {
      const { questionId: _id, ...rest } = answer;
      out[question.header] = rest;
    }
  }
  return out;
}

/** The response `resume` gets: the stored response (JSON text) with the state the tool asked with. */
export function askResponseFor(run: Run, interaction: StoredInteraction, stored: string): AskResponse {
  const response = JSON.parse(stored) as Omit<AskResponse, 'state'>;
  const state = deserializeContext(interaction.ask?.state ?? null, run.agent.serializer);
  return { ...response, state } as AskResponse;
}
