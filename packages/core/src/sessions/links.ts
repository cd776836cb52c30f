/**
 * Answer links (DESIGN §20): a token that answers one pending interaction once, for an e-mail or a
 * chat message. It is signed (HMAC-SHA256) with the agent's snapshot secret and carries the run, the
 * interaction, when it expires, who answers with it, and optionally the response itself (a one-click
 * "approve"). Single use is kept by the run: the write that claims the answer records the link's id
 * (`usedLinks`), fenced by version like every write, so of two uses racing, one wins.
 */
import { LinkError, TurnkitError } from '../errors.js';
import type { ResponseInput } from '../interpreter/index.js';
import { constantTimeEqual, fromBase64url, hmacHex, randomBytes, toBase64url } from '../snapshot/index.js';
import type { AnyAgent } from '../tools/index.js';

/** A response carried by a link: as on `respond`, without the interaction id (the link names it). */
export type LinkResponse = ResponseInput extends infer R
  ? R extends ResponseInput
    ? Omit<R, 'id'>
    : never
  : never;

/** Options of {@link Sessions.answerLink}. */
export interface AnswerLinkOptions {
  /** Who answers with the link (the response carries this principal); undefined: nobody in particular. */
  principal?: string | undefined;
  /** How long the link works, in ms from now. */
  ttlMs: number;
  /** The response the link gives when used (a one-click link); without it, the use supplies one. */
  response?: LinkResponse;
}

/** What a link says, once its signature is checked. */
export interface LinkClaims {
  /** The link's id: recorded in the run when used. */
  linkId: string;
  runId: string;
  interactionId: string;
  principal?: string;
  /** Epoch ms after which the link no longer works. */
  expiresAt: number;
  response?: LinkResponse;
}

const PREFIX = 'tkl1';
const DOMAIN = 'turnkit-answer-link\0';

function secretOf(agent: AnyAgent, where: string): string {
  const secret = agent.snapshot?.secret;
  if (!secret) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `${where}: answer links are signed with the agent's snapshot secret, and agent ${agent.name} has none. Give defineAgent a \`snapshot: { secret }\`.`,
    );
  }
  return secret;
}

/** Checks the options of a new link; throws CONFIG_INVALID saying what is wrong. */
export function checkLinkOptions(options: AnswerLinkOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new TurnkitError('CONFIG_INVALID', 'sessions.answerLink takes { ttlMs, principal?, response? }.');
  }
  if (!Number.isSafeInteger(options.ttlMs) || options.ttlMs < 1) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `sessions.answerLink: ttlMs must be a whole number of ms >= 1, got ${String(options.ttlMs)}.`,
    );
  }
  if (
    options.principal !== undefined &&
    (typeof options.principal !== 'string' || options.principal === '')
  ) {
    throw new TurnkitError('CONFIG_INVALID', 'sessions.answerLink: principal must be a non-empty string.');
  }
}

/** Signs a new link for one interaction of a run. */
export function signLink(
  agent: AnyAgent,
  claims: Omit<LinkClaims, 'linkId'>,
): { token: string; claims: LinkClaims } {
  const secret = secretOf(agent, 'sessions.answerLink');
  const full: LinkClaims = { linkId: toBase64url(randomBytes(16)), ...claims };
  const payload = toBase64url(new TextEncoder().encode(JSON.stringify(full)));
  return { token: `${PREFIX}.${payload}.${hmacHex([DOMAIN, payload], secret)}`, claims: full };
}

/**
 * The claims of a link, checked: signed with this agent's secret and unaltered (else `LinkError`,
 * forged), not expired at `nowMs` (else `LinkError`, expired).
 */
export function openLink(agent: AnyAgent, token: unknown, nowMs: number): LinkClaims {
  const secret = secretOf(agent, 'sessions.answerWithLink');
  const forged = () =>
    new LinkError(
      'This answer link is not valid: it was not issued by this server, or it was altered.',
      true,
    );
  if (typeof token !== 'string' || token.length > 16_384) throw forged();
  const [prefix, payload, sig, ...rest] = token.split('.');
  if (prefix !== PREFIX || !payload || !sig || rest.length > 0) throw forged();
  if (!constantTimeEqual(sig, hmacHex([DOMAIN, payload], secret))) throw forged();
  const bytes = fromBase64url(payload);
  let claims: LinkClaims;
  try {
    claims = JSON.parse(
      new TextDecoder('utf-8', { fatal: true }).decode(bytes ?? new Uint8Array()),
    ) as LinkClaims;
  } catch {
    throw forged();
  }
  if (typeof claims?.runId !== 'string' || typeof claims.interactionId !== 'string') throw forged();
  if (!(nowMs < claims.expiresAt)) {
    throw new LinkError(
      `This answer link expired at ${new Date(claims.expiresAt).toISOString()}. Ask for a new one, or answer in the app.`,
      false,
    );
  }
  return claims;
}

/** The error of a link whose id the run has recorded already. */
export function usedLinkError(): LinkError {
  return new LinkError(
    'This answer link was used already: each link answers once. Open the run to see its state.',
    false,
  );
}
