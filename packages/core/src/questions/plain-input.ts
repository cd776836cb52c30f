/**
 * The fast path of the AskUserQuestion input (DESIGN §16): almost every call a model makes is
 * plainly valid, and zod's general parse of it was a tenth of a short pause → resume cycle. This
 * reads that common shape by hand with the same rules as the schema in `schema.ts` (strings trimmed,
 * the same bounds, no control character, no unknown key, no duplicate) and gives up at the first
 * thing that is off, so the schema alone writes every error message. A property test checks that
 * both paths give the same result for any input.
 */
import { ID_MAX_LENGTH, MIN_OPTIONS, type QuestionLimits } from './limits.js';
import { controlCharacterIn } from './text.js';

/** Seed 003's `context: { refs?, hint? }`: a few short references and one hint, shown with the question. */
export const CONTEXT_MAX_REFS = 10;
export const CONTEXT_REF_MAX_LENGTH = 200;
export const CONTEXT_HINT_MAX_LENGTH = 500;

/** One question as the zod schema outputs it, before defaults and plain-string options are resolved. */
export interface ParsedQuestion {
  id?: string | undefined;
  question: string;
  header: string;
  options: (string | { label: string; description: string; preview?: string | undefined })[];
  multiSelect?: boolean | undefined;
  multiple?: boolean | undefined;
  context?: { refs?: string[] | undefined; hint?: string | undefined } | undefined;
}

const ROOT_KEYS = new Set(['questions', 'to']);
const QUESTION_KEYS = new Set(['id', 'question', 'header', 'options', 'multiSelect', 'multiple', 'context']);
const OPTION_KEYS = new Set(['label', 'description', 'preview']);
const CONTEXT_KEYS = new Set(['refs', 'hint']);

/** Thrown inside the fast path to leave it: the input needs the schema (to be refused, or unwrapped). */
const OFF = Symbol('off the fast path');

/** An object literal from JSON.parse whose keys are all in `known`. */
function objectWith(value: unknown, known: ReadonlySet<string>): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw OFF;
  for (const key of Object.keys(value)) if (!known.has(key)) throw OFF;
  return value as Record<string, unknown>;
}

/** The schema's `bounded(max)`: a string, trimmed, 1 to `max` long, with no control character. */
function bounded(value: unknown, max: number): string {
  if (typeof value !== 'string') throw OFF;
  const trimmed = value.trim();
  if (trimmed.length < 1 || trimmed.length > max || controlCharacterIn(trimmed)) throw OFF;
  return trimmed;
}

function optionalFlag(value: unknown): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') throw OFF;
  return value;
}

function unique(values: readonly string[]): void {
  if (new Set(values).size !== values.length) throw OFF;
}

function readOption(value: unknown, limits: QuestionLimits): ParsedQuestion['options'][number] {
  if (typeof value === 'string') return bounded(value, limits.labelMaxLength);
  const entry = objectWith(value, OPTION_KEYS);
  const label = bounded(entry.label, limits.labelMaxLength);
  const description = bounded(entry.description, limits.descriptionMaxLength);
  // The preview is kept as written (markdown), not trimmed.
  const { preview } = entry;
  if (preview === undefined) return { label, description };
  if (typeof preview !== 'string' || controlCharacterIn(preview)) throw OFF;
  return { label, description, preview };
}

function readContext(value: unknown): ParsedQuestion['context'] {
  if (value === undefined) return undefined;
  const given = objectWith(value, CONTEXT_KEYS);
  const context: NonNullable<ParsedQuestion['context']> = {};
  if (given.refs !== undefined) {
    if (!Array.isArray(given.refs) || given.refs.length > CONTEXT_MAX_REFS) throw OFF;
    context.refs = given.refs.map((ref) => bounded(ref, CONTEXT_REF_MAX_LENGTH));
  }
  if (given.hint !== undefined) context.hint = bounded(given.hint, CONTEXT_HINT_MAX_LENGTH);
  return context;
}

function readQuestion(value: unknown, limits: QuestionLimits): ParsedQuestion {
  const given = objectWith(value, QUESTION_KEYS);
  // A missing list is a free-text question; null is not (the schema refuses it).
  const rawOptions = given.options === undefined ? [] : given.options;
  if (!Array.isArray(rawOptions) || rawOptions.length > limits.maxOptions) throw OFF;
  if (rawOptions.length > 0 && rawOptions.length < MIN_OPTIONS) throw OFF;
  const options = rawOptions.map((entry) => readOption(entry, limits));
  unique(options.map((entry) => (typeof entry === 'string' ? entry : entry.label)));
  const multiSelect = optionalFlag(given.multiSelect);
  const multiple = optionalFlag(given.multiple);
  if (multiSelect !== undefined && multiple !== undefined && multiSelect !== multiple) throw OFF;
  if (options.length === 0 && (multiSelect === true || multiple === true)) throw OFF;
  return {
    ...(given.id === undefined ? {} : { id: bounded(given.id, ID_MAX_LENGTH) }),
    question: bounded(given.question, limits.questionMaxLength),
    header: bounded(given.header, limits.headerMaxLength),
    options,
    multiSelect,
    multiple,
    context: readContext(given.context),
  };
}

/**
 * The questions of a plainly valid AskUserQuestion input (already JSON-parsed), as the schema would
 * output them; undefined when anything is off, for the schema to refuse it with its message (or to
 * accept what only it reads, such as a double-encoded `questions` list).
 */
export function readPlainInput(input: unknown, limits: QuestionLimits): ParsedQuestion[] | undefined {
  try {
    const root = objectWith(input, ROOT_KEYS);
    if (root.to !== undefined && root.to !== 'user' && root.to !== 'parent') return undefined;
    const list = root.questions;
    if (!Array.isArray(list) || list.length < 1 || list.length > limits.maxQuestions) return undefined;
    const questions = list.map((entry) => readQuestion(entry, limits));
    unique(questions.map((entry) => entry.header));
    unique(questions.map((entry) => entry.question));
    unique(questions.map((entry, index) => entry.id ?? `q${index}`));
    return questions;
  } catch (error) {
    if (error === OFF) return undefined;
    throw error;
  }
}
