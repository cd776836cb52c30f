/**
 * Model-based tests of `agentMachine`, the pure machine of the loop (DESIGN §3). `xstate/graph`
 * walks the machine with sample events built from each state (tool-call outcomes for the calls
 * that are runnable, decisions for the calls that are pending…), and every state it reaches must
 * satisfy the invariants below. Targeted tests then pin the transitions the interpreter relies on.
 */

import { describe, expect, it } from 'vitest';
import { initialTransition, type SnapshotFrom, transition } from 'xstate';
import {
  adjacencyMapToArray,
  getAdjacencyMap,
  getShortestPaths,
  getSimplePaths,
  getStateNodes,
} from 'xstate/graph';
import {
  agentMachine,
  type ChatMessage,
  type LoopEvent,
  type LoopStateName,
  type StepCall,
  type StoredInteraction,
  type ToolCall,
} from '../src/index.js';
import { transition as directTransition } from '../src/machine/index.js';

type MachineState = SnapshotFrom<typeof agentMachine>;
type Resolution = Extract<LoopEvent, { type: 'RESPOND' }>['resolutions'][number];
type Outcome = Extract<LoopEvent, { type: 'TOOLS_SETTLED' }>['outcomes'][number];

const AT = '2025-03-01T09:00:00.000Z';
const MAX_STEPS = 2;
const RESTING: LoopStateName[] = [
  'idle',
  'waitingInput',
  'completed',
  'failed',
  'maxSteps',
  'aborted',
  'budgetExceeded',
  'blocked',
];
const REACHABLE: LoopStateName[] = [...RESTING, 'callingModel', 'executingTools'];

const user = (content: string): ChatMessage => ({ role: 'user', content });

function toolCall(id: string, name: string): ToolCall {
  return { id, type: 'function', function: { name, arguments: '{}' } };
}

function assistantWithCalls(...calls: ToolCall[]): LoopEvent {
  return { type: 'MODEL_RESPONDED', message: { role: 'assistant', content: null, tool_calls: calls } };
}

type Kind = 'question' | 'approval' | 'input';

function interactionFor(
  call: Pick<StepCall, 'toolCallId' | 'toolName'>,
  kind: Kind,
  id = `agent:${call.toolCallId}`,
): StoredInteraction {
  const payload =
    kind === 'question'
      ? { questions: [] }
      : kind === 'approval'
        ? { input: '{}' }
        : { form: { message: 'Box?', schema: {} }, ask: { state: null } };
  return {
    id,
    kind,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    agentPath: ['agent'],
    createdAt: AT,
    expiresAt: null,
    schemaHash: 'hash',
    ...payload,
  };
}

const settled = (call: StepCall): Outcome => ({
  toolCallId: call.toolCallId,
  result: `result of ${call.toolCallId}`,
});
const asking = (call: StepCall, kind: Kind, id?: string): Outcome => ({
  toolCallId: call.toolCallId,
  interaction: interactionFor(call, kind, id),
});

function decided(call: StepCall, decision: 'answered' | 'approved'): Resolution {
  const interaction = call.interaction!;
  const record = {
    id: interaction.id,
    toolCallId: call.toolCallId,
    kind: interaction.kind,
    resolution: decision,
    at: AT,
  };
  // A tool's own ask (`ctx.ask`) is answered by running its `resume` with the response.
  if (interaction.ask) {
    return { toolCallId: call.toolCallId, records: [record], askResponse: '{"kind":"input","value":1}' };
  }
  return decision === 'approved'
    ? { toolCallId: call.toolCallId, records: [record], runInput: '{}' }
    : { toolCallId: call.toolCallId, records: [record], result: `answer to ${call.toolCallId}` };
}

const isRunnable = (call: StepCall) =>
  call.status === 'queued' || call.status === 'approved' || call.status === 'resuming';

/**
 * Sample events for a state, built from its context: tool-call ids are unique per step (the
 * transcript's length is in them), outcomes name the calls that can run, decisions the pending ones.
 */
function sampleEvents(state: MachineState): LoopEvent[] {
  const { messages, step, interactionCount } = state.context;
  const runnable = (step ?? []).filter(isRunnable);
  const pending = (step ?? []).filter((call) => call.status === 'pending');
  const id = (index: number) => `call_${messages.length}_${index}`;
  // Only a call that has not started can ask a human (an approved call just runs), and interaction
  // ids are unique within the run, as the interpreter makes them.
  const ask = (call: StepCall, index: number, kind: Kind): Outcome =>
    call.status === 'queued' ? asking(call, kind, `agent:${interactionCount + index + 1}`) : settled(call);
  // A call that is resuming after its ask was answered may ask again (its `resume` called ctx.ask).
  const askAgain = (call: StepCall, index: number): Outcome =>
    call.status === 'resuming' && call.askResponse !== undefined
      ? asking(call, 'input', `agent:${interactionCount + index + 1}`)
      : ask(call, index, 'input');
  return [
    // A budget of one model call at the start, so maxSteps is reached after the first step.
    { type: 'START', messages: [user('hello')], maxSteps: 1 },
    { type: 'MODEL_RESPONDED', message: { role: 'assistant', content: 'done' } },
    // A final answer the agent's output schema refused: the model is asked again.
    {
      type: 'OUTPUT_REJECTED',
      message: { role: 'assistant', content: 'not json' },
      feedback: user('Your final answer was not accepted.'),
    },
    assistantWithCalls(toolCall(id(0), 'lookup')),
    assistantWithCalls(toolCall(id(0), 'lookup'), toolCall(id(1), 'AskUserQuestion')),
    { type: 'MODEL_FAILED', error: { code: 'MODEL_ERROR', message: 'model down' } },
    // Hooks (DESIGN §26): a beforeModel denial, and a hook failure in a step (the first call settled).
    { type: 'BLOCKED', error: { code: 'BLOCKED', message: 'denied' } },
    {
      type: 'HOOK_FAILED',
      outcomes: runnable.slice(0, 1).map(settled),
      error: { code: 'HOOK_ERROR', message: 'hook threw' },
    },
    { type: 'TOOLS_SETTLED', outcomes: runnable.map(settled) },
    { type: 'TOOLS_SETTLED', outcomes: runnable.map((call, index) => ask(call, index, 'question')) },
    {
      type: 'TOOLS_SETTLED',
      outcomes: runnable.map((call, index) => (index === 0 ? ask(call, index, 'approval') : settled(call))),
    },
    { type: 'TOOLS_SETTLED', outcomes: runnable.map((call, index) => askAgain(call, index)) },
    // Only the first call finished (the others are still running, or were interrupted).
    { type: 'TOOLS_SETTLED', outcomes: runnable.slice(0, 1).map(settled) },
    { type: 'RESPOND', resolutions: pending.map((call) => decided(call, 'answered')), maxSteps: MAX_STEPS },
    {
      type: 'RESPOND',
      resolutions: pending.slice(0, 1).map((call) => decided(call, 'answered')),
      maxSteps: MAX_STEPS,
    },
    {
      type: 'RESPOND',
      resolutions: pending.map((call) =>
        decided(call, call.interaction?.kind === 'approval' ? 'approved' : 'answered'),
      ),
      maxSteps: MAX_STEPS,
    },
    // The run's budget (DESIGN §20): a pause before the next model call or step, then its decision.
    { type: 'BUDGET_REACHED', interaction: budgetInteraction(`agent:${interactionCount + 1}`) },
    ...(state.context.budgetPause
      ? (['extend', 'refuse'] as const).map(
          (decision): LoopEvent => ({
            type: 'RESPOND',
            resolutions: [
              {
                toolCallId: '',
                records: [
                  {
                    id: state.context.budgetPause!.id,
                    toolCallId: '',
                    kind: 'budget',
                    resolution: decision === 'extend' ? 'approved' : 'rejected',
                    at: AT,
                  },
                ],
                budget: decision === 'extend' ? { decision, extend: { steps: 1 } } : { decision },
              },
            ],
            maxSteps: MAX_STEPS,
          }),
        )
      : []),
    { type: 'USER_MESSAGE', messages: [user('something else')], maxSteps: MAX_STEPS, at: AT },
    { type: 'RETRY', maxSteps: MAX_STEPS },
    { type: 'ABORT' },
  ];
}

/** A budget interaction as the interpreter makes it. */
function budgetInteraction(id: string): StoredInteraction {
  return {
    id,
    kind: 'budget',
    toolCallId: '',
    toolName: '',
    agentPath: ['agent'],
    createdAt: AT,
    expiresAt: null,
    budget: {
      spent: { steps: 1, inputTokens: 0, outputTokens: 0, tokens: 0, toolCalls: 0, costUsd: 0 },
      limit: { steps: 1 },
    },
  };
}

/** The state name and what the machine branches on: the step's call statuses and the budget. */
function abstractState(state: MachineState): string {
  const { step, modelCalls, maxSteps, budgetPause } = state.context;
  return JSON.stringify([
    state.value,
    step?.map((call) => call.status) ?? null,
    modelCalls,
    maxSteps,
    budgetPause !== undefined,
  ]);
}

/** The invariants every state reached through the machine's transitions must hold. */
function expectConsistent(state: MachineState, where: string): void {
  const value = state.value as LoopStateName;
  const { messages, step, modelCalls, maxSteps, resolved } = state.context;
  const runnable = step?.filter(isRunnable) ?? [];
  const pending = step?.filter((call) => call.status === 'pending') ?? [];

  expect(REACHABLE, `${where}: rests in a transient state`).toContain(value);
  expect(modelCalls, `${where}: more model calls than the budget`).toBeLessThanOrEqual(maxSteps);
  expect(
    messages.some((message) => message.role === 'system'),
    `${where}: a system message in the transcript`,
  ).toBe(false);

  const { budgetPause } = state.context;
  if (value === 'waitingInput') {
    // A budget pause waits before a model call or before the step's calls start (DESIGN §20).
    expect(pending.length > 0 || budgetPause !== undefined, `${where}: waitingInput on nothing`).toBe(true);
    if (!budgetPause) expect(runnable, `${where}: waitingInput with calls still to run`).toEqual([]);
  } else {
    expect(budgetPause, `${where}: a budget pause outside waitingInput`).toBeUndefined();
  }
  if (value === 'executingTools')
    expect(runnable.length, `${where}: executingTools with nothing to run`).toBeGreaterThan(0);
  if (value === 'aborted')
    expect(step === null || runnable.length > 0, `${where}: aborted on a settled step`).toBe(true);
  // A hook failure in a step leaves it open in `failed` (DESIGN §26).
  const open: LoopStateName[] = ['aborted', 'budgetExceeded', 'waitingInput', 'executingTools', 'failed'];
  if (!open.includes(value)) {
    // The model is only called, and a run only rests, once the step's results are in the transcript.
    expect(step, `${where}: ${value} with an open step`).toBeNull();
  }

  for (const call of step ?? []) {
    if (call.status === 'done')
      expect(typeof call.result, `${where}: a done call without result`).toBe('string');
    if (call.status === 'pending')
      expect(call.interaction?.toolCallId, `${where}: a pending call without interaction`).toBe(
        call.toolCallId,
      );
    // A response for `resume` sits only on a resuming call that asked, and is used once.
    if (call.askResponse !== undefined) {
      expect(call.status, `${where}: a response to resume on a ${call.status} call`).toBe('resuming');
      expect(call.interaction?.ask, `${where}: a response to resume without its ask`).toBeDefined();
    }
  }
  expect(new Set(resolved.map((record) => record.id)).size, `${where}: an interaction resolved twice`).toBe(
    resolved.length,
  );

  // Every tool call has exactly one result, right after its assistant message and in tool_calls
  // order, except the calls of the open step, which have none yet and belong to the last message.
  const lastIndex = messages.length - 1;
  messages.forEach((message, index) => {
    if (message.role !== 'assistant' || !message.tool_calls?.length) return;
    const ids = message.tool_calls.map((call) => call.id);
    const results = messages.filter((item) => item.role === 'tool' && ids.includes(item.tool_call_id));
    if (index === lastIndex && step !== null) {
      expect(results, `${where}: results of the open step already in the transcript`).toEqual([]);
      expect(
        step.map((call) => call.toolCallId),
        `${where}: the open step is not the last message's calls`,
      ).toEqual(ids);
      return;
    }
    const following = messages.slice(index + 1, index + 1 + ids.length);
    expect(
      following.map((item) => (item.role === 'tool' ? item.tool_call_id : item.role)),
      `${where}: tool results of message ${index}`,
    ).toEqual(ids);
    expect(results, `${where}: duplicate tool results of message ${index}`).toHaveLength(ids.length);
  });
  if (step !== null)
    expect(messages[lastIndex]?.role, `${where}: an open step without its assistant message`).toBe(
      'assistant',
    );
}

function describePath(steps: { event: LoopEvent; state: MachineState }[]): string {
  return steps.map((step) => `${step.event.type}→${String(step.state.value)}`).join(' ');
}

/** Checks the invariants on every state of a path, naming the path that broke one. */
function expectConsistentAlong(steps: { event: LoopEvent; state: MachineState }[]): void {
  for (let index = 0; index < steps.length; index++) {
    expectConsistent(steps[index]!.state, describePath(steps.slice(0, index + 1)));
  }
}

/** Starts the machine and sends `events` in order. */
function drive(...events: LoopEvent[]): MachineState {
  let [state] = initialTransition(agentMachine);
  for (const event of events) [state] = transition(agentMachine, state, event);
  return state;
}

/** The last message's open step, for building outcome events in tests. */
function openStep(state: MachineState): StepCall[] {
  expect(state.context.step).not.toBeNull();
  return state.context.step!;
}

const start: LoopEvent = { type: 'START', messages: [user('Thaw one vial')], maxSteps: 5 };
const twoCalls = assistantWithCalls(
  toolCall('a', 'lookup'),
  toolCall('b', 'AskUserQuestion'),
  toolCall('c', 'thaw'),
);

/** A run paused on `b` (a question) and `c` (an approval); `a` has its result. */
function pausedOnTwo(): MachineState {
  const running = drive(start, twoCalls);
  const [a, b, c] = openStep(running);
  return transition(agentMachine, running, {
    type: 'TOOLS_SETTLED',
    outcomes: [asking(c!, 'approval'), settled(a!), asking(b!, 'question')],
  })[0];
}

describe('agentMachine', () => {
  it('invokes and spawns nothing, so a snapshot never holds work in flight', () => {
    for (const node of getStateNodes(agentMachine.root)) {
      expect(node.invoke, node.id).toEqual([]);
    }
  });

  it('reaches every state of the diagram, and rests only in them', () => {
    const paths = getShortestPaths(agentMachine, {
      events: sampleEvents,
      serializeState: (state) => String(state.value),
    });
    const reached = paths.map((path) => path.state.value).sort();
    expect(reached).toEqual([...REACHABLE].sort());
    const declared = getStateNodes(agentMachine.root).map((node) => node.key);
    expect(declared.sort()).toEqual([...REACHABLE, 'settling'].sort());
  });

  it('keeps its invariants on every step of the shortest path to every reachable configuration', () => {
    const paths = getShortestPaths(agentMachine, { events: sampleEvents, serializeState: abstractState });
    expect(paths.length).toBeGreaterThan(30);
    for (const path of paths) {
      expectConsistentAlong(path.steps);
      expectConsistent(path.state, describePath(path.steps));
    }
  });

  it('keeps its invariants along every simple path between states', () => {
    const paths = getSimplePaths(agentMachine, {
      events: sampleEvents,
      serializeState: (state) => String(state.value),
    });
    expect(paths.length).toBeGreaterThanOrEqual(REACHABLE.length);
    for (const path of paths) {
      expectConsistentAlong(path.steps);
    }
  });

  it('keeps its invariants across every transition out of every reachable configuration', () => {
    const edges = adjacencyMapToArray(
      getAdjacencyMap(agentMachine, { events: sampleEvents, serializeState: abstractState }),
    );
    const changing = edges.filter((edge) => abstractState(edge.state) !== abstractState(edge.nextState));
    expect(changing.length).toBeGreaterThan(100);
    for (const { state, event, nextState } of edges) {
      expectConsistent(nextState, `${abstractState(state)} + ${event.type} → ${String(nextState.value)}`);
    }
  });

  it('is followed exactly by the interpreter’s direct transition, on every edge (DESIGN §16)', () => {
    const edges = adjacencyMapToArray(
      getAdjacencyMap(agentMachine, { events: sampleEvents, serializeState: abstractState }),
    );
    expect(edges.length).toBeGreaterThan(200);
    const events = new Set<string>();
    for (const { state, event, nextState } of edges) {
      events.add(event.type);
      const direct = directTransition({ value: state.value as LoopStateName, context: state.context }, event);
      const where = `${abstractState(state)} + ${event.type}`;
      expect(direct.value, where).toBe(nextState.value);
      expect(direct.context, where).toEqual(nextState.context);
    }
    expect([...events].sort()).toEqual(
      [
        'ABORT',
        'BLOCKED',
        'BUDGET_REACHED',
        'HOOK_FAILED',
        'MODEL_FAILED',
        'MODEL_RESPONDED',
        'OUTPUT_REJECTED',
        'RESPOND',
        'RETRY',
        'START',
        'TOOLS_SETTLED',
        'USER_MESSAGE',
      ].sort(),
    );
  });

  describe('settling a step', () => {
    it('runs calls that are still queued before anything else, even with a call pending', () => {
      const running = drive(start, twoCalls);
      const [, b] = openStep(running);
      const [state] = transition(agentMachine, running, {
        type: 'TOOLS_SETTLED',
        outcomes: [asking(b!, 'question')],
      });
      expect(state.value).toBe('executingTools');
      expect(openStep(state).map((call) => call.status)).toEqual(['queued', 'pending', 'queued']);
    });

    it('reaches waitingInput only with a pending call, once nothing is left to run', () => {
      const state = pausedOnTwo();
      expect(state.value).toBe('waitingInput');
      expect(openStep(state).map((call) => call.status)).toEqual(['done', 'pending', 'pending']);
      expect(state.context.interactionCount).toBe(2);
      expect(state.context.messages.at(-1)?.role).toBe('assistant');
    });

    it('appends the results in tool_calls order and calls the model again once every call is done', () => {
      const running = drive(start, twoCalls);
      const [a, b, c] = openStep(running);
      const [state] = transition(agentMachine, running, {
        type: 'TOOLS_SETTLED',
        outcomes: [settled(c!), settled(a!), settled(b!)],
      });
      expect(state.value).toBe('callingModel');
      expect(state.context.step).toBeNull();
      expect(state.context.messages.slice(-3)).toEqual([
        { role: 'tool', tool_call_id: 'a', content: 'result of a' },
        { role: 'tool', tool_call_id: 'b', content: 'result of b' },
        { role: 'tool', tool_call_id: 'c', content: 'result of c' },
      ]);
    });

    it('waits for every pending call: a partial answer keeps the run waiting on the rest', () => {
      const paused = pausedOnTwo();
      const [, b] = openStep(paused);
      const [state] = transition(agentMachine, paused, {
        type: 'RESPOND',
        resolutions: [decided(b!, 'answered')],
        maxSteps: 5,
      });
      expect(state.value).toBe('waitingInput');
      expect(openStep(state).map((call) => call.status)).toEqual(['done', 'done', 'pending']);
      expect(state.context.resolved.map((record) => record.id)).toEqual(['agent:b']);
    });

    it('runs an approved call before calling the model, keeping its interaction for the resume checks', () => {
      const paused = pausedOnTwo();
      const [, b, c] = openStep(paused);
      const [state] = transition(agentMachine, paused, {
        type: 'RESPOND',
        resolutions: [decided(c!, 'approved'), decided(b!, 'answered')],
        maxSteps: 5,
      });
      expect(state.value).toBe('executingTools');
      const approved = openStep(state)[2]!;
      expect(approved).toMatchObject({
        status: 'approved',
        approvedInput: '{}',
        interaction: { kind: 'approval' },
      });

      const [next] = transition(agentMachine, state, {
        type: 'TOOLS_SETTLED',
        outcomes: [settled(approved)],
      });
      expect(next.value).toBe('callingModel');
      expect(
        next.context.messages.slice(-3).map((message) => message.role === 'tool' && message.content),
      ).toEqual(['result of a', 'answer to b', 'result of c']);
    });

    it('gives a human answer a fresh step budget', () => {
      const exhausted = drive(
        { ...start, maxSteps: 1 },
        assistantWithCalls(toolCall('q', 'AskUserQuestion')),
      );
      const paused = transition(agentMachine, exhausted, {
        type: 'TOOLS_SETTLED',
        outcomes: [asking(openStep(exhausted)[0]!, 'question')],
      })[0];
      expect(paused.context.modelCalls).toBe(1);
      const [state] = transition(agentMachine, paused, {
        type: 'RESPOND',
        resolutions: [decided(openStep(paused)[0]!, 'answered')],
        maxSteps: 1,
      });
      expect(state.value).toBe('callingModel');
      expect(state.context.modelCalls).toBe(0);
    });
  });

  describe('model calls', () => {
    it('completes on a text-only answer, with its text as the output', () => {
      const state = drive(start, {
        type: 'MODEL_RESPONDED',
        message: { role: 'assistant', content: 'Done.' },
      });
      expect(state.value).toBe('completed');
      expect(state.context.output).toBe('Done.');
      expect(state.context.messages).toEqual([
        user('Thaw one vial'),
        { role: 'assistant', content: 'Done.' },
      ]);
    });

    it('stops at maxSteps when the budget is spent before the next model call', () => {
      const running = drive({ ...start, maxSteps: 1 }, assistantWithCalls(toolCall('a', 'lookup')));
      const [state] = transition(agentMachine, running, {
        type: 'TOOLS_SETTLED',
        outcomes: [settled(openStep(running)[0]!)],
      });
      expect(state.value).toBe('maxSteps');
      expect(state.context.modelCalls).toBe(1);
      expect(state.context.messages.at(-1)).toEqual({
        role: 'tool',
        tool_call_id: 'a',
        content: 'result of a',
      });
    });

    it('fails on a model error, keeping the transcript from before the call', () => {
      const state = drive(start, {
        type: 'MODEL_FAILED',
        error: { code: 'MODEL_ERROR', message: 'HTTP 500' },
      });
      expect(state.value).toBe('failed');
      expect(state.context.error).toEqual({ code: 'MODEL_ERROR', message: 'HTTP 500' });
      expect(state.context.messages).toEqual([user('Thaw one vial')]);
    });
  });

  describe('USER_MESSAGE', () => {
    it('supersedes every pending call with superseded_by_user_message, in tool_calls order, before the message', () => {
      const paused = pausedOnTwo();
      const [state] = transition(agentMachine, paused, {
        type: 'USER_MESSAGE',
        messages: [user('Actually, thaw HeLa')],
        maxSteps: 7,
        at: AT,
      });
      expect(state.value).toBe('callingModel');
      expect(state.context.step).toBeNull();
      expect(state.context.modelCalls).toBe(0);
      expect(state.context.maxSteps).toBe(7);
      const tail = state.context.messages.slice(-4);
      expect(tail.map((message) => (message.role === 'tool' ? message.tool_call_id : message.role))).toEqual([
        'a',
        'b',
        'c',
        'user',
      ]);
      expect(tail[0]).toMatchObject({ content: 'result of a' });
      for (const message of tail.slice(1, 3)) {
        expect(JSON.parse((message as { content: string }).content)).toMatchObject({
          ok: false,
          error_code: 'superseded_by_user_message',
        });
      }
      expect(state.context.resolved).toEqual([
        { id: 'agent:b', kind: 'question', toolCallId: 'b', resolution: 'superseded', at: AT },
        { id: 'agent:c', kind: 'approval', toolCallId: 'c', resolution: 'superseded', at: AT },
      ]);
    });

    it('closes the step of an aborted run: calls that never ran are superseded, without an interaction record', () => {
      const running = drive(start, twoCalls);
      const aborted = transition(agentMachine, running, { type: 'ABORT' })[0];
      const [state] = transition(agentMachine, aborted, {
        type: 'USER_MESSAGE',
        messages: [user('stop')],
        maxSteps: 5,
        at: AT,
      });
      expect(state.value).toBe('callingModel');
      expect(state.context.resolved).toEqual([]);
      expect(state.context.messages.slice(-4).map((message) => message.role)).toEqual([
        'tool',
        'tool',
        'tool',
        'user',
      ]);
    });

    it.each([
      ['completed', [{ type: 'MODEL_RESPONDED', message: { role: 'assistant', content: 'Done.' } }]],
      ['failed', [{ type: 'MODEL_FAILED', error: { code: 'MODEL_ERROR', message: 'down' } }]],
      ['aborted', [{ type: 'ABORT' }]],
    ] as [string, LoopEvent[]][])(
      'starts a new model call from %s, with the message appended and the error cleared',
      (from, events) => {
        const resting = drive(start, ...events);
        expect(resting.value).toBe(from);
        const [state] = transition(agentMachine, resting, {
          type: 'USER_MESSAGE',
          messages: [user('next')],
          maxSteps: 3,
          at: AT,
        });
        expect(state.value).toBe('callingModel');
        expect(state.context.messages.at(-1)).toEqual(user('next'));
        expect(state.context).toMatchObject({ error: null, output: null, modelCalls: 0, maxSteps: 3 });
      },
    );
  });

  describe('OUTPUT_REJECTED', () => {
    const rejected: LoopEvent = {
      type: 'OUTPUT_REJECTED',
      message: { role: 'assistant', content: 'not json' },
      feedback: user('Your final answer was not accepted.'),
    };

    it('keeps the refused answer and the feedback, counts the call, and calls the model again', () => {
      const state = drive(start, rejected);
      expect(state.value).toBe('callingModel');
      expect(state.context.messages.map((message) => message.content)).toEqual([
        'Thaw one vial',
        'not json',
        'Your final answer was not accepted.',
      ]);
      expect(state.context.modelCalls).toBe(1);
      expect(state.context.output).toBeNull();
    });

    it('rests in maxSteps when the refused answer used the last model call', () => {
      const state = drive({ ...start, maxSteps: 1 } as LoopEvent, rejected);
      expect(state.value).toBe('maxSteps');
    });
  });

  describe('RETRY', () => {
    it('retries a failed run from its last good point: the model is called again, the error cleared', () => {
      const failed = drive(start, { type: 'MODEL_FAILED', error: { code: 'MODEL_ERROR', message: 'down' } });
      const [state] = transition(agentMachine, failed, { type: 'RETRY', maxSteps: 5 });
      expect(state.value).toBe('callingModel');
      expect(state.context.error).toBeNull();
      expect(state.context.messages).toEqual(failed.context.messages);
    });

    it('continues a maxSteps run with a fresh budget', () => {
      const running = drive({ ...start, maxSteps: 1 }, assistantWithCalls(toolCall('a', 'lookup')));
      const exhausted = transition(agentMachine, running, {
        type: 'TOOLS_SETTLED',
        outcomes: [settled(openStep(running)[0]!)],
      })[0];
      const [state] = transition(agentMachine, exhausted, { type: 'RETRY', maxSteps: 4 });
      expect(state.value).toBe('callingModel');
      expect(state.context).toMatchObject({ modelCalls: 0, maxSteps: 4 });
    });

    it('runs again only the calls an abort interrupted, keeping the results that finished', () => {
      const running = drive(start, twoCalls);
      const [a] = openStep(running);
      const partial = transition(agentMachine, running, {
        type: 'TOOLS_SETTLED',
        outcomes: [settled(a!)],
      })[0];
      const aborted = transition(agentMachine, partial, { type: 'ABORT' })[0];
      expect(aborted.value).toBe('aborted');
      const [state] = transition(agentMachine, aborted, { type: 'RETRY', maxSteps: 5 });
      expect(state.value).toBe('executingTools');
      expect(openStep(state).map((call) => call.status)).toEqual(['done', 'queued', 'queued']);
      expect(openStep(state)[0]?.result).toBe('result of a');
    });

    it('calls the model again when the abort came during a model call', () => {
      const aborted = drive(start, { type: 'ABORT' });
      const [state] = transition(agentMachine, aborted, { type: 'RETRY', maxSteps: 5 });
      expect(state.value).toBe('callingModel');
    });

    it('is ignored by runs that are completed or waiting for input', () => {
      const completed = drive(start, {
        type: 'MODEL_RESPONDED',
        message: { role: 'assistant', content: 'Done.' },
      });
      for (const resting of [completed, pausedOnTwo()]) {
        const [state] = transition(agentMachine, resting, { type: 'RETRY', maxSteps: 5 });
        expect(state.value).toBe(resting.value);
        expect(state.context).toEqual(resting.context);
      }
    });
  });

  describe('ABORT', () => {
    it('stops a model call or a step, keeping the transcript and the step as they were', () => {
      for (const working of [drive(start), drive(start, twoCalls)]) {
        const [state] = transition(agentMachine, working, { type: 'ABORT' });
        expect(state.value).toBe('aborted');
        expect(state.context).toEqual(working.context);
      }
    });

    it('does not touch a resting run, and late effect outcomes do not either', () => {
      const paused = pausedOnTwo();
      const completed = drive(start, {
        type: 'MODEL_RESPONDED',
        message: { role: 'assistant', content: 'Done.' },
      });
      const aborted = drive(start, twoCalls, { type: 'ABORT' });
      const late: LoopEvent[] = [
        { type: 'ABORT' },
        { type: 'TOOLS_SETTLED', outcomes: [{ toolCallId: 'a', result: 'late' }] },
        { type: 'MODEL_RESPONDED', message: { role: 'assistant', content: 'late' } },
        { type: 'START', messages: [user('again')], maxSteps: 5 },
      ];
      for (const resting of [paused, completed, aborted]) {
        for (const event of late) {
          const [state] = transition(agentMachine, resting, event);
          expect(state.value, `${String(resting.value)} + ${event.type}`).toBe(resting.value);
          expect(state.context).toEqual(resting.context);
        }
      }
    });
  });
});
