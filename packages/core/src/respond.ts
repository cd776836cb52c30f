/**
 * Resuming a paused run: `respond` and its shorthands (`answerQuestion`, `approve`, `reject`,
 * `cancelQuestion`) and `expire`. Every response is validated against the pending interaction
 * before anything changes; then the decisions go to the machine as one RESPOND event and the loop
 * continues in the same call.
 */
import type { Agent } from './agent.js';
import { AnswerError, type AnswerIssue, StateError } from './errors.js';
import { emit } from './events.js';
import { beginTurn, continueTurn } from './loop.js';
import type { Resolution, ResolvedRecord, StepCall, StoredInteraction } from './machine.js';
import { formatAnswersResult, formatDefaultedResult, normalizeAnswers } from './questions/index.js';
import { toolErrorResult } from './results.js';
import { loadRun, notWaiting, now, pendingOf, type Run, resultOf, send, stateOf } from './run.js';
import { checkToolInput } from './step.js';
import { childRunFor, childState } from './subagents.js';
import type { Answers, InteractionResponse, TurnOptions, TurnResult } from './types.js';

/** A response whose `id` may be left out when exactly one interaction is pending. */
export type ResponseInput = InteractionResponse extends infer R
  ? R extends InteractionResponse
    ? Omit<R, 'id'> & { id?: string }
    : never
  : never;

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

/** The resolution of an interaction answered after its `expiresAt`: the answer is not used. */
export function expiredResolution(interaction: StoredInteraction, at: string): Resolution {
  const base = { id: interaction.id, toolCallId: interaction.toolCallId, kind: interaction.kind, at };
  const deadline = interaction.expiresAt ?? at;
  if (interaction.kind === 'approval') {
    const result = toolErrorResult(
      'approval_timeout',
      `Nobody approved ${interaction.toolName} before ${deadline}, so it did not run. Ask again or choose another way.`,
    );
    return { toolCallId: interaction.toolCallId, records: [{ ...base, resolution: 'timed_out' }], result };
  }
  if (interaction.onExpire === 'recommended') {
    const result = formatDefaultedResult(interaction.questions ?? [], deadline);
    return { toolCallId: interaction.toolCallId, records: [{ ...base, resolution: 'defaulted' }], result };
  }
  const result = toolErrorResult(
    'question_timeout',
    `The user did not answer before ${deadline}. Make a reasonable assumption, say so, and go on.`,
  );
  return { toolCallId: interaction.toolCallId, records: [{ ...base, resolution: 'timed_out' }], result };
}

const pathPart = (part: PropertyKey): string | number => (typeof part === 'number' ? part : String(part));

function wrongKind(interaction: StoredInteraction, type: string): StateError {
  const hint =
    interaction.kind === 'question' ? 'answer it with answerQuestion' : 'decide it with approve or reject';
  return new StateError(
    'WRONG_KIND',
    `Interaction ${interaction.id} is a ${interaction.kind}; it cannot take '${type}': ${hint}.`,
  );
}

function resolve(run: Run, interaction: StoredInteraction, response: ResponseInput, at: string): Resolution {
  const base = { id: interaction.id, toolCallId: interaction.toolCallId, kind: interaction.kind, at };
  const toolCallId = interaction.toolCallId;
  switch (response.type) {
    case 'answer': {
      if (interaction.kind !== 'question') throw wrongKind(interaction, 'answer');
      const questions = interaction.questions ?? [];
      const answers = normalizeAnswers(questions, response.answers);
      const record: ResolvedRecord = { ...base, resolution: 'answered', answers, questions };
      return { toolCallId, records: [record], result: formatAnswersResult(questions, answers) };
    }
    case 'approve': {
      if (interaction.kind !== 'approval') throw wrongKind(interaction, 'approve');
      const rationale = response.rationale !== undefined ? { rationale: response.rationale } : {};
      if (response.editedInput === undefined) {
        return {
          toolCallId,
          records: [{ ...base, resolution: 'approved', ...rationale }],
          runInput: interaction.input,
        };
      }
      const tool = run.agent.toolIndex.get(interaction.toolName);
      if (tool?.kind === 'function') {
        const checked = checkToolInput(tool, response.editedInput);
        if (!checked.ok) {
          const issues = checked.error.issues.map(
            (issue): AnswerIssue => ({
              path: ['editedInput', ...issue.path.map(pathPart)],
              message: issue.message,
            }),
          );
          throw new AnswerError(issues, 'The edited input');
        }
      }
      const editedInput = JSON.stringify(response.editedInput);
      const record: ResolvedRecord = { ...base, resolution: 'approved', editedInput, ...rationale };
      return { toolCallId, records: [record], runInput: editedInput, edited: true };
    }
    case 'reject': {
      if (interaction.kind !== 'approval') throw wrongKind(interaction, 'reject');
      const result = toolErrorResult(
        'rejected_by_user',
        `The user rejected this call of ${interaction.toolName}; it did not run. Do not repeat it unchanged: take the rationale into account or ask the user.`,
        { rationale: response.rationale ?? null },
      );
      const rationale = response.rationale !== undefined ? { rationale: response.rationale } : {};
      return { toolCallId, records: [{ ...base, resolution: 'rejected', ...rationale }], result };
    }
    case 'cancel': {
      const reason = response.reason ? ` Reason: ${response.reason}` : '';
      const result =
        interaction.kind === 'question'
          ? toolErrorResult(
              'question_cancelled',
              `The user dismissed the question without answering.${reason} Go on without it, or ask differently.`,
            )
          : toolErrorResult(
              'approval_cancelled',
              `The approval of ${interaction.toolName} was cancelled, so it did not run.${reason}`,
            );
      const rationale = response.reason !== undefined ? { rationale: response.reason } : {};
      return { toolCallId, records: [{ ...base, resolution: 'cancelled', ...rationale }], result };
    }
  }
}

/** A resolution before it is applied; calls of paused sub-agents carry the child's own resolutions. */
export type PreparedResolution = Resolution & { nested?: { run: Run; resolutions: PreparedResolution[] } };

/**
 * Validates responses against the run's pending interactions (a sub-agent's included: those are
 * routed down to the child) and turns them into resolutions. Throws, and changes nothing, on the
 * first response that does not fit.
 */
export function prepareResolutions(run: Run, responses: ResponseInput[]): PreparedResolution[] {
  if (stateOf(run) !== 'waitingInput') throw notWaiting(run, 'respond');
  const context = run.state.context;
  const pending = pendingOf(context);
  const at = now(run);
  const seen = new Set<string>();
  const prepared: PreparedResolution[] = [];
  const routed = new Map<StepCall, ResponseInput[]>();
  for (const response of responses) {
    const interaction = findInteraction(run, pending, response.id);
    if (seen.has(interaction.id)) {
      throw new AnswerError(
        [{ path: [interaction.id], message: 'responded to twice in one call' }],
        'The response list',
      );
    }
    seen.add(interaction.id);
    const owner = context.step!.find(
      (call) => call.status === 'pending' && call.interaction?.id === interaction.id,
    );
    if (owner) {
      const expired = interaction.expiresAt !== null && at.getTime() >= Date.parse(interaction.expiresAt);
      prepared.push(
        expired
          ? expiredResolution(interaction, at.toISOString())
          : resolve(run, interaction, response, at.toISOString()),
      );
      continue;
    }
    const parent = context.step!.find(
      (call) =>
        call.status === 'pending' &&
        call.child &&
        pendingOf(call.child.context).some((item) => item.id === interaction.id),
    )!;
    routed.set(parent, [...(routed.get(parent) ?? []), { ...response, id: interaction.id }]);
  }
  for (const [call, childResponses] of routed) {
    const child = childRunFor(run, call.toolName, call.toolCallId, call.child!);
    const resolutions = prepareResolutions(child, childResponses);
    prepared.push({
      toolCallId: call.toolCallId,
      records: resolutions.flatMap((resolution) => resolution.records),
      nested: { run: child, resolutions },
    });
  }
  return prepared;
}

/** Applies prepared resolutions to the machine (children first), with their events. No effect runs. */
export function applyResolutions(run: Run, prepared: PreparedResolution[]): void {
  const resolutions = prepared.map(({ nested, ...resolution }): Resolution => {
    if (!nested) return resolution;
    applyResolutions(nested.run, nested.resolutions);
    return { ...resolution, child: childState(nested.run) };
  });
  send(run, { type: 'RESPOND', resolutions, maxSteps: run.agent.maxSteps });
  for (const { records, result, child } of resolutions) {
    if (child) continue;
    const record = records[0]!;
    emit(run, {
      type: 'interaction_resolved',
      interactionId: record.id,
      toolCallId: record.toolCallId,
      kind: record.kind,
      resolution: record.resolution,
      ...(record.rationale !== undefined ? { rationale: record.rationale } : {}),
      result: result ?? '',
    });
  }
}

/**
 * The generic resume: applies one or more responses to pending interactions and continues the
 * run. Answering only some of them returns `needs_input` again with the rest.
 */
export async function respond(
  agent: Agent,
  snapshot: string,
  responses: ResponseInput[],
  options: TurnOptions = {},
): Promise<TurnResult> {
  const run = loadRun(agent, snapshot, options);
  const resolutions = prepareResolutions(run, responses);
  beginTurn(run, 'respond');
  applyResolutions(run, resolutions);
  return continueTurn(run);
}

/**
 * Answers a pending question and continues the run.
 *
 * @example
 * const r2 = await answerQuestion(agent, snapshot, { answers: { 'Cell line': 'K562-dTAG' } });
 */
export function answerQuestion(
  agent: Agent,
  snapshot: string,
  answer: { id?: string; answers: Answers },
  options?: TurnOptions,
): Promise<TurnResult> {
  return respond(agent, snapshot, [{ id: answer.id, type: 'answer', answers: answer.answers }], options);
}

/** Approves a pending tool call (optionally with an edited input) and continues: the tool runs once. */
export function approve(
  agent: Agent,
  snapshot: string,
  decision: { id?: string; rationale?: string; editedInput?: unknown } = {},
  options?: TurnOptions,
): Promise<TurnResult> {
  return respond(agent, snapshot, [{ ...decision, type: 'approve' }], options);
}

/** Rejects a pending tool call: the model is told `rejected_by_user` with the rationale. */
export function reject(
  agent: Agent,
  snapshot: string,
  decision: { id?: string; rationale?: string } = {},
  options?: TurnOptions,
): Promise<TurnResult> {
  return respond(agent, snapshot, [{ ...decision, type: 'reject' }], options);
}

/** Cancels a pending question or approval: the model is told `question_cancelled` / `approval_cancelled`. */
export function cancelQuestion(
  agent: Agent,
  snapshot: string,
  cancel: { id?: string; reason?: string } = {},
  options?: TurnOptions,
): Promise<TurnResult> {
  return respond(agent, snapshot, [{ ...cancel, type: 'cancel' }], options);
}

/** Resolves every pending interaction whose `expiresAt` has passed (for a sweeper). Nothing expired: the run unchanged. */
export async function expire(agent: Agent, snapshot: string, options: TurnOptions = {}): Promise<TurnResult> {
  const run = loadRun(agent, snapshot, options);
  if (stateOf(run) !== 'waitingInput') throw notWaiting(run, 'expire interactions');
  const at = now(run);
  const expired = pendingOf(run.state.context).filter(
    (interaction) => interaction.expiresAt !== null && at.getTime() >= Date.parse(interaction.expiresAt),
  );
  if (expired.length === 0) return resultOf(run, snapshot);
  // Expiry is checked before anything else, so any response to an expired interaction resolves it as expired.
  const resolutions = prepareResolutions(
    run,
    expired.map((interaction) => ({ id: interaction.id, type: 'cancel' as const })),
  );
  beginTurn(run, 'expire');
  applyResolutions(run, resolutions);
  return continueTurn(run);
}
