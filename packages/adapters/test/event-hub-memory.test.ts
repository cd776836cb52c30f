/**
 * createEventHub, the in-process hub: what it delivers, what it keeps for streams that reconnect
 * with `Last-Event-ID` (bounded by count and by age), and how it ends.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEventHub } from '../src/events/hub.js';
import { collector, event, names, seqs, state } from './helpers/hub-fixtures.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('createEventHub', () => {
  it('delivers a run’s messages to its listeners at once, and none of another run’s', () => {
    const hub = createEventHub();
    const mine = collector();
    const subscription = hub.subscribe('run_a', mine.listener);
    expect(subscription).toMatchObject({ resumed: false });
    hub.publish('run_b', event('run_b', 1));
    hub.publish('run_a', event('run_a', 1));
    hub.publish('run_a', { event: 'ready', data: { runId: 'run_a' } });
    expect(mine.seen()).toEqual(['model_delta@1', 'ready@undefined']);
    expect(hub.listeners('run_a')).toBe(1);
    if ('then' in subscription) throw new Error('the in-process hub subscribes at once');
    subscription.unsubscribe();
    subscription.unsubscribe();
    expect(hub.listeners('run_a')).toBe(0);
  });

  it('replays what it holds after a seq (the state at that seq included), then goes on live', () => {
    const hub = createEventHub();
    for (const seq of seqs(1, 6)) hub.publish('run_a', event('run_a', seq));
    hub.publish('run_a', state('run_a', 6));
    hub.publish('run_a', { event: 'ready', data: {} });
    const got = collector();
    const subscription = hub.subscribe('run_a', got.listener, { after: 3 });
    hub.publish('run_a', event('run_a', 7));
    expect(subscription).toMatchObject({ resumed: true });
    expect(got.seen()).toEqual(names(seqs(4, 7), [6]));
  });

  it('drops a message whose place is not after the run’s last one: a repeated seq, an overtaken state', () => {
    const hub = createEventHub();
    const got = collector();
    hub.subscribe('run_a', got.listener);
    hub.publish('run_a', event('run_a', 1, 'turn_started'));
    hub.publish('run_a', event('run_a', 2));
    hub.publish('run_a', event('run_a', 1, 'interaction_resolved'));
    hub.publish('run_a', state('run_a', 1));
    hub.publish('run_a', state('run_a', 2));
    hub.publish('run_a', state('run_a', 2));
    expect(got.seen()).toEqual(['turn_started@1', 'model_delta@2', 'state@2']);
  });

  it('keeps the last maxLength messages of a run: a resume from an older one says it could not', () => {
    const hub = createEventHub({ maxLength: 3 });
    for (const seq of seqs(1, 10)) hub.publish('run_a', event('run_a', seq));
    const old = collector();
    expect(hub.subscribe('run_a', old.listener, { after: 2 })).toMatchObject({ resumed: false });
    expect(old.seen()).toEqual(names(seqs(8, 10)));
    const recent = collector();
    expect(hub.subscribe('run_a', recent.listener, { after: 8 })).toMatchObject({ resumed: true });
    expect(recent.seen()).toEqual(names([9, 10]));
    const none = createEventHub({ maxLength: 0 });
    none.publish('run_a', event('run_a', 1));
    expect(none.subscribe('run_a', () => {}, { after: 1 })).toMatchObject({ resumed: false });
  });

  it('forgets a run retainMs after its last message', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-05-01T10:00:00Z'));
    const hub = createEventHub({ retainMs: 60_000 });
    hub.publish('run_old', event('run_old', 1));
    hub.publish('run_new', event('run_new', 1));
    vi.setSystemTime(new Date('2026-05-01T10:00:59Z'));
    hub.publish('run_new', event('run_new', 2));
    expect(hub.subscribe('run_old', () => {}, { after: 1 })).toMatchObject({ resumed: true });
    vi.setSystemTime(new Date('2026-05-01T10:01:00Z'));
    expect(hub.subscribe('run_old', () => {}, { after: 1 })).toMatchObject({ resumed: false });
    expect(hub.subscribe('run_new', () => {}, { after: 1 })).toMatchObject({ resumed: true });
    // A forgotten run starts again: its next message is kept whatever its seq.
    hub.publish('run_old', event('run_old', 1));
    expect(hub.subscribe('run_old', () => {}, { after: 1 })).toMatchObject({ resumed: true });
  });

  it('on close, ends every subscription and refuses new ones', async () => {
    const hub = createEventHub();
    let ended = 0;
    hub.subscribe('run_a', () => {}, { onEnd: () => ended++ });
    hub.subscribe('run_b', () => {}, { onEnd: () => ended++ });
    await hub.close();
    expect(ended).toBe(2);
    expect(hub.listeners('run_a')).toBe(0);
    expect(() => hub.subscribe('run_a', () => {})).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });

  it('refuses options that cannot work', () => {
    const invalid = expect.objectContaining({ code: 'CONFIG_INVALID' });
    expect(() => createEventHub({ maxLength: -1 })).toThrow(invalid);
    expect(() => createEventHub({ maxLength: 1.5 })).toThrow(invalid);
    expect(() => createEventHub({ retainMs: 0 })).toThrow(invalid);
  });
});
