/**
 * A hook's ask as a person sees and decides it (DESIGN §26). A plain ask is an interaction of kind
 * `review` whose payload is `{ hook, point, subject, reason? }`: `approve` goes on with the subject,
 * `approve` with `edit` goes on with an edited one (checked first: a tool input against its tool's
 * schema, a response as text, messages as chat messages; else `ANSWER_INVALID`, nothing changed),
 * `reject` and `cancel` act as the point's deny (the rationale is the reason). A hook's question or
 * form is answered as any other; its answer goes to the hook's `resume`. Either way the decision
 * says where the point's hooks go on: never again from the hook that asked, nor any before it.
 */
import { AnswerError, type AnswerIssue, StateError } from '../errors.js';
import type { HookResume, Resolution, ResolvedRecord, StoredInteraction } from '../machine/index.js';
import { toolErrorResult } from '../results.js';
import type { ResolutionKind } from '../types.js';
import { rememberKey } from './remembered.js';

/** The result the model reads for a call a hook (or its reviewer) denied. */
export function deniedResult(hook: string, reason: string): string {
  return toolErrorResult(
    'denied',
    `This call was denied by ${hook}; it did not run (or its result was withheld). Do not repeat it unchanged: take the reason into account.`,
    { reason },
  );
}

/** What deciding a review needs from the run: the tool input check and the remember key of a call. */
export interface ReviewDeps {
  /** Issues of `value` as `toolName`'s input (paths under `edit`), or null when it fits. */
  checkInput(toolName: string, value: unknown): AnswerIssue[] | null;
  /** The key an approval remembered by `hook` keeps for this input. */
  inputKey(hook: string, input: unknown): string;
}

/** A response to a review, in the fields it may carry. */
export interface ReviewResponse {
  type: string;
  rationale?: string;
  reason?: string;
  edit?: unknown;
  editedInput?: unknown;
  remember?: 'run';
  extend?: unknown;
}

type RecordOf = (resolution: ResolutionKind, ...fields: Partial<ResolvedRecord>[]) => ResolvedRecord;

const invalid = (message: string) => new AnswerError([{ path: ['edit'], message }], 'The edit');

/** JSON text of an edit, or the AnswerError (circular, a bigint…). */
function editJson(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return text;
  } catch {
    // Reported below.
  }
  throw invalid('Must be JSON data (not circular, no bigint or function)');
}

/** The subject after an edit, checked against what the point holds; JSON text. */
function editedSubject(interaction: StoredInteraction, edit: unknown, deps: ReviewDeps): string {
  const { point, subject } = interaction.review!;
  const current = JSON.parse(subject) as Record<string, unknown>;
  switch (point) {
    case 'beforeTool': {
      const issues = deps.checkInput(interaction.toolName, edit);
      if (issues) throw new AnswerError(issues, 'The edited input');
      return JSON.stringify({ ...current, input: JSON.parse(editJson(edit)) });
    }
    case 'afterTool':
      return editJson(edit);
    case 'afterModel':
      if (typeof edit !== 'string') throw invalid('A model response is edited as its text: give a string');
      return JSON.stringify({ ...current, text: edit });
    case 'beforeModel': {
      const fits =
        Array.isArray(edit) &&
        edit.every(
          (message) =>
            typeof message === 'object' &&
            message !== null &&
            typeof (message as { role?: unknown }).role === 'string',
        );
      if (!fits) throw invalid('A model request is edited as its messages: an array of chat messages');
      return JSON.stringify({ ...current, messages: JSON.parse(editJson(edit)) });
    }
  }
}

/**
 * Where the point goes on after a decision, as a resolution: a model point's through the run's
 * `hookResume`, a tool point's through its call (`askResponse`, or a denied result).
 */
function goOn(interaction: StoredInteraction, record: ResolvedRecord, resume: HookResume): Resolution {
  if (interaction.toolCallId === '') {
    return { toolCallId: '', records: [record], budget: { decision: 'extend' }, hookResume: resume };
  }
  if (resume.deny !== undefined) {
    return {
      toolCallId: interaction.toolCallId,
      records: [record],
      result: deniedResult(resume.hook, resume.deny),
    };
  }
  return { toolCallId: interaction.toolCallId, records: [record], askResponse: JSON.stringify(resume) };
}

/** The point's resume after the hook at `index` was decided for. */
function resumeAfter(interaction: StoredInteraction, fields: Partial<HookResume>): HookResume {
  const { hook, point, index, subject } = interaction.review!;
  return Object.assign({ point, hook, from: index + 1, subject }, fields);
}

/**
 * The resolution of a response on a `review` interaction; throws, changing nothing, when it does not
 * fit (`WRONG_KIND` for an answer or a form value, `ANSWER_INVALID` for an edit that does not check).
 */
export function decideReview(
  interaction: StoredInteraction,
  response: ReviewResponse,
  recordOf: RecordOf,
  deps: ReviewDeps,
): Resolution {
  const review = interaction.review!;
  const rationale = response.rationale !== undefined ? { rationale: response.rationale } : {};
  if (response.type === 'approve') {
    if (response.extend !== undefined)
      throw invalid('Only a budget interaction takes `extend`; this is a review');
    if (response.remember !== undefined && response.remember !== 'run') {
      throw new AnswerError([{ path: ['remember'], message: "Must be 'run'" }], 'The approval');
    }
    if (response.remember === 'run' && review.point !== 'beforeTool') {
      throw new AnswerError(
        [
          {
            path: ['remember'],
            message: 'Only a beforeTool review (a tool call) can be remembered for the run',
          },
        ],
        'The approval',
      );
    }
    const edit = response.edit !== undefined ? response.edit : response.editedInput;
    const subject = edit === undefined ? review.subject : editedSubject(interaction, edit, deps);
    const record = recordOf('approved', rationale, edit !== undefined ? { editedInput: editJson(edit) } : {});
    if (review.point !== 'beforeTool')
      return goOn(interaction, record, resumeAfter(interaction, { subject }));
    // A beforeTool review approved: the call runs as an approved call (the hooks after this one first).
    const input = (JSON.parse(subject) as { input: unknown }).input;
    const remember =
      response.remember === 'run'
        ? { remember: rememberKey(review.hook, interaction.toolName, deps.inputKey(review.hook, input)) }
        : {};
    return {
      toolCallId: interaction.toolCallId,
      records: [record],
      runInput: JSON.stringify(input),
      edited: edit !== undefined,
      ...remember,
    };
  }
  if (response.type === 'reject' || response.type === 'cancel') {
    const given = response.type === 'reject' ? response.rationale : response.reason;
    const reason = given?.trim()
      ? given
      : `the reviewer ${response.type === 'reject' ? 'rejected' : 'cancelled'} it`;
    const record = recordOf(
      response.type === 'reject' ? 'rejected' : 'cancelled',
      given !== undefined ? { rationale: given } : {},
    );
    return goOn(interaction, record, resumeAfter(interaction, { deny: reason }));
  }
  throw new StateError(
    'WRONG_KIND',
    `Interaction ${interaction.id} is a review by hook ${review.hook} at ${review.point}; it cannot take '${response.type}': decide it with approve (optionally with \`edit\`) or reject.`,
  );
}

/** A review (or a hook's question or form) that expired: the point's deny, as if rejected. */
export function expiredReview(interaction: StoredInteraction, record: ResolvedRecord): Resolution {
  const deadline = interaction.expiresAt ?? record.at;
  return goOn(
    interaction,
    record,
    resumeAfter(interaction, { deny: `nobody decided the review before ${deadline}` }),
  );
}

/**
 * A hook's question or form, answered or cancelled (the standard resolution of its kind): the answer
 * goes to the hook's `resume`, a cancellation or a timeout is the point's deny.
 */
export function hookAnswered(interaction: StoredInteraction, resolution: Resolution): Resolution {
  const record = resolution.records[0]!;
  if (resolution.askResponse !== undefined) {
    const { index } = interaction.review!;
    return goOn(
      interaction,
      record,
      resumeAfter(interaction, { from: index, answer: resolution.askResponse }),
    );
  }
  if (record.resolution === 'timed_out' || record.resolution === 'defaulted')
    return expiredReview(interaction, record);
  const reason = record.rationale?.trim() ? record.rationale : 'the person dismissed it without answering';
  return goOn(interaction, record, resumeAfter(interaction, { deny: reason }));
}
