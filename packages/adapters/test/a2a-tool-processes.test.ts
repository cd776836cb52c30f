/**
 * `a2aAgentTool` and a worker that dies after sending its message (DESIGN §21, §29), across
 * processes on the file, Redis and PostgreSQL stores: a worker process plays the assistant, its
 * message reaches the remote (an `@a2a-js/sdk` server that does not answer its first task), and the
 * worker is killed with SIGKILL. Played again from this process, the call is in doubt: nothing is
 * sent again until a person approves, and then the same message (same message id) goes once more.
 * (A rejection, which sends nothing and tells the model, is in a2a-tool.test.ts.)
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSessions } from '@turnkit/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { A2aInDoubtWorkerConfig } from './fixtures/a2a-in-doubt-worker.js';
import { assistant, FREEZER_CALL } from './helpers/a2a-assistant.js';
import { closeSdkServers, serveSdkAgent } from './helpers/a2a-sdk-server.js';
import { bundleProcesses } from './helpers/bundled-child.js';
import { LEASE_MS, leaseLapse } from './helpers/in-doubt-kill.js';
import { findServers, type StoreKind, sharedStores } from './helpers/lease-stores.js';

const servers = findServers();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let outdir: string;

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'turnkit-a2a-worker-'));
  await bundleProcesses({ entries: { 'a2a-in-doubt-worker': 'fixtures/a2a-in-doubt-worker.ts' }, outdir });
});
afterAll(async () => {
  if (outdir) await rm(outdir, { recursive: true, force: true });
});
afterEach(closeSdkServers);

/** Starts the worker; once the remote holds its message, kills it with SIGKILL. */
async function killedAfterSending(config: A2aInDoubtWorkerConfig, received: () => number): Promise<void> {
  const child = spawn(process.execPath, [join(outdir, 'a2a-in-doubt-worker.mjs'), JSON.stringify(config)], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (let polls = 0; received() === 0; polls++) {
      expect(child.exitCode, 'the worker exited before sending').toBeNull();
      expect(polls).toBeLessThan(600);
      await sleep(25);
    }
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

const toolResult = (messages: { role: string; tool_call_id?: string; content: unknown }[]) =>
  messages.find((message) => message.role === 'tool' && message.tool_call_id === FREEZER_CALL)?.content;

describe.each(['file', 'redis', 'postgres'] as const)(
  'a2aAgentTool after kill -9 (%s store)',
  (kind: StoreKind) => {
    it.skipIf(servers.missing(kind))(
      'sends nothing again until a person approves; then the same message (same id), once',
      async () => {
        const freezer = await serveSdkAgent('hang-once');
        const backend = await sharedStores(kind, 'a2a-in-doubt', 1, servers.urls[kind]);
        try {
          const store = backend.stores[0]!;
          const runId = `run_a2a_${Math.random().toString(36).slice(2, 10)}`;
          const config = { address: backend.address!, leaseMs: LEASE_MS, runId, url: freezer.url };
          await killedAfterSending(config, () => freezer.received.length);
          await leaseLapse(store, runId);
          const sessions = createSessions({
            agent: assistant({ url: freezer.url }),
            store,
            leaseMs: LEASE_MS,
          });

          const retried = await sessions.retry(runId);
          expect(retried.status).toBe('needs_input');
          expect(retried.pendingQuestion).toMatchObject({ kind: 'in_doubt', toolName: 'freezer' });
          expect(freezer.received).toHaveLength(1);

          const approved = await sessions.approve(runId, { rationale: 'The freezer log shows nothing.' });
          expect(approved.status).toBe('completed');
          expect(toolResult(approved.messages)).toBe('Thawed K562 from Thaw one K562 vial');
          expect(freezer.received.map((message) => message.messageId)).toEqual([
            `turnkit:${runId}:${FREEZER_CALL}`,
            `turnkit:${runId}:${FREEZER_CALL}`,
          ]);
        } finally {
          await backend.teardown();
        }
      },
      30_000,
    );
  },
);
