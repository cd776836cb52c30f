/**
 * `chooseModel` against loopback servers speaking each provider's protocol: offline unless a model
 * is named, usage errors for specs it cannot read, a missing key said before anything runs, a
 * pause and resume on every provider (the key, model and tools reaching the server), and a refused
 * key told in one line.
 */
import { answerQuestion, askUserQuestion, defineAgent, ModelError, runTurn } from '@turnkit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chooseModel,
  describeModelFailure,
  type Env,
  ModelChoiceError,
  sayOnly,
  ThawPlan,
  type ThawPlanValue,
} from '../src/index.js';
import { type FakeProviders, startFakeProviders } from '../src/testing/index.js';

let fake: FakeProviders;
let env: Env;

beforeAll(async () => {
  fake = await startFakeProviders({ apiKey: 'test-key' });
  env = {
    OPENAI_API_KEY: 'test-key',
    OPENAI_BASE_URL: fake.baseURL,
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: fake.baseURL,
  };
});
afterAll(() => fake.close());

/** The error `chooseModel` rejects with. */
async function refusal(flag: string | undefined, given: Env): Promise<ModelChoiceError> {
  const error = await chooseModel(flag, given).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ModelChoiceError);
  return error as ModelChoiceError;
}

describe('chooseModel', () => {
  it('stays offline unless a model is named, whatever keys are set', async () => {
    expect(await chooseModel(undefined, env)).toBeNull();
    expect(await chooseModel(undefined, { ...env, TURNKIT_MODEL: ' ' })).toBeNull();
  });

  it('takes --model over TURNKIT_MODEL, with the base URL from the provider’s variable', async () => {
    const choice = await chooseModel('anthropic:claude-test-1', { ...env, TURNKIT_MODEL: 'openai:gpt-test' });
    expect(choice).toMatchObject({
      spec: 'anthropic:claude-test-1',
      provider: 'anthropic',
      modelId: 'claude-test-1',
      baseURL: fake.baseURL,
      keyVariable: 'ANTHROPIC_API_KEY',
    });
    expect(choice?.model.name).toBe('anthropic:claude-test-1');
    expect((await chooseModel(undefined, { ...env, TURNKIT_MODEL: 'openai:gpt-test' }))?.spec).toBe(
      'openai:gpt-test',
    );
    const { OPENAI_BASE_URL: _unset, ...publicEnv } = env;
    expect((await chooseModel('openai:gpt-4.1-mini', publicEnv))?.baseURL).toBe('https://api.openai.com/v1');
  });

  it('refuses a spec it cannot read as a usage error that says where it came from', async () => {
    const bare = await refusal('gpt-4.1-mini', env);
    expect(bare.kind).toBe('usage');
    expect(bare.message).toBe(
      '--model takes provider:model, e.g. openai:gpt-4.1-mini or anthropic:claude-sonnet-4-5; got "gpt-4.1-mini".',
    );
    const unknown = await refusal(undefined, { ...env, TURNKIT_MODEL: 'mistral:large' });
    expect(unknown.kind).toBe('usage');
    expect(unknown.message).toBe(
      'TURNKIT_MODEL: unknown provider "mistral" in "mistral:large". Known providers: openai, openai-chat, anthropic (e.g. openai:gpt-4.1-mini or anthropic:claude-sonnet-4-5).',
    );
    expect((await refusal('openai:', env)).kind).toBe('usage');
  });

  it('says which variable is missing before anything runs', async () => {
    const missing = await refusal('anthropic:claude-sonnet-4-5', { OPENAI_API_KEY: 'test-key' });
    expect(missing.kind).toBe('missing_key');
    expect(missing.message).toBe(
      'anthropic:claude-sonnet-4-5 needs ANTHROPIC_API_KEY: set it (and ANTHROPIC_BASE_URL for another endpoint), or leave the model out to run offline.',
    );
  });
});

describe('the providers, against their protocols on loopback', () => {
  it.each([
    ['openai:gpt-test', 'responses', 'call_ask_1'],
    ['openai-chat:local-llama', 'chat', 'call_ask_1'],
    ['anthropic:claude-test-1', 'messages', 'toolu_ask_1'],
  ] as const)('%s pauses on its question and resumes with the answer (%s API)', async (spec, api, callId) => {
    const choice = (await chooseModel(spec, env))!;
    const agent = defineAgent({
      name: 'inventory',
      instructions: 'Ask which line is meant.',
      model: choice.model,
      tools: [askUserQuestion()],
    });
    const before = fake.requests.length;
    const paused = await runTurn(agent, { input: 'Thaw one K562 vial' });
    expect(paused.status).toBe('needs_input');
    expect(paused.pendingQuestion?.toolCallId).toBe(callId);
    const done = await answerQuestion(agent, paused.snapshot, { answers: 'K562-dTAG' });
    expect(done.output).toBe('You picked: {"answers":{"Cell line":"K562-dTAG"}}');
    expect(fake.requests.slice(before)).toEqual([
      {
        api,
        model: choice.modelId,
        tools: ['AskUserQuestion'],
        stream: true,
        apiKey: 'test-key',
        responseFormat: null,
      },
      {
        api,
        model: choice.modelId,
        tools: ['AskUserQuestion'],
        stream: true,
        apiKey: 'test-key',
        responseFormat: null,
      },
    ]);
  });

  it.each([
    ['openai:gpt-test', 'json_schema:ln2_thaw_plan'],
    ['openai-chat:local-llama', 'json_schema:ln2_thaw_plan'],
    ['anthropic:claude-sonnet-4-5', 'json_schema'],
  ] as const)(
    '%s asks for the ThawPlan as structured output (%s) and gets it, typed',
    async (spec, format) => {
      const choice = (await chooseModel(spec, env))!;
      const agent = defineAgent({
        name: 'ln2_thaw_plan',
        instructions: 'Ask which line is meant, then answer with the plan.',
        model: choice.model,
        tools: [askUserQuestion()],
        output: ThawPlan,
      });
      const before = fake.requests.length;
      const paused = await runTurn(agent, { input: 'Thaw one K562 vial' });
      expect(paused.status).toBe('needs_input');
      const done = await answerQuestion(agent, paused.snapshot, { answers: 'K562-dTAG' });
      expect(done.status).toBe('completed');
      const plan: ThawPlanValue | null = done.output;
      expect(plan).toEqual(sayOnly('You picked: {"answers":{"Cell line":"K562-dTAG"}}'));
      expect(fake.requests.slice(before).map((request) => request.responseFormat)).toEqual([format, format]);
    },
  );

  it.each([
    [
      'openai:gpt-test',
      'OPENAI_API_KEY',
      'openai:gpt-test: the provider refused the key in OPENAI_API_KEY (401): Incorrect API key provided: wrong-key. Check OPENAI_API_KEY.',
    ],
    [
      'anthropic:claude-test-1',
      'ANTHROPIC_API_KEY',
      'anthropic:claude-test-1: the provider refused the key in ANTHROPIC_API_KEY (401): invalid x-api-key. Check ANTHROPIC_API_KEY.',
    ],
  ])('tells a refused key (%s) in one line naming %s', async (spec, variable, line) => {
    const choice = (await chooseModel(spec, { ...env, [variable]: 'wrong-key' }))!;
    const errors: unknown[] = [];
    const agent = defineAgent({ name: 'inventory', instructions: '…', model: choice.model, tools: [] });
    const result = await runTurn(agent, { input: 'Hello' }, { onError: (error) => errors.push(error) });
    expect(result.status).toBe('failed');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ModelError);
    expect(describeModelFailure(errors[0], choice)).toBe(line);
  });

  it('leaves errors that are not model failures to the caller', () => {
    expect(
      describeModelFailure(new Error('disk full'), { spec: 'openai:x', keyVariable: 'OPENAI_API_KEY' }),
    ).toBeNull();
  });
});
