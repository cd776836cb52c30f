/**
 * A recorded production run for the replay tests: a question, an edited approval, a second user
 * message — played through `runTurn` & co. with every event kept, as `jsonlEventLog` keeps them.
 */
import { z } from 'zod';
import {
  type AgentConfig,
  type AgentEvent,
  answerQuestion,
  approve,
  askUserQuestion,
  compaction,
  defineAgent,
  defineTool,
  type ModelAdapter,
  runTurn,
  type TurnResult,
} from '../src/index.js';
import { type ScriptedStep, scriptedModel } from '../src/testing/index.js';
import { ask, cellLineQuestion } from './helpers.js';

/** Counts every run of the tools, so a test can see that replay runs none. */
export interface ToolRuns {
  query: number;
  thaw: number;
}

/** The inventory agent: query_inventory, record_thaw (needs approval), AskUserQuestion. */
export function inventoryAgent(steps: ScriptedStep[], runs: ToolRuns, config: Partial<AgentConfig> = {}) {
  const query = defineTool({
    name: 'query_inventory',
    description: 'Find vials of a cell line',
    input: z.object({ cellLine: z.string() }),
    execute: async ({ cellLine }) => {
      runs.query++;
      return { cellLine, vials: 3 };
    },
  });
  const thaw = defineTool({
    name: 'record_thaw',
    description: 'Record that a vial was thawed',
    input: z.object({ cellLine: z.string(), vials: z.number().int().positive() }),
    needsApproval: (input) => `Removes ${input.vials} vial(s) of ${input.cellLine}`,
    execute: async ({ cellLine, vials }) => {
      runs.thaw++;
      return { recorded: true, cellLine, vials };
    },
  });
  return defineAgent({
    name: 'inventory',
    instructions: 'You are an LN2 inventory assistant.',
    model: scriptedModel(steps),
    tools: [query, thaw, askUserQuestion()],
    ...config,
  });
}

/** The model's side of the recorded run. */
export const THAW_STEPS: ScriptedStep[] = [
  { toolCalls: [ask([cellLineQuestion], 'call_ask')] },
  { toolCalls: [{ id: 'call_query', name: 'query_inventory', arguments: { cellLine: 'K562-dTAG' } }] },
  { toolCalls: [{ id: 'call_thaw', name: 'record_thaw', arguments: { cellLine: 'K562-dTAG', vials: 2 } }] },
  'Thawed one K562-dTAG vial.',
  { toolCalls: [{ id: 'call_query2', name: 'query_inventory', arguments: { cellLine: 'HeLa' } }] },
  'HeLa has 3 vials.',
];

export const AT = (minute: number) => new Date(Date.UTC(2026, 10, 1, 9, minute));

/** Plays the production run: question, edited approval by ann, a second message. */
export async function recordThaw(runs: ToolRuns = { query: 0, thaw: 0 }) {
  const agent = inventoryAgent(THAW_STEPS, runs);
  const events: AgentEvent[] = [];
  const onEvent = (event: AgentEvent) => events.push(event);
  const r1 = await runTurn(agent, { input: 'Thaw K562', runId: 'run-thaw' }, { onEvent, now: AT(0) });
  const r2 = await answerQuestion(
    agent,
    r1.snapshot,
    { answers: { 'Cell line': 'K562-dTAG' } },
    { onEvent, now: AT(1) },
  );
  const r3 = await approve(
    agent,
    r2.snapshot,
    { rationale: 'one is enough', editedInput: { cellLine: 'K562-dTAG', vials: 1 } },
    { onEvent, now: AT(2), principal: 'ann' },
  );
  const r4: TurnResult = await runTurn(
    agent,
    { snapshot: r3.snapshot, input: 'and HeLa?' },
    { onEvent, now: AT(3) },
  );
  return { agent, events, results: [r1, r2, r3, r4], runs };
}

/**
 * A long run whose history is compacted (DESIGN §22): `note` called 8 times, then a final answer.
 * The model counts its calls (a scripted model indexes by the assistant messages it sees, which a
 * compaction removes).
 */
export function noteAgent(model?: ModelAdapter) {
  const note = defineTool({
    name: 'note',
    description: 'Note',
    input: z.object({ n: z.number() }),
    execute: ({ n }) => `noted ${n} ${'x'.repeat(200)}`,
  });
  let calls = 0;
  const next = (): ScriptedStep =>
    calls < 8
      ? { toolCalls: [{ id: `call_${calls}`, name: 'note', arguments: { n: calls++ } }] }
      : 'all noted';
  return defineAgent({
    name: 'desk',
    instructions: 'Notes.',
    model:
      model ??
      scriptedModel(
        Array.from({ length: 20 }, () => next),
        { compaction: 'summary' },
      ),
    tools: [note],
    history: compaction({ maxTokens: 400, keepRecent: 2 }),
  });
}
