import { describe, expect, it } from 'vitest';
import {
  createSessions,
  defineAgent,
  memoryStore,
  type OnInteraction,
  type PendingInteraction,
  type SnapshotStore,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { ask, makeAgent } from './helpers.js';

const authQuestion = { question: 'Which auth method?', header: 'Auth', options: ['JWT', 'OAuth'] };
const thaw = { name: 'record_thaw', arguments: { cellLine: 'K562', vials: 2 } };

/** Question, then an approval, then done. */
const agentOf = () => makeAgent([{ toolCalls: [ask([authQuestion])] }, { toolCalls: [thaw] }, 'done']);

/** A store whose process "dies" right after the next write that stores a pause succeeds. */
function dyingStore(inner: SnapshotStore = memoryStore()) {
  const state = { dieAfterPause: false };
  const died = (opts: { pending?: unknown[] | null }) => {
    if (state.dieAfterPause && (opts.pending?.length ?? 0) > 0) {
      state.dieAfterPause = false;
      throw new Error('the process died after its write');
    }
  };
  const store: SnapshotStore = {
    ...inner,
    put: async (runId, snapshot, opts) => {
      const written = await inner.put(runId, snapshot, opts);
      died(opts);
      return written;
    },
    putParts: async (runId, write, opts) => {
      const written = await inner.putParts!(runId, write, opts);
      died(opts);
      return written;
    },
  };
  return { store, state };
}

describe('onInteraction', () => {
  it('is called once per new pending interaction, after its pause is stored', async () => {
    const store = memoryStore();
    const calls: { id: string; kind: string; storedStatus: string | undefined }[] = [];
    const sessions = createSessions({
      agent: agentOf(),
      store,
      onInteraction: async (pending, run) => {
        const stored = await sessions.get(run.runId).catch(() => undefined);
        calls.push({ id: pending.id, kind: pending.kind, storedStatus: stored?.status });
      },
    });
    const started = await sessions.start('go');
    expect(calls).toEqual([{ id: started.pending[0]!.id, kind: 'question', storedStatus: 'needs_input' }]);
    await sessions.get(started.runId);
    await sessions.get(started.runId);
    expect(calls).toHaveLength(1);
    const approval = await sessions.answer(started.runId, { answers: 'JWT' });
    expect(calls.map((call) => call.kind)).toEqual(['question', 'approval']);
    expect(calls[1]!.id).toBe(approval.pending[0]!.id);
    // The result returned is the run as stored after the announcement was recorded.
    expect((await store.get(started.runId))?.version).toBe(approval.version);
    await sessions.approve(started.runId);
    expect(calls).toHaveLength(2);
  });

  it('is called by the next call on the run when the process died between the write and the call', async () => {
    const { store, state } = dyingStore();
    const announced: PendingInteraction[] = [];
    const sessions = createSessions({
      agent: agentOf(),
      store,
      onInteraction: (pending) => {
        announced.push(pending);
      },
    });
    state.dieAfterPause = true;
    await expect(sessions.start({ input: 'go', runId: 'run_crash' })).rejects.toThrow('died');
    expect(announced).toEqual([]);
    const stored = await sessions.get('run_crash');
    expect(stored.status).toBe('needs_input');
    expect(announced.map((pending) => pending.id)).toEqual([stored.pending[0]!.id]);
    await sessions.get('run_crash');
    expect(announced).toHaveLength(1);
  });

  it('is called again by a sweep when it failed, and reports the failure to onError', async () => {
    const store = memoryStore();
    const errors: unknown[] = [];
    let fail = true;
    const seen: string[] = [];
    const onInteraction: OnInteraction = (pending) => {
      if (fail) throw new Error('mail server down');
      seen.push(pending.id);
    };
    const sessions = createSessions({
      agent: makeAgent([{ toolCalls: [ask([authQuestion])] }, 'done'], {}),
      store,
      onInteraction,
    });
    const started = await sessions.start('go', { onError: (error) => errors.push(error) });
    expect(errors).toEqual([new Error('mail server down')]);
    fail = false;
    await sessions.expire(started.runId);
    expect(seen).toEqual([started.pending[0]!.id]);
  });
});

describe('onInteraction as an agent option', () => {
  /** Question, then an approval, then done; the agent announces through `onInteraction`. */
  const announcingAgent = (onInteraction: OnInteraction) =>
    makeAgent([{ toolCalls: [ask([authQuestion])] }, { toolCalls: [thaw] }, 'done'], { onInteraction });

  it('is called once per new pending interaction when the sessions give none', async () => {
    const announced: { id: string; kind: string; version: number }[] = [];
    const sessions = createSessions({
      agent: announcingAgent((pending, run) => {
        announced.push({ id: pending.id, kind: pending.kind, version: run.version });
      }),
      store: memoryStore(),
    });
    const started = await sessions.start('go');
    await sessions.get(started.runId);
    const approval = await sessions.answer(started.runId, { answers: 'JWT' });
    await sessions.approve(started.runId);
    expect(announced.map(({ id, kind }) => ({ id, kind }))).toEqual([
      { id: started.pending[0]!.id, kind: 'question' },
      { id: approval.pending[0]!.id, kind: 'approval' },
    ]);
  });

  it("gives way to the sessions' own onInteraction", async () => {
    const byAgent: string[] = [];
    const bySessions: string[] = [];
    const sessions = createSessions({
      agent: announcingAgent((pending) => {
        byAgent.push(pending.id);
      }),
      store: memoryStore(),
      onInteraction: (pending) => {
        bySessions.push(pending.id);
      },
    });
    const started = await sessions.start('go');
    expect(bySessions).toEqual([started.pending[0]!.id]);
    expect(byAgent).toEqual([]);
  });

  it('is called by the next call on the run when the process died between the write and the call', async () => {
    const { store, state } = dyingStore();
    const announced: string[] = [];
    const agent = announcingAgent((pending) => {
      announced.push(pending.id);
    });
    state.dieAfterPause = true;
    await expect(
      createSessions({ agent, store }).start({ input: 'go', runId: 'run_agent_crash' }),
    ).rejects.toThrow('died');
    expect(announced).toEqual([]);
    // Another process, same agent: its first call on the run makes the announcement, once.
    const other = createSessions({ agent, store });
    const stored = await other.get('run_agent_crash');
    expect(announced).toEqual([stored.pending[0]!.id]);
    await other.get('run_agent_crash');
    expect(announced).toHaveLength(1);
  });

  it('is refused with CONFIG_INVALID when it is not a function', () => {
    const define = () =>
      defineAgent({
        name: 'inventory',
        instructions: 'x',
        model: scriptedModel(['done']),
        onInteraction: 'https://example.com/hook' as unknown as OnInteraction,
      });
    expect(define).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(define).toThrow(/onInteraction must be a function/);
  });
});
