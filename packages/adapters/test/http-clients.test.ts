/**
 * Client mistakes are not server faults (DESIGN §13): an upload that breaks off is a 400 (or
 * nothing, when the socket is gone) that never reaches `onError` or the logs; a `token` that could
 * never match is refused when the handler is built.
 */
import { connect } from 'node:net';
import { memoryStore, TurnkitError } from '@turnkit/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHandler } from '../src/http/public.js';
import { inventoryAgent, listen } from './http-fixtures.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** A request body that sends `first`, then breaks as an aborted upload does. */
function breakingBody(first: string): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.error(new Error('aborted'));
      sent = true;
      controller.enqueue(new TextEncoder().encode(first));
    },
  });
}

describe('a client whose request body breaks', () => {
  it('gets a 400 problem, and nothing reaches onError or the console', async () => {
    const onError = vi.fn();
    const consoleError = vi.spyOn(console, 'error');
    const handler = createHandler({ agent: inventoryAgent(), store: memoryStore(), onError });
    const response = await handler(
      new Request('http://test.local/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: breakingBody('{"input":"Thaw'),
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(400);
    const problem = await response.json();
    expect(problem).toMatchObject({ code: 'BAD_REQUEST' });
    expect(problem.detail).toMatch(/interrupted/);
    expect(JSON.stringify(problem)).not.toMatch(/\n\s+at /);
    expect(onError).not.toHaveBeenCalled();
    expect(consoleError).not.toHaveBeenCalled();
  });

  it('is not a server fault over real HTTP either, when the socket closes mid-upload', async () => {
    const onError = vi.fn();
    const consoleError = vi.spyOn(console, 'error');
    const handler = createHandler({ agent: inventoryAgent(), store: memoryStore(), onError });
    const statuses: number[] = [];
    const server = await listen(async (request) => {
      const response = await handler(request);
      statuses.push(response.status);
      return response;
    });
    try {
      const { port } = new URL(server.url);
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write(
        'POST /runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"input":"Thaw',
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      const deadline = Date.now() + 5000;
      while (statuses.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(statuses).toEqual([400]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(onError).not.toHaveBeenCalled();
      expect(consoleError).not.toHaveBeenCalled();
    } finally {
      await server.close();
    }
  });
});

describe('createHandler options', () => {
  it('refuses a token with whitespace, which no Authorization header could carry', () => {
    for (const token of [' secret-token', 'secret-token\n', 'secret token', 'secret\ttoken']) {
      const build = () => createHandler({ agent: inventoryAgent(), store: memoryStore(), token });
      expect(build).toThrow(TurnkitError);
      expect(build).toThrow(/whitespace/);
    }
    expect(() =>
      createHandler({ agent: inventoryAgent(), store: memoryStore(), token: 'secret-token' }),
    ).not.toThrow();
  });
});
