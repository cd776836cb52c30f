/**
 * Text is text in every field of a response too (DESIGN §6, issue 29): a rationale (approve,
 * reject, answer_subagent), a cancel reason and every string or key of an edited input refuse NUL,
 * ESC and the other C0 and C1 controls with ANSWER_INVALID and change nothing, as answers do; tab
 * and newline stay allowed in free text.
 */
import { describe, expect, it } from 'vitest';
import { type AgentEvent, approve, cancelQuestion, reject, respond, runTurn } from '../src/index.js';
import { childAgent, colorQuestion, delegate, lastContent, parentAgent } from './fixtures/subagents.js';
import { ask, errorCode, makeAgent, toolResults } from './helpers.js';

const thaw = { id: 'thaw', name: 'record_thaw', arguments: { cellLine: 'K562', vials: 2 } };

async function pausedOnApproval(log: string[] = []) {
  const agent = makeAgent([{ toolCalls: [thaw] }, 'done'], {}, log);
  const paused = await runTurn(agent, { input: 'thaw two' });
  expect(paused.pendingQuestion?.kind).toBe('approval');
  return { agent, paused, log };
}

const decisions = (result: { events: AgentEvent[] }) =>
  result.events.flatMap((event) => (event.type === 'interaction_resolved' ? [event.decision] : []));

describe('control characters in a response', () => {
  it('refuses a NUL in an approval rationale, naming the field and U+0000, and the call does not run', async () => {
    const { agent, paused, log } = await pausedOnApproval();
    await expect(approve(agent, paused.snapshot, { rationale: 'ok\u0000' })).rejects.toMatchObject({
      code: 'ANSWER_INVALID',
      issues: [{ path: [0, 'rationale'], message: expect.stringContaining('U+0000') }],
    });
    expect(log).toEqual([]);
    const done = await approve(agent, paused.snapshot, { rationale: 'ok\tfine\nreally' });
    expect(done.status).toBe('completed');
    expect(log).toEqual(['K562x2']);
  });

  it('refuses an ESC in a rejection rationale and a C1 control in a cancel reason, then takes them clean', async () => {
    const { agent, paused } = await pausedOnApproval();
    await expect(reject(agent, paused.snapshot, { rationale: '\u001b[2Jno' })).rejects.toMatchObject({
      code: 'ANSWER_INVALID',
      issues: [{ path: [0, 'rationale'], message: expect.stringContaining('U+001B') }],
    });
    await expect(cancelQuestion(agent, paused.snapshot, { reason: 'later\u0085' })).rejects.toMatchObject({
      code: 'ANSWER_INVALID',
      issues: [{ path: [0, 'reason'], message: expect.stringContaining('U+0085') }],
    });
    await expect(
      respond(agent, paused.snapshot, [{ type: 'cancel', reason: 'DEL\u007f' }]),
    ).rejects.toMatchObject({ code: 'ANSWER_INVALID' });
    const rejected = await reject(agent, paused.snapshot, { rationale: 'not\ttoday' });
    expect(decisions(rejected)).toEqual(['rejected']);
    expect(JSON.parse(toolResults(rejected).thaw!).rationale).toBe('not\ttoday');
  });

  it('refuses a control character in any string or key of an edited input, at its path', async () => {
    const { agent, paused, log } = await pausedOnApproval();
    await expect(
      approve(agent, paused.snapshot, { editedInput: { cellLine: 'K5\u000762', vials: 1 } }),
    ).rejects.toMatchObject({
      code: 'ANSWER_INVALID',
      issues: [{ path: [0, 'editedInput', 'cellLine'], message: expect.stringContaining('U+0007') }],
    });
    await expect(
      approve(agent, paused.snapshot, { editedInput: { cellLine: 'K562', vials: 1, 'x\u0000': true } }),
    ).rejects.toMatchObject({
      code: 'ANSWER_INVALID',
      issues: [{ path: [0, 'editedInput'], message: expect.stringContaining('U+0000') }],
    });
    expect(log).toEqual([]);
    const done = await approve(agent, paused.snapshot, { editedInput: { cellLine: 'K562', vials: 1 } });
    expect(done.status).toBe('completed');
    expect(log).toEqual(['K562x1']);
  });

  it("sends a parent model's rationale with a control character back to it as invalid_arguments", async () => {
    const child = childAgent('researcher', [{ toolCalls: [ask([colorQuestion])] }, 'painted']);
    const parent = parentAgent(
      child,
      [
        { toolCalls: [delegate('x')] },
        (request) => ({
          toolCalls: [
            {
              id: 'answer',
              name: 'answer_subagent',
              arguments: {
                interactionId: JSON.parse(lastContent(request)).interactionId,
                answers: { Colour: 'Blue' },
                rationale: 'blue\u0000',
              },
            },
          ],
        }),
        (request) => `lead: ${lastContent(request)}`,
      ],
      'parent',
    );
    const result = await runTurn(parent, { input: 'go' });
    const content = toolResults(result).answer;
    expect(errorCode(content)).toBe('invalid_arguments');
    expect(JSON.parse(content!).message).toContain('U+0000');
    expect(decisions(result)).toEqual([]);
  });
});
