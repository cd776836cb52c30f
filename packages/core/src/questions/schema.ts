/**
 * The AskUserQuestion input parser: turns the model's raw `arguments` text into normalised
 * {@link Question}s or a message the model can act on. It is more lenient than the offered schema
 * (plain-string options, `multiple`, no `id`, no `options` for free text), because models trained
 * on other tools send those dialects and a retry costs a round trip; but it drops nothing in
 * silence and keeps no control character (see {@link parseQuestionInput}).
 */
import { type core, z } from 'zod';
import { formatIssuePath } from '../errors.js';
import { validationMessage } from '../results.js';
import type { Question, QuestionOption } from '../types.js';
import { ID_MAX_LENGTH, MIN_OPTIONS, type QuestionLimits } from './limits.js';
import {
  CONTEXT_HINT_MAX_LENGTH,
  CONTEXT_MAX_REFS,
  CONTEXT_REF_MAX_LENGTH,
  type ParsedQuestion,
  readPlainInput,
} from './plain-input.js';
import { controlCharacterIn } from './text.js';

/** The keys each object may have, named in the message about a key it may not. */
const KNOWN_KEYS = {
  root: '"questions" (and "to", where the tool offers it)',
  question: '"id", "question", "header", "options", "multiSelect" (or "multiple") and "context"',
  option: '"label", "description" and "preview"',
  context: '"refs" and "hint"',
};

/** A refused key names itself and what the object takes, so the model can fix the call at once. */
function strictError(keys: string, otherwise?: (issue: core.$ZodRawIssue) => string | undefined) {
  return (issue: core.$ZodRawIssue) => {
    if (issue.code === 'unrecognized_keys') {
      const listed = issue.keys.map((key) => JSON.stringify(key)).join(', ');
      return `Unknown key${issue.keys.length === 1 ? '' : 's'} ${listed}: this tool does not read ${issue.keys.length === 1 ? 'it' : 'them'}; the keys are ${keys}`;
    }
    return otherwise?.(issue);
  };
}

/** Text the model writes for a person: a control character is refused (never stripped), at its path. */
function plainText(text: string, ctx: core.$RefinementCtx<string>): void {
  const found = controlCharacterIn(text);
  if (found) {
    ctx.addIssue({
      code: 'custom',
      message: `Contains the control character ${found}; write plain text (tab and newline are allowed)`,
    });
  }
}

function buildInputSchema(limits: QuestionLimits) {
  const bounded = (max: number) => z.string().trim().min(1).max(max).superRefine(plainText);
  const optionObject = z.strictObject(
    {
      label: bounded(limits.labelMaxLength),
      description: bounded(limits.descriptionMaxLength),
      preview: z.string().superRefine(plainText).optional(),
    },
    { error: strictError(KNOWN_KEYS.option) },
  );
  const option = z.union([bounded(limits.labelMaxLength), optionObject], {
    error: 'Invalid input: expected a label string or an object {"label": …, "description": …}',
  });
  const context = z.strictObject(
    {
      refs: z.array(bounded(CONTEXT_REF_MAX_LENGTH)).max(CONTEXT_MAX_REFS).optional(),
      hint: bounded(CONTEXT_HINT_MAX_LENGTH).optional(),
    },
    { error: strictError(KNOWN_KEYS.context) },
  );
  const question = z
    .strictObject(
      {
        id: bounded(ID_MAX_LENGTH).optional(),
        question: bounded(limits.questionMaxLength),
        header: bounded(limits.headerMaxLength),
        // Empty or left out for a free-text question (seed 000 leaves it out); otherwise at least
        // two (one option is not a choice).
        options: z
          .array(option)
          .max(limits.maxOptions)
          .refine((list) => list.length === 0 || list.length >= MIN_OPTIONS, {
            error: `Too small: expected array to have >=${MIN_OPTIONS} items, or none ([]) for a free-text question`,
          })
          .default([]),
        multiSelect: z.boolean().optional(),
        multiple: z.boolean().optional(),
        context: context.optional(),
      },
      { error: strictError(KNOWN_KEYS.question) },
    )
    .superRefine((value, ctx) => {
      const { multiSelect, multiple } = value;
      if (multiSelect !== undefined && multiple !== undefined && multiSelect !== multiple) {
        addIssue(ctx, ['multiple'], 'Contradicts multiSelect; send only multiSelect');
      }
      if (value.options.length === 0 && (multiSelect === true || multiple === true)) {
        addIssue(ctx, ['multiSelect'], 'A free-text question (no options) cannot be multiSelect');
      }
      const labels = value.options.map((entry) => (typeof entry === 'string' ? entry : entry.label));
      const labelPath = (index: number) =>
        typeof value.options[index] === 'string' ? ['options', index] : ['options', index, 'label'];
      reportDuplicates(ctx, labels, labelPath, 'label within this question');
    });
  const questions = z.array(question).min(1).max(limits.maxQuestions);
  return z.strictObject(
    {
      // Some models double-encode nested arrays as a JSON string; unwrapping saves them a retry.
      questions: z.preprocess(unwrapJsonArray, questions.superRefine(checkUniqueAcrossQuestions)),
      // Who answers, for a sub-agent whose parent lets it choose (DESIGN §14); read by the loop.
      to: z.enum(['user', 'parent']).optional(),
    },
    {
      error: strictError(KNOWN_KEYS.root, (issue) =>
        issue.code === 'invalid_type' ? rootTypeMessage(issue.input) : undefined,
      ),
    },
  );
}

type ParsedQuestions = ParsedQuestion[];

function rootTypeMessage(input: unknown): string {
  const received = input === null ? 'null' : Array.isArray(input) ? 'array' : typeof input;
  return `Invalid input: expected an object {"questions": […]}, received ${received}`;
}

function unwrapJsonArray(value: unknown): unknown {
  if (typeof value !== 'string' || !value.trimStart().startsWith('[')) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function reportDuplicates(
  ctx: core.$RefinementCtx<unknown>,
  values: readonly string[],
  pathOf: (index: number) => (string | number)[],
  what: string,
): void {
  const seen = new Set<string>();
  values.forEach((value, index) => {
    if (seen.has(value)) addIssue(ctx, pathOf(index), `Duplicate ${what}: "${value}"`);
    seen.add(value);
  });
}

function addIssue(ctx: core.$RefinementCtx<unknown>, path: (string | number)[], message: string): void {
  ctx.addIssue({ code: 'custom', path, message });
}

function checkUniqueAcrossQuestions(
  questions: ParsedQuestions,
  ctx: core.$RefinementCtx<ParsedQuestions>,
): void {
  const headers = questions.map((q) => q.header);
  reportDuplicates(ctx, headers, (i) => [i, 'header'], 'header (headers key the answers)');
  reportDuplicates(
    ctx,
    questions.map((q) => q.question),
    (i) => [i, 'question'],
    'question',
  );
  // A given id may clash with a default one (`q1` given to question 0, none to question 1): report
  // it where an id was written, since that is what the model can change.
  const owners = new Map<string, number>();
  questions.forEach((q, index) => {
    const id = q.id ?? `q${index}`;
    const first = owners.get(id);
    if (first === undefined) {
      owners.set(id, index);
      return;
    }
    const at = q.id === undefined ? first : index;
    addIssue(ctx, [at, 'id'], `Duplicate id: "${id}" (questions without an id get q0, q1, … by position)`);
  });
}

const schemaCache = new WeakMap<QuestionLimits, ReturnType<typeof buildInputSchema>>();

function inputSchemaFor(limits: QuestionLimits): ReturnType<typeof buildInputSchema> {
  let schema = schemaCache.get(limits);
  if (schema === undefined) {
    schema = buildInputSchema(limits);
    schemaCache.set(limits, schema);
  }
  return schema;
}

/**
 * zod reports a failed union as one vague "Invalid input". When exactly one branch matched the
 * value's type (an option object with a bad label), that branch's issues are the real story.
 */
function issueLines(issues: readonly core.$ZodIssue[], prefix: readonly PropertyKey[] = []): string[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union') {
      const matching = issue.errors.filter(
        (branch) => !branch.some((inner) => inner.code === 'invalid_type' && inner.path.length === 0),
      );
      if (matching.length === 1 && matching[0]) return issueLines(matching[0], path);
    }
    return [`- ${formatIssuePath(path)}${issue.message}`];
  });
}

/** The context kept with a question: only the parts given, and nothing when neither was. */
function contextOf(given: ParsedQuestion['context']): Pick<Question, 'context'> {
  if (given === undefined || (given.refs === undefined && given.hint === undefined)) return {};
  return {
    context: {
      ...(given.refs === undefined ? {} : { refs: given.refs }),
      ...(given.hint === undefined ? {} : { hint: given.hint }),
    },
  };
}

function toQuestions(parsed: ParsedQuestions): Question[] {
  return parsed.map((q, index) => ({
    id: q.id ?? `q${index}`,
    question: q.question,
    header: q.header,
    options: q.options.map((entry): QuestionOption => {
      if (typeof entry === 'string') return { label: entry, description: '' };
      return entry.preview === undefined
        ? { label: entry.label, description: entry.description }
        : { label: entry.label, description: entry.description, preview: entry.preview };
    }),
    multiSelect: q.multiSelect ?? q.multiple ?? false,
    ...contextOf(q.context),
  }));
}

/** The normalised questions, or the message of an `invalid_arguments` result. */
export type ParsedInput = { ok: true; questions: Question[] } | { ok: false; message: string };

/**
 * Parses the raw `arguments` text of an AskUserQuestion call. Accepts options as objects or plain
 * strings (description `''`), no `options` (a free-text question, like `[]`), `multiSelect` or its
 * alias `multiple` (default false), an optional `id` (default `q0`, `q1`… by position), an optional
 * option `preview` and seed 003's optional `context: { refs?, hint? }`; strings are trimmed.
 * Headers, question texts, ids, and the labels within a question must be unique.
 *
 * Nothing is dropped in silence: a key the tool does not read (`timeoutMs`, `answers`…) is refused
 * with an issue naming it and the keys it does read. Control characters (C0 but tab and newline,
 * DEL, C1) are refused, not stripped, in every text the model writes (question, header, labels,
 * descriptions, preview, context): stripping would show the person something the model did not
 * write, and a retry with plain text costs one round trip.
 *
 * @returns the normalised questions, or the message of an `invalid_arguments` result:
 * `Error: Invalid JSON format` plus an explanation, or `Error: Validation failed` plus one
 * `- questions[0].header: …` line per issue.
 */
export function parseQuestionInput(rawArguments: string, limits: QuestionLimits): ParsedInput {
  let input: unknown;
  try {
    input = JSON.parse(rawArguments);
  } catch (error) {
    const reason =
      rawArguments.trim() === '' ? 'they were empty' : `they did not parse: ${(error as Error).message}`;
    return {
      ok: false,
      message: `Error: Invalid JSON format\nThe arguments must be one JSON object, {"questions": […]}, and ${reason}.`,
    };
  }
  const plain = readPlainInput(input, limits);
  if (plain !== undefined) return { ok: true, questions: toQuestions(plain) };
  return parseWithSchema(input, limits);
}

/**
 * The parsed input checked by the zod schema alone: the reference the fast path must match, and
 * the only writer of error messages.
 */
export function parseWithSchema(input: unknown, limits: QuestionLimits): ParsedInput {
  const result = inputSchemaFor(limits).safeParse(input);
  if (!result.success) return { ok: false, message: validationMessage(issueLines(result.error.issues)) };
  return { ok: true, questions: toQuestions(result.data.questions) };
}
