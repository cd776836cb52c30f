/**
 * The request bodies, as zod schemas. Bodies are strict objects: an unknown key (a typo such as
 * `answer` for `answers`) is a 400 that says so, never silently ignored. In client-held mode every
 * body about an existing run also carries the `snapshot` the previous response gave the client.
 */
import { z } from 'zod';
import { HttpProblem } from './problem.js';

/** Longest accepted rationale or cancel reason, in characters. */
const MAX_NOTE = 16_384;

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const answerKey = z.string().refine((key) => !FORBIDDEN_KEYS.has(key), 'this key is not allowed');

const questionAnswer = z.union([
  z.string(),
  z.array(z.string()),
  z.strictObject({
    selected: z.array(z.string()),
    other: z.string().optional(),
    note: z.string().optional(),
  }),
  z.strictObject({ skipped: z.literal(true) }),
]);

const answers = z.union([z.string(), z.array(questionAnswer), z.record(answerKey, questionAnswer)]);
const interactionId = z.string().min(1).max(500).optional();
const note = z.string().max(MAX_NOTE).optional();
const budgetLimit = z.number().finite().min(0).optional();

/** Builds the body schemas; `clientHeld` adds the required `snapshot`. */
export function bodySchemas(clientHeld: boolean) {
  const held = clientHeld ? { snapshot: z.string().min(1) } : {};
  return {
    start: z.strictObject({ input: z.string().min(1) }),
    answer: z.strictObject({ id: interactionId, answers, ...held }),
    approve: z.strictObject({
      id: interactionId,
      rationale: note,
      editedInput: z.unknown().optional(),
      // A hook's review (DESIGN §26): the edited subject, and an approval remembered for the run.
      edit: z.unknown().optional(),
      remember: z.literal('run').optional(),
      // A budget interaction's extension (DESIGN §20): how much to add to each limit.
      extend: z
        .strictObject({
          tokens: budgetLimit,
          costUsd: budgetLimit,
          toolCalls: budgetLimit,
          steps: budgetLimit,
        })
        .optional(),
      ...held,
    }),
    reject: z.strictObject({ id: interactionId, rationale: note, ...held }),
    cancel: z.strictObject({ id: interactionId, reason: note, ...held }),
    input: z.strictObject({
      id: interactionId,
      value: z.unknown().refine((value) => value !== undefined, 'the form value is required'),
      ...held,
    }),
    messages: z.strictObject({
      input: z.string().min(1),
      // DESIGN §30: 'queue' waits for the turn playing (or the asks waiting); store mode only.
      mode: z.enum(['supersede', 'queue']).optional(),
      messageId: z.string().min(1).max(200).optional(),
      ...held,
    }),
    retry: z.strictObject({ ...held }),
  };
}

/** The schemas of one mode. */
export type BodySchemas = ReturnType<typeof bodySchemas>;

/** What every body about an existing run may carry (the snapshot only in client-held mode). */
export interface HeldBody {
  snapshot?: string;
}

function pathText(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    text += typeof part === 'number' ? `[${part}]` : text === '' ? String(part) : `.${String(part)}`;
  }
  return text || '(body)';
}

/** Validates a parsed body; a mismatch is a 400 `BAD_REQUEST` listing every issue by path. */
export function parseBody<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: issue.path.map((part) => (typeof part === 'number' ? part : String(part))),
    message: issue.message,
  }));
  const lines = issues.map((issue) => `\n- ${pathText(issue.path)}: ${issue.message}`).join('');
  throw new HttpProblem('BAD_REQUEST', `The request body does not fit this route:${lines}`, { issues });
}
