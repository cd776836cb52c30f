/**
 * The lab desk both demos hand incubator questions to (DESIGN §27, handoffs): the LN2 assistant
 * hands it what is not the freezer's, it asks which incubator when that is not said (a pause in
 * the agent handed to, answered in any process), reads it, and hands the run back when the person
 * also wants vials. Offline, its model is a script: one step function of the request.
 */
import {
  type Agent,
  askUserQuestion,
  type ChatMessage,
  defineAgent,
  defineTool,
  type ModelAdapter,
  type ModelRequest,
} from '@turnkit/core';
import { type ScriptedStep, scriptedModel } from '@turnkit/core/testing';
import { z } from 'zod';
import { sayOnly, ThawPlan, type ThawPlanValue } from './plan.js';

/** Stable: snapshots name the agent that plays a run. */
export const DESK_AGENT = 'lab-desk';

const TEXT = {
  en: {
    header: 'Incubator',
    which: 'Which incubator should I read?',
    option: (number: string) => `Incubator ${number}`,
    reading: (incubator: string, celsius: number, co2: number) =>
      `Incubator ${incubator} reads ${celsius.toFixed(1)} °C and ${co2.toFixed(1)} % CO2; its door is closed.`,
    handingBack: 'The freezer assistant will handle the thaw.',
    only: 'I look after the CO2 incubators. Ask me about one, or ask the freezer assistant about vials.',
  },
  zh: {
    header: '培养箱',
    which: '要读取哪个培养箱？',
    option: (number: string) => `${number} 号培养箱`,
    reading: (incubator: string, celsius: number, co2: number) =>
      `${incubator} 号培养箱：${celsius.toFixed(1)} °C，CO2 ${co2.toFixed(1)} %，箱门关闭。`,
    handingBack: '复苏交给液氮罐助手处理。',
    only: '我负责 CO2 培养箱。可以问我培养箱的情况，冻存管请问液氮罐助手。',
  },
} as const;

/** Whether a message is about the incubators: the LN2 assistant hands it to the desk. */
export function isDeskRequest(message: string): boolean {
  return /\b(incubators?|co2)\b|培养箱/i.test(message);
}

/** Whether a message also asks for vials: the desk hands the run back after its part. */
function wantsVials(message: string): boolean {
  return /\b(thaw|vials?)\b|复苏|解冻|冻存管/i.test(message);
}

/** The name of the tool a tool result answers. */
function calledTool(messages: ChatMessage[], toolCallId: string): string | undefined {
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    const call = message.tool_calls?.find((candidate) => candidate.id === toolCallId);
    if (call) return call.function.name;
  }
  return undefined;
}

const readIncubator = defineTool({
  name: 'read_incubator',
  description: 'Read a CO2 incubator’s temperature, CO2 level and door.',
  input: z.object({ incubator: z.string().describe('The incubator, e.g. 2') }),
  execute: ({ incubator }) => ({ incubator, celsius: 37, co2Percent: 5, door: 'closed' }),
});

/** The desk's next move, from the transcript: ask which incubator, read it, report, hand back if vials wait. */
export function deskStep(request: ModelRequest, lead: string, language?: 'en' | 'zh'): ScriptedStep {
  const messages = request.messages.filter((message) => message.role !== 'system');
  const asked = messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
  const text = TEXT[language ?? (/[\u4e00-\u9fff]/.test(asked) ? 'zh' : 'en')];
  const last = messages.at(-1);
  const called = last?.role === 'tool' ? calledTool(messages, last.tool_call_id) : undefined;
  const read = (incubator: string): ScriptedStep => ({
    toolCalls: [{ name: 'read_incubator', arguments: { incubator } }],
  });
  if (called === `transfer_to_${DESK_AGENT}`) {
    const named = /(?:incubator\s*|#)(\d)|(\d)\s*号培养箱/i.exec(asked);
    if (named) return read((named[1] ?? named[2])!);
    const question = { header: text.header, question: text.which, options: ['1', '2'].map(text.option) };
    return { toolCalls: [{ name: 'AskUserQuestion', arguments: { questions: [question] } }] };
  }
  if (called === 'AskUserQuestion' && last?.role === 'tool') {
    const answers = (JSON.parse(last.content) as { answers?: Record<string, string> }).answers ?? {};
    const number = /\d/.exec(Object.values(answers)[0] ?? '')?.[0];
    return number ? read(number) : JSON.stringify(sayOnly(text.only));
  }
  if (called === 'read_incubator' && last?.role === 'tool') {
    const reading = JSON.parse(last.content) as { incubator: string; celsius: number; co2Percent: number };
    const said = text.reading(reading.incubator, reading.celsius, reading.co2Percent);
    if (!wantsVials(asked)) return JSON.stringify(sayOnly(said));
    const reason = text.handingBack;
    return { text: `${said} ${reason}`, toolCalls: [{ name: `transfer_to_${lead}`, arguments: { reason } }] };
  }
  return JSON.stringify(sayOnly(text.only));
}

/** The desk's offline model: {@link deskStep} on every call, handing back to `leadName`. */
export function deskScript(options: {
  leadName: string;
  language?: 'en' | 'zh';
  delayMs?: number;
}): ModelAdapter {
  const step = (request: ModelRequest) => deskStep(request, options.leadName, options.language);
  return scriptedModel(
    Array.from({ length: 1000 }, () => step),
    { name: 'desk-script', delayMs: options.delayMs ?? 0 },
  );
}

/**
 * The lab desk on `model` (its offline script, {@link deskScript}, or a real model); `lead` is the
 * agent it hands back to, named lazily: the two name each other. Its final answer is a plan like the lead's.
 */
export function labDesk(options: {
  model: ModelAdapter;
  lead: () => Agent<ThawPlanValue>;
}): Agent<ThawPlanValue> {
  return defineAgent({
    name: DESK_AGENT,
    instructions: [
      'You are the lab desk: you look after the CO2 incubators (read_incubator); ask which one when the user does not say.',
      'When the user also wants vials thawed or stored, hand the conversation back to the freezer assistant.',
      'Your final answer is a JSON plan like the freezer assistant’s: summary, thawed (empty), medium (null), followUps and nextSteps.',
    ].join('\n'),
    model: options.model,
    tools: [readIncubator, askUserQuestion()],
    output: ThawPlan,
    maxSteps: 6,
    handoffs: () => [options.lead()],
  });
}
