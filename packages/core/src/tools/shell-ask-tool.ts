/**
 * `shellAskTool` (DESIGN §14, seed 001): a shell tool for agents that only know a shell. Its
 * `AskUserQuestion '<json>'` and `ask '<json>'` commands pause exactly as the question tool does —
 * same validation messages, same result text — and every other command goes to the app's `run`.
 * The command is split as a POSIX shell would quote it (single quotes, `'\''`, double quotes,
 * backslashes); nothing is expanded and nothing is executed here.
 */
import { z } from 'zod';
import { TurnkitError } from '../errors.js';
import {
  formatAnswersResult,
  type NormalizedAnswer,
  parseQuestionInput,
  type QuestionLimits,
  resolveQuestionLimits,
} from '../questions/index.js';
import { toolErrorResult } from '../results.js';
import type { Question } from '../types.js';
import { toolFrom } from './define-tool.js';
import type { AnyFunctionTool, AskResponse, QuestionInput, ToolContext } from './definitions.js';

/** How the model is told to call the ask command. */
export const SHELL_ASK_USAGE = `Usage: AskUserQuestion '{"questions":[...]}'`;

const ASK_COMMANDS = new Set(['AskUserQuestion', 'ask']);

const UNCLOSED_QUOTE =
  "Error: Invalid JSON format\nThe command has a quote that is not closed: quote the JSON in single quotes, each ' inside written as '\\''.";

/** Options of {@link shellAskTool}. */
export interface ShellAskToolOptions<Context = unknown> {
  /** Tool name the model sees (default `shell`). */
  name?: string | undefined;
  /** What the model reads; the default says how to ask. */
  description?: string | undefined;
  /** Runs every command that is not an ask; its return value is the tool result. */
  run: (command: string, ctx: ToolContext<Context>) => unknown;
  /** Limits of the questions (else `ASK_*` environment variables, else the defaults). */
  limits?: Partial<QuestionLimits>;
  /** A pending question expires this long after it was asked. */
  timeoutMs?: number | undefined;
}

/**
 * Splits a command line into words as a POSIX shell quotes them: `'…'` keeps everything literally
 * (`'\''` is how a single quote gets inside), `"…"` keeps everything but `\"`, `\\`, `\$` and
 * `` \` ``, and a backslash outside quotes escapes the next character. Returns null for an
 * unterminated quote.
 */
export function shellWords(command: string): string[] | null {
  const words: string[] = [];
  let word: string | null = null;
  for (let index = 0; index < command.length; index++) {
    const char = command[index]!;
    if (char === "'") {
      const end = command.indexOf("'", index + 1);
      if (end === -1) return null;
      word = (word ?? '') + command.slice(index + 1, end);
      index = end;
    } else if (char === '"') {
      let text = '';
      for (index++; index < command.length && command[index] !== '"'; index++) {
        const next = command[index + 1];
        if (command[index] === '\\' && next !== undefined && '"\\$`\n'.includes(next)) {
          if (next !== '\n') text += next;
          index++;
        } else text += command[index];
      }
      if (index >= command.length) return null;
      word = (word ?? '') + text;
    } else if (char === '\\' && index + 1 < command.length) {
      word = (word ?? '') + (command[index + 1] === '\n' ? '' : command[index + 1]);
      index++;
    } else if (/\s/.test(char)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? '') + char;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

function defaultDescription(name: string): string {
  return [
    `Run a shell command. To ask the user multiple-choice or free-text questions and wait for the answers, run: AskUserQuestion '<json>' (or: ask '<json>'), where <json> is {"questions":[{"question":"…?","header":"…","options":[{"label":"…","description":"…"}],"multiSelect":false}]}.`,
    'Ask only when the answer changes what you do. The result of an ask is {"answers":{"<header>":"<label>"}}.',
    `Example: ${name} with command: AskUserQuestion '{"questions":[{"question":"Which database?","header":"Database","options":[{"label":"PostgreSQL","description":"Relational"},{"label":"SQLite","description":"One file"}],"multiSelect":false}]}'`,
  ].join('\n');
}

/** Answers by header (as `resume` gets them) back in the normalised form the result text is made from. */
function normalized(questions: Question[], response: AskResponse): NormalizedAnswer[] {
  if (response.kind !== 'question') return [];
  return questions.map((question) => {
    const answer = response.answers[question.header];
    return !answer || 'skipped' in answer
      ? { questionId: question.id, skipped: true }
      : { questionId: question.id, ...answer };
  });
}

/**
 * The shell tool `shellAskTool` makes (interpreter/define-tool.ts puts the machinery of its asks on
 * it): its `AskUserQuestion '<json>'` / `ask '<json>'` commands ask, other commands go to `run`.
 */
export function shellToolFrom<Context = unknown>(options: ShellAskToolOptions<Context>): AnyFunctionTool {
  if (typeof options?.run !== 'function') {
    throw new TurnkitError(
      'CONFIG_INVALID',
      'shellAskTool needs `run(command, ctx)` for the commands that are not asks.',
    );
  }
  const name = options.name ?? 'shell';
  const limits = resolveQuestionLimits(options.limits);
  const tool = toolFrom({
    name,
    description: options.description ?? defaultDescription(name),
    input: z.object({ command: z.string().describe('The command line to run') }),
    execute: ({ command }, ctx) => {
      const words = shellWords(command);
      if (!words) {
        // An ask that does not parse is still an ask: the model gets the ask's usage, and the
        // app's run() never sees a half-quoted JSON it would hand to a real shell.
        if (!ASK_COMMANDS.has(command.trimStart().split(/\s/, 1)[0] ?? ''))
          return options.run(command, ctx as ToolContext<Context>);
        return toolErrorResult('invalid_arguments', `${UNCLOSED_QUOTE}\n${SHELL_ASK_USAGE}`);
      }
      if (!ASK_COMMANDS.has(words[0] ?? '')) return options.run(command, ctx as ToolContext<Context>);
      const json = words.slice(1).join(' ').trim();
      if (json === '')
        return toolErrorResult('invalid_arguments', `Error: Missing JSON parameter\n${SHELL_ASK_USAGE}`);
      const parsed = parseQuestionInput(json, limits);
      if (!parsed.ok) return toolErrorResult('invalid_arguments', `${parsed.message}\n${SHELL_ASK_USAGE}`);
      // The ask checks the questions again, as written, within the same limits: it cannot fail now.
      const { questions } = JSON.parse(json) as { questions: QuestionInput[] };
      const timeout = options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {};
      return ctx.ask({ questions, limits, ...timeout }, parsed.questions);
    },
    resume: (_input, response) => {
      const questions = response.state as Question[];
      return formatAnswersResult(questions, normalized(questions, response));
    },
  });
  return tool as unknown as AnyFunctionTool;
}
