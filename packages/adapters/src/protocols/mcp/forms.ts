/**
 * A paused run's interactions as MCP form elicitations, and the client's answers back as TurnKit
 * responses. One elicitation per pending interaction, keyed by its id: a question interaction is a
 * form with one field per question (its options as a titled `oneOf`, or an array of them for
 * multi-select, plus an optional free-text "other" field; a free-text question is a string), an
 * approval is `{ approved: boolean, reason?: string }`, an input form is its own JSON Schema.
 * `decline` rejects an approval and cancels anything else; `cancel` cancels.
 */
import type {
  ElicitRequest,
  ElicitResult,
  InputRequests,
  InputResponses,
} from '@modelcontextprotocol/server';
import type {
  ApprovalPayload,
  InputPayload,
  InteractionResponse,
  PendingInteraction,
  Question,
  QuestionAnswer,
  QuestionPayload,
  ReviewPayload,
} from '@turnkit/core';

type FormSchema = Extract<ElicitRequest['params'], { mode?: 'form' }>['requestedSchema'];
type Property = FormSchema['properties'][string];

/** The key of a question's free-text field in its form. */
export const otherKey = (question: Question) => `${question.id}_other`;

function questionFields(question: Question): [string, Property][] {
  const base = { title: question.header, description: question.question };
  if (question.options.length === 0) return [[question.id, { type: 'string', ...base }]];
  const choices = question.options.map((option) => ({
    const: option.label,
    title: option.description ? `${option.label} — ${option.description}` : option.label,
  }));
  const choice: Property = question.multiSelect
    ? { type: 'array', ...base, items: { anyOf: choices } }
    : { type: 'string', ...base, oneOf: choices };
  const other: Property = {
    type: 'string',
    title: `${question.header}: other`,
    description: question.multiSelect
      ? 'Your own answer, besides or instead of the options (optional)'
      : 'Your own answer instead of an option (optional)',
  };
  return [
    [question.id, choice],
    [otherKey(question), other],
  ];
}

function questionForm(payload: QuestionPayload): { message: string; schema: FormSchema } {
  const fields = payload.questions.flatMap(questionFields);
  const required = payload.questions.filter((question) => question.options.length === 0).map((q) => q.id);
  const message = payload.questions.map((question) => question.question).join('\n');
  return { message, schema: { type: 'object', properties: Object.fromEntries(fields), required } };
}

/** `{ approved, reason? }`: how an approval, and a hook's review, are decided in a form. */
function decisionSchema(approveDescription: string): FormSchema {
  return {
    type: 'object',
    properties: {
      approved: { type: 'boolean', title: 'Approve', description: approveDescription },
      reason: { type: 'string', title: 'Reason', description: 'Why (optional; the agent reads it)' },
    },
    required: ['approved'],
  };
}

function approvalForm(
  interaction: PendingInteraction,
  payload: ApprovalPayload,
): { message: string; schema: FormSchema } {
  const reason = payload.reason ? `\n${payload.reason}` : '';
  return {
    message: `Approve ${payload.toolName}?${reason}\nInput: ${JSON.stringify(payload.input)}`,
    schema: decisionSchema(`Let ${interaction.toolName} run with this input`),
  };
}

/** A hook's review (DESIGN §26): what is under review shown in the message, decided like an approval. */
function reviewForm(payload: ReviewPayload): { message: string; schema: FormSchema } {
  const reason = payload.reason ? `\n${payload.reason}` : '';
  return {
    message: `Review (${payload.hook}, ${payload.point})?${reason}\nUnder review: ${JSON.stringify(payload.subject)}`,
    schema: decisionSchema('Let the run go on with what is under review'),
  };
}

/** One form elicitation per pending interaction, keyed by interaction id. `notice` prefixes every message. */
export function elicitations(pending: readonly PendingInteraction[], notice = ''): InputRequests {
  const requests: InputRequests = {};
  for (const interaction of pending) {
    const { message, schema } =
      interaction.kind === 'question'
        ? questionForm(interaction.payload as QuestionPayload)
        : interaction.kind === 'approval'
          ? approvalForm(interaction, interaction.payload as ApprovalPayload)
          : interaction.kind === 'review'
            ? reviewForm(interaction.payload as ReviewPayload)
            : {
                message: (interaction.payload as InputPayload).message,
                // The form's JSON Schema, passed as the tool gave it (forms should be flat, as MCP requires).
                schema: (interaction.payload as InputPayload).schema as FormSchema,
              };
    requests[interaction.id] = {
      method: 'elicitation/create',
      params: { mode: 'form', message: `${notice}${message}`, requestedSchema: schema },
    };
  }
  return requests;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;

function questionAnswer(question: Question, content: Record<string, unknown>): QuestionAnswer | undefined {
  const value = content[question.id];
  if (question.options.length === 0) return text(value);
  const other = text(content[otherKey(question)]);
  const selected = Array.isArray(value)
    ? value.map(String)
    : text(value) === undefined
      ? []
      : [String(value)];
  if (selected.length === 0 && other === undefined) return undefined;
  return { selected, ...(other === undefined ? {} : { other }) };
}

function accepted(interaction: PendingInteraction, content: Record<string, unknown>): InteractionResponse {
  const { id } = interaction;
  if (interaction.kind === 'approval' || interaction.kind === 'review') {
    const rationale = text(content.reason);
    const decision = { id, ...(rationale === undefined ? {} : { rationale }) };
    return content.approved === true ? { ...decision, type: 'approve' } : { ...decision, type: 'reject' };
  }
  if (interaction.kind === 'input') return { id, type: 'input', value: content };
  const { questions } = interaction.payload as QuestionPayload;
  // Positional, so a header that looks like another question's id cannot be misread; unanswered ones stay so.
  const answers = questions.map(
    (question) => questionAnswer(question, content) ?? { skipped: true as const },
  );
  return { id, type: 'answer', answers };
}

/**
 * The responses in a retry's `inputResponses` to the pending interactions, in their order. An
 * interaction with no response (or an unrecognisable one) gets none and stays pending.
 */
export function responsesFrom(
  pending: readonly PendingInteraction[],
  inputResponses: InputResponses | Record<string, unknown> | undefined,
): InteractionResponse[] {
  const responses: InteractionResponse[] = [];
  for (const interaction of pending) {
    const result = inputResponses?.[interaction.id] as ElicitResult | undefined;
    if (!result || typeof result !== 'object' || !('action' in result)) continue;
    if (result.action === 'accept') {
      const content = (result.content ?? {}) as Record<string, unknown>;
      responses.push(accepted(interaction, content));
    } else if (
      result.action === 'decline' &&
      (interaction.kind === 'approval' || interaction.kind === 'review')
    ) {
      responses.push({ id: interaction.id, type: 'reject', rationale: 'Declined by the user.' });
    } else {
      const reason = result.action === 'decline' ? 'Declined by the user.' : 'Cancelled by the user.';
      responses.push({ id: interaction.id, type: 'cancel', reason });
    }
  }
  return responses;
}
