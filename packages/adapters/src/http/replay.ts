/**
 * Replay protection for client-held mode (`replay: 'reject'`, DESIGN §13). A signed snapshot cannot
 * be edited, but a client can send an older one of its own run again, and the run forks: its tools
 * run again. With `replay: 'reject'` each snapshot resumes the run at most once: the handler claims
 * the snapshot in a {@link ReplayStore} before resuming, and a second claim is refused. The key is
 * what the secret authenticates — run id, turn, seq and the snapshot's own nonce (the iv of an
 * encrypted one, the signature of a signed one) — never the raw text, which a client could respell.
 */
import { parseSnapshot, readSnapshotHeader } from '@turnkit/core';
import { HttpProblem } from './problem.js';

/** Remembers which snapshots were used. Claims must be atomic across every instance of the handler. */
export interface ReplayStore {
  /**
   * Claims `key` for `ttlMs`: resolves `true` the first time, `false` while an earlier claim holds.
   */
  claim(key: string, ttlMs: number): Promise<boolean>;
  /** Gives a claim back: the handler does so when the resume was refused before anything ran. */
  release(key: string): Promise<void>;
}

/**
 * A {@link ReplayStore} in this process's memory: enough for one instance (tests, a single server).
 * Several instances need a shared store, e.g. {@link redisReplayStore}.
 */
export function memoryReplayStore(options: { now?: () => number } = {}): ReplayStore {
  const now = options.now ?? Date.now;
  // Insertion order is claim order, and one handler uses one TTL: expired claims sit at the front.
  const claims = new Map<string, number>();
  const prune = (at: number) => {
    for (const [key, until] of claims) {
      if (until > at) break;
      claims.delete(key);
    }
  };
  return {
    async claim(key, ttlMs) {
      const at = now();
      prune(at);
      const until = claims.get(key);
      if (until !== undefined && until > at) return false;
      claims.delete(key);
      claims.set(key, at + ttlMs);
      return true;
    },
    async release(key) {
      claims.delete(key);
    },
  };
}

/** The two Redis commands {@link redisReplayStore} uses, as an ioredis client has them. */
export interface RedisReplayClient {
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): Promise<'OK' | null>;
  del(key: string): Promise<number>;
}

/**
 * A {@link ReplayStore} on Redis (an ioredis client): a claim is `SET key 1 PX ttlMs NX`, atomic
 * across every instance sharing the server. Keys are `prefix + key` (default `'turnkit:replay:'`).
 */
export function redisReplayStore(
  client: RedisReplayClient,
  options: { prefix?: string | undefined } = {},
): ReplayStore {
  const prefix = options.prefix ?? 'turnkit:replay:';
  return {
    async claim(key, ttlMs) {
      return (await client.set(prefix + key, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX')) === 'OK';
    },
    async release(key) {
      await client.del(prefix + key);
    },
  };
}

/** Replay protection of a client-held route: where claims go, and how long they are remembered. */
export interface ReplayGuard {
  store: ReplayStore;
  /** How long a snapshot is remembered; older snapshots are refused. */
  ttlMs: number;
}

/** A claimed snapshot: give it back with `release` when the run did not go on from it. */
export interface SnapshotClaim {
  release(): Promise<void>;
}

/**
 * The replay key of a snapshot: what its secret authenticates. Core reads the encrypted form
 * strictly, so one sealed snapshot has one nonce, and a signed one is verified byte for byte.
 */
export function replayKey(snapshot: string, secret: string): string {
  const { runId, turn, seq, nonce } = readSnapshotHeader(snapshot, { secret });
  return `${runId}:${turn}:${seq}:${nonce ?? ''}`;
}

/**
 * Claims an authenticated snapshot once; refuses (409) one already used or too old to be
 * remembered. `named` is how the client knows it (`This snapshot`, `This requestState`…), `latest`
 * what to send instead.
 */
export async function claimSnapshot(
  guard: ReplayGuard,
  snapshot: string,
  secret: string,
  now: Date,
  words: { named: string; latest: string },
): Promise<SnapshotClaim> {
  const age = now.getTime() - Date.parse(parseSnapshot(snapshot, { secret }).createdAt);
  if (age > guard.ttlMs) {
    throw new HttpProblem(
      'CONFLICT',
      `${words.named} is older than the handler's replayTtlMs (${guard.ttlMs} ms), so it can no longer be checked for replays and is refused: start a new run.`,
    );
  }
  const key = replayKey(snapshot, secret);
  if (!(await guard.store.claim(key, guard.ttlMs))) {
    throw new HttpProblem(
      'CONFLICT',
      `${words.named} was already used to go on with the run (the handler has replay: 'reject', so each snapshot resumes once): ${words.latest}.`,
    );
  }
  return { release: () => guard.store.release(key) };
}
