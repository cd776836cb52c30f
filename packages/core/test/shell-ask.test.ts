/**
 * `shellAskTool` (DESIGN §14, seed 001): `AskUserQuestion '<json>'` and `ask '<json>'` through a
 * shell tool pause exactly as the question tool does — same validation messages, same result text
 * — quoted as a shell would quote them; every other command goes to the app's `run`.
 */
import { describe, expect, it } from 'vitest';
import {
  answerQuestion,
  askUserQuestion,
  cancelQuestion,
  defineAgent,
  runTurn,
  shellAskTool,
  shellWords,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { errorCode, toolResults } from './helpers.js';

const questions = [
  {
    question: "Which line's vial?",
    header: 'Line',
    options: [
      { label: 'K562 (Recommended)', description: "The lab's parental line" },
      { label: 'HeLa', description: 'Cervical' },
    ],
  },
  { question: 'Which features?', header: 'Features', options: ['Caching', 'Logging'], multiSelect: true },
];
const json = JSON.stringify({ questions });
/** The JSON quoted for a shell: single quotes, with each ' written as '\''. */
const singleQuoted = `'${json.replaceAll("'", "'\\''")}'`;
/** The JSON quoted with double quotes and backslashes. */
const doubleQuoted = `"${json.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

function shellAgent(command: string, ran: string[] = []) {
  return defineAgent({
    name: 'coder',
    instructions: 'c',
    model: scriptedModel([{ toolCalls: [{ id: 'call_sh', name: 'shell', arguments: { command } }] }, 'ok']),
    tools: [
      shellAskTool({
        run: (line) => {
          ran.push(line);
          return `ran: ${line}`;
        },
      }),
    ],
  });
}

const questionAgent = defineAgent({
  name: 'coder',
  instructions: 'c',
  model: scriptedModel([{ toolCalls: [{ id: 'call_sh', name: 'AskUserQuestion', arguments: json }] }, 'ok']),
  tools: [askUserQuestion()],
});

describe('shellWords', () => {
  it('splits as a POSIX shell quotes', () => {
    expect(shellWords(`ask 'it'\\''s' "a \\"b\\" \\\\ $x" c\\ d  e`)).toEqual([
      'ask',
      "it's",
      'a "b" \\ $x',
      'c d',
      'e',
    ]);
    expect(shellWords(`AskUserQuestion ${singleQuoted}`)).toEqual(['AskUserQuestion', json]);
    expect(shellWords(`ask ${doubleQuoted}`)).toEqual(['ask', json]);
    expect(shellWords(`ask 'open`)).toBeNull();
    expect(shellWords(`ask "open`)).toBeNull();
  });
});

describe('shellAskTool', () => {
  it.each([
    ['AskUserQuestion, single-quoted', `AskUserQuestion ${singleQuoted}`],
    ['ask, double-quoted', `ask ${doubleQuoted}`],
  ])('pauses on %s like the question tool and gives the same result text', async (_name, command) => {
    const paused = await runTurn(shellAgent(command), { input: 'go' });
    const reference = await runTurn(questionAgent, { input: 'go' });
    expect(paused.pendingQuestion).toMatchObject({ kind: 'question', toolName: 'shell' });
    expect(paused.pendingQuestion!.payload).toEqual(reference.pendingQuestion!.payload);
    const answers = { Line: 'K562 (Recommended)', Features: { selected: ['Logging'], other: 'audit' } };
    const viaShell = await answerQuestion(shellAgent(command), paused.snapshot, { answers });
    const viaTool = await answerQuestion(questionAgent, reference.snapshot, { answers });
    expect(toolResults(viaShell).call_sh).toBe(toolResults(viaTool).call_sh);
    expect(toolResults(viaShell).call_sh).toBe(
      '{"answers":{"Line":"K562 (Recommended)","Features":"Logging, Other (custom: audit)"}}',
    );
  });

  it('gives the question tool’s validation messages, and says how to call it', async () => {
    const bad = JSON.stringify({
      questions: [{ question: 'One?', header: 'A header far too long', options: ['x'] }],
    });
    const viaShell = await runTurn(shellAgent(`AskUserQuestion '${bad}'`), { input: 'go' });
    const viaTool = await runTurn(
      defineAgent({
        name: 'coder',
        instructions: 'c',
        model: scriptedModel([
          { toolCalls: [{ id: 'call_sh', name: 'AskUserQuestion', arguments: bad }] },
          'ok',
        ]),
        tools: [askUserQuestion()],
      }),
      { input: 'go' },
    );
    const shellMessage = JSON.parse(toolResults(viaShell).call_sh!).message as string;
    const toolMessage = JSON.parse(toolResults(viaTool).call_sh!).message as string;
    expect(errorCode(toolResults(viaShell).call_sh)).toBe('invalid_arguments');
    expect(shellMessage).toBe(`${toolMessage}\nUsage: AskUserQuestion '{"questions":[...]}'`);
    const missing = await runTurn(shellAgent('ask'), { input: 'go' });
    expect(JSON.parse(toolResults(missing).call_sh!).message).toBe(
      `Error: Missing JSON parameter\nUsage: AskUserQuestion '{"questions":[...]}'`,
    );
    const notJson = await runTurn(shellAgent(`ask '{oops'`), { input: 'go' });
    expect(JSON.parse(toolResults(notJson).call_sh!).message).toMatch(/^Error: Invalid JSON format/);
  });

  it('answers an ask whose quotes do not close with the Invalid JSON format and Usage text, never run()', async () => {
    const ran: string[] = [];
    for (const command of [`AskUserQuestion '${json}`, `ask "{\\"questions\\": []}`]) {
      const result = await runTurn(shellAgent(command, ran), { input: 'go' });
      expect(errorCode(toolResults(result).call_sh)).toBe('invalid_arguments');
      expect(JSON.parse(toolResults(result).call_sh!).message).toBe(
        `Error: Invalid JSON format\nThe command has a quote that is not closed: quote the JSON in single quotes, each ' inside written as '\\''.\nUsage: AskUserQuestion '{"questions":[...]}'`,
      );
    }
    expect(ran).toEqual([]);
  });

  it('runs every other command through run(), and a cancelled ask is question_cancelled', async () => {
    const ran: string[] = [];
    const listed = await runTurn(shellAgent('ls -la /tmp', ran), { input: 'go' });
    expect(ran).toEqual(['ls -la /tmp']);
    expect(toolResults(listed).call_sh).toBe('ran: ls -la /tmp');
    const agent = shellAgent(`ask ${singleQuoted}`, ran);
    const paused = await runTurn(agent, { input: 'go' });
    const cancelled = await cancelQuestion(agent, paused.snapshot);
    expect(errorCode(toolResults(cancelled).call_sh)).toBe('question_cancelled');
    expect(ran).toEqual(['ls -la /tmp']);
  });

  it('is refused without run', () => {
    expect(() => shellAskTool({} as never)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});
