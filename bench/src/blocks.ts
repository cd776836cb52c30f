/**
 * The building blocks of a cycle, timed alone on the snapshots a real cycle wrote: JSON, the shape
 * check, HMAC and the signature check (as core does it, and a cheaper equivalent), and one machine
 * transition, START (through xstate's `transition()`, and with an actor scope reused across calls).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { agentMachine, type ChatMessage, type LoopEvent, memoryStore, parseSnapshot } from '@turnkit/core';
import { type AnyActorScope, createActor, initialTransition, transition } from 'xstate';
import { cycleAgent, runCycle, SECRET } from './cycle.js';
import { newBench, runRounds } from './report.js';

const SIGNATURE_TAIL = /,"sig":"([0-9a-f]{64})"\}$/;

function hmacHex(text: string): string {
  return createHmac('sha256', SECRET).update(text).digest('hex');
}

/** What core does today: strip the tail, rebuild the unsigned text, HMAC it, parse it. */
function verifyAsCore(signed: string): unknown {
  const match = SIGNATURE_TAIL.exec(signed)!;
  const unsigned = `${signed.slice(0, match.index)}}`;
  if (!timingSafeEqual(Buffer.from(hmacHex(unsigned), 'hex'), Buffer.from(match[1]!, 'hex')))
    throw new Error('tampered');
  return JSON.parse(unsigned);
}

/** The same check without building the unsigned string: HMAC the prefix and `}` in two updates, parse the flat original. */
function verifyInPlace(signed: string): unknown {
  const match = SIGNATURE_TAIL.exec(signed)!;
  const digest = createHmac('sha256', SECRET).update(signed.slice(0, match.index)).update('}').digest();
  if (!timingSafeEqual(digest, Buffer.from(match[1]!, 'hex'))) throw new Error('tampered');
  const envelope = JSON.parse(signed) as Record<string, unknown>;
  delete envelope.sig;
  return envelope;
}

/** An inert actor scope like the one xstate's `transition()` builds on every call, built once. */
function reusedScope(): AnyActorScope {
  const self = createActor(agentMachine);
  const noop = () => undefined;
  return {
    self,
    id: '',
    sessionId: '',
    system: self.system,
    defer: noop,
    emit: noop,
    logger: noop,
    stopChild: noop,
    actionExecutor: noop,
  } as unknown as AnyActorScope;
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
  const scope = reusedScope();
  if (transition(agentMachine, idle, start)[0].value !== agentMachine.transition(idle, start, scope).value) {
    throw new Error('the reused scope changes what the machine does');
  }
  const bench = newBench({ time: 200, warmupTime: 50 });
  bench
    .add('JSON floor: stringify + parse of the messages', () => JSON.parse(JSON.stringify(history)))
    .add('JSON.parse(snapshot)', () => JSON.parse(paused))
    .add('JSON.stringify(decoded snapshot)', () => JSON.stringify(decoded))
    .add('parseSnapshot: JSON.parse + zod envelope + message check', () => parseSnapshot(paused))
    .add('parseSnapshot(signed, { secret })', () => parseSnapshot(signed, { secret: SECRET }))
    .add('HMAC-SHA256 of the snapshot text', () => hmacHex(paused))
    .add('verify + parse as core: unsigned copy, HMAC, parse', () => verifyAsCore(signed))
    .add('verify + parse in place: HMAC prefix + "}", parse original', () => verifyInPlace(signed))
    .add('transition(agentMachine, idle, START)', () => transition(agentMachine, idle, start))
    .add('agentMachine.transition(idle, START, reused scope)', () =>
      agentMachine.transition(idle, start, scope),
    )
    .add('createActor(agentMachine): paid by every transition()', () => createActor(agentMachine))
    .add('agentMachine.resolveState(decoded.state)', () => agentMachine.resolveState(decoded.state));
  const timings = await runRounds(bench, 2);
  return [...timings].map(([name, timing]) => [name, timing.medianMs]);
}
