/**
 * The JSON Schema the model is offered as the question tool's `parameters`.
 */
import { ID_MAX_LENGTH, MIN_OPTIONS, type QuestionLimits } from './limits.js';
import { CONTEXT_HINT_MAX_LENGTH, CONTEXT_MAX_REFS, CONTEXT_REF_MAX_LENGTH } from './plain-input.js';

/**
 * The JSON Schema offered to the model as the tool's `parameters`: the canonical dialect only
 * (option objects, `multiSelect`), with the limits as `minItems`/`maxItems`/`maxLength`. The parser
 * accepts more than this; the schema shows the one form we want models to learn.
 */
export function questionParametersSchema(limits: QuestionLimits): Record<string, unknown> {
  const text = (maxLength: number, description: string) => ({
    type: 'string',
    minLength: 1,
    maxLength,
    description,
  });
  const option = {
    type: 'object',
    properties: {
      label: text(limits.labelMaxLength, 'What the user picks: 1 to 5 words.'),
      description: text(limits.descriptionMaxLength, 'What this choice means or implies.'),
      preview: {
        type: 'string',
        description: 'Optional markdown shown beside the option (a sketch, a snippet).',
      },
    },
    required: ['label', 'description'],
    additionalProperties: false,
  };
  const question = {
    type: 'object',
    properties: {
      id: text(ID_MAX_LENGTH, 'Optional; default q0, q1, …'),
      question: text(limits.questionMaxLength, 'The complete question, ending with "?".'),
      header: text(
        limits.headerMaxLength,
        'A short unique label, e.g. "Auth method"; the key of its answer.',
      ),
      options: {
        type: 'array',
        maxItems: limits.maxOptions,
        items: option,
        description: `The choices (${MIN_OPTIONS} or more), recommended first. Do not add "Other": it is always offered. Empty ([]) for a free-text question: the user types the answer.`,
      },
      multiSelect: { type: 'boolean', description: 'true when the choices are not mutually exclusive.' },
      context: {
        type: 'object',
        properties: {
          refs: {
            type: 'array',
            maxItems: CONTEXT_MAX_REFS,
            items: text(CONTEXT_REF_MAX_LENGTH, 'A file, link or record the question is about.'),
          },
          hint: text(CONTEXT_HINT_MAX_LENGTH, 'What the person should know to answer.'),
        },
        additionalProperties: false,
        description: 'Optional: what the question refers to, shown with it.',
      },
    },
    required: ['question', 'header', 'options', 'multiSelect'],
    additionalProperties: false,
  };
  return {
    type: 'object',
    properties: { questions: { type: 'array', minItems: 1, maxItems: limits.maxQuestions, items: question } },
    required: ['questions'],
    additionalProperties: false,
  };
}
