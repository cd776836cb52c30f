/**
 * The offline "model": a `scriptedModel` whose every step is the same function of the request. It
 * reads the transcript since the last user message and decides what a careful assistant would do
 * next, so the conversation follows the person's answers (another line, Other text, a rejection…)
 * and a run resumed in a new process goes on exactly where it was.
 */
import type { ChatMessage, ModelAdapter, ModelRequest, ToolCall } from '@turnkit/core';
import { type ScriptedStep, scriptedModel } from '@turnkit/core/testing';
import { DESK_AGENT, isDeskRequest, sayOnly, type ThawPlanValue } from '@turnkit/demo-models';
import type { Lang } from '../i18n.js';
import { type InventoryMatch, initialFreezer } from './freezer.js';
import { AGENT_NAME } from './names.js';
import { type ScenarioText, scenarioText } from './text.js';

/** The script never runs out: one step per model call, up to this many calls in a conversation. */
const MAX_MODEL_CALLS = 1000;
/** The freezer's cell lines, each named once (a line may sit in several boxes, one entry each). */
const KNOWN_LINES = [...new Set(initialFreezer().lines.map((line) => line.cellLine))];

/** What one answer text of `{"answers":{…}}` holds, e.g. `K562, Other (custom: HeLa) (note: soon)`. */
export interface ParsedAnswer {
  labels: string[];
  other?: string;
  note?: string;
  skipped: boolean;
}

/** Reads back an answer as core formats it for the model (DESIGN §6). */
export function parseAnswerText(text: string): ParsedAnswer {
  if (text === '(skipped)') return { labels: [], skipped: true };
  let rest = text;
  let note: string | undefined;
  const noteAt = rest.lastIndexOf(' (note: ');
  if (noteAt !== -1 && rest.endsWith(')')) {
    note = rest.slice(noteAt + ' (note: '.length, -1);
    rest = rest.slice(0, noteAt);
  }
  let other: string | undefined;
  const otherAt = rest.indexOf('Other (custom: ');
  if (otherAt !== -1 && rest.endsWith(')')) {
    other = rest.slice(otherAt + 'Other (custom: '.length, -1);
    rest = rest.slice(0, otherAt).replace(/,\s*$/, '');
  }
  const labels = rest === '' ? [] : rest.split(', ');
  return {
    labels,
    skipped: false,
    ...(other === undefined ? {} : { other }),
    ...(note === undefined ? {} : { note }),
  };
}

/** The cell line a message is about: a known name, else a word with a digit, else the longest word. */
export function guessCellLine(message: string): string {
  const lower = message.toLowerCase();
  const known = [...KNOWN_LINES]
    .sort((a, b) => b.length - a.length)
    .find((name) => lower.includes(name.toLowerCase()));
  if (known) return known;
  const words = message.match(/[A-Za-z0-9][\w-]*/g) ?? [];
  return (
    words.find((word) => /\d/.test(word)) ??
    [...words].sort((a, b) => b.length - a.length)[0] ??
    message.trim()
  );
}

/** The object `text` holds as JSON, or `{}`. */
export function parseJson(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The tool call a tool result answers. */
export function callOf(messages: ChatMessage[], toolCallId: string): ToolCall | undefined {
  for (const message of messages) {
    const call =
      message.role === 'assistant' ? message.tool_calls?.find((c) => c.id === toolCallId) : undefined;
    if (call) return call;
  }
  return undefined;
}

/** The answers of the latest question in this turn, in question order: [cell line, follow-ups]. */
function latestAnswers(turn: ChatMessage[]): ParsedAnswer[] {
  for (let index = turn.length - 1; index >= 0; index--) {
    const message = turn[index]!;
    if (message.role !== 'tool' || callOf(turn, message.tool_call_id)?.function.name !== 'AskUserQuestion')
      continue;
    const answers = parseJson(message.content).answers;
    if (typeof answers === 'object' && answers !== null)
      return Object.values(answers).map((v) => parseAnswerText(String(v)));
  }
  return [];
}

function thawCall(cellLine: string, answers: ParsedAnswer[]): ScriptedStep {
  const [line, followUps] = answers;
  const tasks =
    followUps && !followUps.skipped
      ? [...followUps.labels, ...(followUps.other ? [followUps.other] : [])]
      : [];
  const note = line?.note ?? followUps?.note;
  return {
    toolCalls: [
      { name: 'record_thaw', arguments: { cellLine, vials: 1, followUps: tasks, ...(note ? { note } : {}) } },
    ],
  };
}

function askCall(text: ScenarioText, query: string, matches: InventoryMatch[]): ScriptedStep {
  const shown = matches.slice(0, 4);
  return {
    toolCalls: [
      {
        name: 'AskUserQuestion',
        arguments: {
          questions: [
            {
              header: text.cellLineHeader,
              question: text.whichLine(
                query,
                shown.map((m) => m.cellLine),
              ),
              options: shown.map((m, i) => ({
                label: i === 0 ? `${m.cellLine}${text.recommended}` : m.cellLine,
                description: text.describe(m),
              })),
              multiSelect: false,
            },
            {
              header: text.followUpsHeader,
              question: text.followUpsQuestion,
              options: text.followUps,
              multiSelect: true,
            },
          ],
        },
      },
    ],
  };
}

function afterQuery(text: ScenarioText, turn: ChatMessage[], content: string): ScriptedStep {
  const result = parseJson(content);
  const query = String(result.query ?? '');
  const matches = Array.isArray(result.matches) ? (result.matches as InventoryMatch[]) : [];
  if (matches.length === 0) return text.noMatch(query, KNOWN_LINES);
  const answers = latestAnswers(turn);
  const exact = matches.find((m) => m.cellLine.toLowerCase() === query.toLowerCase());
  if (matches.length === 1) return thawCall(matches[0]!.cellLine, answers);
  if (exact && answers.length > 0) return thawCall(exact.cellLine, answers);
  return askCall(text, query, matches);
}

function afterQuestion(text: ScenarioText, turn: ChatMessage[], content: string): ScriptedStep {
  if (parseJson(content).ok === false) return text.noAnswer;
  const answers = latestAnswers(turn);
  const line = answers[0];
  if (!line || line.skipped) return text.noAnswer;
  if (line.other) {
    return {
      text: text.checkingOther(line.other),
      toolCalls: [{ name: 'query_inventory', arguments: { cellLine: line.other } }],
    };
  }
  // Either language's marker: a run may be resumed with another --lang than it was started with.
  const cellLine = line.labels[0]!.replace(/\s*(\(Recommended\)|（推荐）)$/, '');
  return thawCall(cellLine, answers);
}

/** A step of the script: a tool call or text (a final text is a plan that thaws nothing), or a whole plan. */
type Step = ScriptedStep | { plan: ThawPlanValue };

function afterThaw(text: ScenarioText, content: string): Step {
  const result = parseJson(content);
  if (result.ok === true) {
    const summary = {
      cellLine: String(result.cellLine),
      box: Number(result.box),
      positions: result.positions as string[],
      left: Number(result.left),
      followUps: (result.followUps as string[] | undefined) ?? [],
      edited: result.input_edited_by_user !== undefined,
    };
    return {
      plan: {
        summary: text.done(summary),
        thawed: [
          {
            cellLine: summary.cellLine,
            box: String(summary.box),
            positions: summary.positions,
            vialsLeft: summary.left,
          },
        ],
        medium: null,
        followUps: summary.followUps,
        nextSteps: [text.nextStep],
      },
    };
  }
  if (result.error_code === 'rejected_by_user') return text.rejected(result.rationale as string | undefined);
  if (result.error_code === 'tool_error') return text.failed(String(result.message));
  // The box form (record_thaw's ctx.ask) was cancelled or timed out.
  if (result.error_code === 'question_cancelled' || result.error_code === 'question_timeout')
    return text.noBox;
  return text.notRecorded;
}

/** Whether a message asks to put new vials away: the storage sub-agent does that. */
export function isStoreRequest(message: string): boolean {
  return /\b(store|freeze|put away)\b|冻存|存入|入库/i.test(message);
}

/**
 * The next step, decided from the request alone. The agent's final answer is a thaw plan
 * (`output: ThawPlan`): a final text is written as the JSON of a plan that says it.
 */
export function nextStep(request: ModelRequest, lang: Lang): ScriptedStep {
  const step = decide(request, lang);
  if (typeof step === 'string') return JSON.stringify(sayOnly(step));
  if ('plan' in step) return JSON.stringify(step.plan);
  return step;
}

function decide(request: ModelRequest, lang: Lang): Step {
  const text = scenarioText(lang);
  const messages = request.messages.filter((message) => message.role !== 'system');
  const lastUser = messages.map((message) => message.role).lastIndexOf('user');
  const turn = messages.slice(lastUser);
  const last = messages.at(-1);
  // The incubators are the lab desk's (a handoff, DESIGN §27): it hands back what is the freezer's.
  if (last?.role === 'user' && isDeskRequest(last.content)) {
    const reason = 'A question about an incubator.';
    return {
      text: text.handingOver,
      toolCalls: [{ name: `transfer_to_${DESK_AGENT}`, arguments: { reason } }],
    };
  }
  if (last?.role === 'user' && isStoreRequest(last.content)) {
    return { text: text.storing, toolCalls: [{ name: 'storage', arguments: { input: last.content } }] };
  }
  if (last?.role === 'user') {
    return {
      text: text.checking,
      toolCalls: [{ name: 'query_inventory', arguments: { cellLine: guessCellLine(last.content) } }],
    };
  }
  if (last?.role !== 'tool') return text.noAnswer;
  switch (callOf(turn, last.tool_call_id)?.function.name) {
    case 'query_inventory':
      return afterQuery(text, turn, last.content);
    case 'AskUserQuestion':
      return afterQuestion(text, turn, last.content);
    case 'record_thaw':
      return afterThaw(text, last.content);
    case 'storage':
      return text.storageReport(last.content);
    case `transfer_to_${DESK_AGENT}`:
      return text.noAnswer;
    // The lab desk handed the run back: the thaw the person asked for is this agent's.
    case `transfer_to_${AGENT_NAME}`: {
      const asked = turn[0]?.role === 'user' ? turn[0].content : '';
      return {
        text: text.checking,
        toolCalls: [{ name: 'query_inventory', arguments: { cellLine: guessCellLine(asked) } }],
      };
    }
    default:
      return text.noAnswer;
  }
}

/** The scripted LN2 assistant. `delayMs` makes the spinner visible on a terminal. */
export function scenarioModel(lang: Lang, delayMs = 0): ModelAdapter {
  const step = (request: ModelRequest) => nextStep(request, lang);
  return scriptedModel(
    Array.from({ length: MAX_MODEL_CALLS }, () => step),
    { name: 'ln2-script', delayMs },
  );
}
