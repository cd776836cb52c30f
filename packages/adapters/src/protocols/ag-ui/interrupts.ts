/**
 * Pending interactions as AG-UI interrupts. A paused run ends with `RUN_FINISHED { outcome:
 * { type: 'interrupt', interrupts } }`, one interrupt per pending interaction, each with the JSON
 * Schema of the `payload` that answers it:
 *
 * - a question: `reason: 'input_required'`, payload `{ answers }` (keyed by header, as
 *   `answerQuestion` takes them), the questions themselves in `metadata.turnkit.questions`;
 * - an approval: `reason: 'tool_call'`, payload `{ approved, editedArgs?, reason? }`, the proposed
 *   input in `metadata.turnkit.input`;
 * - an input form (a tool's `ctx.ask({ input })`): `reason: 'input_required'`, the payload is the
 *   value itself, and `responseSchema` is the form's schema;
 * - a hook's review (DESIGN §26): approval-shaped, `reason: 'tool_call'`, payload `{ approved,
 *   edit?, reason?, remember? }`, the hook, the point and the subject under review in
 *   `metadata.turnkit`.
 *
 * `toolCallId` is the top-level tool call that waits when there is one (an `AskUserQuestion` call, a
 * tool with `needsApproval`); an interaction no top-level call stands for — a tool's own `ctx.ask`,
 * a sub-agent's question or approval bubbling up — has its own id there instead.
 */
import type { AnyAgent, PendingInteraction, Question } from '@turnkit/core';
import type { AgUiInterrupt } from './events.js';

/** Whether a top-level tool call is the one waiting for the interaction (see the file comment). */
function standsForCall(interaction: PendingInteraction, agent: AnyAgent): boolean {
  if (interaction.agentPath.length !== 1) return false;
  const tool = agent.toolIndex.get(interaction.toolName);
  if (interaction.kind === 'question') return tool?.kind === 'question';
  if (interaction.kind === 'approval') return tool?.kind === 'function' && Boolean(tool.needsApproval);
  return false;
}

/** The `toolCallId` an interaction's interrupt carries (and a tool message answering it names). */
export function interruptToolCallId(interaction: PendingInteraction, agent: AnyAgent): string {
  return standsForCall(interaction, agent) ? interaction.toolCallId : interaction.id;
}

const stringList = { type: 'array', items: { type: 'string' } };

/** The schema of one question's answer: its labels, free text (`other`, `note`), or a skip. */
function answerSchema(question: Question): Record<string, unknown> {
  const skip = {
    type: 'object',
    properties: { skipped: { const: true } },
    required: ['skipped'],
    additionalProperties: false,
  };
  if (question.options.length === 0) {
    return { description: question.question, anyOf: [{ type: 'string', minLength: 1 }, skip] };
  }
  const labels = question.options.map((option) => option.label);
  const chosen = question.multiSelect
    ? { type: 'array', items: { enum: labels }, minItems: 1 }
    : { type: 'string', enum: labels };
  const withText = {
    type: 'object',
    properties: { selected: stringList, other: { type: 'string' }, note: { type: 'string' } },
    additionalProperties: false,
  };
  return { description: question.question, anyOf: [chosen, withText, skip] };
}

/** `{ answers: { [header]: … } }`, every question required. */
function questionsSchema(questions: readonly Question[]): Record<string, unknown> {
  const properties = Object.fromEntries(
    questions.map((question) => [question.header, answerSchema(question)]),
  );
  return {
    type: 'object',
    properties: {
      answers: {
        type: 'object',
        properties,
        required: questions.map((question) => question.header),
      },
    },
    required: ['answers'],
  };
}

/** `{ approved, editedArgs?, reason? }`; `editedArgs` takes the tool's input schema when it is the agent's own. */
function approvalSchema(interaction: PendingInteraction, agent: AnyAgent): Record<string, unknown> {
  const own = interaction.agentPath.length === 1 ? agent.toolIndex.get(interaction.toolName) : undefined;
  const { $schema: _dialect, ...parameters } =
    own?.kind === 'function' ? own.spec.function.parameters : { type: 'object' };
  return {
    type: 'object',
    properties: {
      approved: { type: 'boolean' },
      editedArgs: {
        ...parameters,
        description: 'The input to run the tool with instead of the proposed one.',
      },
      reason: { type: 'string', maxLength: 16_384 },
    },
    required: ['approved'],
    additionalProperties: false,
  };
}

function questionMessage(questions: readonly Question[]): string {
  if (questions.length === 1) return questions[0]!.question;
  return questions.map((question) => `${question.header}: ${question.question}`).join('\n');
}

/** `{ approved, edit?, reason?, remember? }`: a review is decided like an approval, the subject edited as a whole. */
const REVIEW_SCHEMA = {
  type: 'object',
  properties: {
    approved: { type: 'boolean' },
    edit: { description: 'The subject to go on with instead of the one under review.' },
    reason: { type: 'string', maxLength: 16_384 },
    remember: {
      const: 'run',
      description: 'Let later calls of this tool with the same input pass (beforeTool).',
    },
  },
  required: ['approved'],
  additionalProperties: false,
};

/** The interrupt of one pending interaction. */
export function toInterrupt(interaction: PendingInteraction, agent: AnyAgent): AgUiInterrupt {
  const { id, kind, toolName, agentPath, payload } = interaction;
  const base = {
    id,
    toolCallId: interruptToolCallId(interaction, agent),
    ...(interaction.expiresAt !== null ? { expiresAt: interaction.expiresAt } : {}),
  };
  if (kind === 'question' && 'questions' in payload) {
    return {
      ...base,
      reason: 'input_required',
      message: questionMessage(payload.questions),
      responseSchema: questionsSchema(payload.questions),
      metadata: { turnkit: { kind, toolName, agentPath, questions: payload.questions } },
    };
  }
  if (kind === 'approval' && 'input' in payload) {
    return {
      ...base,
      reason: 'tool_call',
      message: payload.reason ?? `Allow ${payload.toolName} to run?`,
      responseSchema: approvalSchema(interaction, agent),
      metadata: { turnkit: { kind, toolName: payload.toolName, agentPath, input: payload.input } },
    };
  }
  if (kind === 'review' && 'subject' in payload) {
    const { hook, point, subject, reason } = payload;
    return {
      ...base,
      reason: 'tool_call',
      message:
        reason ??
        `Hook ${hook} asks you to review ${point === 'beforeTool' ? `a call of ${toolName}` : `what ${point} holds`}.`,
      responseSchema: REVIEW_SCHEMA,
      metadata: { turnkit: { kind, toolName, agentPath, hook, point, subject } },
    };
  }
  const form = payload as { message: string; schema: Record<string, unknown> };
  return {
    ...base,
    reason: 'input_required',
    message: form.message,
    responseSchema: form.schema,
    metadata: { turnkit: { kind, toolName, agentPath } },
  };
}
