/**
 * Answers that cannot be read (issue 26): a getter that throws, a Proxy whose traps throw, a revoked
 * Proxy, at any depth of what a caller passes to answerQuestion, approve, provideInput, respond or
 * the sessions. Each is refused with ANSWER_INVALID, and the run is unchanged: a valid answer to the
 * same snapshot still works.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  answerQuestion,
  approve,
  createSessions,
  defineTool,
  memoryStore,
  provideInput,
  respond,
  runTurn,
  TurnkitError,
} from '../src/index.js';
import { ask, cellLineQuestion, codeOf, makeAgent } from './helpers.js';

const boom = () => {
  throw new Error('boom');
};

/** The ways a value can refuse to be read. */
const unreadable = {
  getter: () => Object.defineProperty({}, 'label', { enumerable: true, get: boom }),
  getTrap: () => new Proxy({ label: 'K562' }, { get: boom }),
  ownKeysTrap: () => new Proxy({ label: 'K562' }, { ownKeys: boom }),
  descriptorTrap: () => new Proxy({ label: 'K562' }, { getOwnPropertyDescriptor: boom }),
  revoked: () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  },
  revokedArray: () => {
    const { proxy, revoke } = Proxy.revocable([], {});
    revoke();
    return proxy;
  },
};

type Kind = keyof typeof unreadable;
const kinds = Object.keys(unreadable) as Kind[];

/** `value` wrapped at `depth` levels of objects and arrays, the unreadable part innermost. */
function buried(kind: Kind, path: (string | number)[]): unknown {
  let value: unknown = unreadable[kind]();
  for (const part of [...path].reverse()) {
    value =
      typeof part === 'number'
        ? Object.assign(new Array(part + 1).fill('x'), { [part]: value })
        : { [part]: value };
  }
  return value;
}

const pathArb = fc.array(fc.oneof(fc.constantFrom('a', 'b', 'items'), fc.nat(2)), { maxLength: 4 });

const formTool = defineTool({
  name: 'pick_box',
  description: 'asks which box',
  input: z.object({}),
  execute: (_input, ctx) => ctx.ask({ input: { message: 'Box?', schema: z.object({ box: z.string() }) } }),
  resume: (_input, response) => JSON.stringify(response),
});

async function paused(form: 'question' | 'approval' | 'input') {
  const steps = {
    question: [{ toolCalls: [ask([cellLineQuestion])] }, 'done'],
    approval: [{ toolCalls: [{ name: 'record_thaw', arguments: { cellLine: 'K562', vials: 1 } }] }, 'done'],
    input: [{ toolCalls: [{ id: 'call_box', name: 'pick_box', arguments: {} }] }, 'done'],
  }[form];
  const agent = makeAgent(steps as never, form === 'input' ? { tools: [formTool] } : {});
  return { agent, snapshot: (await runTurn(agent, { input: 'go' })).snapshot };
}

const valid = {
  question: { answers: { 'Cell line': 'K562-dTAG' } },
  approval: { editedInput: { cellLine: 'K562', vials: 2 } },
  input: { value: { box: 'B2-14' } },
};

describe('answers that cannot be read', () => {
  it('refuses a throwing getter in answers with ANSWER_INVALID saying to pass plain JSON data', async () => {
    const { agent, snapshot } = await paused('question');
    const error = await answerQuestion(agent, snapshot, {
      answers: buried('getter', ['Cell line']) as never,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TurnkitError);
    expect(error).toMatchObject({
      code: 'ANSWER_INVALID',
      message: expect.stringContaining('plain JSON data'),
    });
    expect((await answerQuestion(agent, snapshot, valid.question)).status).toBe('completed');
  });

  it('refuses a throwing Proxy in an edited input, and the approval still works', async () => {
    const { agent, snapshot } = await paused('approval');
    const editedInput = new Proxy({ cellLine: 'K562', vials: 2 }, { get: boom });
    expect(await codeOf(approve(agent, snapshot, { editedInput }))).toBe('ANSWER_INVALID');
    expect((await approve(agent, snapshot, valid.approval)).status).toBe('completed');
  });

  it('refuses a revoked Proxy as a form value, and the form still takes a value', async () => {
    const { agent, snapshot } = await paused('input');
    expect(await codeOf(provideInput(agent, snapshot, { value: buried('revoked', ['box']) }))).toBe(
      'ANSWER_INVALID',
    );
    expect(await codeOf(provideInput(agent, snapshot, unreadable.revoked() as never))).toBe('ANSWER_INVALID');
    expect((await provideInput(agent, snapshot, valid.input)).status).toBe('completed');
  });

  it('refuses a response list that is a throwing Proxy or holds one, through respond and the sessions', async () => {
    const { agent, snapshot } = await paused('question');
    const list = new Proxy([{ type: 'answer', answers: valid.question.answers }], { get: boom });
    expect(await codeOf(respond(agent, snapshot, list as never))).toBe('ANSWER_INVALID');
    expect(await codeOf(respond(agent, snapshot, [unreadable.getTrap()] as never))).toBe('ANSWER_INVALID');
    expect((await respond(agent, snapshot, [{ type: 'answer', ...valid.question }])).status).toBe(
      'completed',
    );

    const sessionAgent = makeAgent([{ toolCalls: [ask([cellLineQuestion])] }, 'done']);
    const sessions = createSessions({ agent: sessionAgent, store: memoryStore() });
    const started = await sessions.start('go');
    expect(await codeOf(sessions.respond(started.runId, list as never))).toBe('ANSWER_INVALID');
    expect(await codeOf(sessions.answer(started.runId, unreadable.ownKeysTrap() as never))).toBe(
      'ANSWER_INVALID',
    );
    expect((await sessions.answer(started.runId, valid.question)).status).toBe('completed');
  });

  it('reads a response once, whatever checks it: answerQuestion, respond and the sessions copy it one time', async () => {
    let reads = 0;
    const counted = () =>
      Object.defineProperty({}, 'Cell line', {
        enumerable: true,
        get: () => {
          reads++;
          return 'K562-dTAG';
        },
      });
    const { agent, snapshot } = await paused('question');
    expect((await answerQuestion(agent, snapshot, { answers: counted() })).status).toBe('completed');
    expect(reads).toBe(1);
    expect((await respond(agent, snapshot, [{ type: 'answer', answers: counted() }])).status).toBe(
      'completed',
    );
    expect(reads).toBe(2);

    const sessionAgent = makeAgent([{ toolCalls: [ask([cellLineQuestion])] }, 'done']);
    const sessions = createSessions({ agent: sessionAgent, store: memoryStore() });
    const started = await sessions.start('go');
    expect((await sessions.respond(started.runId, [{ type: 'answer', answers: counted() }])).status).toBe(
      'completed',
    );
    expect(reads).toBe(3);
  });

  it('refuses any unreadable value at any depth of any form with ANSWER_INVALID, and changes nothing', async () => {
    const forms = {
      question: await paused('question'),
      approval: await paused('approval'),
      input: await paused('input'),
    };
    const calls = {
      question: (snapshot: string, bad: unknown) =>
        answerQuestion(forms.question.agent, snapshot, { answers: bad as never }),
      approval: (snapshot: string, bad: unknown) =>
        approve(forms.approval.agent, snapshot, { editedInput: bad }),
      input: (snapshot: string, bad: unknown) => provideInput(forms.input.agent, snapshot, { value: bad }),
    };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('question', 'approval', 'input' as const),
        fc.constantFrom(...kinds),
        pathArb,
        fc.boolean(),
        async (form, kind, path, throughRespond) => {
          const { agent, snapshot } = forms[form];
          const bad = buried(kind, path);
          const field = { question: 'answers', approval: 'editedInput', input: 'value' }[form];
          const type = { question: 'answer', approval: 'approve', input: 'input' }[form];
          const call = throughRespond
            ? respond(agent, snapshot, [{ type, [field]: bad }] as never)
            : calls[form](snapshot, bad);
          expect(await codeOf(call)).toBe('ANSWER_INVALID');
        },
      ),
      { numRuns: 150 },
    );
    for (const form of ['question', 'approval', 'input'] as const) {
      const { agent, snapshot } = forms[form];
      expect(
        (
          await respond(agent, snapshot, [
            {
              type: { question: 'answer', approval: 'approve', input: 'input' }[form],
              ...valid[form],
            } as never,
          ])
        ).status,
      ).toBe('completed');
    }
  });
});
