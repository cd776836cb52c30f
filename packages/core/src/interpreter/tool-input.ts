/**
 * A function tool's input: the model's raw `arguments` text parsed and validated against the tool's
 * zod schema, or the `invalid_arguments` result that tells the model what to fix.
 */
import type { z } from 'zod';
import { formatIssuePath } from '../errors.js';
import { toolErrorResult, validationMessage } from '../results.js';
import type { AnyFunctionTool } from '../tools/index.js';

/** Zod issues as the model reads them: `Error: Validation failed`, then `- path: message` lines. */
export function zodIssues(error: z.ZodError): string {
  return validationMessage(error.issues.map((issue) => `- ${formatIssuePath(issue.path)}${issue.message}`));
}

/** Validates a value against a function tool's input schema. */
export function checkToolInput(
  tool: AnyFunctionTool,
  value: unknown,
): { ok: true; input: unknown } | { ok: false; error: z.ZodError } {
  const parsed = tool.input.safeParse(value);
  return parsed.success ? { ok: true, input: parsed.data } : { ok: false, error: parsed.error };
}

/** Parses and validates a function tool's raw arguments: the input, or the error result for the model. */
export function parseToolInput(
  tool: AnyFunctionTool,
  raw: string,
): { ok: true; input: unknown } | { ok: false; result: string } {
  let json: unknown;
  try {
    json = JSON.parse(raw === '' ? '{}' : raw);
  } catch {
    return {
      ok: false,
      result: toolErrorResult(
        'invalid_arguments',
        `Error: Invalid JSON format\nThe arguments of ${tool.name} must be one JSON object matching its schema. Call it again with valid JSON.`,
      ),
    };
  }
  const checked = checkToolInput(tool, json);
  if (!checked.ok)
    return { ok: false, result: toolErrorResult('invalid_arguments', zodIssues(checked.error)) };
  return checked;
}
