/**
 * Structured output (DESIGN §23): a final answer checked against the agent's `output` schema —
 * the parsed value, or the feedback the model reads to try again — and the `output` of a completed
 * run read from its snapshot, parsed again with the schema the agent has now.
 */
import type { z } from 'zod';
import { SnapshotError } from '../errors.js';
import type { UserMessage } from '../types.js';
import type { Run } from './run.js';
import { zodIssues } from './tool-input.js';

/** A final answer parsed (JSON, then the schema): its value, or what was wrong, for the model. */
export function checkFinalAnswer(
  schema: z.ZodType,
  text: string,
): { ok: true; value: unknown } | { ok: false; issues: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return {
      ok: false,
      issues:
        'Error: Invalid JSON format\nThe final answer must be only a JSON value (no prose, no code fence).',
    };
  }
  const checked = schema.safeParse(json);
  return checked.success
    ? { ok: true, value: checked.data }
    : { ok: false, issues: zodIssues(checked.error) };
}

/** The message that hands a refused final answer back to the model. */
export function outputFeedback(issues: string): UserMessage {
  return {
    role: 'user',
    content: `Your final answer does not match the required output format.\n${issues}\nAnswer again with only the corrected JSON.`,
  };
}

/**
 * `TurnResult.output` of a completed run: the final text, or with an `output` schema the value the
 * loop parsed in this call — else (a run read from its snapshot) the stored text parsed again. A
 * stored answer the schema now refuses (it changed since) is `SNAPSHOT_INCOMPATIBLE`.
 */
export function completedOutput(run: Run): unknown {
  const text = run.state.context.output ?? '';
  const schema = run.agent.output;
  if (!schema) return text;
  if (run.finalOutput) return run.finalOutput.value;
  const checked = checkFinalAnswer(schema, text);
  if (checked.ok) return checked.value;
  throw new SnapshotError(
    'SNAPSHOT_INCOMPATIBLE',
    `Run ${run.runId} completed with a final answer that agent ${run.agent.name}'s output schema now refuses (it changed since):\n${checked.issues}\nGive the agent a new version and convert stored answers in its migrate, or send the next message (the answer stays in the transcript).`,
  );
}
