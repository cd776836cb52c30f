/**
 * The limits of one question tool: how many questions and options a call may hold and how long its
 * texts may be, from the tool's options, the `ASK_*` environment variables, or the defaults.
 */
import { TurnkitError } from '../errors.js';

/** Bounds on what one AskUserQuestion call may contain. Lengths count UTF-16 code units, like `String.length`. */
export interface QuestionLimits {
  maxQuestions: number;
  maxOptions: number;
  headerMaxLength: number;
  questionMaxLength: number;
  labelMaxLength: number;
  descriptionMaxLength: number;
}

/** 4 questions, 4 options, headers of 12, questions of 500, labels of 50, descriptions of 200 characters. */
export const DEFAULT_QUESTION_LIMITS: QuestionLimits = Object.freeze({
  maxQuestions: 4,
  maxOptions: 4,
  headerMaxLength: 12,
  questionMaxLength: 500,
  labelMaxLength: 50,
  descriptionMaxLength: 200,
});

/** Every question offers at least two options: one option is not a choice (Other is always there too). */
export const MIN_OPTIONS = 2;
/** Ids become answer keys and parts of interaction records, so they stay short. */
export const ID_MAX_LENGTH = 64;

const ENV_LIMITS: [keyof QuestionLimits, string][] = [
  ['maxQuestions', 'ASK_MAX_QUESTIONS'],
  ['maxOptions', 'ASK_MAX_OPTIONS'],
  ['headerMaxLength', 'ASK_HEADER_MAX_LENGTH'],
  ['questionMaxLength', 'ASK_QUESTION_MAX_LENGTH'],
];

function lowestAllowed(key: keyof QuestionLimits): number {
  return key === 'maxOptions' ? MIN_OPTIONS : 1;
}

function isAllowedLimit(key: keyof QuestionLimits, value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= lowestAllowed(key);
}

/**
 * A variable of the host's environment, or undefined where there is none: no `process` (Workers,
 * Vercel Edge, browsers), or reading it throws (Deno without `--allow-env` throws `NotCapable`).
 */
function hostVariable(name: string): string | undefined {
  try {
    const value = (globalThis as { process?: { env?: Record<string, unknown> } }).process?.env?.[name];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The limits one question tool enforces. Precedence: explicit `limits` > the environment
 * (`ASK_MAX_QUESTIONS`, `ASK_MAX_OPTIONS`, `ASK_HEADER_MAX_LENGTH`, `ASK_QUESTION_MAX_LENGTH`) >
 * {@link DEFAULT_QUESTION_LIMITS}. An environment value that is not a positive integer is ignored
 * (an operator's typo must not break every agent); an invalid explicit limit is a programming error
 * and throws `TurnkitError` `CONFIG_INVALID`. The result is frozen, so it can key caches.
 *
 * @param env defaults to the host's `process.env` where there is one and it can be read (not in
 * every edge runtime; Deno needs `--allow-env`): otherwise the environment counts as empty.
 */
export function resolveQuestionLimits(
  limits: Partial<QuestionLimits> = {},
  env?: Record<string, string | undefined>,
): QuestionLimits {
  const resolved: QuestionLimits = { ...DEFAULT_QUESTION_LIMITS };
  for (const [key, variable] of ENV_LIMITS) {
    const text = (env ? env[variable] : hostVariable(variable))?.trim();
    if (text === undefined || !/^\d+$/.test(text)) continue;
    const value = Number(text);
    if (isAllowedLimit(key, value)) resolved[key] = value;
  }
  for (const key of Object.keys(DEFAULT_QUESTION_LIMITS) as (keyof QuestionLimits)[]) {
    const value = limits[key];
    if (value === undefined) continue;
    if (!isAllowedLimit(key, value)) {
      throw new TurnkitError(
        'CONFIG_INVALID',
        `Question limit ${key} must be an integer >= ${lowestAllowed(key)}, got ${String(value)}.`,
      );
    }
    resolved[key] = value;
  }
  return Object.freeze(resolved);
}
