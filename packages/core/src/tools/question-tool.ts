/**
 * `askUserQuestion`: the question tool. The model asks the human 1–4 multiple-choice questions and
 * the turn pauses; the questions module parses, validates and formats everything about it.
 */
import {
  defaultQuestionDescription,
  parseQuestionInput,
  questionParametersSchema,
  resolveQuestionLimits,
} from '../questions/index.js';
import { checkName, hashSchema } from './define-tool.js';
import type { AskUserQuestionOptions, QuestionTool } from './definitions.js';

/**
 * The AskUserQuestion tool: the model asks the human 1–4 multiple-choice questions, and the turn
 * pauses with `needsInput` until `answerQuestion` supplies the answers.
 */
export function askUserQuestion(options: AskUserQuestionOptions = {}): QuestionTool {
  const name = options.name ?? 'AskUserQuestion';
  checkName(name);
  const limits = resolveQuestionLimits(options.limits);
  const description = options.description ?? defaultQuestionDescription(limits);
  const parameters = questionParametersSchema(limits);
  return {
    kind: 'question',
    name,
    description,
    limits,
    timeoutMs: options.timeoutMs,
    onExpire: options.onExpire ?? 'timeout',
    spec: { type: 'function', function: { name, description, parameters } },
    schemaHash: hashSchema(parameters),
    parse: (rawArguments) => parseQuestionInput(rawArguments, limits),
  };
}
