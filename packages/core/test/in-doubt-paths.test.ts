/**
 * Every path that plays a run again treats a started call with no result as in doubt (DESIGN §21,
 * the round-4 bullet), over the memory store; the same paths across processes, with kill -9, on
 * the file, Redis and Postgres stores, are in the adapters' in-doubt-paths tests. A worker stalls
 * inside the charge tool's first `execute` (as good as dead); then `stop` and `retry`, `stop` and
 * `send`, `send` alone, and `fork` at every kept point each run `execute` again only when the tool's
 * policy or a person says so, and never give the call a "dropped" result.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type ApprovalPolicy,
  createSessions,
  defineTool,
  type InDoubtPolicy,
  memoryStore,
  type SessionResult,
  TurnkitError,
} from '../src/index.js';
import { errorCode, expectOneResultPerCall, makeAgent, toolResults } from './helpers.js';
import { chargeAgent, leaseMs, stalledRun } from './in-doubt-fixtures.js';

const KEY = (runId: string) => `${runId}:call_charge`;
const inDoubtEvents = (result: SessionResult) =>
  result.events.filter((event) => event.type === 'tool_in_doubt');
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof TurnkitError ? error.code : String(error)),
  );

type Policy = 'retry' | 'ask' | 'reconcile';

/** A charge agent whose `reconciled` list records each reconcile call's key. */
function agentFor(policy: Policy, runs: string[], reconciled: string[] = []) {
  const onInDoubt: InDoubtPolicy<{ amount: number }, unknown> =
    policy === 'reconcile'
      ? (input, ctx) => {
          reconciled.push(ctx.idempotencyKey);
          return { charged: input.amount, reconciled: true };
        }
      : policy;
  return chargeAgent(onInDoubt, runs);
}

/** A run whose worker died inside the charge, then stopped: `aborted`, its call kept in doubt. */
async function stoppedAfterDeath(policy: Policy) {
  const runs: string[] = [];
  const reconciled: string[] = [];
  const store = memoryStore();
  const agent = agentFor(policy, runs, reconciled);
  const runId = await stalledRun(agent, store, runs);
  const sessions = createSessions({ agent, store, leaseMs });
  const stopped = await sessions.stop(runId, { reason: 'the user pressed stop' });
  expect(stopped.stop).toBe('stopped');
  expect(stopped.status).toBe('aborted');
  expect(runs).toEqual([KEY(runId)]);
  const step = JSON.parse((await store.get(runId))!.snapshot).state.context.step;
  expect(step).toMatchObject([{ toolCallId: 'call_charge', started: true, inDoubt: true }]);
  return { runs, reconciled, runId, sessions };
}

describe('stop, then retry, of a run whose worker died mid-tool', () => {
  it("'ask': pauses on in_doubt and runs the tool only when approved", async () => {
    const { runs, runId, sessions } = await stoppedAfterDeath('ask');
    const retried = await sessions.retry(runId);
    expect(retried.status).toBe('needs_input');
    expect(retried.pendingQuestion).toMatchObject({ kind: 'in_doubt', toolName: 'charge' });
    expect(inDoubtEvents(retried)).toMatchObject([{ toolCallId: 'call_charge', policy: 'ask' }]);
    expect(runs).toHaveLength(1);
    const done = await sessions.approve(runId);
    expect(done.status).toBe('completed');
    expect(runs).toEqual([KEY(runId), KEY(runId)]);
    expectOneResultPerCall(done);
  });

  it('a reconcile function: records what it found, and execute never runs again', async () => {
    const { runs, reconciled, runId, sessions } = await stoppedAfterDeath('reconcile');
    const retried = await sessions.retry(runId);
    expect(retried.status).toBe('completed');
    expect(inDoubtEvents(retried)).toMatchObject([{ policy: 'reconcile' }]);
    expect(reconciled).toEqual([KEY(runId)]);
    expect(runs).toHaveLength(1);
    expect(toolResults(retried).call_charge).toBe('{"charged":5,"reconciled":true}');
  });

  it("'retry': runs it again once, under the same idempotency key, and says so", async () => {
    const { runs, runId, sessions } = await stoppedAfterDeath('retry');
    const retried = await sessions.retry(runId);
    expect(retried.status).toBe('completed');
    expect(inDoubtEvents(retried)).toMatchObject([{ policy: 'retry' }]);
    expect(runs).toEqual([KEY(runId), KEY(runId)]);
  });
});

describe('stop, then a message, of a run whose worker died mid-tool', () => {
  /** The transcript's roles and the charge's result after the message. */
  async function afterMessage(policy: Policy) {
    const stopped = await stoppedAfterDeath(policy);
    const result = await stopped.sessions.send(stopped.runId, 'never mind, what is my balance?');
    expect(result.status).toBe('completed');
    expectOneResultPerCall(result);
    // The call's result comes first, then the message the user sent, then the model's reply to it.
    expect(result.messages.slice(-4).map((message) => message.role)).toEqual([
      'assistant',
      'tool',
      'user',
      'assistant',
    ]);
    expect(result.output).toBe('Done: never mind, what is my balance?');
    expect(toolResults(result).call_charge).not.toContain('superseded_by_user_message');
    return { ...stopped, result };
  }

  it("'ask': nobody is asked, and the model is told the charge may or may not have happened", async () => {
    const { runs, result } = await afterMessage('ask');
    expect(errorCode(toolResults(result).call_charge)).toBe('tool_in_doubt');
    expect(inDoubtEvents(result)).toMatchObject([{ policy: 'ask' }]);
    expect(runs).toHaveLength(1);
  });

  it('a reconcile function is called, and its finding is the result', async () => {
    const { runs, reconciled, runId, result } = await afterMessage('reconcile');
    expect(reconciled).toEqual([KEY(runId)]);
    expect(runs).toHaveLength(1);
    expect(toolResults(result).call_charge).toBe('{"charged":5,"reconciled":true}');
  });

  it("'retry': runs it again under the same key before the message is read", async () => {
    const { runs, runId, result } = await afterMessage('retry');
    expect(runs).toEqual([KEY(runId), KEY(runId)]);
    expect(toolResults(result).call_charge).toBe('{"charged":5}');
  });
});

describe('a message to a run whose worker died mid-tool (no stop)', () => {
  it("'ask': the in_doubt ask it pauses on is superseded as in doubt, never as dropped", async () => {
    const runs: string[] = [];
    const store = memoryStore();
    const agent = agentFor('ask', runs);
    const runId = await stalledRun(agent, store, runs);
    const result = await createSessions({ agent, store, leaseMs }).send(runId, 'forget it');
    expect(result.status).toBe('completed');
    expect(errorCode(toolResults(result).call_charge)).toBe('tool_in_doubt');
    expect(result.events).toContainEqual(
      expect.objectContaining({ type: 'interaction_resolved', resolution: 'superseded' }),
    );
    expect(runs).toHaveLength(1);
  });
});

describe('forks never run what the source decided without a new decision', () => {
  const rules: ApprovalPolicy<{ amount: number }, unknown> = {
    assignees: ['cfo', 'ceo'],
    allowRequester: false,
  };

  /** A four-eyes charge: alice asked, the cfo approved, and the worker died inside the charge. */
  async function approvedAndDied(
    policy: Policy,
    approval: ApprovalPolicy<{ amount: number }, unknown> = rules,
    approvers = ['cfo'],
  ) {
    const runs: string[] = [];
    const store = memoryStore();
    const announced: { id: string; runId: string }[] = [];
    const onInDoubt = policy === 'reconcile' ? () => ({ reconciled: true }) : policy;
    const agent = chargeAgent(onInDoubt, runs, { approval });
    const runId = await stalledRun(agent, store, runs, { requester: 'alice', approvers });
    const sessions = createSessions({
      agent,
      store,
      leaseMs,
      onInteraction: (pending, run) => void announced.push({ id: pending.id, runId: run.runId }),
    });
    return { runs, runId, sessions, store, announced };
  }

  for (const policy of ['retry', 'ask', 'reconcile'] as const) {
    it(`at every kept point, the requester gets nothing run (onInDoubt ${policy})`, async () => {
      const { runs, runId, sessions } = await approvedAndDied(policy);
      const points = await sessions.history(runId, { principal: 'alice' });
      expect(points.map((point) => point.reason)).toContain('answered');
      for (const point of points) {
        const fork = await sessions.fork(runId, { at: point.version }, { principal: 'alice' });
        // Every fork waits for a person: for the approval asked again, or on the call in doubt.
        expect(fork.status, `fork at ${point.reason} v${point.version}`).toBe('needs_input');
        const pending = fork.pending[0]!;
        expect(['approval', 'in_doubt']).toContain(pending.kind);
        expect(pending).toMatchObject({ assignees: ['cfo', 'ceo'], allowRequester: false });
        expect(await codeOf(sessions.approve(fork.runId, {}, { principal: 'alice' }))).toBe('NOT_ASSIGNEE');
      }
      // The dead worker's one run, and nothing since: no fork ran the charge, and the source is untouched.
      expect(runs).toEqual([KEY(runId)]);
    });
  }

  it('at the answered point, the approval is asked again under a new id and runs once, with the fork’s key', async () => {
    const { runs, runId, sessions } = await approvedAndDied('retry');
    const points = await sessions.history(runId);
    const answered = points.find((point) => point.reason === 'answered')!;
    const fork = await sessions.fork(runId, { at: answered.version });
    const asked = fork.pending[0]!;
    expect(asked.kind).toBe('approval');
    const sourceAsk = points.find((point) => point.reason === 'paused')!.interactionId;
    expect(asked.id).not.toBe(sourceAsk);
    expect(asked.payload).toMatchObject({ reason: expect.stringContaining(`Approved in run ${runId}`) });
    const done = await sessions.approve(fork.runId, {}, { principal: 'ceo' });
    expect(done.status).toBe('completed');
    expect(runs).toEqual([KEY(runId), KEY(fork.runId)]);
  });

  it('at the started point, a call needing no approval is in doubt even under retry', async () => {
    const runs: string[] = [];
    const store = memoryStore();
    const agent = agentFor('retry', runs);
    const runId = await stalledRun(agent, store, runs);
    const sessions = createSessions({ agent, store, leaseMs });
    const points = await sessions.history(runId);
    const fork = await sessions.fork(runId, { at: points.at(-1)!.version });
    expect(fork.pending[0]).toMatchObject({ kind: 'in_doubt', toolName: 'charge' });
    expect(inDoubtEvents(fork)).toMatchObject([{ policy: 'ask' }]);
    expect(fork.pending[0]!.payload).toMatchObject({
      reason: expect.stringContaining(`started in run ${runId}`),
    });
    expect(runs).toHaveLength(1);
    const done = await sessions.approve(fork.runId);
    expect(done.status).toBe('completed');
    expect(runs).toEqual([KEY(runId), KEY(fork.runId)]);
  });

  it("a takeover's in_doubt ask keeps the tool's assignees, four eyes and quorum", async () => {
    const { runs, runId, sessions } = await approvedAndDied('ask', { ...rules, quorum: 2 }, ['cfo', 'ceo']);
    const asked = await sessions.retry(runId);
    expect(asked.pending[0]).toMatchObject({
      kind: 'in_doubt',
      assignees: ['cfo', 'ceo'],
      allowRequester: false,
      quorum: 2,
    });
    expect(await codeOf(sessions.approve(runId, {}, { principal: 'alice' }))).toBe('NOT_ASSIGNEE');
    expect(await codeOf(sessions.approve(runId))).toBe('NOT_ASSIGNEE');
    const one = await sessions.approve(runId, {}, { principal: 'cfo' });
    expect(one.status).toBe('needs_input');
    expect(runs).toHaveLength(1);
    const two = await sessions.approve(runId, {}, { principal: 'ceo' });
    expect(two.status).toBe('completed');
    expect(runs).toEqual([KEY(runId), KEY(runId)]);
  });

  it("at the point where a tool's own ask was answered, asks it again and resumes only on the new answer", async () => {
    const resumed: string[] = [];
    const pay = defineTool({
      name: 'pay',
      description: 'Pay a supplier, asking which account',
      input: z.object({ amount: z.number() }),
      execute: (_input, ctx) =>
        ctx.ask(
          { questions: [{ question: 'Which account?', header: 'Account', options: ['Main', 'Reserve'] }] },
          {},
        ),
      resume: (_input, response, ctx) => {
        resumed.push(ctx.idempotencyKey);
        return { paid: response.kind === 'question' ? response.answers.Account : null };
      },
    });
    const agent = makeAgent(
      [{ toolCalls: [{ id: 'call_pay', name: 'pay', arguments: { amount: 5 } }] }, 'Paid.'],
      {
        tools: [pay],
      },
    );
    const sessions = createSessions({ agent, store: memoryStore() });
    const paused = await sessions.start('pay 5');
    const done = await sessions.answer(paused.runId, { answers: 'Main' });
    expect(done.status).toBe('completed');
    expect(resumed).toEqual([`${paused.runId}:call_pay`]);
    const answered = (await sessions.history(paused.runId)).find((point) => point.reason === 'answered')!;
    const fork = await sessions.fork(paused.runId, { at: answered.version });
    expect(fork.status).toBe('needs_input');
    expect(fork.pending[0]).toMatchObject({ kind: 'question', toolName: 'pay' });
    expect(fork.pending[0]!.id).not.toBe(paused.pending[0]!.id);
    expect(resumed).toHaveLength(1);
    const other = await sessions.answer(fork.runId, { answers: 'Reserve' });
    expect(toolResults(other).call_pay).toBe('{"paid":{"selected":["Reserve"]}}');
    expect(resumed).toEqual([`${paused.runId}:call_pay`, `${fork.runId}:call_pay`]);
  });

  it("announces a fork's pending asks under the fork's run id", async () => {
    const { runId, sessions, announced } = await approvedAndDied('ask');
    const points = await sessions.history(runId);
    const paused = points.find((point) => point.reason === 'paused')!;
    const fork = await sessions.fork(runId, { at: paused.version });
    expect(fork.status).toBe('needs_input');
    expect(announced).toContainEqual({ id: fork.pending[0]!.id, runId: fork.runId });
  });
});

describe('answer links for assigned asks', () => {
  const SECRET = 'answer-link-secret-at-least-32-characters';

  async function assigned(approval: ApprovalPolicy<{ amount: number }, unknown>) {
    const runs: string[] = [];
    const agent = chargeAgent('ask', runs, {
      approval,
      stall: false,
      agent: { snapshot: { secret: SECRET } },
    });
    const sessions = createSessions({ agent, store: memoryStore() });
    const paused = await sessions.start('charge 5', { principal: 'alice' });
    return { runs, sessions, paused, id: paused.pending[0]!.id };
  }

  it('mints a one-click link for the assignee, whose use approves', async () => {
    const { runs, sessions, paused, id } = await assigned({ assignees: ['cfo'] });
    const token = await sessions.answerLink(paused.runId, id, {
      principal: 'cfo',
      ttlMs: 60_000,
      response: { type: 'approve' },
    });
    expect((await sessions.answerWithLink(token)).status).toBe('completed');
    expect(runs).toHaveLength(1);
    // Used, on a run that has ended: 410 LINK_INVALID, not 404.
    expect(await codeOf(sessions.answerWithLink(token))).toBe('LINK_INVALID');
  });

  it('refuses a link for the requester under four eyes, and counts a quorum per principal', async () => {
    const { runs, sessions, paused, id } = await assigned({
      assignees: ['alice', 'cfo', 'ceo'],
      allowRequester: false,
      quorum: 2,
    });
    const linkFor = (principal: string) =>
      sessions.answerLink(paused.runId, id, { principal, ttlMs: 60_000, response: { type: 'approve' } });
    expect(await codeOf(linkFor('alice'))).toBe('NOT_ASSIGNEE');
    expect(await codeOf(linkFor('bob'))).toBe('NOT_ASSIGNEE');
    const first = await sessions.answerWithLink(await linkFor('cfo'));
    expect(first.status).toBe('needs_input');
    expect(runs).toHaveLength(0);
    expect((await sessions.answerWithLink(await linkFor('ceo'))).status).toBe('completed');
    expect(runs).toHaveLength(1);
  });
});
