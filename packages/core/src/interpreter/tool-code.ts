/**
 * The code a function tool carries (DESIGN §18's size budget): what runs its `execute` (or
 * `resume`) once with its `ctx`, timeout and context check, and its `needsApproval` function
 * (execute.ts); what turns the `ctx.ask` a tool returned into the interaction to wait on — its
 * request checked (questions, approval, form), its `assignees`, `quorum`, `allowRequester`,
 * `remindBeforeMs` and `escalate` — and the response its `resume` then reads (DESIGN §14); who may
 * answer an approval or a question (DESIGN §20: an assignees function called with the tool's `ctx`).
 * `defineTool`, `shellAskTool`, `askUserQuestion` and `handoff` (define-tool.ts) put this module
 * under `TOOL_CODE` on every tool they make; the step reaches it through the tool, so a program without function tools bundles
 * none of it (the question schema and limits, form checks included).
 */
import { extend } from '../machine/index.js';
import { toolErrorResult } from '../results.js';
import {
  type AnyFunctionTool,
  type AskSignal,
  assigneesProblem,
  keptAskProblem,
  quorumProblem,
} from '../tools/index.js';
import type { ToolCall } from '../types.js';
import { type AskDraft, askDraft } from './ask.js';
import { resolvePolicy } from './assignees.js';
import type { Run } from './run.js';

export { askResponseFor } from './ask.js';
export { resolvePolicy } from './assignees.js';
export { decideApproval, execute } from './execute.js';

/** The code a function tool carries, as the step calls it. */
export type ToolCode = typeof import('./tool-code.js');

/**
 * The interaction a tool's `ctx.ask` comes to (its `expiresAt` from `expires`), or the
 * `tool_error` result of an ask it cannot make.
 */
export async function toolAsked(
  run: Run,
  tool: AnyFunctionTool,
  call: ToolCall,
  input: unknown,
  signal: AskSignal,
  expires: (timeoutMs: number | undefined) => string | null,
): Promise<{ draft: AskDraft } | { result: string }> {
  const made = askDraft(run, tool, call.function.arguments, signal, expires);
  return 'result' in made ? made : askPolicy(run, tool, call, input, signal.request, made);
}

/** A `ctx.ask`'s own `assignees`, `quorum` and `allowRequester`, resolved onto its interaction. */
async function askPolicy(
  run: Run,
  tool: AnyFunctionTool,
  call: ToolCall,
  input: unknown,
  request: AskSignal['request'],
  made: { draft: AskDraft },
): Promise<{ draft: AskDraft } | { result: string }> {
  const { assignees, quorum, allowRequester, remindBeforeMs, escalate } = request ?? {};
  const keep = {
    ...(remindBeforeMs !== undefined ? { remindBeforeMs } : {}),
    ...(escalate !== undefined ? { escalate } : {}),
  };
  const problems: [string, string | null][] = [
    ['', keptAskProblem(keep, made.draft.expiresAt !== null)],
    ['assignees', assignees === undefined ? null : assigneesProblem(assignees)],
    ['quorum', quorum === undefined ? null : quorumProblem(quorum)],
    [
      'allowRequester',
      allowRequester === undefined || typeof allowRequester === 'boolean' ? null : 'must be a boolean',
    ],
  ];
  const found = problems.find(([, problem]) => problem !== null);
  if (found) {
    const [field, problem] = found;
    return {
      result: toolErrorResult(
        'tool_error',
        `${tool.name} asked the user something it cannot ask: ${field ? `${field} ` : ''}${problem}`,
      ),
    };
  }
  const policy = await resolvePolicy(run, tool.name, call.id, input, {
    ...(assignees !== undefined ? { assignees } : {}),
    ...(quorum !== undefined && made.draft.kind === 'approval' ? { quorum } : {}),
    ...(allowRequester !== undefined ? { allowRequester } : {}),
    ...keep,
  });
  if ('result' in policy) return policy;
  return { draft: extend(made.draft, policy.fields) };
}
