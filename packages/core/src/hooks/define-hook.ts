/**
 * `defineHook` (DESIGN §26): a named set of functions the loop calls at four points — before and
 * after each model call, before and after each tool call — each of which may go on, rewrite what
 * is there, give a tool's result, refuse, or ask a person. The shapes here are plain types; the
 * loop runs them (chain.ts) and turns an ask into a pending interaction (review.ts), reaching that
 * machinery through the hooks themselves (interpreter/define-hooks.ts).
 */
import type { z } from 'zod';
import { TurnkitError } from '../errors.js';
import type { ChatMessage, ModelSettings } from '../model.js';

/** Where a hook runs. */
export type HookPoint = 'beforeModel' | 'afterModel' | 'beforeTool' | 'afterTool';

/** What every hook function receives besides the subject. */
export interface HookContext<Context = unknown> {
  /** The run's application context (as tools see it). */
  context: Context;
  runId: string;
  /** Agent names from the top agent down to the one whose hook runs. */
  agentPath: string[];
  /** Who makes the current call (`TurnOptions.principal`), when known. */
  principal: string | undefined;
  /** The model call this point belongs to (1 for the first model call of the turn). */
  step: number;
  /** The point that runs (or, in `resume`, the point that asked). */
  point: HookPoint;
}

/** A tool call as hooks see it: the model's call id, the tool's name and its parsed input. */
export interface HookCall {
  id: string;
  name: string;
  input: unknown;
}

/** What the model is about to receive: the messages (system first) and the settings. */
export interface HookModelRequest {
  messages: ChatMessage[];
  settings?: ModelSettings;
}

/** What the model answered: its text and its tool calls (inputs parsed when they are JSON). */
export interface HookModelResponse {
  text: string | null;
  toolCalls: HookCall[];
}

/**
 * How a hook asks a person. `true` or `{ reason?, assignees?, expiresInMs? }` asks for a review of
 * the subject (approve, approve with an edit, reject); `{ questions }` or `{ input }` asks a
 * question or a form instead, whose answer goes to the hook's `resume`.
 */
export type HookAsk =
  | true
  | {
      reason?: string;
      /** Principals who may decide (absent: anyone who can see the run). */
      assignees?: string[];
      /** After this long, the review resolves as rejected (reason: it timed out). */
      expiresInMs?: number;
      questions?: HookQuestion[];
      input?: { message: string; schema: z.ZodType };
    };

/** One question of a hook's `{ ask: { questions } }`: AskUserQuestion's input shape. */
export interface HookQuestion {
  id?: string;
  question: string;
  header: string;
  /** 2 to 4 choices, or none for a free-text question. Plain strings are labels. */
  options?: (string | { label: string; description: string })[];
  multiSelect?: boolean;
}

/** Every decision a hook can return; each point takes some of them (see {@link HookFunctions}). */
export type HookDecision =
  | { request: HookModelRequest }
  | { response: { text: string | null; toolCalls?: HookCall[] } }
  | { input: unknown }
  | { result: unknown }
  | { ask: HookAsk }
  | { deny: string };

// biome-ignore lint/suspicious/noConfusingVoidType: a hook that returns nothing (a bare `return;`) goes on.
type Maybe<T> = T | undefined | void | Promise<T | undefined | void>;

/** The functions of a hook, one per point; each returns nothing (go on) or a decision. */
export interface HookFunctions<Context = unknown> {
  /** Before a model call: rewrite this call's request, ask, or deny (the turn ends `blocked`). */
  beforeModel?: (
    request: HookModelRequest,
    ctx: HookContext<Context>,
  ) => Maybe<{ request: HookModelRequest } | { ask: HookAsk } | { deny: string }>;
  /** After a model call: rewrite the response (what is stored), ask, or deny (the model tries again). */
  afterModel?: (
    response: HookModelResponse,
    ctx: HookContext<Context>,
  ) => Maybe<
    { response: { text: string | null; toolCalls?: HookCall[] } } | { ask: HookAsk } | { deny: string }
  >;
  /** Before a tool runs: rewrite its input, give its result, ask, or deny (the tool does not run). */
  beforeTool?: (
    call: HookCall,
    ctx: HookContext<Context>,
  ) => Maybe<{ input: unknown } | { result: unknown } | { ask: HookAsk } | { deny: string }>;
  /** After a tool ran: rewrite its result, ask, or deny (the model reads a `denied` result). */
  afterTool?: (
    call: HookCall,
    result: unknown,
    ctx: HookContext<Context>,
  ) => Maybe<{ result: unknown } | { ask: HookAsk } | { deny: string }>;
}

/** What `defineHook` takes. */
export interface HookConfig<Context = unknown> extends HookFunctions<Context> {
  /** Names the hook in events, reviews and errors; unique among an agent's hooks. */
  name: string;
  /**
   * Called with the answer when the hook asked `{ questions }` or `{ input }` (never for a plain
   * review): `answer` is the answers by header, or the form's value; `subject` what was at the
   * point; `ctx.point` tells which point asked. Returns a decision of that point, or nothing.
   */
  resume?: (answer: unknown, subject: unknown, ctx: HookContext<Context>) => Maybe<HookDecision>;
  /**
   * `remember: 'run'` on an approval of this hook's `beforeTool` review lets later calls of the same
   * tool in the run pass without asking when this key is the same (default: the input itself).
   */
  rememberBy?: (input: unknown) => string;
}

/** A hook as the loop holds it. */
export interface Hook<Context = unknown> extends Readonly<HookConfig<Context>> {
  readonly kind: 'hook';
}

/** Any hook, whatever its context type. */
// biome-ignore lint/suspicious/noExplicitAny: a hook's context type is the application's; the loop stores any.
export type AnyHook = Hook<any>;

const FUNCTIONS = ['beforeModel', 'afterModel', 'beforeTool', 'afterTool', 'resume', 'rememberBy'] as const;

/**
 * A hook from its config, checked (what `defineHook` makes before it adds the machinery that runs
 * hooks: interpreter/define-hooks.ts, so that a program without hooks bundles none of it).
 */
export function hookFrom<Context = unknown>(config: HookConfig<Context>): Hook<Context> {
  if (typeof config?.name !== 'string' || config.name.trim() === '') {
    throw new TurnkitError('CONFIG_INVALID', 'A hook needs a non-empty `name`: defineHook({ name, … }).');
  }
  for (const key of FUNCTIONS) {
    if (config[key] !== undefined && typeof config[key] !== 'function') {
      throw new TurnkitError('CONFIG_INVALID', `Hook ${config.name}: ${key} must be a function.`);
    }
  }
  return Object.freeze({ ...config, kind: 'hook' as const });
}
