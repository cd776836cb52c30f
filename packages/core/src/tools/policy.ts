/**
 * Who may answer (DESIGN §20): the `assignees`, `quorum` and `allowRequester` an app gives a
 * question tool, a tool's approvals or a `ctx.ask`, checked once where they are given. Resolving
 * them (calling a function of the input) and enforcing them is the interpreter's job.
 */
import { TurnkitError } from '../errors.js';
import type { ApprovalPolicy } from './definitions.js';

/** What is wrong with an `assignees` value: null when it is a list of principals or a function. */
export function assigneesProblem(value: unknown): string | null {
  if (typeof value === 'function') return null;
  if (!Array.isArray(value)) return 'must be a list of principals (strings) or a function returning one';
  if (!value.every((item) => typeof item === 'string' && item !== '')) {
    return 'must hold non-empty strings (principals) only';
  }
  return null;
}

/** What is wrong with a quorum: null when it is an integer >= 1. */
export function quorumProblem(value: unknown): string | null {
  return Number.isSafeInteger(value) && (value as number) >= 1 ? null : 'must be an integer >= 1';
}

/** Refuses an approval policy no approval could follow (`CONFIG_INVALID`). */
export function checkApprovalPolicy(owner: string, policy: unknown): ApprovalPolicy<never, never> {
  const refuse = (field: string, problem: string) =>
    new TurnkitError('CONFIG_INVALID', `${owner}: approval.${field} ${problem}.`);
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `${owner}: approval must be an object { assignees?, quorum?, allowRequester? }.`,
    );
  }
  const { assignees, quorum, allowRequester, rememberBy } = policy as Record<string, unknown>;
  if (rememberBy !== undefined && typeof rememberBy !== 'function')
    throw refuse('rememberBy', 'must be a function');
  const assigned = assignees === undefined ? null : assigneesProblem(assignees);
  if (assigned) throw refuse('assignees', assigned);
  const counted = quorum === undefined ? null : quorumProblem(quorum);
  if (counted) throw refuse('quorum', counted);
  if (allowRequester !== undefined && typeof allowRequester !== 'boolean') {
    throw refuse('allowRequester', 'must be a boolean');
  }
  if (Array.isArray(assignees) && typeof quorum === 'number' && quorum > new Set(assignees).size) {
    throw refuse(
      'quorum',
      `is ${quorum}, more than the ${new Set(assignees).size} assignees could ever give`,
    );
  }
  return policy as ApprovalPolicy<never, never>;
}
