/**
 * Options that bring code carry it (DESIGN §18's size budget): `history: compaction({...})`,
 * `telemetry: defineTelemetry(...)` (or `otelTelemetry()`), store mode's handling of tools in doubt
 * handed in by sessions, hooks made by `defineHook` (or `toolPolicy`) carrying the hook machinery,
 * function tools made by `defineTool` (or `shellAskTool`) carrying the code that runs them and their
 * asks. A program that plays turns without them bundles none of that code; one
 * that uses them gets it through the value it imports.
 */
import { describe, expect, it } from 'vitest';
import { bundleInputs } from './bundle-inputs.js';

/** The core source files that put code into a bundle of `entry`. */
async function bundledFiles(entry: string): Promise<string[]> {
  const inputs = await bundleInputs(entry, ['zod', 'superjson', '@noble/*']);
  return inputs.filter(([, bytes]) => bytes > 0).map(([file]) => file.replace(/^(.*\/)?src\//, ''));
}

const OPTIONAL = [
  'interpreter/compaction.ts',
  'interpreter/telemetry.ts',
  'interpreter/in-doubt.ts',
  'interpreter/started.ts',
  // An agent tool's calls (hooks included) come with the player agent tools carry.
  'interpreter/subagent-call.ts',
];

/**
 * The code a function tool carries (interpreter/tool-code.ts): what runs its `execute`, `resume`
 * and `needsApproval` (with its `ctx`, timeout and context check), and its own asks (DESIGN §14:
 * `ctx.ask` made an interaction — the question schema and limits, the ask's policy checks, kept-ask
 * options included — and the answer handed to `resume`), who may answer (an assignees function
 * called with the tool's `ctx`, guarded as the tool's own code is); tools made by `defineTool`,
 * `shellAskTool` or `askUserQuestion`, and a `handoff()`'s transfer tool carry it. A plain agent's
 * transfer tool carries none (the loop runs its calls itself).
 */
const TOOL_CODE = [
  'interpreter/tool-code.ts',
  'interpreter/context-guard.ts',
  'questions/schema.ts',
  'questions/plain-input.ts',
  'tools/kept-asks.ts',
];

/** The hook machinery (DESIGN §26): the points, their chain, reviews; hooks carry it (hooks/runtime.ts). */
const HOOK_MACHINERY = [
  'hooks/chain.ts',
  'hooks/review.ts',
  'interpreter/hook-points.ts',
  'interpreter/model-hooks.ts',
  'interpreter/tool-hooks.ts',
  'interpreter/hook-calls.ts',
];

describe('option values that carry their code', () => {
  it("leave compaction, tracing, tools in doubt, hooks and function tools' code out of a client-held program", async () => {
    const files = await bundledFiles(
      "export { answerQuestion, defineAgent, respond, runTurn, approve } from './index.js';",
    );
    expect(files).toContain('interpreter/loop.ts');
    for (const file of [...OPTIONAL, ...HOOK_MACHINERY, ...TOOL_CODE]) expect(files).not.toContain(file);
  });

  it('bring each one with the value or the entry that uses it', async () => {
    const cases: Array<[string, string[]]> = [
      ['compaction', ['interpreter/compaction.ts']],
      ['defineTelemetry', ['interpreter/telemetry.ts']],
      ['createSessions', ['interpreter/in-doubt.ts', 'interpreter/started.ts']],
      ['agentTool', ['interpreter/subagent-call.ts']],
      ['defineHook', HOOK_MACHINERY],
      ['toolPolicy', HOOK_MACHINERY],
      ['defineTool', TOOL_CODE],
      ['shellAskTool', TOOL_CODE],
      ['askUserQuestion', ['interpreter/tool-code.ts', 'interpreter/context-guard.ts']],
      ['handoff', ['interpreter/tool-code.ts', 'interpreter/context-guard.ts']],
    ];
    for (const [name, expected] of cases) {
      const files = await bundledFiles(`export { defineAgent, runTurn, ${name} } from './index.js';`);
      for (const file of expected) expect(files, name).toContain(file);
    }
  });
});
