/**
 * The tool-result texts the model reads. Every error result, for every tool, has one shape:
 * `{"ok":false,"error_code":"…","message":"…"}`, so a model can learn to read one format.
 */

/** Error codes a tool result can carry. */
export type ToolErrorCode =
  | 'unknown_tool'
  | 'invalid_arguments'
  | 'tool_error'
  | 'tool_timeout'
  | 'question_cancelled'
  | 'question_timeout'
  | 'question_not_alone'
  | 'interaction_pending'
  | 'approval_cancelled'
  | 'approval_timeout'
  | 'rejected_by_user'
  | 'superseded_by_user_message'
  | 'user_input_unavailable'
  /** DESIGN §21: the call's tool is gone, or its new schema refuses the call's input. */
  | 'tool_changed'
  /** DESIGN §21: a call in doubt that a human declined to run again (it may or may not have run). */
  | 'tool_in_doubt'
  /** DESIGN §27: a second handoff in one step; only the first one moves the run. */
  | 'handoff_ignored'
  /** DESIGN §26: a hook (or the person reviewing for one) refused the call, or its result. */
  | 'denied';

/** The JSON text of an error result. `extra` fields (e.g. `rationale`) follow `message`. */
export function toolErrorResult(
  code: ToolErrorCode,
  message: string,
  extra?: Record<string, unknown>,
): string {
  return JSON.stringify({ ok: false, error_code: code, message, ...extra });
}

/** Validation issues as the model reads them: `Error: Validation failed` then one `- path: message` line each. */
export function validationMessage(lines: string[]): string {
  return `Error: Validation failed\n${lines.join('\n')}`;
}

/** The `error_code` of an error result, or undefined for any other result text. */
export function errorCodeOf(result: string): string | undefined {
  if (!result.startsWith('{"ok":false')) return undefined;
  try {
    return (JSON.parse(result) as { error_code?: string }).error_code;
  } catch {
    return undefined;
  }
}
