/**
 * `aiSdkModel` on real providers of both AI SDK lines against loopback servers — `@ai-sdk/openai`
 * 3 and 4 and `@ai-sdk/openai-compatible` 2 on a chat-completions fake, `@ai-sdk/anthropic` 3 and 4
 * on a Messages API fake speaking its SSE events — and on `MockLanguageModelV3` / `V4`: each pauses
 * on a question here and resumes in ANOTHER Node process with a fresh model instance, the tool-call
 * id intact on both sides of the wire. The providers' real failures are in
 * `ai-sdk-providers-failures.test.ts`.
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTurn, type TurnResult } from '@turnkit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ASK_CALL_ID,
  answerChat,
  answerMessages,
  familyOf,
  PROVIDER_KINDS,
  type ProviderKind,
  providerAgent,
  QUESTION_ARGUMENTS,
} from './helpers/ai-sdk-providers.js';
import { bundleFixture, runChild } from './helpers/bundled-child.js';
import { type ChatServer, startChatServer } from './helpers/chat-server.js';

let server: ChatServer;
let bundle: string;
beforeAll(async () => {
  [server, bundle] = await Promise.all([startChatServer(), bundleFixture('ai-sdk-resume')]);
});
afterAll(() => server.close());

describe.each<ProviderKind>(PROVIDER_KINDS)('aiSdkModel on %s', (kind) => {
  const family = familyOf(kind);
  it('pauses here and resumes in another Node process with a fresh model, the call id kept', async () => {
    server.requests.length = 0;
    server.respond = family === 'anthropic' ? answerMessages : answerChat;
    const paused = await runTurn(providerAgent(kind, server.baseURL), { input: 'Thaw one vial' });
    expect(paused.status).toBe('needs_input');
    expect(paused.pendingQuestion).toMatchObject({ toolCallId: ASK_CALL_ID[family], kind: 'question' });
    expect(paused.messages[1]).toMatchObject({
      tool_calls: [
        { id: ASK_CALL_ID[family], function: { name: 'AskUserQuestion', arguments: QUESTION_ARGUMENTS } },
      ],
    });
    if (family !== 'mock') expect(paused.usage).toMatchObject({ inputTokens: 20, outputTokens: 8 });

    const file = join(await mkdtemp(join(tmpdir(), 'turnkit-ai-sdk-')), 'paused.json');
    writeFileSync(file, paused.snapshot);
    const { pid, result } = await runChild<{ pid: number; result: TurnResult }>(bundle, [
      kind,
      server.baseURL,
      file,
      'HeLa',
    ]);

    expect(pid).not.toBe(process.pid);
    expect(result.status).toBe('completed');
    expect(result.output).toBe('Noted: {"answers":{"Line":"HeLa"}}');
    expect(result.messages[2]).toEqual({
      role: 'tool',
      tool_call_id: ASK_CALL_ID[family],
      content: '{"answers":{"Line":"HeLa"}}',
    });
    if (family === 'openai') {
      const sent = server.requests[1]?.body.messages as unknown[];
      expect(sent.slice(2)).toMatchObject([
        {
          role: 'assistant',
          tool_calls: [
            {
              id: 'call_ask_1',
              type: 'function',
              function: { name: 'AskUserQuestion', arguments: QUESTION_ARGUMENTS },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_ask_1', content: '{"answers":{"Line":"HeLa"}}' },
      ]);
    }
    if (family === 'anthropic') {
      const sent = server.requests[1]?.body.messages as unknown[];
      expect(sent.slice(1)).toMatchObject([
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'One moment.' },
            {
              type: 'tool_use',
              id: 'toolu_ask_1',
              name: 'AskUserQuestion',
              input: JSON.parse(QUESTION_ARGUMENTS),
            },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_ask_1', content: '{"answers":{"Line":"HeLa"}}' },
          ],
        },
      ]);
      expect(server.requests[1]?.body).toMatchObject({
        model: 'claude-test-1',
        max_tokens: 256,
        stream: true,
      });
    }
  });
});
