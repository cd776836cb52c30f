/**
 * What the demo's tests share: a demo server of their own in a temporary folder (fast pace), and the
 * run behind a chat as the file store keeps it — the freezer's audit trail, which says how often
 * `thaw_vials` ran.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileStore } from '@turnkit/adapters/file';
import { parseSnapshot } from '@turnkit/core';
import type { Freezer } from '@turnkit/demo-web/freezer';
import { afterAll, beforeAll } from 'vitest';
import { type ChatDemoOptions, type ChatServer, startChatServer } from '../src/server.js';

/** A demo server for one test file. */
export interface ServerFixture {
  server(): ChatServer;
  /** The steps of `thaw_vials` the chat's run recorded, e.g. `['thaw_vials.execute', 'thaw_vials.resume']`. */
  toolSteps(chatId: string): Promise<string[]>;
}

/**
 * Starts a demo server (fast pace, `options` on top, or what the function makes of them) before the
 * file's tests, and stops it after them.
 */
export function withChatServer(
  options: ChatDemoOptions | (() => Promise<ChatDemoOptions>) = {},
): ServerFixture {
  let dir: string;
  let server: ChatServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'turnkit-chat-'));
    const extra = typeof options === 'function' ? await options() : options;
    server = await startChatServer({
      port: 0,
      dataDir: join(dir, 'runs'),
      paceMs: 10,
      thinkMs: 20,
      ...extra,
    });
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return {
    server: () => server,
    async toolSteps(chatId) {
      const stored = await fileStore(join(dir, 'runs')).get(chatId);
      if (!stored) throw new Error(`No run is kept for chat ${chatId}`);
      // superjson keeps the plain JSON in `json`.
      const freezer = (parseSnapshot(stored.snapshot).context as unknown as { json: Freezer }).json;
      return (freezer.audit ?? []).map((entry) => `${entry.tool}.${entry.step}`);
    },
  };
}
