/**
 * Every public subpath's runtime exports, pinned (issue 25: regrouping the folders changed no
 * export; the protocol mount factories are new). A name added or removed fails here on purpose:
 * change the list in the same commit, and never drop a name of an earlier release. Each subpath is
 * read from the source file its tsup entry builds, so a moved entry is caught too.
 */
import { describe, expect, it } from 'vitest';
import { entry } from '../tsup.config.js';

/** Subpath (as in package.json `exports`) → its dist name (a tsup entry) and its runtime names. */
const SUBPATHS: Record<string, { entry: string; names: string[] }> = {
  '.': {
    entry: 'index',
    names: [
      'REDACTED',
      'bullmqQueue',
      'createWorker',
      'fileStore',
      'jsonlEventLog',
      'memoryQueue',
      'postgresEventHub',
      'postgresStore',
      'readEvents',
      'redactEvent',
      'redisEventHub',
      'redisStore',
    ],
  },
  './openai': { entry: 'openai', names: ['openAIModel'] },
  './file': { entry: 'file', names: ['fileStore'] },
  './redis': { entry: 'redis', names: ['redisStore'] },
  './postgres': { entry: 'postgres', names: ['postgresStore'] },
  './events': { entry: 'events', names: ['REDACTED', 'jsonlEventLog', 'readEvents', 'redactEvent'] },
  './http': {
    entry: 'http',
    names: [
      'DEFAULT_MAX_BODY_BYTES',
      'DEFAULT_MAX_QUEUED_BYTES',
      'DEFAULT_REPLAY_TTL_MS',
      'MIN_SECRET_LENGTH',
      'PROBLEM_STATUS',
      'ROUTE_NAMES',
      'STATE_MESSAGES_MAX_CHARS',
      'createClientHeldHandler',
      'createEventHub',
      'createHandler',
      'eventsToken',
      'memoryReplayStore',
      'redisReplayStore',
    ],
  },
  './ai-sdk': {
    entry: 'ai-sdk',
    names: [
      'QUESTION_PART_TOOL',
      'UI_MESSAGE_STREAM_HEADERS',
      'aiSdkHandler',
      'aiSdkModel',
      'aiSdkProtocol',
      'toUIMessageChunks',
      'toUIMessages',
      'turnkitMetadataOf',
      'turnkitSendAutomaticallyWhen',
    ],
  },
  './ai-sdk/client': { entry: 'ai-sdk-client', names: ['turnkitMetadataOf', 'turnkitSendAutomaticallyWhen'] },
  './ag-ui': {
    entry: 'ag-ui',
    names: ['ACTIVE_AGENT_EVENT', 'INTERRUPT_EXPIRED_EVENT', 'STATE_KEY', 'agUiHandler', 'agUiProtocol'],
  },
  './mcp': { entry: 'mcp', names: ['mapToolNames', 'mcpProtocol', 'mcpServer', 'mcpTools'] },
  './a2a': {
    entry: 'a2a',
    names: [
      'A2A_VERSIONS',
      'A2aRemoteError',
      'AGENT_CARD_PATH',
      'PENDING_KEY',
      'a2aAgentTool',
      'a2aProtocol',
    ],
  },
  './otel': { entry: 'otel', names: ['otelTelemetry'] },
  './queue': { entry: 'queue', names: ['bullmqQueue', 'createWorker', 'memoryQueue'] },
};

/** The tsup entries: dist name → source file. */
const entries: Record<string, string> = entry;

describe('the public subpaths of @turnkit/adapters', () => {
  it('builds one entry per subpath, no more', () => {
    expect(Object.keys(entries).sort()).toEqual(
      Object.values(SUBPATHS)
        .map(({ entry }) => entry)
        .sort(),
    );
  });

  for (const [subpath, { entry, names }] of Object.entries(SUBPATHS)) {
    it(`exports exactly the pinned names at ${subpath}`, async () => {
      const module = await import(/* @vite-ignore */ `../${entries[entry]}`);
      expect(Object.keys(module).sort()).toEqual(names);
    });
  }
});
