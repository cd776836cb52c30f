/**
 * Today's agent, rigged to replay a recording (DESIGN §28): each agent of the tree (sub-agents
 * included) answers with the recorded model responses of its path, and function tools return their
 * recorded results without running — a tool whose code asked (`ctx.ask`) asks again as recorded.
 * What the recording lacks is reported `missing`; with `model: 'live'` each response is compared.
 */
import { ModelError } from '../errors.js';
import { handoffsOf } from '../handoffs/index.js';
import { handoff } from '../interpreter/index.js';
import { toolErrorResult } from '../results.js';
import {
  type Agent,
  type AnyAgent,
  type AnyFunctionTool,
  type AskRequest,
  defineAgent,
  type QuestionInput,
  type Tool,
  type ToolContext,
} from '../tools/index.js';
import type {
  AssistantMessage,
  ModelAdapter,
  ModelRequest,
  ModelResponse,
  Question,
  ToolCall,
} from '../types.js';
import type { Divergence, DivergenceKind } from './divergence.js';
import {
  REDACTED,
  type RecordedAsk,
  type RecordedStep,
  type RecordedTurn,
  type Recording,
} from './recording-format.js';

/** Options of `replay`: what it plays from the recording, and what it runs live. */
export interface ReplayOptions {
  /** `'recorded'` (default): tools return their recorded results; `'live'`: today's tools run. */
  tools?: 'recorded' | 'live';
  /** `'recorded'` (default): the recorded responses; `'live'`: today's model answers (an eval). */
  model?: 'recorded' | 'live';
  /** The application context of the run's first turn (a recording does not hold it). */
  context?: unknown;
}

const pathKey = (path: readonly string[]) => path.join('/');

/** Whether a recorded value holds a field an event log redacted. */
function holdsRedacted(value: unknown): boolean {
  return JSON.stringify(value ?? null).includes(REDACTED);
}

/** Recorded questions as a tool asks them: an option without description was a plain label. */
function questionsOf(questions: Question[]): QuestionInput[] {
  return questions.map(({ options, ...question }) => ({
    ...question,
    options: options.map((option) =>
      option.description === '' && option.preview === undefined ? option.label : option,
    ),
  }));
}

/** JSON text parsed, or the text itself when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A tool call as compared: its name and its parsed input. */
function callShape(call: ToolCall): { name: string; input: unknown } {
  return { name: call.function.name, input: parseJson(call.function.arguments) };
}

/** What one replay knows and finds as it goes: the recording's queues, and the divergences. */
export class ReplayState {
  readonly divergences: Divergence[] = [];
  /** Set when the run left the recorded path: later turns cannot be compared. */
  stopped = false;
  /** Set at a divergence after which the run no longer follows the recording (another call, a refused output). */
  left = false;
  /** The agent path whose model was called past the recorded responses of the turn, if any. */
  overrun: string[] | null = null;
  turn: RecordedTurn | undefined;
  step = 0;
  private queues = new Map<string, RecordedStep[]>();
  private readonly results = new Map<string, string>();
  private readonly asks = new Map<string, RecordedAsk[]>();
  private readonly edited = new Set<string>();
  /** Whether the recording holds a redaction marker at all (most do not: no per-step search then). */
  private readonly redacted: boolean;

  constructor(
    readonly recording: Recording,
    readonly options: ReplayOptions,
  ) {
    this.redacted = holdsRedacted(recording.turns);
    for (const turn of recording.turns) {
      for (const { toolCallId, result } of turn.results) this.results.set(toolCallId, result);
      for (const ask of turn.asked) {
        if (ask.askedByTool) this.asks.set(ask.toolCallId, [...(this.asks.get(ask.toolCallId) ?? []), ask]);
      }
      for (const { toolCallId, response } of turn.responses ?? []) {
        if (response.type === 'approve' && response.editedInput !== undefined) this.edited.add(toolCallId);
      }
    }
  }

  /** Starts a recorded turn: its model responses become the queues each agent path plays from. */
  begin(turn: RecordedTurn): void {
    this.turn = turn;
    this.step = 0;
    this.overrun = null;
    this.queues = new Map();
    for (const step of turn.steps) {
      const key = pathKey(step.agentPath);
      this.queues.set(key, [...(this.queues.get(key) ?? []), step]);
    }
  }

  diverge(kind: DivergenceKind, message: string, expected: unknown, actual: unknown, step = this.step): void {
    // Once the run left the recorded path, what follows is a consequence, not a finding.
    if (this.left) return;
    this.divergences.push({ turn: this.turn?.turn ?? 0, step, kind, expected, actual, message });
  }

  /** Today's model call on `path`: the recorded response (or today's model's, compared with it). */
  async respond(agent: AnyAgent, path: string[], request: ModelRequest): Promise<ModelResponse> {
    if (request.purpose === 'compaction') {
      if (this.options.model === 'live') return agent.model.generate(request);
      // The summary is not recorded; with recorded responses what the model reads changes nothing.
      return { message: { role: 'assistant', content: 'A summary of the earlier conversation (replayed).' } };
    }
    this.step++;
    const recorded = this.queues.get(pathKey(path))?.shift();
    if (this.options.model === 'live') return this.compare(agent, recorded, request);
    if (!recorded) {
      // Judged when the turn ends: a pause today's agent skipped explains it, else it is `missing`.
      this.overrun = path;
      this.stopped = true;
      throw new ModelError('The recording has no model response for this call (see the replay divergences).');
    }
    if (recorded.error) throw new ModelError(recorded.error.message);
    // A copy the loop may keep: the recording stays as read, for every later replay of it.
    const { tool_calls: calls, ...text } = recorded.message!;
    const message: AssistantMessage = calls
      ? { ...text, tool_calls: calls.map((call) => ({ ...call, function: { ...call.function } })) }
      : { ...text };
    if (this.redacted && holdsRedacted(message.tool_calls)) {
      this.diverge(
        'missing',
        'a recorded tool call has redacted arguments: today’s tool gets the redaction marker',
        message.tool_calls,
        undefined,
      );
    }
    this.checkOutput(agent, path, message);
    return { message };
  }

  /** `model: 'live'`: today's response, its tool calls compared with the recorded ones (ids taken from the recording). */
  private async compare(
    agent: AnyAgent,
    recorded: RecordedStep | undefined,
    request: ModelRequest,
  ): Promise<ModelResponse> {
    const response = await agent.model.generate(request);
    const expected = (recorded?.message?.tool_calls ?? []).map(callShape);
    const actual = (response.message.tool_calls ?? []).map(callShape);
    if (JSON.stringify(expected) !== JSON.stringify(actual)) {
      this.diverge(
        'tool_call',
        'today’s model calls other tools, or with other input, than the recording',
        expected,
        actual,
      );
      this.stopped = true;
      this.left = true;
      return response;
    }
    const message: AssistantMessage = { ...response.message };
    if (message.tool_calls) {
      message.tool_calls = message.tool_calls.map((call, index) => ({
        ...call,
        id: recorded!.message!.tool_calls![index]!.id,
      }));
    }
    return { ...response, message };
  }

  /** A recorded final answer today's `output` schema refuses. */
  private checkOutput(agent: AnyAgent, path: string[], message: AssistantMessage): void {
    if (!agent.output || message.tool_calls?.length || path.length !== 1) return;
    const parsed = agent.output.safeParse(parseJson(message.content ?? ''));
    if (parsed.success) return;
    this.diverge(
      'output',
      'today’s output schema refuses the recorded final answer',
      message.content,
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    );
    this.stopped = true;
    this.left = true;
  }

  /** The recorded result of a call, in place of running the tool. */
  result(toolCallId: string, toolName: string): unknown {
    const result = this.results.get(toolCallId);
    if (result === undefined || result === REDACTED) {
      this.diverge('missing', `the recording has no result for ${toolName} (${toolCallId})`, result, {
        toolCall: toolCallId,
        toolName,
      });
      return toolErrorResult('tool_error', `${toolName}: the recording holds no result for this call.`);
    }
    if (!this.edited.has(toolCallId)) return result;
    // The loop adds the edited input to what the tool returns: give back the value before it did.
    const decorated = parseJson(result);
    if (typeof decorated !== 'object' || decorated === null || !('input_edited_by_user' in decorated))
      return result;
    const { input_edited_by_user: _, ...value } = decorated as Record<string, unknown>;
    return value;
  }

  /** The next recorded `ctx.ask` of a call whose tool's own code asked, if any is left. */
  nextAsk(toolCallId: string): AskRequest | null {
    const ask = this.asks.get(toolCallId)?.shift();
    if (!ask) return null;
    const policy = {
      ...(ask.assignees ? { assignees: ask.assignees } : {}),
      ...(ask.quorum !== undefined ? { quorum: ask.quorum } : {}),
      ...(ask.allowRequester !== undefined ? { allowRequester: ask.allowRequester } : {}),
    };
    const payload = ask.payload as Record<string, unknown> | undefined;
    if (payload && 'questions' in payload)
      return { questions: questionsOf(payload.questions as Question[]), ...policy };
    if (payload && 'schema' in payload)
      return {
        input: { message: String(payload.message), jsonSchema: payload.schema as Record<string, unknown> },
        ...policy,
      };
    if (payload && 'toolName' in payload)
      return { approval: { reason: String(payload.reason ?? ''), input: payload.input }, ...policy };
    this.diverge(
      'missing',
      `the recording does not hold what ${ask.toolName} asked (${ask.id})`,
      undefined,
      ask,
    );
    return null;
  }
}

/** A function tool that returns its recorded results (asking again first where its code asked). */
function recordedTool(tool: AnyFunctionTool, state: ReplayState): AnyFunctionTool {
  const play = (ctx: ToolContext<never>) => {
    const ask = state.nextAsk(ctx.toolCallId);
    return ask ? ctx.ask(ask) : state.result(ctx.toolCallId, tool.name);
  };
  return { ...tool, execute: (_input, ctx) => play(ctx), resume: (_input, _response, ctx) => play(ctx) };
}

/**
 * Today's `agent` rigged to play the recording on `path`: its sub-agents too, and the agents it
 * hands off to (DESIGN §27), each on the path `[name]` a handoff gives it — `handed` holds the
 * rigged agents of the handoff graph, by today's agent, so agents that name each other stay one
 * graph.
 */
export function replayAgent<TOutput>(
  agent: Agent<TOutput>,
  state: ReplayState,
  version?: string,
  path: string[] = [agent.name],
  handed: Map<AnyAgent, AnyAgent> = new Map(),
): Agent<TOutput> {
  const tools = agent.tools.map((tool): Tool => {
    if (tool.kind !== 'function' || tool.builtin) return tool;
    if (tool.subagent) {
      const child = tool.subagent.agent;
      return {
        ...tool,
        subagent: { ...tool.subagent, agent: replayAgent(child, state, undefined, [...path, child.name]) },
      };
    }
    return state.options.tools === 'live' ? tool : recordedTool(tool, state);
  });
  const model: ModelAdapter = {
    name: `replay(${agent.model.name})`,
    generate: (request) => state.respond(agent as AnyAgent, path, request),
  };
  // Read when the run first needs them (a function, so agents that hand back to each other resolve).
  const handoffs =
    agent.handoffs === undefined
      ? {}
      : {
          handoffs: () =>
            handoffsOf(agent as AnyAgent).map(({ agent: next, options }) => {
              if (!handed.has(next))
                handed.set(next, replayAgent(next, state, undefined, [next.name], handed));
              return handoff(handed.get(next)!, options);
            }),
        };
  const rigged = defineAgent<TOutput>({
    ...agent,
    tools,
    model,
    ...handoffs,
    ...(version !== undefined ? { version } : {}),
  });
  if (path.length === 1 && !handed.has(agent as AnyAgent)) handed.set(agent as AnyAgent, rigged as AnyAgent);
  return rigged;
}
