/**
 * The demos' final answer as a typed object (issue 30, DESIGN §23): the LN2 assistants of the CLI
 * and the web demos are `defineAgent({ output: ThawPlan })`, so every final answer is JSON valid
 * against it — the scripted models write it, a real model is asked for it (`aiSdkModel` sends the
 * schema as the provider's structured-output format) and core checks it either way — and
 * `result.output` is a {@link ThawPlanValue}. Every field is required (absent values are `null` or
 * `[]`), as OpenAI's strict `json_schema` wants.
 */
import { z } from 'zod';

/** The vials thawed from one box. */
export const ThawedVials = z.object({
  cellLine: z.string().min(1).describe('The cell line thawed.'),
  box: z.string().min(1).describe('The box the vials came from, e.g. "2" or "B1".'),
  positions: z.array(z.string().min(1)).min(1).describe('The positions the vials came from.'),
  vialsLeft: z
    .number()
    .int()
    .min(0)
    .nullable()
    .describe('Vials of the line still in the freezer after the thaw, or null when not known.'),
});

/** The assistant's final answer: what it says, and what was thawed (empty when nothing was). */
export const ThawPlan = z.object({
  summary: z
    .string()
    .min(1)
    .describe('What to tell the user, in their language: what was done, or not done and why.'),
  thawed: z.array(ThawedVials).describe('The vials thawed in this turn; empty when none was.'),
  medium: z.string().nullable().describe('The medium the vials go into, or null when not chosen.'),
  followUps: z.array(z.string()).describe('Follow-up tasks recorded with the thaw; may be empty.'),
  nextSteps: z.array(z.string()).describe('What the user should do next; may be empty.'),
});

/** A parsed {@link ThawPlan}. */
export type ThawPlanValue = z.infer<typeof ThawPlan>;

/** A plan that thaws nothing: `summary` alone (the answer to a question, a refusal, a report). */
export function sayOnly(summary: string, nextSteps: string[] = []): ThawPlanValue {
  return { summary, thawed: [], medium: null, followUps: [], nextSteps };
}
