/** Small builders shared by the scenario tests. */
import { z } from 'zod';
import {
  type AgentConfig,
  askUserQuestion,
  defineAgent,
  defineTool,
  type SnapshotStore,
  type ToolMessage,
  TurnkitError,
  type TurnResult,
} from '../src/index.js';
import type { PartsWrite } from '../src/store.js';
import { type ScriptedStep, scriptedModel } from '../src/testing/index.js';

export const cellLineQuestion = {
  question: 'Which K562 line do you mean?',
  header: 'Cell line',
  options: [
    { label: 'K562 (Recommended)', description: 'Parental line' },
    { label: 'K562-dTAG', description: 'Degron knock-in' },
    { label: 'K562-RTCB', description: 'RTCB knockout' },
  ],
};

export const ask = (questions: unknown[], id?: string) => ({
  id,
  name: 'AskUserQuestion',
  arguments: { questions },
});

export function queryTool(calls: string[] = []) {
  return defineTool({
    name: 'query_inventory',
    description: 'Find vials of a cell line',
    input: z.object({ cellLine: z.string() }),
    execute: async ({ cellLine }) => {
      calls.push(cellLine);
      return { cellLine, vials: 3 };
    },
  });
}

export function thawTool(calls: string[] = []) {
  return defineTool({
    name: 'record_thaw',
    description: 'Record that a vial was thawed',
    input: z.object({ cellLine: z.string(), vials: z.number().int().positive() }),
    needsApproval: (input) =>
      input.vials > 0 ? `Removes ${input.vials} vial(s) of ${input.cellLine}` : false,
    execute: async ({ cellLine, vials }) => {
      calls.push(`${cellLine}x${vials}`);
      return { recorded: true, cellLine, vials };
    },
  });
}

/** An agent with the question tool, query_inventory and record_thaw, playing `steps`. */
export function makeAgent(steps: ScriptedStep[], config: Partial<AgentConfig> = {}, log: string[] = []) {
  return defineAgent({
    name: 'inventory',
    instructions: 'You are an LN2 inventory assistant.',
    model: scriptedModel(steps),
    tools: [queryTool(log), thawTool(log), askUserQuestion()],
    ...config,
  });
}

/** The tool messages of a result, by call id. */
export function toolResults(result: TurnResult): Record<string, string> {
  const out: Record<string, string> = {};
  for (const message of result.messages) {
    if (message.role === 'tool') out[(message as ToolMessage).tool_call_id] = message.content;
  }
  return out;
}

/** Every assistant tool call has exactly one tool result (once no step is open). */
export function expectOneResultPerCall(result: TurnResult): void {
  const calls = result.messages.flatMap((message) =>
    message.role === 'assistant' ? (message.tool_calls ?? []) : [],
  );
  const results = result.messages.filter((message) => message.role === 'tool') as ToolMessage[];
  const counts = new Map<string, number>();
  for (const message of results)
    counts.set(message.tool_call_id, (counts.get(message.tool_call_id) ?? 0) + 1);
  const open =
    result.status === 'needs_input'
      ? new Set(
          result.messages.at(-1)?.role === 'assistant'
            ? ((result.messages.at(-1) as { tool_calls?: { id: string }[] }).tool_calls ?? []).map(
                (call) => call.id,
              )
            : [],
        )
      : new Set<string>();
  for (const call of calls) {
    if (open.has(call.id)) continue;
    if (counts.get(call.id) !== 1) throw new Error(`call ${call.id} has ${counts.get(call.id) ?? 0} results`);
  }
  if (results.length !== calls.length - open.size) throw new Error('a tool result has no call');
}

export const errorCode = (content: string | undefined) =>
  (JSON.parse(content ?? '{}') as { error_code?: string }).error_code;

/** The code a public call's promise is refused with, or what it did instead (to see in a failure). */
export const codeOf = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => 'resolved',
    (error: unknown) =>
      TurnkitError.isInstance(error) ? error.code : `not a TurnkitError: ${String(error)}`,
  );

/** `inner` with every layout-2 write (`putParts`) recorded in `writes`. */
export function recordingStore(inner: SnapshotStore): { store: SnapshotStore; writes: PartsWrite[] } {
  const writes: PartsWrite[] = [];
  const store: SnapshotStore = {
    ...inner,
    putParts: (runId, write, opts) => {
      writes.push(write);
      return inner.putParts!(runId, write, opts);
    },
  };
  return { store, writes };
}
