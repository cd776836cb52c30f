/**
 * The lab desk of the demo (DESIGN §27, handoffs): the LN2 assistant hands it what is not the
 * freezer's — the CO2 incubators — and it hands the run back when the person also wants vials
 * thawed. A handoff moves the run (the desk speaks from then on, and a pause there resumes there),
 * where the storage sub-agent is called and returns. Offline, its model is a script like the lead's.
 */
import {
  type Agent,
  askUserQuestion,
  defineAgent,
  defineTool,
  type ModelAdapter,
  type ModelRequest,
} from '@turnkit/core';
import { type ScriptedStep, scriptedModel } from '@turnkit/core/testing';
import { sayOnly, ThawPlan, type ThawPlanValue } from '@turnkit/demo-models';
import { z } from 'zod';
import type { Lang } from '../i18n.js';
import { callOf, DESK_AGENT, parseJson } from './script.js';

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
  'zh-CN': {
    header: '培养箱',
    which: '要读取哪个培养箱？',
    option: (number: string) => `${number} 号培养箱`,
    reading: (incubator: string, celsius: number, co2: number) =>
      `${incubator} 号培养箱：${celsius.toFixed(1)} °C，CO2 ${co2.toFixed(1)} %，箱门关闭。`,
    handingBack: '复苏交给液氮罐助手处理。',
    only: '我负责 CO2 培养箱。可以问我培养箱的情况，冻存管请问液氮罐助手。',
  },
} as const;

/** Whether a message also asks for vials: the desk hands the run back to the lead after its part. */
function wantsThaw(message: string): boolean {
  return /\b(thaw|vials?)\b|复苏|冻存管/i.test(message);
}

const readIncubator = defineTool({
  name: 'read_incubator',
  description: 'Read a CO2 incubator’s temperature, CO2 level and door.',
  input: z.object({ incubator: z.string().default('2').describe('The incubator, e.g. 2') }),
  execute: ({ incubator }) => ({ incubator, celsius: 37, co2Percent: 5, door: 'closed' }),
});

/** The desk's next move, from the transcript: read the incubator, report, hand back if vials wait. */
export function deskStep(request: ModelRequest, lang: Lang, lead: string): ScriptedStep {
  const text = TEXT[lang];
  const messages = request.messages.filter((message) => message.role !== 'system');
  const asked = messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
  const last = messages.at(-1);
  const called = last?.role === 'tool' ? callOf(messages, last.tool_call_id)?.function.name : undefined;
  const read = (incubator: string): ScriptedStep => ({
    toolCalls: [{ name: 'read_incubator', arguments: { incubator } }],
  });
  if (called === `transfer_to_${DESK_AGENT}`) {
    const named = /(?:incubator\s*|#)(\d)|(\d)\s*号培养箱/i.exec(asked);
    if (named) return read((named[1] ?? named[2])!);
    // Which one is not said: the desk asks — a pause in the agent the run was handed to.
    const question = { header: text.header, question: text.which, options: ['1', '2'].map(text.option) };
    return { toolCalls: [{ name: 'AskUserQuestion', arguments: { questions: [question] } }] };
  }
  if (called === 'AskUserQuestion' && last?.role === 'tool') {
    const answer = Object.values((parseJson(last.content).answers as Record<string, string>) ?? {})[0];
    const number = /\d/.exec(answer ?? '')?.[0];
    return number ? read(number) : JSON.stringify(sayOnly(text.only));
  }
  if (called === 'read_incubator' && last?.role === 'tool') {
    const reading = JSON.parse(last.content) as { incubator: string; celsius: number; co2Percent: number };
    const said = text.reading(reading.incubator, reading.celsius, reading.co2Percent);
    if (!wantsThaw(asked)) return JSON.stringify(sayOnly(said));
    const reason = text.handingBack;
    return { text: `${said} ${reason}`, toolCalls: [{ name: `transfer_to_${lead}`, arguments: { reason } }] };
  }
  return JSON.stringify(sayOnly(text.only));
}

/** The desk on `model`; `lead` is the agent it hands back to (named lazily: the two name each other). */
export function createDeskAgent(options: {
  lang: Lang;
  model: ModelAdapter;
  lead: () => Agent<ThawPlanValue>;
}): Agent<ThawPlanValue> {
  return defineAgent({
    name: DESK_AGENT,
    instructions: [
      'You are the lab desk: you look after the CO2 incubators (read_incubator).',
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

/** The offline desk's model. `delayMs` makes the spinner visible on a terminal. */
export function deskScenarioModel(lang: Lang, lead: string, delayMs = 0): ModelAdapter {
  const step = (request: ModelRequest) => deskStep(request, lang, lead);
  return scriptedModel(
    Array.from({ length: 1000 }, () => step),
    { name: 'desk-script', delayMs },
  );
}
