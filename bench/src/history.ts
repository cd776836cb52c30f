/**
 * The conversation every row measures against: alternating user/assistant messages of ~200
 * characters (quotes and a newline now and then, as real chat text has), ending with the user's
 * latest message. Deterministic, so runs compare.
 */
import type { ChatMessage } from '@turnkit/core';

const WORDS = (
  'vial rack freezer K562 HeLa passage thaw medium serum flask confluent aliquot label box tower ' +
  'position inventory cryo nitrogen level check log sample count viability media split seed plate ' +
  'incubator CO2 humidity order batch lot expiry protocol step minutes warm gently centrifuge pellet'
).split(' ');

const MESSAGE_CHARS = 200;

/** A small seeded PRNG (mulberry32): the same text on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function text(next: () => number, index: number): string {
  let out = index % 5 === 0 ? 'Note: "' : '';
  while (out.length < MESSAGE_CHARS) {
    const word = WORDS[Math.floor(next() * WORDS.length)]!;
    out += out.length === 0 ? word[0]!.toUpperCase() + word.slice(1) : ` ${word}`;
    if (next() < 0.08) out += next() < 0.5 ? '.' : ',';
  }
  out = out.slice(0, MESSAGE_CHARS - 2);
  return index % 5 === 0 ? `${out}"\n` : `${out}.`;
}

/** `length` prior messages, alternating user/assistant, the last one from the user. */
export function buildHistory(length: number): ChatMessage[] {
  const next = random(0x7a11c17);
  return Array.from({ length }, (_, index): ChatMessage => {
    const role = (length - index) % 2 === 1 ? 'user' : 'assistant';
    return { role, content: text(next, index) };
  });
}

/** Assistant messages in a history: where the zero-latency model's script starts. */
export function assistantTurns(history: ChatMessage[]): number {
  return history.filter((message) => message.role === 'assistant').length;
}
