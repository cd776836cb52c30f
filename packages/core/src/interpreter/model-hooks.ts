/**
 * The model points (DESIGN §26): `beforeModel` — the request to send (rewritten for this call
 * only), a denial (the turn ends `blocked`), or a review of its messages — and `afterModel` — the
 * response to keep, a denial (dropped, the model told why), or a review of it; and what the loop
 * does with each: a review waits where a budget does (before a model call, with no step).
 */

import type { ChainOutcome, HookFailure, HookPoint } from '../hooks/index.js';
import type { HookResume, StoredInteraction } from '../machine/index.js';
import type { AssistantMessage, ModelRequest } from '../types.js';
import type { AskDraft } from './ask.js';
import { emit } from './events.js';
import { hasHooks, hookError, pointChain, resultValue, resumed, reviewDraft, settle } from './hook-points.js';
import { toPending } from './result.js';
import { now, type Run, send } from './run.js';

/** What a model point comes to. */
export type ModelPointOutcome<T> =
  | { go: T }
  | { draft: AskDraft }
  | { deny: { hook: string; reason: string; point: HookPoint } }
  | { failed: HookFailure };

/** `beforeModel`: the request to send (rewritten for this call only), a denial, a review of it. */
export function beforeModelPoint(
  run: Run,
  request: ModelRequest,
  resume?: HookResume,
): ModelPointOutcome<ModelRequest> | Promise<ModelPointOutcome<ModelRequest>> {
  if (!resume && !hasHooks(run, 'beforeModel')) return { go: request };
  const { host, chain } = pointChain(run, 'beforeModel', (hook, current, ctx) =>
    hook.beforeModel!(current as never, ctx),
  );
  const subject = { messages: request.messages, ...(request.settings ? { settings: request.settings } : {}) };
  return settle(resume ? resumed(run, resume, host, chain) : chain(0, subject), (outcome) => {
    if (!('go' in outcome)) return modelStop<ModelRequest>(run, outcome, 'beforeModel');
    if (outcome.go === subject) return { go: request };
    const { messages, settings } = outcome.go as {
      messages: ModelRequest['messages'];
      settings?: ModelRequest['settings'];
    };
    const { settings: _old, ...rest } = request;
    return { go: { ...rest, messages, ...(settings ? { settings } : {}) } };
  });
}

/** A model point's chain that stopped: its denial, failure or review. */
function modelStop<T>(run: Run, outcome: ChainOutcome, point: HookPoint): ModelPointOutcome<T> {
  if ('deny' in outcome) return { deny: { hook: outcome.hook, reason: outcome.deny, point } };
  if ('failed' in outcome) return outcome;
  if ('ask' in outcome) {
    const draft = reviewDraft(run, outcome.ask, outcome.hook, outcome.index, point, outcome.subject);
    return 'failed' in draft ? draft : { draft };
  }
  return {
    failed: {
      hook: (outcome as { hook: string }).hook,
      point,
      problem: 'it returned a decision this point does not take',
    },
  };
}

/** A model message as hooks see it: its text, and its tool calls with their inputs parsed. */
export function responseSubject(message: AssistantMessage): {
  text: string | null;
  toolCalls: { id: string; name: string; input: unknown }[];
} {
  return {
    text: message.content,
    toolCalls: (message.tool_calls ?? []).map(
      (call) => new ResponseCall(call.id, call.function.name, call.function.arguments),
    ),
  };
}

/**
 * A tool call of a model response as hooks see it, its input parsed on first read: most hooks never
 * read it, and a call's arguments may be long (a question's, a document's). A class, so making one
 * costs what a plain object does; `toJSON` keeps the input when a review stores the response.
 */
class ResponseCall {
  #parsed: { value: unknown } | undefined;
  constructor(
    readonly id: string,
    readonly name: string,
    readonly args: string,
  ) {}
  get input(): unknown {
    this.#parsed ??= { value: resultValue(this.args) };
    return this.#parsed.value;
  }
  toJSON(): { id: string; name: string; input: unknown } {
    return { id: this.id, name: this.name, input: this.input };
  }
}

/** The assistant message a (rewritten) response subject stands for. */
export function messageOf(subject: unknown): AssistantMessage {
  const { text, toolCalls } = subject as {
    text: string | null;
    toolCalls: { id: string; name: string; input: unknown }[];
  };
  if (toolCalls.length === 0) return { role: 'assistant', content: text };
  return {
    role: 'assistant',
    content: text,
    tool_calls: toolCalls.map((call) => ({
      id: call.id,
      type: 'function' as const,
      function: {
        name: call.name,
        // A call no hook replaced keeps the model's arguments as they were written.
        arguments:
          call instanceof ResponseCall
            ? call.args
            : typeof call.input === 'string'
              ? call.input
              : (JSON.stringify(call.input) ?? '{}'),
      },
    })),
  };
}

/** `afterModel`: the response to keep (rewritten or not), a denial, a review of it. */
export function afterModelPoint(
  run: Run,
  message: AssistantMessage,
  resume?: HookResume,
): ModelPointOutcome<AssistantMessage> | Promise<ModelPointOutcome<AssistantMessage>> {
  if (!resume && !hasHooks(run, 'afterModel')) return { go: message };
  const { host, chain } = pointChain(run, 'afterModel', (hook, current, ctx) =>
    hook.afterModel!(current as never, ctx),
  );
  const original = responseSubject(message);
  return settle(resume ? resumed(run, resume, host, chain) : chain(0, original), (outcome) =>
    'go' in outcome
      ? { go: outcome.go === original ? message : messageOf(outcome.go) }
      : modelStop<AssistantMessage>(run, outcome, 'afterModel'),
  );
}

/** A model point's review as the run's pause (it waits where a budget would: DESIGN §20, §26). */
export function modelReview(run: Run, draft: AskDraft): StoredInteraction {
  return {
    ...draft,
    id: `${run.idPrefix}:${run.state.context.interactionCount + 1}`,
    toolCallId: '',
    toolName: '',
    agentPath: run.agentPath,
    createdAt: now(run).toISOString(),
  } as StoredInteraction;
}

/** What stands in the transcript for a response an afterModel hook denied: it is never kept. */
export const WITHHELD: AssistantMessage = Object.freeze({
  role: 'assistant',
  content: '(response withheld)',
}) as AssistantMessage;

/** What the model reads after its response was denied. */
export function withheldFeedback(hook: string, reason: string): string {
  return `Your previous response was not delivered: hook ${hook} denied it (${reason}). Write a new response that takes this into account.`;
}

/**
 * What a model point's hooks came to, acted on: the value to go on with, or undefined once the
 * machine was told (a review to wait for, a denial, a failure that keeps `resume`).
 */
export function modelPoint<T>(
  run: Run,
  outcome: ModelPointOutcome<T>,
  resume?: HookResume | (() => HookResume),
): T | undefined {
  if ('go' in outcome) return outcome.go;
  if ('failed' in outcome) {
    const kept = typeof resume === 'function' ? resume() : resume;
    send(run, {
      type: 'MODEL_FAILED',
      error: hookError(outcome.failed),
      ...(kept ? { hookResume: kept } : {}),
    });
  } else if ('draft' in outcome) {
    const interaction = modelReview(run, outcome.draft);
    send(run, { type: 'BUDGET_REACHED', interaction });
    emit(run, { type: 'interaction_requested', interaction: toPending(interaction) });
  } else if (outcome.deny.point === 'beforeModel') {
    const { hook, reason } = outcome.deny;
    send(run, {
      type: 'BLOCKED',
      error: { code: 'BLOCKED', message: `Hook ${hook} blocked the model call: ${reason}` },
    });
  } else {
    // afterModel: the response is dropped and the model is told why (within maxSteps).
    const { hook, reason } = outcome.deny;
    send(run, {
      type: 'OUTPUT_REJECTED',
      message: WITHHELD,
      feedback: { role: 'user', content: withheldFeedback(hook, reason) },
    });
  }
  return undefined;
}

/**
 * A model point picked up again once its review was decided (DESIGN §26): `beforeModel` goes on
 * with the request it reviewed (the request to send, or undefined once the machine was told);
 * `afterModel` with the reviewed response, handed to `deliver` (the model is not called again).
 */
export async function resumedModelPoint(
  run: Run,
  resume: HookResume,
  request: (instructions: string) => ModelRequest,
  deliver: (message: AssistantMessage) => void,
): Promise<ModelRequest | undefined> {
  const subject = JSON.parse(resume.subject) as Pick<ModelRequest, 'messages' | 'settings'>;
  if (resume.point === 'beforeModel')
    return modelPoint(run, await beforeModelPoint(run, { ...request(''), ...subject }, resume), resume);
  const message = modelPoint(run, await afterModelPoint(run, messageOf(subject), resume), resume);
  if (message) deliver(message);
  return undefined;
}
