/**
 * The building blocks of a cycle, timed alone on the snapshots a real cycle wrote: JSON, the shape
 * check, HMAC and the signature check as core does it, and for comparison one machine transition,
 * START, through xstate's `transition()` (core applies the same chart's rules directly, see
 * `machine/transition.ts`; the profile shows what that costs within a cycle).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { agentMachine, type ChatMessage, type LoopEvent, memoryStore, parseSnapshot } from '@turnkit/core';
import { initialTransition, transition } from 'xstate';
import { cycleAgent, runCycle, SECRET } from './cycle.js';
import { newBench, runRounds } from './report.js';

const SIGNATURE_TAIL = /,"sig":"([0-9a-f]{64})"\}$/;

function hmacHex(text: string): string {
  return createHmac('sha256', SECRET).update(text).digest('hex');
}

/** What core does: HMAC the prefix and `}` in two updates (no unsigned copy), parse the flat original. */
function verifyInPlace(signed: string): unknown {
  const match = SIGNATURE_TAIL.exec(signed)!;
  const digest = createHmac('sha256', SECRET).update(signed.slice(0, match.index)).update('}').digest();
  if (!timingSafeEqual(digest, Buffer.from(match[1]!, 'hex'))) throw new Error('tampered');
  const envelope = JSON.parse(signed) as Record<string, unknown>;
  delete envelope.sig;
  return envelope;
}

/** Medians (ms) of each building block at this history length. */
export async function buildingBlocks(
  history: ChatMessage[],
): Promise<Array<[name: string, medianMs: number]>> {
  const paused = (await runCycle(cycleAgent(history), history, memoryStore())).paused.snapshot;
  const signedRun = (await runCycle(cycleAgent(history, { secret: SECRET }), history, memoryStore())).paused
    .snapshot;
  // As read back from a store: one flat string, not the concatenation encodeSnapshot returns.
  const signed = Buffer.from(signedRun).toString('utf8');
  const decoded = parseSnapshot(paused);
  // START from idle: what runTurn sends first (appends the history, checks the step budget).
  const idle = initialTransition(agentMachine)[0];
  const start: LoopEvent = { type: 'START', messages: history, maxSteps: 20 };
  const bench = newBench({ time: 200, warmupTime: 50 });
  bench
    .add('JSON floor: stringify + parse of the messages', () => JSON.parse(JSON.stringify(history)))
    .add('JSON.parse(snapshot)', () => JSON.parse(paused))
    .add('JSON.stringify(decoded snapshot)', () => JSON.stringify(decoded))
    .add('parseSnapshot: JSON.parse + shape check + message check', () => parseSnapshot(paused))
    .add('parseSnapshot(signed, { secret })', () => parseSnapshot(signed, { secret: SECRET }))
    .add('HMAC-SHA256 of the snapshot text', () => hmacHex(paused))
    .add('verify + parse: HMAC prefix + "}", parse original', () => verifyInPlace(signed))
    .add('xstate: transition(agentMachine, idle, START)', () => transition(agentMachine, idle, start))
    .add('xstate: agentMachine.resolveState(decoded.state)', () => agentMachine.resolveState(decoded.state));
  const timings = await runRounds(bench, 2);
  return [...timings].map(([name, timing]) => [name, timing.medianMs]);
}
