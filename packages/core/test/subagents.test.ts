import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  agentTool,
  answerQuestion,
  approve,
  askUserQuestion,
  cancelQuestion,
  defineAgent,
  defineTool,
  expire,
  runTurn,
  type SubagentQuestionPolicy,
} from '../src/index.js';
import { type ScriptedStep, scriptedModel } from '../src/testing/index.js';
import { childAgent, colorQuestion, delegate, lastContent, parentAgent } from './fixtures/subagents.js';
import { ask, errorCode, expectOneResultPerCall, toolResults } from './helpers.js';

describe('agentTool, bubble (default)', () => {
  it('pauses the parent on the child question, routes the answer down, and returns the child output as the tool result', async () => {
    const log: string[] = [];
    let parentCalls = 0;
    const child = childAgent(
      'researcher',
      [
        { toolCalls: [{ name: 'lookup', arguments: { q: 'stock' } }] },
        { toolCalls: [ask([colorQuestion])] },
        (request) => `child saw ${lastContent(request)}`,
      ],
      log,
    );
    const parent = parentAgent(child, [
      () => {
        parentCalls++;
        return { toolCalls: [delegate('find paint')] };
      },
      (request) => {
        parentCalls++;
        return `lead got: ${lastContent(request)}`;
      },
    ]);
    const r1 = await runTurn(parent, { input: 'paint the shed' });
    expect(r1.status).toBe('needs_input');
    expect(r1.pendingQuestion).toMatchObject({
      kind: 'question',
      toolName: 'AskUserQuestion',
      agentPath: ['lead', 'researcher'],
      toolCallId: 'call_1_0',
      id: 'lead/researcher@d1:1',
    });
    expect(r1.events.find((event) => event.type === 'interaction_requested')?.agentPath).toEqual([
      'lead',
      'researcher',
    ]);
    expect(r1.events.filter((event) => event.type.startsWith('turn_')).map((event) => event.type)).toEqual([
      'turn_started',
      'turn_paused',
    ]);
    const r2 = await answerQuestion(parent, r1.snapshot, { answers: 'Blue' });
    expect(r2.status).toBe('completed');
    expect(toolResults(r2).d1).toBe('child saw {"answers":{"Colour":"Blue"}}');
    expect(r2.output).toBe('lead got: child saw {"answers":{"Colour":"Blue"}}');
    expect(log).toEqual(['stock']);
    expect(parentCalls).toBe(2);
    expect(r2.messages.some((message) => message.content === 'You are researcher.')).toBe(false);
    expectOneResultPerCall(r2);
  });

  it('keeps one copy of the child transcript inside the parent snapshot, and drops it when the child finishes', async () => {
    const child = childAgent('researcher', [{ toolCalls: [ask([colorQuestion])] }, 'done']);
    const parent = parentAgent(child, [{ toolCalls: [delegate('UNIQUE-TASK-TEXT')] }, 'ok']);
    const r1 = await runTurn(parent, { input: 'go' });
    expect(r1.snapshot.split('UNIQUE-TASK-TEXT').length - 1).toBe(2);
    const r2 = await answerQuestion(parent, r1.snapshot, { answers: 'Red' });
    expect(JSON.parse(r2.snapshot).state.context.step).toBeNull();
    expect(r2.snapshot.split('UNIQUE-TASK-TEXT').length - 1).toBe(1);
  });

  it('bubbles a nested approval to the human; the child tool runs once after approval', async () => {
    const log: string[] = [];
    const child = childAgent(
      'janitor',
      [
        { toolCalls: [{ name: 'delete_file', arguments: { path: '/tmp/x' } }] },
        (request) => `janitor: ${lastContent(request)}`,
      ],
      log,
    );
    const parent = parentAgent(child, [
      { toolCalls: [delegate('clean up')] },
      (request) => `lead: ${lastContent(request)}`,
    ]);
    const r1 = await runTurn(parent, { input: 'go' });
    expect(r1.pendingQuestion).toMatchObject({
      kind: 'approval',
      agentPath: ['lead', 'janitor'],
      payload: { input: { path: '/tmp/x' } },
    });
    expect(log).toEqual([]);
    const r2 = await approve(parent, r1.snapshot);
    expect(log).toEqual(['deleted /tmp/x']);
    expect(r2.output).toBe('lead: janitor: deleted');
  });

  it('has two children asking in the same step pending at once, answered in any order', async () => {
    const child = childAgent('researcher', [
      { toolCalls: [ask([colorQuestion])] },
      (request) => `child: ${lastContent(request)}`,
    ]);
    const parent = parentAgent(child, [
      { toolCalls: [delegate('first', 'a'), delegate('second', 'b')] },
      'both done',
    ]);
    const r1 = await runTurn(parent, { input: 'go' });
    expect(r1.pending.map((item) => item.id)).toEqual(['lead/researcher@a:1', 'lead/researcher@b:1']);
    const r2 = await answerQuestion(parent, r1.snapshot, { id: 'lead/researcher@b:1', answers: 'Red' });
    expect(r2.status).toBe('needs_input');
    expect(r2.pending.map((item) => item.id)).toEqual(['lead/researcher@a:1']);
    const r3 = await answerQuestion(parent, r2.snapshot, { answers: 'Blue' });
    expect(r3.status).toBe('completed');
    const results = toolResults(r3);
    expect(results.a).toBe('child: {"answers":{"Colour":"Blue"}}');
    expect(results.b).toBe('child: {"answers":{"Colour":"Red"}}');
  });

  it('nests three levels deep', async () => {
    const grandchild = childAgent('clerk', [
      { toolCalls: [ask([colorQuestion])] },
      (request) => `clerk: ${lastContent(request)}`,
    ]);
    const middle = defineAgent({
      name: 'manager',
      instructions: 'm',
      model: scriptedModel([
        { toolCalls: [{ id: 'm1', name: 'clerk', arguments: { input: 'ask' } }] },
        (request) => `manager: ${lastContent(request)}`,
      ]),
      tools: [agentTool(grandchild)],
    });
    const top = defineAgent({
      name: 'ceo',
      instructions: 'c',
      model: scriptedModel([
        { toolCalls: [{ id: 't1', name: 'manager', arguments: { input: 'handle it' } }] },
        (request) => `ceo: ${lastContent(request)}`,
      ]),
      tools: [agentTool(middle)],
    });
    const r1 = await runTurn(top, { input: 'go' });
    expect(r1.pendingQuestion?.agentPath).toEqual(['ceo', 'manager', 'clerk']);
    expect(r1.pendingQuestion?.id).toBe('ceo/manager@t1/clerk@m1:1');
    const r2 = await answerQuestion(top, r1.snapshot, { answers: 'Red' });
    expect(r2.output).toBe('ceo: manager: clerk: {"answers":{"Colour":"Red"}}');
    const resolved = r2.events.find((event) => event.type === 'interaction_resolved');
    expect(resolved?.agentPath).toEqual(['ceo', 'manager', 'clerk']);
  });

  it('routes a cancel and an expiry down to the child, which goes on', async () => {
    const child = defineAgent({
      name: 'researcher',
      instructions: 'r',
      model: scriptedModel([
        { toolCalls: [ask([colorQuestion])] },
        (request) => `child: ${lastContent(request)}`,
      ]),
      tools: [askUserQuestion({ timeoutMs: 1000 })],
    });
    const parent = parentAgent(child, [
      { toolCalls: [delegate('x')] },
      (request) => `lead: ${lastContent(request)}`,
    ]);
    const t0 = new Date('2026-05-01T00:00:00Z');
    const r1 = await runTurn(parent, { input: 'go' }, { now: t0 });
    const cancelled = await cancelQuestion(parent, r1.snapshot, { reason: 'busy' }, { now: t0 });
    expect(errorCode(cancelled.output?.replace(/^lead: child: /, ''))).toBe('question_cancelled');
    const expired = await expire(parent, r1.snapshot, { now: new Date('2026-05-01T00:00:05Z') });
    expect(errorCode(expired.output?.replace(/^lead: child: /, ''))).toBe('question_timeout');
  });

  it('drops the paused child when a new user message supersedes the parent call', async () => {
    const child = childAgent('researcher', [{ toolCalls: [ask([colorQuestion])] }, 'never']);
    const parent = parentAgent(child, [{ toolCalls: [delegate('x')] }, 'moved on']);
    const r1 = await runTurn(parent, { input: 'go' });
    const r2 = await runTurn(parent, { snapshot: r1.snapshot, input: 'forget it' });
    expect(r2.output).toBe('moved on');
    expect(errorCode(toolResults(r2).d1)).toBe('superseded_by_user_message');
    expect(r2.events.find((event) => event.type === 'interaction_resolved')).toMatchObject({
      resolution: 'superseded',
      interactionId: 'lead/researcher@d1:1',
    });
    expect(r1.snapshot).toContain('"child":');
    expect(r2.snapshot).not.toContain('"child":');
  });

  it('propagates an abort into a resuming child; a retry resumes the child from its recorded answer', async () => {
    const controller = new AbortController();
    let slow = true;
    const child = defineAgent({
      name: 'researcher',
      instructions: 'r',
      model: scriptedModel([
        { toolCalls: [ask([colorQuestion])] },
        async (request) => {
          if (slow) {
            slow = false;
            setTimeout(() => controller.abort(), 5);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          return `child: ${lastContent(request)}`;
        },
      ]),
      tools: [askUserQuestion()],
    });
    const parent = parentAgent(child, [
      { toolCalls: [delegate('x')] },
      (request) => `lead: ${lastContent(request)}`,
    ]);
    const r1 = await runTurn(parent, { input: 'go' });
    const aborted = await answerQuestion(
      parent,
      r1.snapshot,
      { answers: 'Red' },
      { signal: controller.signal },
    );
    expect(aborted.status).toBe('aborted');
    expect(JSON.parse(aborted.snapshot).state.context.step[0].status).toBe('resuming');
    const retried = await runTurn(parent, { snapshot: aborted.snapshot });
    expect(retried.output).toBe('lead: child: {"answers":{"Colour":"Red"}}');
    expectOneResultPerCall(retried);
  });

  it('reports a failing child as a tool_error result, not a failed parent', async () => {
    const child = childAgent('researcher', []);
    const parent = parentAgent(child, [{ toolCalls: [delegate('x')] }, (request) => lastContent(request)]);
    const result = await runTurn(parent, { input: 'go' });
    expect(result.status).toBe('completed');
    expect(errorCode(result.output ?? '')).toBe('tool_error');
    expect(result.output).toContain('Sub-agent researcher failed');
  });
});

describe('agentTool, reject', () => {
  it('does not offer the question tool to the child; a call anyway is user_input_unavailable', async () => {
    let offered: string[] = [];
    const child = childAgent('researcher', [
      (request) => {
        offered = request.tools.map((tool) => tool.function.name);
        return { toolCalls: [ask([colorQuestion])] };
      },
      (request) => `child: ${lastContent(request)}`,
    ]);
    const parent = parentAgent(
      child,
      [{ toolCalls: [delegate('x')] }, (request) => lastContent(request)],
      'reject',
    );
    const result = await runTurn(parent, { input: 'go' });
    expect(offered).not.toContain('AskUserQuestion');
    expect(errorCode(result.output?.replace(/^child: /, ''))).toBe('user_input_unavailable');
  });

  it('still bubbles the child approvals to the human', async () => {
    const log: string[] = [];
    const child = childAgent(
      'janitor',
      [{ toolCalls: [{ name: 'delete_file', arguments: { path: 'a' } }] }, 'cleaned'],
      log,
    );
    const parent = parentAgent(child, [{ toolCalls: [delegate('x')] }, 'ok'], 'reject');
    const r1 = await runTurn(parent, { input: 'go' });
    expect(r1.pendingQuestion).toMatchObject({ kind: 'approval', agentPath: ['lead', 'janitor'] });
    await approve(parent, r1.snapshot);
    expect(log).toEqual(['deleted a']);
  });
});

describe('agentTool, parent', () => {
  it('gives the child question to the parent model, which answers with answer_subagent; no human sees it', async () => {
    let offered: string[] = [];
    let needsInput: Record<string, unknown> = {};
    const child = childAgent('researcher', [
      { toolCalls: [ask([colorQuestion])] },
      (request) => `child: ${lastContent(request)}`,
    ]);
    const parent = parentAgent(
      child,
      [
        (request) => {
          offered = request.tools.map((tool) => tool.function.name);
          return { toolCalls: [delegate('x')] };
        },
        (request) => {
          needsInput = JSON.parse(lastContent(request));
          return {
            toolCalls: [
              {
                id: 'bad',
                name: 'answer_subagent',
                arguments: { interactionId: needsInput.interactionId, answers: { Colour: 'Green' } },
              },
            ],
          };
        },
        (request) => ({
          toolCalls: [
            {
              id: 'good',
              name: 'answer_subagent',
              arguments: { interactionId: needsInput.interactionId, answers: { Colour: 'Blue' } },
            },
          ],
          text: lastContent(request),
        }),
        (request) => `lead: ${lastContent(request)}`,
      ],
      'parent',
    );
    const result = await runTurn(parent, { input: 'go' });
    expect(offered).toContain('answer_subagent');
    expect(needsInput).toMatchObject({
      status: 'needs_input',
      interactionId: 'lead/researcher@d1:1',
      kind: 'question',
      questions: [{ header: 'Colour' }],
    });
    expect(result.status).toBe('completed');
    const results = toolResults(result);
    expect(errorCode(results.bad)).toBe('invalid_arguments');
    expect(results.bad).toContain('Green');
    expect(results.good).toBe('child: {"answers":{"Colour":"Blue"}}');
    expect(JSON.parse(result.snapshot).state.context.parked).toBeUndefined();
    expectOneResultPerCall(result);
  });

  it('keeps the parked child across turns, and resolves an approval by decision', async () => {
    const log: string[] = [];
    const child = childAgent(
      'janitor',
      [
        { toolCalls: [{ name: 'delete_file', arguments: { path: 'b' } }] },
        (request) => `janitor: ${lastContent(request)}`,
      ],
      log,
    );
    let interactionId = '';
    const parent = parentAgent(
      child,
      [
        { toolCalls: [delegate('x')] },
        (request) => {
          interactionId = JSON.parse(lastContent(request)).interactionId;
          return 'Should I let it delete b?';
        },
        () => ({
          toolCalls: [
            { id: 'ok', name: 'answer_subagent', arguments: { interactionId, decision: 'approve' } },
          ],
        }),
        (request) => `lead: ${lastContent(request)}`,
      ],
      'parent',
    );
    const r1 = await runTurn(parent, { input: 'go' });
    expect(r1.status).toBe('completed');
    expect(JSON.parse(r1.snapshot).state.context.parked).toHaveLength(1);
    const r2 = await runTurn(parent, { snapshot: r1.snapshot, input: 'yes' });
    expect(log).toEqual(['deleted b']);
    expect(r2.output).toBe('lead: janitor: deleted');
  });
});

describe('a sub-agent tool that asks (ctx.ask)', () => {
  function boxTool(log: string[]) {
    return defineTool({
      name: 'pick_box',
      description: 'asks which box',
      input: z.object({}),
      execute: (_input, ctx) => {
        log.push('execute');
        return ctx.ask(
          { input: { message: 'Which box?', schema: z.object({ box: z.string() }) } },
          { asked: 1 },
        );
      },
      resume: (_input, response) => {
        log.push(`resume ${response.kind}`);
        return `box ${(response as { value: { box: string } }).value.box}`;
      },
    });
  }

  function team(policy: SubagentQuestionPolicy, log: string[], parentSteps: ScriptedStep[]) {
    const child = defineAgent({
      name: 'keeper',
      instructions: 'c',
      model: scriptedModel([
        { toolCalls: [{ id: 'c1', name: 'pick_box', arguments: {} }] },
        (r) => `keeper: ${lastContent(r)}`,
      ]),
      tools: [boxTool(log)],
    });
    return defineAgent({
      name: 'lead',
      instructions: 'p',
      model: scriptedModel(parentSteps),
      tools: [agentTool(child, { questions: policy })],
    });
  }

  it('bubbles the form to the human with its agentPath; the value is routed down and resume runs once', async () => {
    const log: string[] = [];
    const lead = team('bubble', log, [
      { toolCalls: [{ id: 'p1', name: 'keeper', arguments: { input: 'thaw' } }] },
      (r) => `lead: ${lastContent(r)}`,
    ]);
    const paused = await runTurn(lead, { input: 'go' });
    expect(paused.pendingQuestion).toMatchObject({
      kind: 'input',
      agentPath: ['lead', 'keeper'],
      toolName: 'pick_box',
      payload: { message: 'Which box?' },
    });
    const { provideInput } = await import('../src/index.js');
    const done = await provideInput(lead, paused.snapshot, { value: { box: 'B2' } });
    expect(done.output).toBe('lead: keeper: box B2');
    expect(log).toEqual(['execute', 'resume input']);
    expectOneResultPerCall(done);
  });

  it('hands the form to the parent model under the parent policy; answer_subagent fills it with value', async () => {
    const log: string[] = [];
    const lead = team('parent', log, [
      { toolCalls: [{ id: 'p1', name: 'keeper', arguments: { input: 'thaw' } }] },
      (r) => {
        const result = JSON.parse(lastContent(r)) as {
          status: string;
          interactionId: string;
          kind: string;
          input: unknown;
        };
        expect(result).toMatchObject({
          status: 'needs_input',
          kind: 'input',
          input: { message: 'Which box?' },
        });
        return {
          toolCalls: [
            {
              id: 'p2',
              name: 'answer_subagent',
              arguments: { interactionId: result.interactionId, value: { box: 'C1' } },
            },
          ],
        };
      },
      (r) => `lead: ${lastContent(r)}`,
    ]);
    const done = await runTurn(lead, { input: 'go' });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('lead: keeper: box C1');
    expect(log).toEqual(['execute', 'resume input']);
  });
});

describe('agentTool, choose (routing per call, seed 003)', () => {
  it('offers the child a `to`; a question to the parent goes to the lead’s model, which answers it', async () => {
    const offered: unknown[] = [];
    const child = childAgent('researcher', [
      (request) => {
        offered.push(
          request.tools.find((tool) => tool.function.name === 'AskUserQuestion')?.function.parameters,
        );
        return {
          toolCalls: [{ name: 'AskUserQuestion', arguments: { questions: [colorQuestion], to: 'parent' } }],
        };
      },
      (request) => `child got ${lastContent(request)}`,
    ]);
    const parent = parentAgent(
      child,
      [
        { toolCalls: [delegate('paint')] },
        (request) => {
          const asked = JSON.parse(lastContent(request)) as { status: string; interactionId: string };
          expect(asked).toMatchObject({ status: 'needs_input', kind: 'question' });
          return {
            toolCalls: [
              {
                id: 'a1',
                name: 'answer_subagent',
                arguments: { interactionId: asked.interactionId, answers: { Colour: 'Red' } },
              },
            ],
          };
        },
        (request) => `lead: ${lastContent(request)}`,
      ],
      'choose',
    );
    const done = await runTurn(parent, { input: 'go' });
    expect(offered[0]).toMatchObject({ properties: { to: { enum: ['user', 'parent'] } } });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('lead: child got {"answers":{"Colour":"Red"}}');
  });

  it('sends a question to the user when the child says so, with its agentPath', async () => {
    const child = childAgent('researcher', [
      { toolCalls: [{ name: 'AskUserQuestion', arguments: { questions: [colorQuestion], to: 'user' } }] },
      (request) => `child got ${lastContent(request)}`,
    ]);
    const parent = parentAgent(
      child,
      [{ toolCalls: [delegate('paint')] }, (request) => `lead: ${lastContent(request)}`],
      'choose',
    );
    const paused = await runTurn(parent, { input: 'go' });
    expect(paused.pendingQuestion).toMatchObject({ agentPath: ['lead', 'researcher'], kind: 'question' });
    const done = await answerQuestion(parent, paused.snapshot, { answers: 'Blue' });
    expect(done.output).toBe('lead: child got {"answers":{"Colour":"Blue"}}');
  });

  it('defaults to the user when the child says nothing', async () => {
    const child = childAgent('researcher', [{ toolCalls: [ask([colorQuestion])] }, 'done']);
    const parent = parentAgent(child, [{ toolCalls: [delegate('paint')] }, 'lead done'], 'choose');
    const paused = await runTurn(parent, { input: 'go' });
    expect(paused.pendingQuestion?.agentPath).toEqual(['lead', 'researcher']);
  });
});

describe("questions.parallel 'single' counts sub-agents' interactions (seed 004)", () => {
  it('keeps one interaction pending when a sub-agent asks twice in one step', async () => {
    const child = childAgent('researcher', [
      {
        toolCalls: [
          ask([colorQuestion], 'q_a'),
          ask([{ ...colorQuestion, header: 'Finish', question: 'Matte?' }], 'q_b'),
        ],
      },
      (request) =>
        `child: ${request.messages
          .filter((message) => message.role === 'tool')
          .map((message) => message.content)
          .join(' | ')}`,
    ]);
    const parent = defineAgent({
      name: 'lead',
      instructions: 'You lead.',
      model: scriptedModel([
        { toolCalls: [delegate('paint')] },
        (request) => `lead: ${lastContent(request)}`,
      ]),
      tools: [agentTool(child, { name: 'delegate' })],
      questions: { parallel: 'single' },
    });
    const paused = await runTurn(parent, { input: 'go' });
    expect(paused.pending).toHaveLength(1);
    const done = await answerQuestion(parent, paused.snapshot, { answers: 'Red' });
    expect(done.status).toBe('completed');
    expect(done.output).toContain('"error_code":"interaction_pending"');
    expect(done.output).toContain('{"answers":{"Colour":"Red"}}');
  });
});
