/**
 * DESIGN §28 with §26: a run a hook paused on a review replays through today's agent — the
 * reviewer's edit included — and a policy that no longer asks (or a new one that does) is a
 * `pause` divergence.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Agent,
  type AgentEvent,
  approve,
  defineAgent,
  defineHook,
  defineTool,
  runTurn,
  toolPolicy,
} from '../src/index.js';
import { recordingOf, replay, scriptedModel } from '../src/testing/index.js';

let runs = 0;
const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order.',
  input: z.object({ orderId: z.string(), amount: z.number() }),
  execute: async ({ orderId, amount }) => {
    runs++;
    return { refunded: amount, orderId };
  },
});

const spending = toolPolicy({
  name: 'spending',
  ask: [{ tool: 'refund', when: (input) => (input as { amount: number }).amount > 100 }],
  reason: 'Refunds over 100 EUR are checked by a person',
});

function support(hooks: ReturnType<typeof toolPolicy>[]): Agent {
  return defineAgent({
    name: 'support',
    instructions: 'You handle refunds.',
    model: scriptedModel([
      { toolCalls: [{ id: 'call_refund', name: 'refund', arguments: { orderId: 'A-17', amount: 250 } }] },
      'Refunded.',
    ]),
    tools: [refund],
    hooks,
  });
}

/** The run: a review of the refund, approved with a lower amount by finance. */
async function recordReviewed() {
  const agent = support([spending]);
  const paused = await runTurn(agent, { input: 'Refund order A-17' });
  expect(paused.pendingQuestion?.kind).toBe('review');
  const done = await approve(agent, paused.snapshot, { edit: { orderId: 'A-17', amount: 100 } });
  expect(done.status).toBe('completed');
  expect(runs).toBe(1);
  const events: AgentEvent[] = [...paused.events, ...done.events];
  return { events, snapshot: done.snapshot };
}

describe('replay of a run a hook paused (DESIGN §26, §28)', () => {
  it('replays the review and its edit from the event log and from the snapshot, running no tool', async () => {
    const { events, snapshot } = await recordReviewed();
    for (const recording of [recordingOf(events, { agentVersion: '0' }), recordingOf(snapshot)]) {
      runs = 0;
      const { divergences, result } = await replay(support([spending]), recording);
      expect(divergences).toEqual([]);
      expect(result?.status).toBe('completed');
      expect(runs).toBe(0);
    }
  });

  it('reports a pause divergence when today’s agent no longer asks, or asks where the run did not', async () => {
    const { events } = await recordReviewed();
    const recording = recordingOf(events, { agentVersion: '0' });
    const without = await replay(support([]), recording);
    expect(without.divergences.map((divergence) => divergence.kind)).toContain('pause');
  });

  it('a turn a beforeModel hook blocked is recorded blocked, from its snapshot as from its events', async () => {
    const closed = defineHook({ name: 'closed', beforeModel: () => ({ deny: 'outside office hours' }) });
    const agent = defineAgent({
      name: 'desk',
      instructions: 'x',
      model: scriptedModel(['hi']),
      hooks: [closed],
    });
    const events: AgentEvent[] = [];
    const blocked = await runTurn(agent, { input: 'refund it' }, { onEvent: (event) => events.push(event) });
    expect(blocked.status).toBe('blocked');
    for (const recording of [recordingOf(blocked.snapshot), recordingOf(events, { agentVersion: '0' })]) {
      expect(recording.turns.map((turn) => turn.status)).toEqual(['blocked']);
      // Today's agent blocks it the same way: no divergence.
      expect((await replay(agent, recording)).divergences).toEqual([]);
    }
  });
});
