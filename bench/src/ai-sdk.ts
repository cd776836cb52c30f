/**
 * TurnKit side by side with AI SDK 7 (issue 49): the same client-held approval cycle done both
 * ways, at 10, 100 and 1 000 prior messages, with zero-latency models and no network.
 *
 * - TurnKit: `runTurn` pauses on `record_thaw` (`needsApproval`) → the snapshot string is the
 *   state the client keeps → `approve(agent, snapshot)` → the tool runs, the model answers →
 *   `completed`, and the final snapshot is read (the state kept for the next turn).
 * - AI SDK 7: `generateText` with `toolApproval` returns a `tool-approval-request` → the messages
 *   (history + `responseMessages`) are the state, kept as `JSON.stringify` text and parsed back →
 *   a `tool` message with the `tool-approval-response` is appended → `generateText` again → the
 *   tool runs, the model answers → the final messages are serialized again (the state kept).
 *
 * Both sides: the same history, one tool call needing approval (with its reason), one approval,
 * one execution, one final answer, the state serialized twice and parsed once. Every iteration is
 * checked, so a cycle that does less fails the run rather than looking fast.
 */
import { approve, type ChatMessage, runTurn } from '@turnkit/core';
import { generateText, type ModelMessage, type ToolApprovalResponse, tool } from 'ai-7';
import { MockLanguageModelV4 } from 'ai-7/test';
import { z } from 'zod';
import { BrokenRunError } from './cycle.js';
import {
  type Goal,
  goalAtLeast,
  ms,
  newBench,
  pairedRatio,
  runRounds,
  type Timing,
  table,
  times,
} from './report.js';
import { approvalAgent, expectApproval, expectDone } from './store-cycle.js';

/** History lengths of the rows. */
export const AI_SDK_LENGTHS = [10, 100, 1000] as const;
/** The goal (issue 49): AI SDK 7's cycle over TurnKit's, at every size. */
export const AI_SDK_LEAD = 2;

/** One row: both cycles at one history length. */
export interface AiSdkRow {
  history: number;
  turnkit: Timing;
  aiSdk: Timing;
  /** AI SDK 7 / TurnKit, the median of the per-round ratios. */
  ratio: number;
}

const INSTRUCTIONS = 'You are an LN2 inventory assistant. Record every thaw.';
const THAW_INPUT = { cellLine: 'K562', vials: 1 };
const FINAL_ANSWER = 'Recorded: one K562 vial thawed from rack A.';
const USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/**
 * A zero-latency spec-v4 model: it asks for `record_thaw` after a user message and answers with
 * text after the tool's result. The mock records every call; the record is cleared each time so
 * memory stays flat over thousands of cycles.
 */
function approvalModel(): MockLanguageModelV4 {
  const model: MockLanguageModelV4 = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      model.doGenerateCalls.length = 0;
      if (prompt.at(-1)?.role === 'tool') {
        return {
          content: [{ type: 'text', text: FINAL_ANSWER }],
          finishReason: { unified: 'stop', raw: undefined },
          usage: USAGE,
          warnings: [],
        };
      }
      return {
        content: [
          {
            type: 'tool-call',
            toolCallId: 'call-1',
            toolName: 'record_thaw',
            input: JSON.stringify(THAW_INPUT),
          },
        ],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage: USAGE,
        warnings: [],
      };
    },
  });
  return model;
}

/** The AI SDK 7 side: the same tool as {@link approvalAgent}'s, its approval in `toolApproval`. */
function aiSdkCycle(history: ChatMessage[]): () => Promise<void> {
  const model = approvalModel();
  const tools = {
    record_thaw: tool({
      description: 'Record that a vial was thawed',
      inputSchema: z.object({ cellLine: z.string(), vials: z.number().int().positive() }),
      execute: async ({ cellLine, vials }) => ({ recorded: true, cellLine, vials }),
    }),
  };
  const toolApproval = {
    record_thaw: (input: { cellLine: string; vials: number }) => ({
      type: 'user-approval' as const,
      reason: `Removes ${input.vials} vial(s) of ${input.cellLine}`,
    }),
  };
  const prior = history as ModelMessage[];
  return async () => {
    const first = await generateText({
      model,
      instructions: INSTRUCTIONS,
      tools,
      toolApproval,
      messages: prior,
    });
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    if (!request || first.toolResults.length !== 0) {
      throw new BrokenRunError('generateText: expected a pause on the approval request');
    }
    // The state the app keeps between the two requests (as AI SDK's docs keep messages).
    const stored = JSON.stringify([...prior, ...first.responseMessages]);
    const messages = JSON.parse(stored) as ModelMessage[];
    const approval: ToolApprovalResponse = {
      type: 'tool-approval-response',
      approvalId: request.approvalId,
      approved: true,
    };
    messages.push({ role: 'tool', content: [approval] });
    const second = await generateText({ model, instructions: INSTRUCTIONS, tools, toolApproval, messages });
    const executed = second.responseMessages.some(
      (message) => message.role === 'tool' && message.content.some((part) => part.type === 'tool-result'),
    );
    if (second.text !== FINAL_ANSWER || !executed) {
      throw new BrokenRunError('generateText: expected the approved tool to run and the model to answer');
    }
    // The state kept for the next turn.
    if (JSON.stringify([...messages, ...second.responseMessages]).length === 0) {
      throw new BrokenRunError('generateText: no final state');
    }
  };
}

/** The TurnKit side: client-held, the snapshot string carried from the pause to `approve`. */
function turnkitCycle(history: ChatMessage[]): () => Promise<void> {
  const agent = approvalAgent(history);
  return async () => {
    const paused = await runTurn(agent, { input: history });
    expectApproval(paused, 'runTurn');
    const done = await approve(agent, paused.snapshot);
    expectDone(done, 'approve');
    // The state kept for the next turn (a client-held run returns it built).
    if (done.snapshot.length === 0) throw new BrokenRunError('approve: no final snapshot');
  };
}

/** Times both cycles per history, alternating in `rounds` rounds (as the cycle rows); prints nothing. */
export async function benchAiSdk(histories: Map<number, ChatMessage[]>, rounds: number): Promise<AiSdkRow[]> {
  const bench = newBench({ time: 300, warmupTime: 60, iterations: 20 });
  for (const length of AI_SDK_LENGTHS) {
    const history = histories.get(length)!;
    bench.add(`turnkit ${length}`, turnkitCycle(history));
    bench.add(`ai-sdk ${length}`, aiSdkCycle(history));
  }
  const timings = await runRounds(bench, rounds);
  return AI_SDK_LENGTHS.map((length) => {
    const turnkit = timings.get(`turnkit ${length}`)!;
    const aiSdk = timings.get(`ai-sdk ${length}`)!;
    return { history: length, turnkit, aiSdk, ratio: pairedRatio(aiSdk, turnkit) };
  });
}

/** Prints the table; returns its goal (one row: the smallest lead over the sizes). */
export function printAiSdk(rows: AiSdkRow[]): Goal[] {
  console.log(
    '\nTurnKit vs AI SDK 7 (issue 49): one client-held approval cycle, pause → state as JSON → approve → tool → answer (medians, lowest of the rounds)',
  );
  console.log(
    table(
      ['history', 'TurnKit cycle', 'AI SDK 7 cycle', 'AI SDK 7 / TurnKit'],
      rows.map((row) => [
        `${row.history} msgs`,
        ms(row.turnkit.medianMs),
        ms(row.aiSdk.medianMs),
        times(row.ratio),
      ]),
    ),
  );
  const least = rows.reduce((a, b) => (b.ratio < a.ratio ? b : a));
  return [
    {
      ...goalAtLeast(
        `TurnKit ≥ ${AI_SDK_LEAD}× ahead of AI SDK 7 at every size`,
        least.ratio,
        AI_SDK_LEAD,
        times,
      ),
      measured: `${times(least.ratio)} (least, @${least.history})`,
    },
  ];
}
