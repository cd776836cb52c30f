/**
 * The types of DESIGN §23, checked by the compiler (`npm run typecheck` covers this file): the
 * output type inferred from `defineAgent({ output })` reaches every entry point's `TurnResult`, the
 * result narrows on `status`, and code written against the old `TurnResult` still compiles.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  type Agent,
  type AnyAgent,
  agentTool,
  answerQuestion,
  approve,
  cancelQuestion,
  createSessions,
  defineAgent,
  expire,
  type Instructions,
  type InstructionsContext,
  type ModelRequest,
  type ModelSettings,
  memoryStore,
  type PendingInteraction,
  provideInput,
  type ResponseFormat,
  reject,
  respond,
  runTurn,
  type SessionResult,
  type TurnResult,
  type TurnResultFields,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

const Plan = z.object({ cellLine: z.string(), vials: z.number() });
type Plan = z.infer<typeof Plan>;
const typed = defineAgent({ name: 'typed', instructions: 'i', model: scriptedModel([]), output: Plan });
const plain = defineAgent({ name: 'plain', instructions: 'i', model: scriptedModel([]) });

describe('TurnResult<TOutput>', () => {
  it('infers the output type from the zod schema, and string without one', () => {
    expectTypeOf(typed).toEqualTypeOf<Agent<Plan>>();
    expectTypeOf(plain).toEqualTypeOf<Agent<string>>();
    expectTypeOf(plain).toEqualTypeOf<Agent>();
  });

  it('types the result of every entry point with the agent output type', () => {
    // Never called: the calls are only type-checked (a run on '' would reject at run time).
    const calls = () => {
      expectTypeOf(runTurn(typed, { input: 'x' })).toEqualTypeOf<Promise<TurnResult<Plan>>>();
      expectTypeOf(answerQuestion(typed, '', { answers: 'x' })).toEqualTypeOf<Promise<TurnResult<Plan>>>();
      expectTypeOf(approve(typed, '')).toEqualTypeOf<Promise<TurnResult<Plan>>>();
      expectTypeOf(reject(typed, '')).toEqualTypeOf<Promise<TurnResult<Plan>>>();
      expectTypeOf(cancelQuestion(typed, '')).toEqualTypeOf<Promise<TurnResult<Plan>>>();
      expectTypeOf(provideInput(typed, '', { value: 1 })).toEqualTypeOf<Promise<TurnResult<Plan>>>();
      expectTypeOf(respond(typed, '', [])).toEqualTypeOf<Promise<TurnResult<Plan>>>();
      expectTypeOf(expire(typed, '')).toEqualTypeOf<Promise<TurnResult<Plan>>>();
      expectTypeOf(runTurn(plain, { input: 'x' })).toEqualTypeOf<Promise<TurnResult>>();
      const sessions = createSessions({ agent: typed, store: memoryStore() });
      expectTypeOf(sessions.start('x')).toEqualTypeOf<Promise<SessionResult<Plan>>>();
      expectTypeOf(sessions.get('r')).toEqualTypeOf<Promise<SessionResult<Plan>>>();
    };
    expectTypeOf(calls).toBeFunction();
  });

  it('narrows on status: completed has its output, needs_input its pendingQuestion', () => {
    const check = (result: TurnResult<Plan>) => {
      if (result.status === 'completed') {
        expectTypeOf(result.output).toEqualTypeOf<Plan>();
        expectTypeOf(result.pendingQuestion).toEqualTypeOf<null>();
      } else if (result.status === 'needs_input') {
        expectTypeOf(result.pendingQuestion).toEqualTypeOf<PendingInteraction>();
        expectTypeOf(result.output).toEqualTypeOf<null>();
      } else {
        expectTypeOf(result.output).toEqualTypeOf<null>();
      }
      if (result.needsInput) expectTypeOf(result.pendingQuestion).toEqualTypeOf<PendingInteraction>();
    };
    expectTypeOf(check).toBeFunction();
  });

  it('keeps code written against the old TurnResult compiling', () => {
    const old = (result: TurnResult) => {
      const text: string | null = result.output;
      const first: PendingInteraction | null = result.pendingQuestion;
      const fields: TurnResultFields = result;
      return [text ?? '', first?.id, fields.runId, result.usage.modelCalls, result.error?.code];
    };
    expectTypeOf(old).returns.toEqualTypeOf<(string | number | undefined)[]>();
  });

  it('lets any agent be a sub-agent tool, and types instructions and model requests', () => {
    expectTypeOf(typed).toMatchTypeOf<AnyAgent>();
    expectTypeOf(agentTool).parameter(0).toEqualTypeOf<AnyAgent>();
    expectTypeOf<(ctx: InstructionsContext<{ team: string }>) => string>().toMatchTypeOf<Instructions>();
    expectTypeOf<ModelRequest['settings']>().toEqualTypeOf<ModelSettings | undefined>();
    expectTypeOf<ModelRequest['responseFormat']>().toEqualTypeOf<ResponseFormat | undefined>();
  });
});
