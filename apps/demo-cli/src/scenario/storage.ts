/**
 * The storage sub-agent of the demo: the LN2 assistant hands it requests to put new vials away
 * (`agentTool`, questions bubbling up). It asks where they go with a free-text question (no
 * options: a position is typed), then records them with `record_freeze`, which needs approval.
 * Both reach the person with the agent path `ln2-inventory › storage`. Offline, its model is a
 * script like the lead's: one step function of the request.
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
import { z } from 'zod';
import type { Lang } from '../i18n.js';
import type { Freezer } from './freezer.js';
import { callOf, guessCellLine, parseJson } from './script.js';

/** Stable: it is part of the agent path and of the interaction ids kept in snapshots. */
export const STORAGE_AGENT = 'storage';

const TEXT = {
  en: {
    header: 'Position',
    question: (cellLine: string) =>
      `Where should the new ${cellLine} vials go? Type one position per vial (box-position), e.g. 2-D6, 2-D7.`,
    reason: (cellLine: string, positions: string[]) =>
      `Adds ${positions.length} vial${positions.length === 1 ? '' : 's'} of ${cellLine} at ${positions.join(', ')}.`,
    stored: (cellLine: string, positions: string[]) =>
      `Stored ${positions.length} vial${positions.length === 1 ? '' : 's'} of ${cellLine} at ${positions.join(', ')}.`,
    noPosition: 'Nothing was stored: no position was given.',
    notStored: (why: string | undefined) => `Nothing was stored${why ? `: ${why}` : '.'}`,
  },
  'zh-CN': {
    header: '位置',
    question: (cellLine: string) =>
      `新的 ${cellLine} 冻存管放在哪里？每支写一个位置（盒号-位置），例如 2-D6, 2-D7。`,
    reason: (cellLine: string, positions: string[]) =>
      `在 ${positions.join('、')} 存入 ${positions.length} 支 ${cellLine}。`,
    stored: (cellLine: string, positions: string[]) =>
      `已在 ${positions.join('、')} 存入 ${positions.length} 支 ${cellLine}。`,
    noPosition: '没有给出位置，未存入任何样品。',
    notStored: (why: string | undefined) => `未存入任何样品${why ? `：${why}` : '。'}`,
  },
} as const;

const freezeInput = z.object({
  cellLine: z.string().min(1).describe('The cell line of the new vials'),
  positions: z.array(z.string().min(1)).min(1).max(10).describe('One freezer position per vial, e.g. 2-D6'),
});

/** `record_freeze` puts new vials into the freezer; a person approves each call. */
function recordFreeze(lang: Lang) {
  return defineTool({
    name: 'record_freeze',
    description: 'Record new vials of a cell line put into the LN2 freezer. Needs the user’s approval.',
    input: freezeInput,
    needsApproval: ({ cellLine, positions }) => TEXT[lang].reason(cellLine, positions),
    execute: ({ cellLine, positions }, ctx) => {
      const freezer = ctx.context as Freezer;
      const same = (name: string) => name.toLowerCase() === cellLine.toLowerCase();
      let line = freezer.lines.find((candidate) => same(candidate.cellLine));
      if (!line) {
        line = { cellLine, kind: 'new stock', box: Number.parseInt(positions[0]!, 10) || 0, positions: [] };
        freezer.lines.push(line);
      }
      // Positions are a set, so a call that runs twice stores each vial once.
      for (const position of positions) if (!line.positions.includes(position)) line.positions.push(position);
      return { ok: true, cellLine: line.cellLine, positions, vials: line.positions.length };
    },
  });
}

/** The storage agent's next move, from its own transcript: ask where, record, report. */
export function storageStep(request: ModelRequest, lang: Lang): ScriptedStep {
  const text = TEXT[lang];
  const messages = request.messages.filter((message) => message.role !== 'system');
  const cellLine = guessCellLine(messages.find((message) => message.role === 'user')?.content ?? '');
  const last = messages.at(-1);
  if (last?.role !== 'tool') {
    const question = { header: text.header, question: text.question(cellLine), options: [] };
    return { toolCalls: [{ name: 'AskUserQuestion', arguments: { questions: [question] } }] };
  }
  const result = parseJson(last.content);
  if (callOf(messages, last.tool_call_id)?.function.name === 'AskUserQuestion') {
    const answer = Object.values((result.answers as Record<string, string> | undefined) ?? {})[0];
    if (result.ok === false || answer === undefined || answer === '(skipped)') return text.noPosition;
    const positions = answer.split(/[\s,，、]+/).filter(Boolean);
    return { toolCalls: [{ name: 'record_freeze', arguments: { cellLine, positions } }] };
  }
  if (result.ok === true) return text.stored(String(result.cellLine), result.positions as string[]);
  return text.notStored((result.rationale ?? result.message) as string | undefined);
}

/** The storage agent, on `model` (the offline script by default). */
export function createStorageAgent(options: { lang: Lang; model: ModelAdapter }): Agent {
  return defineAgent({
    name: STORAGE_AGENT,
    instructions: [
      'You put new vials into the LN2 freezer for the lab’s inventory assistant.',
      'Ask the user where the vials go with AskUserQuestion, as a free-text question (options: []): one position per vial.',
      'Then record them with record_freeze (the user approves it) and report what was stored in one sentence.',
    ].join('\n'),
    model: options.model,
    tools: [recordFreeze(options.lang), askUserQuestion()],
    maxSteps: 6,
  });
}

/** The offline storage agent's model. `delayMs` makes the spinner visible on a terminal. */
export function storageScenarioModel(lang: Lang, delayMs = 0): ModelAdapter {
  const step = (request: ModelRequest) => storageStep(request, lang);
  return scriptedModel(
    Array.from({ length: 1000 }, () => step),
    { name: 'storage-script', delayMs },
  );
}
