/**
 * The demo's paced model: its text streams one piece at a time, and a turn that streams many
 * pieces under one signal leaves no abort listener behind (each pause removed its own), so a long
 * answer never trips Node's MaxListenersExceededWarning.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { demoModel } from '../src/script.js';

describe('demoModel', () => {
  it('streams its text in pieces and removes every abort listener it added', async () => {
    const model = demoModel({ paceMs: 1, thinkMs: 0 });
    const controller = new AbortController();
    const pieces: string[] = [];
    const response = await model.generate({
      messages: [{ role: 'user', content: 'Thank you!' }],
      tools: [],
      signal: controller.signal,
      onDelta: (text) => pieces.push(text),
    });
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(response.message.content);
    expect(EventEmitter.getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('stops pacing at once when the turn is aborted', async () => {
    const model = demoModel({ paceMs: 10_000, thinkMs: 0 });
    const controller = new AbortController();
    const started = performance.now();
    const generating = model.generate({
      messages: [{ role: 'user', content: 'Thank you!' }],
      tools: [],
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    await generating;
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(EventEmitter.getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
