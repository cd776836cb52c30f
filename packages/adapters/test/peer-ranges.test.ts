/**
 * Peer ranges are tested, not hoped (DESIGN §19): every major that an optional peer's declared
 * range allows is installed here (the lock's copy, or an npm alias for a second major) and run by
 * that adapter's contract tests, named below. A range widened to an untested major fails here:
 * install that major under an alias, run the suites on it, and add it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const manifest = JSON.parse(readFileSync(join(here, '..', 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>;
};

/** Peer → the installed packages (names or aliases) its suites run on, and which suites. */
const TESTED: Record<string, { installs: string[]; suites: string }> = {
  ioredis: {
    installs: ['ioredis', 'ioredis-6'],
    suites: 'redis-store, redis-event-hub, queue (ioredis 5); peer-ioredis (ioredis 6)',
  },
  pg: { installs: ['pg'], suites: 'postgres-store, postgres-event-hub' },
  bullmq: {
    installs: ['bullmq', 'bullmq-6'],
    suites: 'queue, background-processes (bullmq 5); queue-bullmq6, background-processes-bullmq6 (bullmq 6)',
  },
  '@opentelemetry/api': { installs: ['@opentelemetry/api'], suites: 'otel' },
  '@ai-sdk/provider': {
    installs: ['@ai-sdk/provider', '@ai-sdk/provider-4'],
    suites: 'ai-sdk-model, ai-sdk-providers, ai-sdk-settings (AI SDK 6 and 7)',
  },
  '@modelcontextprotocol/client': { installs: ['@modelcontextprotocol/client'], suites: 'mcp-tools' },
  '@modelcontextprotocol/server': { installs: ['@modelcontextprotocol/server'], suites: 'mcp-server' },
  '@a2a-js/sdk': { installs: ['@a2a-js/sdk'], suites: 'a2a-server, a2a-stream, a2a-tool, a2a-turnkit' },
  openai: {
    installs: ['openai', 'openai-7'],
    suites: 'openai, openai-run, openai-errors, openai-settings (openai 6 and 7)',
  },
};

/** The version of an installed package: the adapters' own node_modules first, then the workspace's. */
function installedVersion(name: string): string {
  for (const dir of [join(here, '..'), join(here, '..', '..', '..')]) {
    const file = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')).version;
  }
  throw new Error(`${name} is not installed`);
}

/** The majors a range of `^N.x.y` parts joined by `||` allows; any other form is refused. */
function majorsOf(range: string): number[] {
  return range.split('||').map((part) => {
    const match = /^\^(\d+)\.\d+\.\d+$/.exec(part.trim());
    if (!match) throw new Error(`peer range part "${part.trim()}" is not ^N.x.y: state its majors`);
    return Number(match[1]);
  });
}

const major = (version: string) => Number(version.split('.')[0]);

describe('optional peer ranges', () => {
  it('names a tested install for every optional peer, and no other', () => {
    expect(Object.keys(TESTED).sort()).toEqual(Object.keys(manifest.peerDependencies).sort());
  });

  it.each(Object.entries(manifest.peerDependencies))(
    '%s %s: each allowed major is installed and tested',
    (peer, range) => {
      const installed = (TESTED[peer]?.installs ?? []).map((name) => major(installedVersion(name)));
      expect(installed.sort()).toEqual(majorsOf(range).sort());
    },
  );
});
