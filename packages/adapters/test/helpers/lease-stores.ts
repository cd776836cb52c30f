/**
 * One shared store, many clients: the lease tests play "workers" as sessions over their own store
 * client (their own fileStore, Redis connection or pg pool) on one backend, a folder, Redis key
 * prefix or PostgreSQL table no other test uses. A child process opens the same backend from its
 * {@link StoreAddress}.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryStore, type SnapshotStore } from '@turnkit/core';
import { Redis } from 'ioredis';
import pg from 'pg';
import { fileStore } from '../../src/stores/file-store.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { serverUrl } from '../store-servers.js';

export type StoreKind = 'memory' | 'file' | 'redis' | 'postgres';

/** Where a backend lives: a folder (file), a key prefix (redis) or a table (postgres), and the server. */
export interface StoreAddress {
  kind: Exclude<StoreKind, 'memory'>;
  /** The server URL (redis, postgres). */
  url?: string;
  /** The folder, key prefix or table. */
  location: string;
}

/** The servers the Redis and PostgreSQL stores need, found as the store suites find them. */
export interface Servers {
  /** The server URL per kind; undefined for memory and file, which need none. */
  urls: Record<StoreKind, string | undefined>;
  /** Whether `kind` needs a server that does not answer: its tests are skipped. */
  missing(kind: StoreKind): boolean;
}

/** Looks for the servers (at module load of a suite, so it can skip tests). */
export function findServers(): Servers {
  const urls: Record<StoreKind, string | undefined> = {
    memory: undefined,
    file: undefined,
    redis: serverUrl('TURNKIT_REDIS_URL', 'Redis'),
    postgres: serverUrl('TURNKIT_PG_URL', 'PostgreSQL'),
  };
  return { urls, missing: (kind) => (kind === 'redis' || kind === 'postgres') && !urls[kind] };
}

/** A store client and how to let go of it. */
export interface StoreClient {
  store: SnapshotStore;
  close(): Promise<void>;
}

/**
 * A lock older than this is broken. Short, because a worker SIGKILLed inside a file store write
 * leaves its lock behind; longer than any write of these tests holds it.
 */
const FILE_STALE_LOCK_MS = 2_000;

/** Opens one more client of the backend at `address`. */
export async function connectStore(address: StoreAddress): Promise<StoreClient> {
  switch (address.kind) {
    case 'file':
      return {
        store: fileStore(address.location, { staleLockMs: FILE_STALE_LOCK_MS }),
        close: async () => undefined,
      };
    case 'redis': {
      const client = new Redis(address.url!, { maxRetriesPerRequest: 1 });
      return { store: redisStore(client, { prefix: address.location }), close: () => client.quit().then() };
    }
    case 'postgres': {
      const pool = new pg.Pool({ connectionString: address.url, max: 5 });
      return { store: postgresStore(pool, { table: address.location }), close: () => pool.end() };
    }
  }
}

/** A fresh backend and `clients` clients of it. */
export interface SharedStores {
  stores: SnapshotStore[];
  /** Null for memory (no other process can reach it). */
  address: StoreAddress | null;
  teardown(): Promise<void>;
}

/**
 * Makes a backend no other test uses (`label` names it) and opens `clients` clients on it.
 * Memory has one store, shared by every "client". `url` is the server's, for redis and postgres.
 */
export async function sharedStores(
  kind: StoreKind,
  label: string,
  clients: number,
  url?: string,
): Promise<SharedStores> {
  const tag = randomBytes(6).toString('hex');
  if (kind === 'memory') {
    const store = memoryStore();
    return { stores: Array.from({ length: clients }, () => store), address: null, teardown: async () => {} };
  }
  const location =
    kind === 'file'
      ? await mkdtemp(join(tmpdir(), `turnkit-${label}-`))
      : kind === 'redis'
        ? `turnkit-${label}:${tag}:`
        : `turnkit_${label.replaceAll('-', '_')}_${tag}`;
  const address: StoreAddress = { kind, location, ...(url ? { url } : {}) };
  const opened = await Promise.all(Array.from({ length: clients }, () => connectStore(address)));
  if (kind === 'postgres') await (opened[0]!.store as ReturnType<typeof postgresStore>).migrate();
  const teardown = async () => {
    await dropBackend(address);
    await Promise.all(opened.map((client) => client.close()));
  };
  return { stores: opened.map((client) => client.store), address, teardown };
}

/** Removes the folder, keys or table of a backend. */
async function dropBackend(address: StoreAddress): Promise<void> {
  if (address.kind === 'file') {
    await rm(address.location, { recursive: true, force: true });
    return;
  }
  if (address.kind === 'redis') {
    const client = new Redis(address.url!, { maxRetriesPerRequest: 1 });
    const keys = await client.keys(`${address.location}*`);
    if (keys.length > 0) await client.del(...keys);
    await client.quit();
    return;
  }
  const pool = new pg.Pool({ connectionString: address.url, max: 1 });
  await pool.query(
    `DROP TABLE IF EXISTS ${address.location}, ${address.location}_log, ${address.location}_pts, ${address.location}_pending`,
  );
  await pool.end();
}
