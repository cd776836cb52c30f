/**
 * What a sub-agent and its parent read when they cannot ask, decide for each other, or cancel
 * (DESIGN §6, issue 29): the words name who decided, and a parent's rationale is kept in the audit
 * trail whatever kind of interaction it resolved.
 */
import { describe, expect, it } from 'vitest';
import { type AgentEvent, cancelQuestion, runTurn } from '../src/index.js';
import { childAgent, colorQuestion, delegate, lastContent, parentAgent } from './fixtures/subagents.js';
import { ask, makeAgent, toolResults } from './helpers.js';

const resolvedEvents = (events: AgentEvent[]) =>
  events.filter((event) => event.type === 'interaction_resolved') as Extract<
    AgentEvent,
    { type: 'interaction_resolved' }
  >[];

/** A lead whose model answers the child's first interaction with `answer_subagent(args)`. */
function answeringLead(child: ReturnType<typeof childAgent>, args: Record<string, unknown>) {
  return parentAgent(
    child,
    [
      { toolCalls: [delegate('x')] },
      (request) => ({
        toolCalls: [
          {
            id: 'answer',
            name: 'answer_subagent',
            arguments: { interactionId: JSON.parse(lastContent(request)).interactionId, ...args },
          },
        ],
      }),
      (request) => `lead: ${lastContent(request)}`,
    ],
    'parent',
  );
}

describe('a sub-agent under the reject policy', () => {
  it('is told that only the top agent may ask, and to decide or report back, not that the run is headless', async () => {
    const child = childAgent('researcher', [
      { toolCalls: [ask([colorQuestion])] },
      (request) => lastContent(request),
    ]);
    const parent = parentAgent(child, [{ toolCalls: [delegate('x')] }, 'ok'], 'reject');
    const result = await runTurn(parent, { input: 'go' });
    const message = JSON.parse(toolResults(result).d1!).message as string;
    expect(message).toContain('only the top agent may ask the user');
    expect(message).toContain('report back');
    expect(message).not.toContain('headless');
  });
});

describe('answer_subagent', () => {
  it("keeps the parent's rationale on an answered question in interaction_resolved", async () => {
    const child = childAgent('researcher', [{ toolCalls: [ask([colorQuestion])] }, 'painted']);
    const parent = answeringLead(child, { answers: { Colour: 'Blue' }, rationale: 'the brief says blue' });
    const result = await runTurn(parent, { input: 'go' });
    expect(resolvedEvents(result.events)).toEqual([
      expect.objectContaining({ kind: 'question', decision: 'answered', rationale: 'the brief says blue' }),
    ]);
  });

  it('tells the child that its parent agent, not the user, rejected the call', async () => {
    const child = childAgent('janitor', [
      { toolCalls: [{ name: 'delete_file', arguments: { path: 'b' } }] },
      (request) => lastContent(request),
    ]);
    const parent = answeringLead(child, { decision: 'reject', rationale: 'keep b' });
    const result = await runTurn(parent, { input: 'go' });
    const rejection = JSON.parse(toolResults(result).answer!);
    expect(rejection).toMatchObject({ error_code: 'rejected_by_user', rationale: 'keep b' });
    expect(rejection.message).toMatch(
      /^The parent agent \(the one that gave you this task\) rejected this call/,
    );
    expect(rejection.message).not.toContain('user');
  });
});

describe('cancelQuestion', () => {
  it('ends the reason with its full stop before what the model should do next', async () => {
    const agent = makeAgent([{ toolCalls: [ask([colorQuestion])] }, 'ok']);
    const paused = await runTurn(agent, { input: 'go' });
    const done = await cancelQuestion(agent, paused.snapshot, { reason: 'changed my mind' });
    const { message } = JSON.parse(toolResults(done)[paused.pendingQuestion!.toolCallId]!);
    expect(message).toBe(
      'The user dismissed the question without answering. Reason: changed my mind. Go on without it, or ask differently.',
    );
    const asked = await cancelQuestion(agent, paused.snapshot, { reason: 'Not now!' });
    expect(JSON.parse(toolResults(asked)[paused.pendingQuestion!.toolCallId]!).message).toContain(
      'Reason: Not now! Go on',
    );
  });
});
