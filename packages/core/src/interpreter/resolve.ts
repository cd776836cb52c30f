/**
 * Turning a human's responses into machine resolutions. Every response is validated against the
 * pending interaction (a sub-agent's included: those are routed down to the child) before
 * anything changes; the decisions then go to the machine as one RESPOND event. No effect runs here.
 */
import { AnswerError, type AnswerIssue, StateError } from '../errors.js';
import {
  pendingInteractions,
  type Resolution,
  type StepCall,
  type StoredInteraction,
} from '../machine/index.js';
import { controlCharacterIn, controlCharacterIssues, controlCharacterMessage } from '../questions/index.js';
import type { AnyFunctionTool } from '../tools/index.js';
import { checkResponder } from './assignees.js';
import { type ChildRuns, childState } from './child.js';
import { decide, expiredResolution, type Responder, type ResponseInput, USER } from './decide.js';
import { emit, emitResolved } from './events.js';
import { sendSettling } from './handoff-switch.js';
import { plainResponse } from './plain-response.js';
import { notWaiting } from './result.js';
import { isoTime, now, type Run, stateOf, tracingOf } from './run.js';

export type { Responder, ResponseInput } from './decide.js';

function findInteraction(run: Run, pending: StoredInteraction[], id: string | undefined): StoredInteraction {
  if (id === undefined) {
    if (pending.length === 1) return pending[0]!;
    throw new StateError(
      'AMBIGUOUS_INTERACTION',
      `${pending.length} interactions are pending (${pending.map((item) => item.id).join(', ')}): say which one with \`id\`.`,
    );
  }
  const found = pending.find((interaction) => interaction.id === id);
  if (found) return found;
  const earlier = run.state.context.resolved.some((record) => record.id === id);
  throw new StateError(
    'INTERACTION_NOT_FOUND',
    earlier
      ? `Interaction ${id} was already resolved; nothing changed. Pending now: ${pending.map((item) => item.id).join(', ') || 'none'}.`
      : `No pending interaction has id ${JSON.stringify(id)}. Pending now: ${pending.map((item) => item.id).join(', ') || 'none'}.`,
  );
}

/** A resolution before it is applied; calls of paused sub-agents carry the child's own resolutions. */
export type PreparedResolution = Resolution & { nested?: { run: Run; resolutions: PreparedResolution[] } };

const RESPONSE_TYPES = new Set(['answer', 'approve', 'reject', 'cancel', 'input']);

/** What a response that is not an object is called in its error. */
function notAnObject(value: unknown): AnswerError | null {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return null;
  const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
  return new AnswerError(
    [{ path: [], message: `Expected an object such as { id?, answers }, got ${got}` }],
    'The response',
  );
}

/**
 * The fields of a response argument given by a caller (`answerQuestion(agent, snapshot, answer)`),
 * copied into plain data: an object, or nothing (`{}`); anything else, or anything that cannot be
 * read, is an `AnswerError`, never a TypeError.
 */
export function responseFields<T extends object>(given: T | undefined): T {
  if (given === undefined) return {} as T;
  const value = plainResponse(given, 'The response');
  const problem = notAnObject(value);
  if (problem) throw problem;
  return value;
}

/**
 * Response lists this module copied and checked. Each is a fresh copy made here (or by a shorthand
 * from its own copy of the caller's fields) that no caller holds, so checking it again would only
 * copy the same plain data once more: a resume used to copy an answer three times.
 */
const checkedLists = new WeakSet<object>();

/**
 * The responses from outside, copied into plain data (`sessions.respond` reads them first, so it
 * calls this itself), with their shape checked before any is matched to an interaction.
 */
export function checkResponses(given: unknown): ResponseInput[] {
  if (typeof given === 'object' && given !== null && checkedLists.has(given)) return given as ResponseInput[];
  return checkPlainResponses(plainResponse(given, 'The response list'));
}

/**
 * {@link checkResponses} for a list already made of plain data by TurnKit (a shorthand's list of
 * the one response it copied with {@link responseFields}): checked the same way, not copied again.
 */
export function checkPlainResponses(responses: unknown): ResponseInput[] {
  if (!Array.isArray(responses)) {
    throw new AnswerError([{ path: [], message: 'Expected an array of responses' }], 'The response list');
  }
  responses.forEach((response: unknown, index) => {
    // A missing response reads as `{}`, as `responseFields` reads a missing argument.
    const problem = response === undefined ? null : notAnObject(response);
    if (problem) throw problem;
    const fields = (response ?? {}) as Record<string, unknown>;
    const issues: AnswerIssue[] = [];
    if (!RESPONSE_TYPES.has(fields.type as string)) {
      issues.push({
        path: [index, 'type'],
        message: 'Must be one of answer, approve, reject, cancel, input',
      });
    }
    if (fields.id !== undefined && typeof fields.id !== 'string') {
      issues.push({ path: [index, 'id'], message: 'Must be the interaction id, a string' });
    }
    for (const key of ['rationale', 'reason'] as const) {
      const text = fields[key];
      if (text !== undefined && typeof text !== 'string') {
        issues.push({ path: [index, key], message: 'Must be a string' });
      }
      const found = typeof text === 'string' ? controlCharacterIn(text) : undefined;
      if (found) issues.push({ path: [index, key], message: controlCharacterMessage(found, `The ${key}`) });
    }
    // An edited input (or a review's edited subject) is data the run goes on with: its strings and keys are text too.
    for (const key of ['editedInput', 'edit'] as const) {
      if (fields[key] !== undefined) issues.push(...controlCharacterIssues(fields[key], [index, key]));
    }
    if (fields.remember !== undefined && fields.remember !== 'run') {
      issues.push({
        path: [index, 'remember'],
        message: "Must be 'run' (remember the approval for the run)",
      });
    }
    if (issues.length > 0) throw new AnswerError(issues, 'The response list');
  });
  checkedLists.add(responses);
  return responses as ResponseInput[];
}

/**
 * Validates responses against the run's pending interactions (a sub-agent's included: those are
 * routed down to the child) and turns them into resolutions. Throws, and changes nothing, on the
 * first response that does not fit. `responder` says who responds (a person, or the parent agent's
 * model through `answer_subagent`), down to the innermost child.
 */
export function prepareResolutions(
  run: Run,
  responses: ResponseInput[],
  responder: Responder = USER,
): PreparedResolution[] {
  const checked = checkResponses(responses);
  const parentRationale = responder.by === 'parent' ? responder.rationale : undefined;
  const found = parentRationale === undefined ? undefined : controlCharacterIn(parentRationale);
  if (found) {
    throw new AnswerError(
      [{ path: ['rationale'], message: controlCharacterMessage(found, 'The rationale') }],
      'The response',
    );
  }
  if (stateOf(run) !== 'waitingInput') throw notWaiting(run, 'respond');
  const context = run.state.context;
  const pending = pendingInteractions(context);
  const at = now(run);
  const stamp = isoTime(at.getTime());
  const seen = new Set<string>();
  const prepared: PreparedResolution[] = [];
  const routed = new Map<StepCall, ResponseInput[]>();
  for (const response of checked) {
    const interaction = findInteraction(run, pending, response.id);
    if (seen.has(interaction.id)) {
      throw new AnswerError(
        [{ path: [interaction.id], message: 'responded to twice in one call' }],
        'The response list',
      );
    }
    seen.add(interaction.id);
    const owner = context.step?.find(
      (call) => call.status === 'pending' && call.interaction?.id === interaction.id,
    );
    if (owner || interaction === context.budgetPause) {
      const expired = interaction.expiresAt !== null && at.getTime() >= Date.parse(interaction.expiresAt);
      if (expired) {
        prepared.push(expiredResolution(run, interaction, stamp));
        continue;
      }
      if (responder.by === 'user') checkResponder(run, interaction, response.type);
      // A quorum approval repeated by the same principal is idempotent: nothing new is recorded.
      if (response.type === 'approve' && repeatsApproval(run, interaction)) continue;
      prepared.push(decide(run, interaction, response, stamp, responder));
      continue;
    }
    const parent = context.step!.find(
      (call) =>
        call.status === 'pending' &&
        call.child &&
        pendingInteractions(call.child.context).some((item) => item.id === interaction.id),
    )!;
    routed.set(parent, [...(routed.get(parent) ?? []), { ...response, id: interaction.id }]);
  }
  for (const [call, childResponses] of routed) {
    const tool = run.agent.toolIndex.get(call.toolName) as AnyFunctionTool | undefined;
    // The player comes with the agent tool (agentTool), so answering never imports it.
    const player = tool?.subagents as Partial<ChildRuns> | undefined;
    if (!tool?.subagent || !player?.childRun) {
      throw new StateError(
        'NOT_WAITING',
        `Interaction ${call.interaction?.id ?? 'of this call'} waits inside sub-agent call ${call.toolCallId}, but this agent has no agent tool ${JSON.stringify(call.toolName)} made by agentTool to route the answer to (the application changed). Restore the tool, or cancel the interaction.`,
      );
    }
    const child = player.childRun(run, tool, call.toolCallId, call.child!);
    const resolutions = prepareResolutions(child, childResponses, responder);
    if (resolutions.length === 0) continue;
    prepared.push({
      toolCallId: call.toolCallId,
      records: resolutions.flatMap((resolution) => resolution.records),
      nested: { run: child, resolutions },
    });
  }
  return prepared;
}

/** Whether the responder already gave one of the approvals an interaction with a quorum counts. */
function repeatsApproval(run: Run, interaction: StoredInteraction): boolean {
  const who = run.options.principal;
  return (
    (interaction.quorum ?? 1) > 1 &&
    who !== undefined &&
    (interaction.approvals ?? []).some((approval) => approval.principal === who)
  );
}

/** Applies prepared resolutions to the machine (children first), with their events. No effect runs. */
export function applyResolutions(run: Run, prepared: PreparedResolution[]): void {
  const resolutions = prepared.map(({ nested, ...resolution }): Resolution => {
    if (!nested) return resolution;
    applyResolutions(nested.run, nested.resolutions);
    return { ...resolution, child: childState(nested.run) };
  });
  // What was asked, for the human's span (DESIGN §15): only read when the run is traced.
  const tracing = tracingOf(run);
  const asked = tracing
    ? new Map(pendingInteractions(run.state.context).map((item) => [item.id, item]))
    : undefined;
  if (asked) {
    for (const { records, child, approval } of resolutions) {
      const interaction = child || approval ? undefined : asked.get(records[0]!.id);
      if (interaction) tracing!.keepSpan(run, interaction, records[0]!);
    }
  }
  sendSettling(run, { type: 'RESPOND', resolutions, maxSteps: run.agent.maxSteps });
  for (const { records, result, child, approval, toolCallId } of resolutions) {
    if (child) continue;
    if (approval) {
      const interaction = pendingInteractions(run.state.context).find(
        (item) => item.toolCallId === toolCallId,
      )!;
      emit(run, {
        type: 'approval_recorded',
        interactionId: interaction.id,
        toolCallId,
        principal: approval.principal,
        ...(approval.rationale !== undefined ? { rationale: approval.rationale } : {}),
        approvals: interaction.approvals?.length ?? 0,
        quorum: interaction.quorum ?? 1,
      });
      continue;
    }
    emitResolved(run, records[0]!, result ?? '');
    const interaction = asked?.get(records[0]!.id);
    if (interaction) tracing!.traceResolved(run, interaction, records[0]!);
  }
}
