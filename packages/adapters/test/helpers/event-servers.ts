/**
 * Handler processes for the cross-process SSE test (DESIGN §17): a backend of their own on Redis
 * or PostgreSQL (a key prefix, or tables and a channel), fixtures/events-server.ts bundled once
 * with esbuild (core from source), and processes started on it and stopped gracefully.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import pg from 'pg';
import { postgresEventHub } from '../../src/events/hubs/postgres.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import type { EventsServerConfig } from '../fixtures/events-server.js';
import { bundleProcesses } from './bundled-child.js';

/** Bundles the server into a temporary folder; returns its path and how to remove it. */
export async function bundleEventsServer(): Promise<{ path: string; remove(): Promise<void> }> {
  const outdir = await mkdtemp(join(tmpdir(), 'turnkit-events-server-'));
  await bundleProcesses({ entries: { 'events-server': 'fixtures/events-server.ts' }, outdir });
  return {
    path: join(outdir, 'events-server.mjs'),
    remove: () => rm(outdir, { recursive: true, force: true }),
  };
}

/** A backend no other test uses, ready for servers (its tables migrated). */
export async function eventsBackend(
  kind: 'redis' | 'postgres',
  url: string,
): Promise<{ config: Omit<EventsServerConfig, 'maxQueuedBytes'>; drop(): Promise<void> }> {
  const tag = randomBytes(6).toString('hex');
  if (kind === 'redis') {
    const prefix = `turnkit-events-processes:${tag}:`;
    const config = { kind, url, store: `${prefix}run:`, events: `${prefix}events:` };
    const drop = async () => {
      const client = new Redis(url, { maxRetriesPerRequest: 1 });
      const keys = await client.keys(`${prefix}*`);
      if (keys.length > 0) await client.del(...keys);
      await client.quit();
    };
    return { config, drop };
  }
  const config = { kind, url, store: `turnkit_runs_${tag}`, events: `turnkit_events_${tag}` };
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  await postgresStore(pool, { table: config.store }).migrate();
  await postgresEventHub(pool, { table: config.events }).migrate();
  const drop = async () => {
    await pool.query(`DROP TABLE IF EXISTS ${config.store}, ${config.events}`);
    await pool.end();
  };
  return { config, drop };
}

/** A running handler process. */
export interface EventsServer {
  child: ChildProcess;
  url: string;
  /** The hub's listeners of the run in this process. */
  listeners(runId: string): Promise<number>;
  /** Asks it to close its hub and exit, and resolves with its exit code. */
  stop(): Promise<number | null>;
}

/** Starts a handler process and waits until it listens. */
export async function startEventsServer(bundle: string, config: EventsServerConfig): Promise<EventsServer> {
  const child = spawn(process.execPath, [bundle, JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) throw new Error(`events server ${child.pid} exited before it listened`);
  const { url } = JSON.parse(first.value as string) as { url: string };
  return {
    child,
    url,
    async listeners(runId) {
      const response = await fetch(`${url}/__listeners/${runId}`);
      return ((await response.json()) as { listeners: number }).listeners;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.stdin!.write('exit\n');
      return exited;
    },
  };
}
