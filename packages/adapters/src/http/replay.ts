/**
 * Replay protection for client-held mode (`replay: 'reject'`, DESIGN §13). A signed snapshot cannot
 * be edited, but a client can send an older one of its own run again, and the run forks: its tools
 * run again. With `replay: 'reject'` each snapshot resumes the run at most once: the handler claims
 * the snapshot's hash in a {@link ReplayStore} before resuming, and a second claim is refused.
 */

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
export function redisReplayStore(client: RedisReplayClient, options: { prefix?: string } = {}): ReplayStore {
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
