/** The AskUserQuestion building blocks: input parsing, answer validation, result texts, description. */
export { type NormalizedAnswer, normalizeAnswers, sameAnswers } from './answers.js';
export { defaultQuestionDescription } from './description.js';
export { formatAnswersResult, formatDefaultedResult } from './format.js';
export { DEFAULT_QUESTION_LIMITS, type QuestionLimits, resolveQuestionLimits } from './limits.js';
export { questionParametersSchema } from './parameters.js';
export { parseQuestionInput } from './schema.js';
export { controlCharacterIn, controlCharacterIssues, controlCharacterMessage } from './text.js';
