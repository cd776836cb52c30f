/**
 * The demo server of a test file, started before its tests on a folder of its own and closed after
 * (no browser): `url()` where it listens, `post(path, body)` a JSON request and its JSON answer.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type DemoOptions, type DemoServer, startDemoServer } from '../src/server.js';

export function useDemoServer(options: Partial<DemoOptions> = {}) {
  let server: DemoServer;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'turnkit-web-'));
    server = await startDemoServer({ port: 0, dataDir: dir, paceMs: 0, thinkMs: 0, ...options });
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
  const url = () => server.url;
  async function post(path: string, body: unknown) {
    const response = await fetch(new URL(path, server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }
  return { url, post };
}
