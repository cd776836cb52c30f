/**
 * The loop follows its chart (`machine/chart.ts`) without XState (DESIGN §3, §16): a program that
 * runs turns — and the Workers quickstart bundle — neither loads XState nor builds `agentMachine`;
 * only importing `agentMachine` does. Checked on what esbuild bundles from core's source.
 */
import { describe, expect, it } from 'vitest';
import { bundleInputs } from './bundle-inputs.js';

/** The packages (by their node_modules folder) a bundle of `entry` holds. */
async function bundledPackages(entry: string): Promise<string[]> {
  const inputs = (await bundleInputs(entry)).map(([file]) => file);
  return [...new Set(inputs.flatMap((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? []))];
}

describe('the chart without XState', () => {
  it('runs turns without bundling xstate', async () => {
    const packages = await bundledPackages(
      "export { answerQuestion, createSessions, defineAgent, parseSnapshot, runTurn } from './index.js';",
    );
    expect(packages).toContain('zod');
    expect(packages).not.toContain('xstate');
  });

  it('bundles xstate for agentMachine, which is built from the same chart', async () => {
    expect(await bundledPackages("export { agentMachine } from './index.js';")).toContain('xstate');
  });
});
