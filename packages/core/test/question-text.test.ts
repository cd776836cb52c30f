/**
 * What the question tool takes from the model and the answers take from people, end to end
 * (DESIGN §6, §14, issue 29): text is text (no control characters either way), a question without
 * `options` is free text, a key the tool does not read is named back to the model, and seed 003's
 * `context` travels with its question.
 */
import { describe, expect, it } from 'vitest';
import { answerQuestion, provideInput, runTurn } from '../src/index.js';
import { askingAgent } from './fixtures/asking-agent.js';
import { ask, errorCode, makeAgent, toolResults } from './helpers.js';

const boxQuestion = { question: 'Which box do you mean?', header: 'Box', options: [] };

describe('control characters', () => {
  it('refuses a NUL in an answer with ANSWER_INVALID naming the question and U+0000, and changes nothing', async () => {
    const agent = makeAgent([{ toolCalls: [ask([boxQuestion])] }, 'ok']);
    const paused = await runTurn(agent, { input: 'thaw from my box' });
    const refused = answerQuestion(agent, paused.snapshot, { answers: 'B2\u0000-14' });
    await expect(refused).rejects.toMatchObject({
      code: 'ANSWER_INVALID',
      issues: [
        {
          path: ['answers'],
          message: expect.stringMatching(/^The answer to "Which box do you mean\?" contains .* U\+0000/),
        },
      ],
    });
    const done = await answerQuestion(agent, paused.snapshot, { answers: 'B2-14' });
    expect(toolResults(done)[paused.pendingQuestion!.toolCallId]).toBe('{"answers":{"Box":"B2-14"}}');
  });

  it('refuses an ESC in a form value given to provideInput, at its path, whatever the schema allows', async () => {
    const agent = askingAgent();
    const paused = await runTurn(agent, { input: 'input' });
    await expect(
      provideInput(agent, paused.snapshot, { value: { box: 'B2-14', extra: ['\u001b[2J'] } }),
    ).rejects.toMatchObject({
      code: 'ANSWER_INVALID',
      issues: [{ path: ['value', 'extra', 0], message: expect.stringContaining('U+001B') }],
    });
  });

  it('sends a question with a control character back to the model as invalid_arguments naming the path', async () => {
    const agent = makeAgent([
      { toolCalls: [ask([{ ...boxQuestion, header: 'Box\u0007' }])] },
      { toolCalls: [ask([boxQuestion])] },
    ]);
    const paused = await runTurn(agent, { input: 'go' });
    const [first] = Object.values(toolResults(paused));
    expect(errorCode(first)).toBe('invalid_arguments');
    expect(JSON.parse(first!).message).toBe(
      'Error: Validation failed\n- questions[0].header: Contains the control character U+0007; write plain text (tab and newline are allowed)',
    );
    expect(paused.status).toBe('needs_input');
  });
});

describe('what the model writes into a question', () => {
  it('pauses on a question written without an options key (seed 000) as a free-text question', async () => {
    const agent = makeAgent([{ toolCalls: [ask([{ question: 'Which box?', header: 'Box' }])] }, 'ok']);
    const paused = await runTurn(agent, { input: 'thaw from my box' });
    expect(paused.status).toBe('needs_input');
    expect(paused.pendingQuestion?.payload).toEqual({
      questions: [{ id: 'q0', question: 'Which box?', header: 'Box', options: [], multiSelect: false }],
    });
  });

  it('names the keys it does not read (timeoutMs, answers) instead of dropping them', async () => {
    const agent = makeAgent([
      {
        toolCalls: [
          {
            name: 'AskUserQuestion',
            arguments: { questions: [{ ...boxQuestion, timeoutMs: 60_000 }], answers: {} },
          },
        ],
      },
      'ok',
    ]);
    const result = await runTurn(agent, { input: 'go' });
    const [content] = Object.values(toolResults(result));
    expect(errorCode(content)).toBe('invalid_arguments');
    const message = JSON.parse(content!).message as string;
    expect(message).toContain('- questions[0]: Unknown key "timeoutMs"');
    expect(message).toContain('- Unknown key "answers"');
  });

  it("keeps seed 003's context { refs, hint } on the pending question", async () => {
    const context = { refs: ['freezer-2/rack-B'], hint: 'Two boxes hold HeLa' };
    const agent = makeAgent([{ toolCalls: [ask([{ ...boxQuestion, context }])] }, 'ok']);
    const paused = await runTurn(agent, { input: 'thaw HeLa' });
    expect(paused.pendingQuestion?.payload).toEqual({
      questions: [
        { id: 'q0', question: boxQuestion.question, header: 'Box', options: [], multiSelect: false, context },
      ],
    });
    const done = await answerQuestion(agent, paused.snapshot, { answers: 'B2' });
    expect(done.status).toBe('completed');
  });
});
