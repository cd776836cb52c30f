import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type ApprovalPolicy,
  agentTool,
  answerQuestion,
  approve,
  askUserQuestion,
  cancelQuestion,
  createSessions,
  defineAgent,
  defineTool,
  memoryStore,
  reject,
  runTurn,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { ask, cellLineQuestion, codeOf, errorCode, toolResults } from './helpers.js';

const thawCall = { id: 'c1', name: 'record_thaw', arguments: { cellLine: 'K562', vials: 2 } };

function thawAgent(approval: ApprovalPolicy<{ cellLine: string; vials: number }>, log: string[] = []) {
  const thaw = defineTool({
    name: 'record_thaw',
    description: 'Record that vials were thawed',
    input: z.object({ cellLine: z.string(), vials: z.number() }),
    needsApproval: true,
    approval,
    execute: async ({ cellLine, vials }) => {
      log.push(`${cellLine}x${vials}`);
      return { recorded: true };
    },
  });
  return defineAgent({
    name: 'lab',
    instructions: 'Lab assistant.',
    model: scriptedModel([{ toolCalls: [thawCall] }, 'done']),
    tools: [thaw],
  });
}

describe('assignees', () => {
  it('stores the resolved assignees, quorum and allowRequester on the pending approval', async () => {
    const agent = thawAgent({
      assignees: (input) => ((input as { vials: number }).vials > 1 ? ['pi', 'manager'] : ['pi']),
      quorum: 2,
      allowRequester: false,
    });
    const r1 = await runTurn(agent, { input: 'thaw' }, { principal: 'student' });
    expect(r1.pendingQuestion).toMatchObject({
      kind: 'approval',
      assignees: ['pi', 'manager'],
      quorum: 2,
      allowRequester: false,
    });
    expect(r1.pendingQuestion?.approvals).toBeUndefined();
  });

  it('refuses a responder who is not an assignee with NOT_ASSIGNEE, and changes nothing', async () => {
    const log: string[] = [];
    const agent = thawAgent({ assignees: ['pi'] }, log);
    const r1 = await runTurn(agent, { input: 'thaw' });
    expect(await codeOf(approve(agent, r1.snapshot, {}, { principal: 'student' }))).toBe('NOT_ASSIGNEE');
    expect(await codeOf(approve(agent, r1.snapshot, {}))).toBe('NOT_ASSIGNEE');
    expect(log).toEqual([]);
    const r2 = await approve(agent, r1.snapshot, { rationale: 'ok' }, { principal: 'pi' });
    expect(r2.status).toBe('completed');
    expect(log).toEqual(['K562x2']);
    expect(r2.events.find((event) => event.type === 'interaction_resolved')).toMatchObject({
      decision: 'approved',
      principal: 'pi',
      rationale: 'ok',
    });
  });

  it('lets an assignee see and answer a run another principal started, and nothing else', async () => {
    const agent = defineAgent({
      name: 'lab',
      instructions: 'Lab assistant.',
      model: scriptedModel([{ toolCalls: [ask([cellLineQuestion])] }, 'thanks', 'again']),
      tools: [askUserQuestion({ assignees: ['pi'] })],
    });
    const store = memoryStore();
    const sessions = createSessions({ agent, store });
    const r1 = await sessions.start('thaw', { principal: 'student' });
    expect(r1.pendingQuestion?.assignees).toEqual(['pi']);
    expect(await codeOf(sessions.get(r1.runId, { principal: 'stranger' }))).toBe('RUN_NOT_FOUND');
    expect((await sessions.get(r1.runId, { principal: 'pi' })).status).toBe('needs_input');
    expect(await codeOf(sessions.send(r1.runId, 'hijack', { principal: 'pi' }))).toBe('RUN_NOT_FOUND');
    expect(await codeOf(runTurn(agent, { snapshot: r1.snapshot, input: 'x' }, { principal: 'pi' }))).toBe(
      'RUN_NOT_FOUND',
    );
    const r2 = await sessions.answer(r1.runId, { answers: 'K562-dTAG' }, { principal: 'pi' });
    expect(r2.status).toBe('completed');
    // Once nothing waits on it, the run is the owner's again.
    expect(await codeOf(sessions.get(r1.runId, { principal: 'pi' }))).toBe('RUN_NOT_FOUND');
    expect((await sessions.get(r1.runId, { principal: 'student' })).status).toBe('completed');
  });

  it('refuses the run’s own principal under allowRequester: false (four eyes)', async () => {
    const agent = thawAgent({ allowRequester: false, assignees: ['student', 'pi'] });
    const r1 = await runTurn(agent, { input: 'thaw' }, { principal: 'student' });
    expect(await codeOf(approve(agent, r1.snapshot, {}, { principal: 'student' }))).toBe('NOT_ASSIGNEE');
    expect(await codeOf(reject(agent, r1.snapshot, {}, { principal: 'student' }))).toBe('NOT_ASSIGNEE');
    expect((await approve(agent, r1.snapshot, {}, { principal: 'pi' })).status).toBe('completed');
  });

  it('lets the owner cancel, but not a stranger to the interaction', async () => {
    const agent = thawAgent({ assignees: ['pi'] });
    const r1 = await runTurn(agent, { input: 'thaw' }, { principal: 'student' });
    expect(await codeOf(cancelQuestion(agent, r1.snapshot, {}, { principal: 'stranger' }))).toBe(
      'RUN_NOT_FOUND',
    );
    expect(await codeOf(approve(agent, r1.snapshot, {}, { principal: 'student' }))).toBe('NOT_ASSIGNEE');
    const cancelled = await cancelQuestion(agent, r1.snapshot, {}, { principal: 'student' });
    expect(errorCode(toolResults(cancelled).c1)).toBe('approval_cancelled');
  });

  it('names assignees for a question and for ctx.ask, as lists or functions', async () => {
    const form = defineTool({
      name: 'pick_box',
      description: 'Pick a box',
      input: z.object({ rack: z.string() }),
      execute: (_input, ctx) =>
        ctx.ask(
          {
            approval: { reason: 'Move the rack' },
            assignees: (given) => [`owner-of-${(given as { rack: string }).rack}`],
          },
          null,
        ),
      resume: (_input, response) => (response.kind === 'approval' && response.approved ? 'moved' : 'kept'),
    });
    const agent = defineAgent({
      name: 'lab',
      instructions: 'Lab assistant.',
      model: scriptedModel([
        { toolCalls: [{ id: 'c1', name: 'pick_box', arguments: { rack: 'R7' } }] },
        'done',
      ]),
      tools: [form],
    });
    const r1 = await runTurn(agent, { input: 'move' });
    expect(r1.pendingQuestion).toMatchObject({ askedByTool: true, assignees: ['owner-of-R7'] });
    expect(await codeOf(approve(agent, r1.snapshot, {}, { principal: 'someone' }))).toBe('NOT_ASSIGNEE');
    const r2 = await approve(agent, r1.snapshot, {}, { principal: 'owner-of-R7' });
    expect(toolResults(r2).c1).toBe('moved');

    const questions = defineAgent({
      name: 'lab',
      instructions: 'Lab assistant.',
      model: scriptedModel([{ toolCalls: [ask([cellLineQuestion])] }, 'ok']),
      tools: [askUserQuestion({ assignees: (input) => [`expert-${input.questions.length}`] })],
    });
    const q1 = await runTurn(questions, { input: 'thaw' });
    expect(q1.pendingQuestion?.assignees).toEqual(['expert-1']);
    expect(await codeOf(answerQuestion(questions, q1.snapshot, { answers: 'K562-dTAG' }))).toBe(
      'NOT_ASSIGNEE',
    );
  });

  it('gives the model a tool_error when an assignees function fails, and never pauses', async () => {
    const agent = thawAgent({
      assignees: () => {
        throw new Error('directory down');
      },
    });
    const r1 = await runTurn(agent, { input: 'thaw' });
    expect(r1.status).toBe('completed');
    expect(errorCode(toolResults(r1).c1)).toBe('tool_error');
    expect(toolResults(r1).c1).toContain('directory down');
  });

  it('refuses a policy no approval could follow, at definition', () => {
    const define = (approval: unknown) => () =>
      defineTool({
        name: 't',
        description: 't',
        input: z.object({}),
        approval: approval as never,
        execute: () => 'x',
      });
    expect(define({ quorum: 0 })).toThrow(/approval.quorum must be an integer >= 1/);
    expect(define({ assignees: 'pi' })).toThrow(/approval.assignees must be a list/);
    expect(define({ assignees: ['pi'], quorum: 2 })).toThrow(/more than the 1 assignees/);
    expect(define({ allowRequester: 'no' })).toThrow(/allowRequester must be a boolean/);
    expect(() => askUserQuestion({ assignees: [''] })).toThrow(/non-empty strings/);
  });
});

describe('quorum', () => {
  it('runs the tool only after n distinct approvals, each recorded with its rationale', async () => {
    const log: string[] = [];
    const agent = thawAgent({ assignees: ['pi', 'manager', 'safety'], quorum: 2 }, log);
    const r1 = await runTurn(agent, { input: 'thaw' });
    const r2 = await approve(agent, r1.snapshot, { rationale: 'fine by me' }, { principal: 'pi' });
    expect(r2.status).toBe('needs_input');
    expect(log).toEqual([]);
    expect(r2.pendingQuestion?.approvals).toEqual([
      { principal: 'pi', rationale: 'fine by me', at: expect.any(String) },
    ]);
    expect(r2.events.map((event) => event.type)).toEqual([
      'turn_started',
      'approval_recorded',
      'turn_paused',
    ]);
    expect(r2.events[1]).toMatchObject({ principal: 'pi', rationale: 'fine by me', approvals: 1, quorum: 2 });

    const again = await approve(agent, r2.snapshot, { rationale: 'still fine' }, { principal: 'pi' });
    expect(again.snapshot).toBe(r2.snapshot);
    expect(again.events).toEqual([]);

    const r3 = await approve(agent, r2.snapshot, { rationale: 'agreed' }, { principal: 'manager' });
    expect(r3.status).toBe('completed');
    expect(log).toEqual(['K562x2']);
    expect(r3.events.find((event) => event.type === 'interaction_resolved')).toMatchObject({
      decision: 'approved',
      principal: 'manager',
      approvals: [
        { principal: 'pi', rationale: 'fine by me' },
        { principal: 'manager', rationale: 'agreed' },
      ],
    });
  });

  it('rejects on any rejection, approvals so far notwithstanding', async () => {
    const log: string[] = [];
    const agent = thawAgent({ quorum: 2 }, log);
    const r1 = await runTurn(agent, { input: 'thaw' });
    const r2 = await approve(agent, r1.snapshot, {}, { principal: 'a' });
    const r3 = await reject(agent, r2.snapshot, { rationale: 'no' }, { principal: 'b' });
    expect(errorCode(toolResults(r3).c1)).toBe('rejected_by_user');
    expect(log).toEqual([]);
  });

  it('needs a principal to count an approval, and refuses an edited input', async () => {
    const agent = thawAgent({ quorum: 2 });
    const r1 = await runTurn(agent, { input: 'thaw' });
    expect(await codeOf(approve(agent, r1.snapshot, {}))).toBe('NOT_ASSIGNEE');
    expect(
      await codeOf(
        approve(agent, r1.snapshot, { editedInput: { cellLine: 'K562', vials: 1 } }, { principal: 'a' }),
      ),
    ).toBe('ANSWER_INVALID');
  });

  it('counts approvals across sessions: a repeat is idempotent, the quorum runs the tool once', async () => {
    const log: string[] = [];
    const agent = thawAgent({ quorum: 2 }, log);
    const store = memoryStore();
    const one = createSessions({ agent, store });
    const two = createSessions({ agent, store });
    const r1 = await one.start('thaw');
    const a = await one.approve(r1.runId, {}, { principal: 'a' });
    expect(a.status).toBe('needs_input');
    const repeat = await two.approve(r1.runId, {}, { principal: 'a' });
    expect(repeat.version).toBe(a.version);
    const b = await two.approve(r1.runId, {}, { principal: 'b' });
    expect(b.status).toBe('completed');
    const late = await one.approve(r1.runId, {}, { principal: 'c' });
    expect(late.version).toBe(b.version);
    expect(log).toEqual(['K562x2']);
  });

  it('keeps the policy and its approvals in the snapshot, and refuses a snapshot that breaks them', async () => {
    const agent = thawAgent({ assignees: ['a', 'b'], quorum: 2 });
    const r1 = await runTurn(agent, { input: 'thaw' });
    const r2 = await approve(agent, r1.snapshot, { rationale: 'yes' }, { principal: 'a' });
    const stored = JSON.parse(r2.snapshot).state.context.step[0].interaction;
    expect(stored).toMatchObject({
      assignees: ['a', 'b'],
      quorum: 2,
      approvals: [{ principal: 'a', rationale: 'yes' }],
    });
    const broken = (change: (interaction: Record<string, unknown>) => void) => {
      const envelope = JSON.parse(r2.snapshot);
      change(envelope.state.context.step[0].interaction);
      return JSON.stringify(envelope);
    };
    for (const snapshot of [
      broken((interaction) => {
        interaction.quorum = 0;
      }),
      broken((interaction) => {
        interaction.assignees = 'a';
      }),
      broken((interaction) => {
        interaction.approvals = [{ principal: 7 }];
      }),
    ]) {
      expect(await codeOf(approve(agent, snapshot, {}, { principal: 'b' }))).toBe('SNAPSHOT_INVALID');
    }
  });

  it('holds a sub-agent’s approval to its assignees, routed through the parent', async () => {
    const log: string[] = [];
    const child = thawAgent({ assignees: ['pi'] }, log);
    const parent = defineAgent({
      name: 'lead',
      instructions: 'Delegate.',
      model: scriptedModel([
        { toolCalls: [{ id: 'p1', name: 'lab', arguments: { input: 'thaw two' } }] },
        'all done',
      ]),
      tools: [agentTool(child, { name: 'lab', description: 'The lab' })],
      budget: { toolCalls: 10 },
    });
    const r1 = await runTurn(parent, { input: 'go' }, { principal: 'student' });
    expect(r1.pendingQuestion).toMatchObject({ agentPath: ['lead', 'lab'], assignees: ['pi'] });
    expect(await codeOf(approve(parent, r1.snapshot, {}, { principal: 'student' }))).toBe('NOT_ASSIGNEE');
    const r2 = await approve(parent, r1.snapshot, {}, { principal: 'pi' });
    expect(r2.status).toBe('completed');
    expect(log).toEqual(['K562x2']);
    // The child's tool call counts towards the run: the agent tool's call and the child's own.
    expect(r2.spend.toolCalls).toBe(2);
  });

  it('counts a quorum on a tool’s own ctx.ask approval before its resume runs', async () => {
    const resumed: unknown[] = [];
    const wire = defineTool({
      name: 'wire',
      description: 'Wire money',
      input: z.object({ amount: z.number() }),
      execute: (_input, ctx) =>
        ctx.ask({ approval: { reason: 'Wire it' }, quorum: 2, allowRequester: false }, null),
      resume: (_input, response) => {
        resumed.push(response);
        return 'wired';
      },
    });
    const agent = defineAgent({
      name: 'bank',
      instructions: 'Bank.',
      model: scriptedModel([{ toolCalls: [{ id: 'c1', name: 'wire', arguments: { amount: 9 } }] }, 'ok']),
      tools: [wire],
    });
    const r1 = await runTurn(agent, { input: 'wire' }, { principal: 'clerk' });
    expect(r1.pendingQuestion).toMatchObject({ quorum: 2, allowRequester: false });
    expect(await codeOf(approve(agent, r1.snapshot, {}, { principal: 'clerk' }))).toBe('NOT_ASSIGNEE');
    expect(await codeOf(approve(agent, r1.snapshot, {}, { principal: 'x' }))).toBe('RUN_NOT_FOUND');

    const bad = defineTool({
      name: 'wire',
      description: 'Wire money',
      input: z.object({ amount: z.number() }),
      execute: (_input, ctx) => ctx.ask({ approval: { reason: 'Wire it' }, quorum: 0 }, null),
      resume: () => 'never',
    });
    const refused = await runTurn(
      defineAgent({
        name: 'bank',
        instructions: 'Bank.',
        model: scriptedModel([{ toolCalls: [{ id: 'c1', name: 'wire', arguments: { amount: 9 } }] }, 'ok']),
        tools: [bad],
      }),
      { input: 'wire' },
    );
    expect(toolResults(refused).c1).toContain('quorum must be an integer >= 1');

    const open = await runTurn(agent, { input: 'wire' });
    const first = await approve(agent, open.snapshot, { rationale: 'one' }, { principal: 'a' });
    expect(resumed).toEqual([]);
    const second = await approve(agent, first.snapshot, { rationale: 'two' }, { principal: 'b' });
    expect(toolResults(second).c1).toBe('wired');
    expect(resumed).toEqual([
      expect.objectContaining({
        kind: 'approval',
        approved: true,
        approvals: [expect.objectContaining({ principal: 'a' }), expect.objectContaining({ principal: 'b' })],
      }),
    ]);
  });
});
