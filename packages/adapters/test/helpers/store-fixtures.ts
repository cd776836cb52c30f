/**
 * What the store contract suites share: the fixture a store test provides, run ids no other test
 * uses, snapshot texts, and the two kinds of store clock (a fake one that tests move, and the real
 * clock of a server that tests wait for).
 */
import { randomUUID } from 'node:crypto';
import { ConflictError, type SnapshotStore } from '@turnkit/core';
import { expect } from 'vitest';

/** How the lease tests let time pass on the store's clock. */
export interface StoreClock {
  /** Lease length the lease tests use: anything for a fake clock, short for a server's real one. */
  leaseMs: number;
  /** Lets `ms` pass on the store's clock. */
  elapse(ms: number): Promise<void>;
}

/** A store to test, its clock, and how to clean up after the suite. */
export interface StoreFixture {
  store: SnapshotStore;
  clock: StoreClock;
  /**
   * A second client of the same server (Redis, PostgreSQL), for the test that host clocks play no
   * part in leases. Stores on the host clock (memory, file) have none.
   */
  peer?: SnapshotStore;
  teardown?: () => Promise<void>;
}

/** A clock for stores that take `now` (memory, file): `now` to give the store, `elapse` to move it. */
export function fakeClock(): StoreClock & { now: () => number } {
  let now = Date.parse('2030-01-01T00:00:00.000Z');
  return {
    leaseMs: 60_000,
    now: () => now,
    elapse: async (ms) => {
      now += ms;
    },
  };
}

/** The real clock of a server-side store: short leases, real waits. */
export function serverClock(leaseMs = 300): StoreClock {
  return { leaseMs, elapse: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };
}

/** Writers racing in the concurrency tests. */
export const CONCURRENT_WRITERS = 20;

/** A run id no other test (or parallel test run) uses; safe for every store, file names included. */
export function freshRunId(label: string): string {
  return `${label}-${randomUUID()}`;
}

/** A JSON snapshot-like text of about `bytes` bytes. */
export function bigSnapshot(bytes: number): string {
  const line = 'The quick brown fox thaws one K562 vial at 37 °C — ok. ';
  return JSON.stringify({ transcript: line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes) });
}

/**
 * A layout-2 head (DESIGN §17) around a tiny envelope `{"label":…,"messages":[],"resolved":[]}`,
 * and what that head assembles to with given log texts: for testing stores without a real run.
 */
export function partsHead(label: string): string {
  const envelope = `{"label":${JSON.stringify(label)},"messages":[],"resolved":[]}`;
  const at = [envelope.indexOf('[') + 1, envelope.lastIndexOf('[') + 1];
  return `${JSON.stringify({ layout: 2, at, messages: 0, resolved: 0 })}\n${envelope}`;
}

/** What {@link partsHead}`(label)` assembles to with the given log texts. */
export function assembledParts(label: string, messages: string, resolved: string): string {
  return `{"label":${JSON.stringify(label)},"messages":[${messages}],"resolved":[${resolved}]}`;
}

/** Awaits `promise` and expects it to reject with a `ConflictError`. */
export async function expectConflict(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => expect.fail('expected a ConflictError'),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConflictError);
  expect((error as ConflictError).code).toBe('CONFLICT');
}
