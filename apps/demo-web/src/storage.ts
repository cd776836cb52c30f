/**
 * The storage sub-agent of the web demo: the assistant hands it requests to put new vials away
 * (`agentTool`, questions bubbling up to the page with the agent path `ln2-web › storage`). It asks
 * where the vials go with a free-text question (no options), then stores them with `store_vials`,
 * which needs approval, and reports. Its model is a script: one step function of the request.
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
import type { Freezer } from './freezer.js';

/** Stable: it is part of the agent path and of the interaction ids kept in snapshots. */
export const STORAGE_AGENT = 'storage';

const TEXT = {
  en: {
    header: 'Position',
    question: (line: string) =>
      `Where should the new ${line} vials go? One position per vial, e.g. B2-14, B2-15.`,
    stored: (line: string, positions: string[]) =>
      `Stored ${positions.length} vial(s) of ${line} at ${positions.join(', ')}.`,
    nothing: 'Nothing was stored: no position was given. Tell me where the vials go to store them.',
    rejected: (line: string, positions: string[], why: string | undefined) =>
      `You rejected storing ${positions.length} vial(s) of ${line} at ${positions.join(', ')}${why ? ` (“${why}”)` : ''}, so nothing was stored and the freezer is unchanged. To store them, ask again with the positions you want.`,
  },
  zh: {
    header: '位置',
    question: (line: string) => `新的 ${line} 冻存管放在哪里？每支一个位置，例如 B2-14, B2-15。`,
    stored: (line: string, positions: string[]) =>
      `已在 ${positions.join('、')} 存入 ${positions.length} 支 ${line}。`,
    nothing: '未存入任何样品：没有给出位置。告诉我放在哪里即可存入。',
    rejected: (line: string, positions: string[], why: string | undefined) =>
      `你拒绝了在 ${positions.join('、')} 存入 ${positions.length} 支 ${line}${why ? `（“${why}”）` : ''}，所以没有存入任何样品，液氮罐保持不变。如需存入，请用你想要的位置再提一次。`,
  },
} as const;

/** Whether a message asks to put new vials away: the storage agent does that. */
export function isStoreRequest(message: string): boolean {
  return /\b(store|freeze|put away)\b|冻存|存入|入库/i.test(message);
}

/** The cell line a storage request is about: a name such as K562, HeLa or MCF-7, else "cells". */
function cellLineOf(task: string): string {
  const words = task.match(/[A-Za-z0-9][\w-]*/g) ?? [];
  return words.find((word) => /[A-Za-z].*\d|[a-z][A-Z]|[A-Z]{2}/.test(word)) ?? 'cells';
}

/** Takes new vials into the freezer; needs a human's approval first. */
export const storeVials = defineTool({
  name: 'store_vials',
  description: 'Put new vials of a cell line into the LN2 freezer, one per position. Needs approval.',
  input: z.object({
    cellLine: z.string().min(1),
    positions: z.array(z.string().min(1)).min(1).max(10),
  }),
  needsApproval: (input) =>
    `Adds ${input.positions.length} vial(s) of ${input.cellLine} at ${input.positions.join(', ')}.`,
  execute: (input, ctx) => {
    const freezer = ctx.context as Freezer;
    const same = (name: string) => name.toLowerCase() === input.cellLine.toLowerCase();
    let line = freezer.lines.find((item) => same(item.cellLine));
    if (!line) {
      line = { cellLine: input.cellLine, kind: 'new stock', positions: [] };
      freezer.lines.push(line);
    }
    // Positions are a set, so a call that runs twice stores each vial once.
    for (const position of input.positions)
      if (!line.positions.includes(position)) line.positions.push(position);
    return { ok: true, cellLine: line.cellLine, positions: input.positions };
  },
});

function parse(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The storage agent's next move: ask where, store, report. */
export function storagePlan(request: ModelRequest): ScriptedStep {
  const messages = request.messages.filter((message): message is ChatMessage => message.role !== 'system');
  const task = messages.find((message) => message.role === 'user')?.content ?? '';
  const t = TEXT[/[\u4e00-\u9fff]/.test(task) ? 'zh' : 'en'];
  const cellLine = cellLineOf(task);
  const last = messages.at(-1);
  if (last?.role !== 'tool') {
    const question = { id: 'position', header: t.header, question: t.question(cellLine), options: [] };
    return { toolCalls: [{ name: 'AskUserQuestion', arguments: { questions: [question] } }] };
  }
  const result = parse(last.content);
  const answer = (result.answers as Record<string, string> | undefined)?.[t.header];
  if (answer !== undefined && answer !== '(skipped)') {
    const positions = answer.split(/[\s,，、]+/).filter(Boolean);
    return { toolCalls: [{ name: 'store_vials', arguments: { cellLine, positions } }] };
  }
  if (result.ok === true) return t.stored(String(result.cellLine), result.positions as string[]);
  if (result.error_code === 'rejected_by_user') {
    const call = messages
      .flatMap((message) => (message.role === 'assistant' ? (message.tool_calls ?? []) : []))
      .find((item) => item.id === last.tool_call_id);
    const input = parse(call?.function.arguments ?? '{}') as { cellLine?: string; positions?: string[] };
    const why =
      typeof result.rationale === 'string' && result.rationale !== '' ? result.rationale : undefined;
    return t.rejected(input.cellLine ?? cellLine, input.positions ?? [], why);
  }
  return t.nothing;
}

/** The storage agent, on `model`, else its scripted model (`thinkMs` of "thinking" before each answer). */
export function createStorageAgent(options: { thinkMs: number; model?: ModelAdapter }): Agent {
  return defineAgent({
    name: STORAGE_AGENT,
    instructions:
      'You put new vials into the LN2 freezer. Ask where they go with a free-text AskUserQuestion (options: []), store them with store_vials, report in one sentence.',
    model:
      options.model ??
      scriptedModel(
        Array.from({ length: 1000 }, () => storagePlan),
        { name: 'storage-script', delayMs: options.thinkMs },
      ),
    tools: [storeVials, askUserQuestion()],
    maxSteps: 6,
  });
}
