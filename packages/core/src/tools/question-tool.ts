/**
 * `askUserQuestion`: the question tool. The model asks the human 1–4 multiple-choice questions and
 * the turn pauses; the questions module parses, validates and formats everything about it.
 */

import { TurnkitError } from '../errors.js';
import {
  defaultQuestionDescription,
  parseQuestionInput,
  questionParametersSchema,
  resolveQuestionLimits,
} from '../questions/index.js';
import { checkName, hashSchema } from './define-tool.js';
import type { AskUserQuestionOptions, QuestionTool } from './definitions.js';
import { checkKeptAsk } from './kept-asks.js';
import { assigneesProblem } from './policy.js';

/**
 * The question tool `askUserQuestion` makes (interpreter/define-tool.ts puts on it the code that
 * resolves who may answer its questions).
 */
export function questionToolFrom(options: AskUserQuestionOptions = {}): QuestionTool {
  const name = options.name ?? 'AskUserQuestion';
  checkName(name);
  const assigned = options.assignees === undefined ? null : assigneesProblem(options.assignees);
  if (assigned) throw new TurnkitError('CONFIG_INVALID', `askUserQuestion ${name}: assignees ${assigned}.`);
  const keep = {
    ...(options.remindBeforeMs !== undefined ? { remindBeforeMs: options.remindBeforeMs } : {}),
    ...(options.escalate !== undefined ? { escalate: options.escalate } : {}),
  };
  checkKeptAsk(`askUserQuestion ${name}`, keep, options.timeoutMs !== undefined);
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
    ...(options.assignees !== undefined ? { assignees: options.assignees } : {}),
    ...(Object.keys(keep).length > 0 ? { keep } : {}),
    spec: { type: 'function', function: { name, description, parameters } },
    schemaHash: hashSchema(parameters),
    parse: (rawArguments) => parseQuestionInput(rawArguments, limits),
  };
}
