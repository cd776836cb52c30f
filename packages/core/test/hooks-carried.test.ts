/**
 * Hooks carry the machinery that runs them (DESIGN §18's size budget, §26): the loop reaches it
 * through the run's hooks — the agent's, then the call's `TurnOptions.hooks` — so a run that waits
 * on a hook's review must be decided with its hooks, and a spread copy of a hook is still a hook.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approve, defineAgent, defineHook, defineTool, runTurn, TurnkitError } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

function shop(runs: unknown[], hooks: Parameters<typeof defineAgent>[0]['hooks'] = undefined) {
  const pay = defineTool({
    name: 'pay',
    description: 'Pays an amount.',
    input: z.object({ amount: z.number() }),
    execute: (input) => {
      runs.push(input);
      return { paid: input.amount };
    },
  });
  const model = scriptedModel([
    { toolCalls: [{ id: 'c1', name: 'pay', arguments: { amount: 50 } }] },
    'Done.',
  ]);
  return defineAgent({
    name: 'shop',
    instructions: 'Shop.',
    model,
    tools: [pay],
    ...(hooks ? { hooks } : {}),
  });
}

const gate = defineHook({ name: 'gate', beforeTool: () => ({ ask: true }) });

describe('hooks that carry their machinery', () => {
  it('a review asked by a TurnOptions hook, decided without hooks, is CONFIG_INVALID and changes nothing', async () => {
    const runs: unknown[] = [];
    const agent = shop(runs);
    const paused = await runTurn(agent, { input: 'pay' }, { hooks: [gate] });
    expect(paused.status).toBe('needs_input');
    const refused = approve(agent, paused.snapshot);
    await expect(refused).rejects.toBeInstanceOf(TurnkitError);
    await expect(refused).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: /TurnOptions\.hooks/ });
    expect(runs).toEqual([]);
    // The same snapshot, decided with the hooks it was started with: the tool runs once.
    const done = await approve(agent, paused.snapshot, {}, { hooks: [gate] });
    expect(done.status).toBe('completed');
    expect(runs).toEqual([{ amount: 50 }]);
  });

  it('a spread copy of a hook (renamed) is still a hook that runs', async () => {
    const seen: string[] = [];
    const watch = defineHook({ name: 'watch', beforeTool: (call) => void seen.push(call.name) });
    const runs: unknown[] = [];
    const agent = shop(runs, [{ ...watch, name: 'watch-copy' }]);
    const done = await runTurn(agent, { input: 'pay' });
    expect(done.status).toBe('completed');
    expect(seen).toEqual(['pay']);
    expect(runs).toHaveLength(1);
  });

  it('a hand-made hook object is refused: it carries no machinery', () => {
    const handMade = { kind: 'hook' as const, name: 'manual', beforeTool: () => undefined };
    expect(() =>
      defineAgent({ name: 'a', instructions: 'x', model: scriptedModel(['ok']), hooks: [handMade] }),
    ).toThrow(/made by defineHook or toolPolicy/);
  });
});
