/**
 * One response on one pending interaction → its resolution (DESIGN §6, §14): the result the model
 * reads (answers, a rejection, a cancellation, a timeout), the input an approved call runs with,
 * or — for a tool's own `ctx.ask` — the response its `resume` gets. Validates before anything
 * changes: a wrong kind is `WRONG_KIND`, an invalid answer, edit or form value `ANSWER_INVALID`.
 */
import { z } from 'zod';
import { AnswerError, type AnswerIssue, StateError } from '../errors.js';
import { inputKey, rememberKey, TOOL_APPROVAL } from '../hooks/index.js';
import type { Resolution, ResolvedRecord, StoredInteraction } from '../machine/index.js';
import {
  controlCharacterIssues,
  formatAnswersResult,
  formatDefaultedResult,
  normalizeAnswers,
} from '../questions/index.js';
import { toolErrorResult } from '../results.js';
import { budgetProblems } from '../tools/index.js';
import type { ApprovalRecord, BudgetLimits, InteractionResponse, ResolutionKind } from '../types.js';
import { answersByHeader } from './ask.js';
import { unsafeFormSchema } from './form-guard.js';
import { hooksFor } from './hook-runtime.js';
import type { Run } from './run.js';
import { checkToolInput } from './tool-input.js';

/** The key of a tool's approval given with `remember: 'run'`, or nothing. */
function rememberedApproval(
  run: Run,
  interaction: StoredInteraction,
  response: ResponseInput,
  asked: boolean,
): { remember?: string } {
  if (response.type !== 'approve' || response.remember === undefined) return {};
  const remember = response.remember;
  if (remember !== 'run' || asked) {
    throw new AnswerError(
      [{ path: ['remember'], message: asked ? "A tool's own ask cannot be remembered" : "Must be 'run'" }],
      'The approval',
    );
  }
  const tool = run.agent.toolIndex.get(interaction.toolName);
  const rememberBy = tool?.kind === 'function' ? tool.approval?.rememberBy : undefined;
  const input = JSON.parse(
    response.editedInput !== undefined ? JSON.stringify(response.editedInput) : (interaction.input ?? '{}'),
  ) as unknown;
  return {
    remember: rememberKey(
      TOOL_APPROVAL,
      interaction.toolName,
      inputKey(rememberBy as ((input: unknown) => string) | undefined, input),
    ),
  };
}

/** A response whose `id` may be left out when exactly one interaction is pending. */
export type ResponseInput = InteractionResponse extends infer R
  ? R extends InteractionResponse
    ? Omit<R, 'id'> & { id?: string }
    : never
  : never;

const pathPart = (part: PropertyKey): string | number => (typeof part === 'number' ? part : String(part));

/** JSON text of a value from outside; a value with no JSON form is an `AnswerError` at `field`. */
function jsonOf(value: unknown, field: string, subject: string): string {
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return text;
  } catch {
    // Circular, or holds a bigint: reported below like any other invalid input.
  }
  throw new AnswerError(
    [{ path: [field], message: 'Must be JSON data (not circular, no bigint or function)' }],
    subject,
  );
}

const HOW_TO: Record<StoredInteraction['kind'], string> = {
  question: 'answer it with answerQuestion',
  approval: 'decide it with approve or reject',
  input: 'fill it in with provideInput',
  budget: 'decide it with approve (with `extend` to raise the limits) or reject',
  in_doubt: 'decide it with approve (run it again), reject, or provideInput (the result to record)',
  review: 'decide it with approve (optionally with `edit`) or reject',
};

function wrongKind(interaction: StoredInteraction, type: string): StateError {
  return new StateError(
    'WRONG_KIND',
    `Interaction ${interaction.id} is a${interaction.kind === 'input' || interaction.kind === 'approval' ? 'n' : ''} ${interaction.kind}; it cannot take '${type}': ${HOW_TO[interaction.kind]}.`,
  );
}

/**
 * The value of an input form, checked against the JSON Schema stored with it (in any process). Its
 * strings are text like any answer's: a control character in one is refused, whatever the schema.
 */
function checkFormValue(interaction: StoredInteraction, value: unknown): unknown {
  const controls = controlCharacterIssues(value, ['value']);
  if (controls.length > 0) throw new AnswerError(controls, 'The form value');
  const unsafe = unsafeFormSchema(interaction.form?.schema);
  if (unsafe) {
    throw new AnswerError(
      [{ path: ['value'], message: `the form's stored schema ${unsafe}, so no value is checked against it` }],
      'The form value',
    );
  }
  let schema: z.ZodType;
  try {
    schema = z.fromJSONSchema(interaction.form?.schema ?? {}) as z.ZodType;
  } catch {
    schema = z.unknown();
  }
  const checked = schema.safeParse(value);
  if (checked.success) return checked.data;
  const issues = checked.error.issues.map(
    (issue): AnswerIssue => ({ path: ['value', ...issue.path.map(pathPart)], message: issue.message }),
  );
  throw new AnswerError(issues, 'The form value');
}

/** The resolution of an interaction answered after its `expiresAt`: the answer is not used. */
export function expiredResolution(run: Run, interaction: StoredInteraction, at: string): Resolution {
  const base = { id: interaction.id, toolCallId: interaction.toolCallId, kind: interaction.kind, at };
  // A hook's ask that expired is that point's deny (DESIGN §26).
  if (interaction.review)
    return hooksFor(run).expiredReview(interaction, { ...base, resolution: 'timed_out' });
  const deadline = interaction.expiresAt ?? at;
  const timedOut = (result: string): Resolution => ({
    toolCallId: interaction.toolCallId,
    records: [{ ...base, resolution: 'timed_out' }],
    result,
  });
  if (interaction.kind === 'approval') {
    return timedOut(
      toolErrorResult(
        'approval_timeout',
        `Nobody approved ${interaction.toolName} before ${deadline}, so it did not go on. Ask again or choose another way.`,
      ),
    );
  }
  if (interaction.onExpire === 'recommended') {
    const result = formatDefaultedResult(interaction.questions ?? [], deadline);
    return { toolCallId: interaction.toolCallId, records: [{ ...base, resolution: 'defaulted' }], result };
  }
  const what = interaction.kind === 'input' ? 'fill in the form' : 'answer';
  return timedOut(
    toolErrorResult(
      'question_timeout',
      `The user did not ${what} before ${deadline}. Make a reasonable assumption, say so, and go on.`,
    ),
  );
}

/**
 * Who responds: a person through the API, or a parent agent's model through `answer_subagent`.
 * A parent's `rationale` is kept with whatever it decided (answers and form values too), and a
 * rejection tells the child that its parent, not a user, said no.
 */
export type Responder = { by: 'user' } | { by: 'parent'; rationale?: string };

/** A person, through the API. */
export const USER: Responder = Object.freeze({ by: 'user' });

/** A reason as the model reads it: one sentence, ending with its full stop. */
function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?。！？]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function rejectedResult(interaction: StoredInteraction, rationale: string | undefined, responder: Responder) {
  const [who, otherwise] =
    responder.by === 'parent'
      ? ['The parent agent (the one that gave you this task)', 'or report back to it in your final answer']
      : ['The user', 'or ask the user'];
  return toolErrorResult(
    'rejected_by_user',
    `${who} rejected this call of ${interaction.toolName}; it did not run. Do not repeat it unchanged: take the rationale into account ${otherwise}.`,
    { rationale: rationale ?? null },
  );
}

/** The record of a decision: its interaction's fields, `resolution`, then `fields` in order. */
type RecordOf = (resolution: ResolutionKind, ...fields: Partial<ResolvedRecord>[]) => ResolvedRecord;

/** A budget interaction's resolution: `approve` goes on (raising the limits by `extend`), `reject` or `cancel` stops. */
function decideBudget(
  interaction: StoredInteraction,
  response: ResponseInput,
  recordOf: RecordOf,
  rationale: { rationale?: string },
): Resolution {
  if (response.type === 'approve') {
    if (response.editedInput !== undefined) {
      throw new AnswerError(
        [{ path: ['editedInput'], message: 'A budget has no input to edit: raise its limits with `extend`' }],
        'The approval',
      );
    }
    const extend = response.extend;
    if (extend !== undefined) {
      const problems = budgetProblems(extend, 'extend');
      if (problems.length > 0) {
        throw new AnswerError(
          problems.map((line) => {
            const [path, ...message] = line.split(': ');
            return { path: path!.split('.'), message: message.join(': ') };
          }),
          'The approval',
        );
      }
    }
    const record = recordOf('approved', rationale, extend ? { extend: extend as BudgetLimits } : {});
    return {
      toolCallId: '',
      records: [record],
      budget: { decision: 'extend', ...(extend ? { extend } : {}) },
    };
  }
  if (response.type === 'reject' || response.type === 'cancel') {
    const resolution = response.type === 'reject' ? 'rejected' : 'cancelled';
    const why =
      response.type === 'reject'
        ? rationale
        : response.reason !== undefined
          ? { rationale: response.reason }
          : {};
    return { toolCallId: '', records: [recordOf(resolution, why)], budget: { decision: 'refuse' } };
  }
  throw wrongKind(interaction, response.type);
}

/**
 * The resolution of one response on one interaction; throws, changing nothing, when it does not fit.
 * A hook's question or form (DESIGN §26) is decided as its kind is, and its answer goes to the hook.
 */
export function decide(
  run: Run,
  interaction: StoredInteraction,
  response: ResponseInput,
  at: string,
  responder: Responder = USER,
): Resolution {
  const resolution = decideOne(run, interaction, response, at, responder);
  return interaction.review && interaction.kind !== 'review'
    ? hooksFor(run).hookAnswered(interaction, resolution)
    : resolution;
}

function decideOne(
  run: Run,
  interaction: StoredInteraction,
  response: ResponseInput,
  at: string,
  responder: Responder,
): Resolution {
  // Tools in doubt (DESIGN §21): approve, reject, input or cancel, see in-doubt.ts.
  if (interaction.kind === 'in_doubt') {
    if (!run.doubt) {
      throw new StateError(
        'WRONG_KIND',
        `Interaction ${interaction.id} asks whether ${interaction.toolName} should run again after its worker stopped: only sessions (createSessions, or the handler in store mode) answer it, since only they record tools started. Send the response through them.`,
      );
    }
    const decided = run.doubt.decide(interaction, response, at, run.options.principal);
    if (!decided) throw wrongKind(interaction, response.type);
    return decided;
  }
  const toolCallId = interaction.toolCallId;
  const asked = interaction.ask !== undefined;
  const given =
    'rationale' in response && response.rationale !== undefined
      ? response.rationale
      : responder.by === 'parent'
        ? responder.rationale
        : undefined;
  const rationale = given !== undefined ? { rationale: given } : {};
  const who = run.options.principal;
  const base = {
    id: interaction.id,
    toolCallId: interaction.toolCallId,
    kind: interaction.kind,
    at,
    ...(who !== undefined ? { principal: who } : {}),
  };
  // Object.assign, not a spread then new keys (see machine/extend.ts): every source is a literal
  // made in this file, so no key is `__proto__`.
  const recordOf: RecordOf = (resolution, ...fields) => Object.assign({}, base, { resolution }, ...fields);
  if (interaction.kind === 'budget') return decideBudget(interaction, response, recordOf, rationale);
  if (interaction.kind === 'review') {
    const hooks = hooksFor(run);
    return hooks.decideReview(interaction, response, recordOf, hooks.reviewDeps(run));
  }
  const resumeWith = (record: ResolvedRecord, askResponse: object): Resolution => ({
    toolCallId,
    records: [record],
    askResponse: JSON.stringify(askResponse),
  });
  switch (response.type) {
    case 'answer': {
      if (interaction.kind !== 'question') throw wrongKind(interaction, 'answer');
      const questions = interaction.questions ?? [];
      const answers = normalizeAnswers(questions, response.answers);
      const record = recordOf('answered', { answers, questions }, rationale);
      if (asked)
        return resumeWith(record, { kind: 'question', answers: answersByHeader(questions, answers) });
      return { toolCallId, records: [record], result: formatAnswersResult(questions, answers) };
    }
    case 'input': {
      if (interaction.kind !== 'input') throw wrongKind(interaction, 'input');
      const value = checkFormValue(interaction, response.value);
      const record = recordOf('answered', { value: jsonOf(value, 'value', 'The form value') }, rationale);
      return resumeWith(record, { kind: 'input', value });
    }
    case 'approve': {
      if (interaction.kind !== 'approval') throw wrongKind(interaction, 'approve');
      if (response.extend !== undefined) {
        throw new AnswerError(
          [{ path: ['extend'], message: 'Only a budget interaction takes `extend`; this is an approval' }],
          'The approval',
        );
      }
      const quorum = interaction.quorum ?? 1;
      let counted: { approvals: ApprovalRecord[] } | Record<string, never> = {};
      if (quorum > 1) {
        if (response.editedInput !== undefined) {
          throw new AnswerError(
            [
              {
                path: ['editedInput'],
                message: `Not allowed on an approval that needs ${quorum} approvers: they approve the same input`,
              },
            ],
            'The approval',
          );
        }
        const approval: ApprovalRecord = { principal: who ?? '(parent agent)', ...rationale, at };
        const approvals = [...(interaction.approvals ?? []), approval];
        if (approvals.length < quorum) return { toolCallId, records: [], approval };
        counted = { approvals };
      }
      // `remember: 'run'` (DESIGN §26): later calls of this tool with an input of the same key pass.
      const remember = rememberedApproval(run, interaction, response, asked);
      if (response.editedInput === undefined) {
        const record = recordOf('approved', rationale, counted);
        if (asked) return resumeWith(record, { kind: 'approval', approved: true, ...rationale, ...counted });
        return { toolCallId, records: [record], runInput: interaction.input, ...remember };
      }
      // A model's proposed call is checked against the tool's schema; a tool's own ask is its data.
      const tool = run.agent.toolIndex.get(interaction.toolName);
      if (!asked && tool?.kind === 'function') {
        const checked = checkToolInput(tool, response.editedInput);
        if (!checked.ok) {
          const issues = checked.error.issues.map(
            (issue): AnswerIssue => ({
              path: ['editedInput', ...issue.path.map(pathPart)],
              message: issue.message,
            }),
          );
          throw new AnswerError(issues, 'The edited input');
        }
      }
      const editedInput = jsonOf(response.editedInput, 'editedInput', 'The edited input');
      const record = recordOf('approved', { editedInput }, rationale);
      if (asked) {
        return resumeWith(record, {
          kind: 'approval',
          approved: true,
          ...rationale,
          editedInput: JSON.parse(editedInput),
        });
      }
      return { toolCallId, records: [record], runInput: editedInput, edited: true, ...remember };
    }
    case 'reject': {
      if (interaction.kind !== 'approval') throw wrongKind(interaction, 'reject');
      const record = recordOf('rejected', rationale);
      if (asked) return resumeWith(record, { kind: 'approval', approved: false, ...rationale });
      return { toolCallId, records: [record], result: rejectedResult(interaction, given, responder) };
    }
    case 'cancel': {
      const reason = response.reason?.trim() ? ` Reason: ${sentence(response.reason)}` : '';
      const result =
        interaction.kind === 'approval'
          ? toolErrorResult(
              'approval_cancelled',
              `The approval of ${interaction.toolName} was cancelled, so it did not go on.${reason}`,
            )
          : toolErrorResult(
              'question_cancelled',
              `The user dismissed the ${interaction.kind === 'input' ? 'form' : 'question'} without answering.${reason} Go on without it, or ask differently.`,
            );
      const record = recordOf(
        'cancelled',
        response.reason !== undefined ? { rationale: response.reason } : {},
      );
      return { toolCallId, records: [record], result };
    }
  }
}
