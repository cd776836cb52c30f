/**
 * The request body: AG-UI's `RunAgentInput` (protocol 1.0), checked with zod before anything runs,
 * so a malformed body is a 400 problem that lists every issue by path, never a 500. Objects are
 * loose, as in AG-UI's own schemas: a client may add fields (the handler ignores them). `threadId`
 * names the run, so it must be usable as a run id in every store.
 */
import { z } from 'zod';
import { parseBody } from '../../http/index.js';
import { isSafeRunId } from '../../stores/index.js';

const content = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
]);

const toolCall = z.looseObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
});

const message = z.discriminatedUnion('role', [
  z.looseObject({ id: z.string(), role: z.literal('user'), content }),
  z.looseObject({
    id: z.string(),
    role: z.literal('assistant'),
    content: z.string().nullish(),
    toolCalls: z.array(toolCall).optional(),
  }),
  z.looseObject({ id: z.string(), role: z.literal('tool'), toolCallId: z.string().min(1), content }),
  // Roles TurnKit does not keep: the agent's `instructions` are its system message, and activity
  // and reasoning messages belong to the front end.
  z.looseObject({ id: z.string(), role: z.enum(['system', 'developer', 'activity', 'reasoning']) }),
]);

const resumeEntry = z.looseObject({
  interruptId: z.string().min(1).max(500),
  status: z.enum(['resolved', 'cancelled']),
  payload: z.unknown().optional(),
});

const runAgentInput = z.looseObject({
  threadId: z
    .string()
    .refine(
      isSafeRunId,
      'the thread id names the run: use 1-200 characters from A-Z a-z 0-9 _ - . that do not start with a dot and contain no ".."',
    ),
  runId: z.string().min(1).max(500),
  state: z.unknown().optional(),
  messages: z.array(message),
  tools: z.array(z.unknown()).optional(),
  context: z.array(z.unknown()).optional(),
  forwardedProps: z.unknown().optional(),
  resume: z
    .array(resumeEntry)
    .optional()
    .superRefine((entries, ctx) => {
      const seen = new Set<string>();
      entries?.forEach((entry, index) => {
        if (seen.has(entry.interruptId)) {
          ctx.addIssue({
            code: 'custom',
            path: [index, 'interruptId'],
            message: `interrupt ${entry.interruptId} is answered twice: send one entry per interrupt`,
          });
        }
        seen.add(entry.interruptId);
      });
    }),
});

/** A `RunAgentInput` as the handler reads it. */
export type RunAgentInput = z.output<typeof runAgentInput>;

/** One message of a `RunAgentInput`. */
export type InputMessage = RunAgentInput['messages'][number];

/** One `resume` entry: the answer to one interrupt. */
export type ResumeEntry = NonNullable<RunAgentInput['resume']>[number];

/** Validates a parsed body as a `RunAgentInput`; a mismatch is a 400 `BAD_REQUEST` listing the issues. */
export function parseRunAgentInput(body: unknown): RunAgentInput {
  return parseBody(runAgentInput, body);
}
