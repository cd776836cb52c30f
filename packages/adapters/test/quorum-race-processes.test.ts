/**
 * Racing quorum approvals across real processes (DESIGN §20, issue 31), on PostgreSQL and Redis. A
 * run pauses on an approval that needs 2 of [a, b, c]; four approver processes
 * (fixtures/quorum-approver.ts), each over its own store client, wait on a barrier file and then
 * approve at the same moment: a, b and c, and x, who is no assignee. Each retries on a
 * `ConflictError` as a client would. Over ten rounds (the roles move between the processes):
 * - the tool ran exactly once, as the side-effect log in the database counts it, in the process
 *   whose approval decided;
 * - only after the quorum: the turn that ran it resolved the approval with at least 2 distinct
 *   assignees before it started the tool, and every approval acknowledged short of the quorum is
 *   among them (none lost);
 * - x changed nothing (`NOT_ASSIGNEE`, or a read of a run already decided);
 * - the run completed, with exactly one tool result per tool call in its transcript.
 * With c rejecting instead, one request decides: either the quorum of a and b (the tool runs once)
 * or c's rejection (it never runs). A decision that lost gets a `ConflictError` (DESIGN §7: the
 * interaction was resolved differently); the client loads the run, sees it decided, and gives up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createSessions, type SessionResult } from '@turnkit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApproverCommand, ApproverConfig, ApproverMessage } from './fixtures/quorum-approver.js';
import { bundleProcesses } from './helpers/bundled-child.js';
import { findServers, sharedStores } from './helpers/lease-stores.js';
import {
  type ApprovalOutcome,
  ASSIGNEES,
  type EffectLog,
  openEffects,
  QUORUM,
  quorumAgent,
  rationaleOf,
  TRANSFER_CALL_ID,
} from './helpers/quorum-race.js';

const servers = findServers();
const ROUNDS = 10;
/** The principals that race: the three assignees and one outsider. */
const PRINCIPALS = [...ASSIGNEES, 'x'];

let outdir: string;
beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'turnkit-quorum-approver-'));
  await bundleProcesses({ entries: { 'quorum-approver': 'fixtures/quorum-approver.ts' }, outdir });
});
afterAll(async () => {
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

/** A running approver process. */
interface Approver {
  send(command: ApproverCommand): void;
  next(): Promise<ApproverMessage>;
  stop(): Promise<void>;
}

async function startApprover(config: ApproverConfig): Promise<Approver> {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(outdir, 'quorum-approver.mjs'), JSON.stringify(config)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`approver ${child.pid} exited early (code ${child.exitCode})`);
    return JSON.parse(value as string) as ApproverMessage;
  };
  const ready = await next();
  if (ready.type !== 'ready') throw new Error(`approver said ${JSON.stringify(ready)} first`);
  return {
    send: (command) => child.stdin!.write(`${JSON.stringify(command)}\n`),
    next,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.stdin!.write('{"op":"exit"}\n');
      await exited;
    },
  };
}

/** Reads an approver's next line and checks its type. */
async function expectLine<Type extends ApproverMessage['type']>(
  approver: Approver,
  type: Type,
): Promise<Extract<ApproverMessage, { type: Type }>> {
  const message = await approver.next();
  if (message.type !== type) throw new Error(`approver said ${JSON.stringify(message)}, not ${type}`);
  return message as Extract<ApproverMessage, { type: Type }>;
}

/**
 * One race: each approver gets its role (`roles[i]`), says it is armed, and once all are, the
 * barrier file is created and they decide at once; resolves with what each got.
 */
async function race(
  approvers: Approver[],
  runId: string,
  roles: { principal: string; decision?: 'approve' | 'reject' }[],
): Promise<ApprovalOutcome[]> {
  const barrier = join(outdir, `barrier-${runId}`);
  approvers.forEach((approver, index) => {
    approver.send({ op: 'approve', runId, barrier, ...roles[index]! });
  });
  await Promise.all(approvers.map((approver) => expectLine(approver, 'armed')));
  await writeFile(barrier, '');
  const done = await Promise.all(approvers.map((approver) => expectLine(approver, 'done')));
  return done.map((line) => line.outcome);
}

/** Tool calls of the transcript whose number of tool results is not exactly one. */
function unansweredOrTwice(result: SessionResult): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const message of result.messages) {
    if (message.role === 'assistant') for (const call of message.tool_calls ?? []) counts[call.id] = 0;
  }
  for (const message of result.messages) {
    if (message.role === 'tool') counts[message.tool_call_id] = (counts[message.tool_call_id] ?? -100) + 1;
  }
  return Object.fromEntries(Object.entries(counts).filter(([, count]) => count !== 1));
}

/**
 * What must hold of one round's outcomes; returns what broke (empty: nothing). `already` approved
 * before the race: its approval again changes nothing, and it is among the deciding approvals.
 */
function roundProblems(outcomes: ApprovalOutcome[], already?: string): string[] {
  const problems: string[] = [];
  const deciders = outcomes.filter((outcome) => outcome.events.includes('tool_started'));
  if (deciders.length !== 1) problems.push(`${deciders.length} requests played the tool`);
  const decider = deciders[0];
  if (decider) {
    const resolvedBy = decider.resolvedBy ?? [];
    if (new Set(resolvedBy).size < QUORUM || resolvedBy.some((who) => !ASSIGNEES.includes(who))) {
      problems.push(`the approval was resolved by ${JSON.stringify(resolvedBy)}`);
    }
    if (!resolvedBy.includes(decider.principal))
      problems.push(`the decider ${decider.principal} is not counted`);
    if (decider.events.indexOf('interaction_resolved') > decider.events.indexOf('tool_started')) {
      problems.push(`the tool started before the approval was resolved: ${decider.events.join(', ')}`);
    }
    if (decider.status !== 'completed') problems.push(`the deciding turn ended ${decider.status}`);
    // An approval acknowledged short of the quorum was persisted before the decision: it counts.
    for (const outcome of outcomes) {
      if (outcome.recorded && !resolvedBy.includes(outcome.recorded)) {
        problems.push(`${outcome.recorded}'s recorded approval was lost: ${JSON.stringify(resolvedBy)}`);
      }
    }
  }
  for (const outcome of outcomes) {
    const { principal, status, events, error } = outcome;
    if (principal === 'x') {
      const refused = error === 'NOT_ASSIGNEE';
      const read = error === undefined && events.length === 0 && status !== 'needs_input';
      if (!refused && !read) problems.push(`x got ${JSON.stringify(outcome)}`);
      continue;
    }
    if (error !== undefined) problems.push(`${principal} failed: ${error}`);
    else if (outcome === decider) continue;
    else if (principal === already) {
      if (events.length > 0) problems.push(`${principal}'s repeated approval played ${events.join(', ')}`);
    } else if (outcome.recorded === principal) {
      if (status !== 'needs_input') problems.push(`${principal} recorded, then ${status}`);
    } else if (events.length > 0 || status === 'needs_input') {
      problems.push(`${principal} got ${JSON.stringify(outcome)}`);
    }
  }
  return problems;
}

/**
 * The cases: a fresh approval with a tool that takes 20 ms (a late approver finds the run
 * running), and one an assignee approved before the race, with an instant tool (late approvers
 * find it completed), the earlier approver approving again in the race.
 */
const CASES = [
  { toolMs: 20, approvedBefore: false },
  { toolMs: 0, approvedBefore: true },
] as const;

describe('quorum approvals racing across processes', () => {
  for (const kind of ['postgres', 'redis'] as const) {
    for (const { toolMs, approvedBefore } of CASES) {
      it.skipIf(servers.missing(kind))(
        `${kind}${approvedBefore ? ', one approval in before the race' : ''}: ${PRINCIPALS.length} processes approve at once, ${ROUNDS} rounds: the tool runs once, after ${QUORUM} distinct approvals`,
        async () => {
          const backend = await sharedStores(kind, 'quorum-race', 1, servers.urls[kind]);
          const effects: EffectLog = openEffects(backend.address!);
          const approvers: Approver[] = [];
          try {
            await effects.prepare();
            // The test's own sessions start the runs and read them back; they never execute the tool.
            const sessions = createSessions({
              agent: quorumAgent(() => effects.record({ key: 'test', principal: 'test', pid: process.pid })),
              store: backend.stores[0]!,
            });
            for (const _ of PRINCIPALS)
              approvers.push(await startApprover({ address: backend.address!, toolMs }));

            const summary: Record<string, number> = {};
            for (let round = 0; round < ROUNDS; round++) {
              const started = await sessions.start('send 5');
              expect(started.status).toBe('needs_input');
              expect(started.pendingQuestion?.quorum).toBe(QUORUM);
              const { runId } = started;
              const already = approvedBefore ? ASSIGNEES[round % ASSIGNEES.length] : undefined;
              if (already) {
                const first = await sessions.approve(
                  runId,
                  { rationale: rationaleOf(already) },
                  { principal: already },
                );
                expect(first.status).toBe('needs_input');
                expect(first.pendingQuestion?.approvals?.map((item) => item.principal)).toEqual([already]);
              }
              // The roles move: in round r, process i approves as PRINCIPALS[(i + r) % 4].
              const outcomes = await race(
                approvers,
                runId,
                approvers.map((_, index) => ({
                  principal: PRINCIPALS[(index + round) % PRINCIPALS.length]!,
                })),
              );
              for (const outcome of outcomes) {
                const kindOf =
                  outcome.error ??
                  (outcome.events.includes('tool_started')
                    ? 'decided'
                    : outcome.recorded
                      ? 'recorded'
                      : `read:${outcome.status}`);
                summary[kindOf] = (summary[kindOf] ?? 0) + 1;
                summary.conflicts = (summary.conflicts ?? 0) + outcome.conflicts;
              }
              expect(roundProblems(outcomes, already), JSON.stringify(outcomes)).toEqual([]);

              // The database saw one execution, by the process whose approval decided.
              const key = `${runId}:${TRANSFER_CALL_ID}`;
              const decider = outcomes.find((outcome) => outcome.events.includes('tool_started'))!;
              const executions = (await effects.list()).filter((effect) => effect.key === key);
              expect(executions.map((effect) => effect.principal)).toEqual([decider.principal]);

              const done = await sessions.get(runId);
              expect(done.status).toBe('completed');
              expect(done.pendingQuestion ?? null).toBeNull();
              expect(unansweredOrTwice(done)).toEqual({});
              expect(done.messages.filter((message) => message.role === 'tool')).toHaveLength(1);
            }
            // Nothing executed outside the rounds' deciders (the test's own sessions never did).
            expect(
              (await effects.list()).filter((effect) => effect.key === 'test' || effect.principal === 'test'),
            ).toEqual([]);
            expect(await effects.list()).toHaveLength(ROUNDS);
            console.log(`[quorum-race-processes] ${kind}:`, JSON.stringify(summary));
          } finally {
            await Promise.all(approvers.map((approver) => approver.stop()));
            await effects.drop();
            await effects.close();
            await backend.teardown();
          }
        },
        60_000,
      );
    }
  }
});

describe('a rejection racing the quorum approvals across processes', () => {
  for (const kind of ['postgres', 'redis'] as const) {
    it.skipIf(servers.missing(kind))(
      `${kind}: a and b approve, c rejects, x approves, at once, ${ROUNDS} rounds: one decision, the tool runs once if approved, never if rejected`,
      async () => {
        const backend = await sharedStores(kind, 'quorum-reject', 1, servers.urls[kind]);
        const effects: EffectLog = openEffects(backend.address!);
        const approvers: Approver[] = [];
        try {
          await effects.prepare();
          const sessions = createSessions({
            agent: quorumAgent(() => effects.record({ key: 'test', principal: 'test', pid: process.pid })),
            store: backend.stores[0]!,
          });
          for (const _ of PRINCIPALS)
            approvers.push(await startApprover({ address: backend.address!, toolMs: 20 }));
          const roles = [
            { principal: 'a' },
            { principal: 'b' },
            { principal: 'c', decision: 'reject' as const },
            { principal: 'x' },
          ];

          const decisions: Record<string, number> = {};
          for (let round = 0; round < ROUNDS; round++) {
            const { runId, status } = await sessions.start('send 5');
            expect(status).toBe('needs_input');
            const outcomes = await race(
              approvers,
              runId,
              approvers.map((_, index) => roles[(index + round) % roles.length]!),
            );
            const context = JSON.stringify(outcomes);
            // Exactly one request resolved the approval; every other one counted short of the quorum,
            // was refused (x) or read a run already decided.
            const resolvers = outcomes.filter((outcome) => outcome.decision !== undefined);
            expect(resolvers, context).toHaveLength(1);
            const resolver = resolvers[0]!;
            decisions[resolver.decision!] = (decisions[resolver.decision!] ?? 0) + 1;
            for (const outcome of outcomes) {
              if (outcome === resolver) continue;
              if (outcome.principal === 'x' && outcome.error === 'NOT_ASSIGNEE') continue;
              expect(outcome.error, context).toBeUndefined();
              if (outcome.recorded) expect(outcome.status, context).toBe('needs_input');
              else expect([outcome.events, outcome.status === 'needs_input'], context).toEqual([[], false]);
            }
            const key = `${runId}:${TRANSFER_CALL_ID}`;
            const executions = (await effects.list()).filter((effect) => effect.key === key);
            if (resolver.decision === 'approved') {
              // The quorum won: two distinct approvers, c not among them, and the tool ran once.
              expect(new Set(resolver.resolvedBy).size, context).toBeGreaterThanOrEqual(QUORUM);
              expect(resolver.resolvedBy, context).not.toContain('c');
              expect(resolver.events.indexOf('interaction_resolved')).toBeLessThan(
                resolver.events.indexOf('tool_started'),
              );
              expect(executions.map((effect) => effect.principal)).toEqual([resolver.principal]);
            } else {
              // The rejection won: c resolved it before the quorum, and the tool never ran.
              expect(
                [resolver.principal, resolver.decision, resolver.events.includes('tool_started')],
                context,
              ).toEqual(['c', 'rejected', false]);
              expect(executions).toEqual([]);
            }
            const done = await sessions.get(runId);
            expect(done.status).toBe('completed');
            expect(unansweredOrTwice(done)).toEqual({});
            expect(done.messages.filter((message) => message.role === 'tool')).toHaveLength(1);
          }
          expect((await effects.list()).filter((effect) => effect.principal === 'test')).toEqual([]);
          console.log(`[quorum-race-processes] ${kind}, with a rejection:`, JSON.stringify(decisions));
        } finally {
          await Promise.all(approvers.map((approver) => approver.stop()));
          await effects.drop();
          await effects.close();
          await backend.teardown();
        }
      },
      60_000,
    );
  }
});
