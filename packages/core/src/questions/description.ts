/**
 * The default description of the AskUserQuestion tool. The model decides from this text alone
 * whether to interrupt a person, so it spends as many words on when *not* to ask as on how to ask.
 * The limits are written in, so the model is told the same numbers the parser enforces.
 */
import type { QuestionLimits } from './limits.js';

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

const EXAMPLE_CALL = JSON.stringify({
  questions: [
    {
      question: 'Which database should the new service use?',
      header: 'Database',
      options: [
        { label: 'PostgreSQL (Recommended)', description: 'Relational; the team already runs it' },
        { label: 'SQLite', description: 'One file, no server; fine for a single instance' },
      ],
      multiSelect: false,
    },
  ],
});

/**
 * What the model reads about AskUserQuestion: what it is for, when to ask and when not to, how to
 * write questions and options within `limits`, what the answers look like, and one example.
 */
export function defaultQuestionDescription(limits: QuestionLimits): string {
  const optionRange = limits.maxOptions === 2 ? 'exactly 2 options' : `2 to ${limits.maxOptions} options`;
  return [
    'Ask the user multiple-choice questions and wait for the answers. The run pauses until a person answers, which may take a long time, so ask only when the answer changes what you do.',
    '',
    'Ask when you need:',
    "- the user's preferences or requirements;",
    '- to resolve an ambiguous instruction where the readings lead to different work;',
    '- a decision between real alternatives (approach, trade-off, scope).',
    '',
    'Do not ask when:',
    '- the answer is already in the conversation, in tool results or in the data you can read;',
    '- a reasonable default exists: use it and say which one you chose;',
    '- it is a detail the user does not need to care about.',
    '',
    'How to ask:',
    `- Put related questions in one call: at most ${count(limits.maxQuestions, 'question')}, each with ${optionRange} (or none, for free text).`,
    `- question: the complete question, ending with "?" (at most ${limits.questionMaxLength} characters).`,
    `- header: a short unique label, at most ${limits.headerMaxLength} characters (e.g. "Auth method"); the answer comes back under it.`,
    `- options: a label of 1 to 5 words (at most ${limits.labelMaxLength} characters, unique within the question) and a description of what the choice means or implies (at most ${limits.descriptionMaxLength} characters).`,
    '- If you recommend an option, put it first and end its label with " (Recommended)".',
    '- Set multiSelect to true when the choices are not mutually exclusive.',
    '- Do not add an "Other" option: the user can always type their own answer.',
    '- When the answer is something only the user can type (a box number, a name, a date) and no short list of choices fits, ask a free-text question: options []. Prefer options whenever the likely answers are few.',
    '',
    'The result is {"answers":{"<header>":"<label>"}}: several labels are joined with ", ", a typed answer reads "Other (custom: <text>)", the answer to a free-text question is the text itself, a remark from the user is appended as " (note: <text>)", and a question the user skipped reads "(skipped)" (then use your judgement).',
    '',
    `Example: ${EXAMPLE_CALL}`,
    'Result: {"answers":{"Database":"PostgreSQL (Recommended)"}}',
  ].join('\n');
}
