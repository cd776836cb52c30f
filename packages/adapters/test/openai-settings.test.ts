/**
 * `request.settings` and `request.responseFormat` (DESIGN §23) in the OpenAI adapter: the request
 * body the loopback Chat Completions server receives carries exactly the mapped fields.
 */
import { defineAgent, runTurn } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { completion, sendJson } from './helpers/chat-server.js';
import {
  messages,
  OPENAI_MAJORS,
  type OpenAIMajor,
  request,
  tools,
  useChatServer,
} from './helpers/openai-fixtures.js';

const chat = useChatServer();

function answer(content: string) {
  chat.server.respond = (_request, response) => sendJson(response, 200, completion({ content }));
}

describe.each(OPENAI_MAJORS)('openai $major', (major: OpenAIMajor) => {
  const model = (options: Parameters<typeof chat.model>[0] = {}) => chat.model(options, major);

  describe('openAIModel settings', () => {
    it('sends no settings field when the request has none', async () => {
      answer('Done.');
      await model({ stream: false }).generate(request());
      expect(chat.server.requests[0]?.body).toEqual({ model: 'test-model', messages, tools, stream: false });
    });

    it('maps every setting to its Chat Completions field and spreads providerOptions.openai', async () => {
      answer('Done.');
      await model({ stream: false }).generate(
        request({
          settings: {
            temperature: 0.3,
            topP: 0.9,
            maxOutputTokens: 256,
            toolChoice: { type: 'function', name: 'query' },
            parallelToolCalls: false,
            stop: ['END'],
            seed: 7,
            providerOptions: { openai: { reasoning_effort: 'low' }, anthropic: { ignored: true } },
          },
        }),
      );
      expect(chat.server.requests[0]?.body).toEqual({
        model: 'test-model',
        messages,
        tools,
        stream: false,
        temperature: 0.3,
        top_p: 0.9,
        max_completion_tokens: 256,
        tool_choice: { type: 'function', function: { name: 'query' } },
        parallel_tool_calls: false,
        stop: ['END'],
        seed: 7,
        reasoning_effort: 'low',
      });
    });

    it('sends a string tool choice as is, and no parallel_tool_calls on a call without tools', async () => {
      answer('Done.');
      await chat
        .model({ stream: false })
        .generate({ messages, tools: [], settings: { toolChoice: 'none', parallelToolCalls: true } });
      expect(chat.server.requests[0]?.body).toEqual({
        model: 'test-model',
        messages,
        stream: false,
        tool_choice: 'none',
      });
    });

    it("lets the call's temperature win over the adapter's, and the model name over providerOptions", async () => {
      answer('Done.');
      await chat
        .model({ stream: false, temperature: 1 })
        .generate(request({ settings: { temperature: 0, providerOptions: { openai: { model: 'other' } } } }));
      expect(chat.server.requests[0]?.body).toMatchObject({ model: 'test-model', temperature: 0 });
    });
  });

  describe('openAIModel structured output', () => {
    it('sends a schema within the strict subset as strict json_schema, objects closed', async () => {
      answer('{}');
      const schema = {
        type: 'object',
        properties: {
          vials: { type: 'integer' },
          lines: {
            type: 'array',
            items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          },
        },
        required: ['vials', 'lines'],
      };
      await model({ stream: false }).generate(request({ responseFormat: { name: 'planner', schema } }));
      expect(chat.server.requests[0]?.body.response_format).toEqual({
        type: 'json_schema',
        json_schema: {
          name: 'planner',
          strict: true,
          schema: {
            type: 'object',
            properties: {
              vials: { type: 'integer' },
              lines: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { name: { type: 'string' } },
                  required: ['name'],
                  additionalProperties: false,
                },
              },
            },
            required: ['vials', 'lines'],
            additionalProperties: false,
          },
        },
      });
    });

    it('sends a schema outside the strict subset (an optional field, minLength) as given, strict false', async () => {
      answer('{}');
      const optional = {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'number' } },
        required: ['a'],
      };
      const lengthy = {
        type: 'object',
        properties: { a: { type: 'string', minLength: 1 } },
        required: ['a'],
      };
      const adapter = model({ stream: false });
      await adapter.generate(request({ responseFormat: { name: 'x', schema: optional } }));
      await adapter.generate(request({ responseFormat: { name: 'x', schema: lengthy } }));
      expect(chat.server.requests.map((received) => received.body.response_format)).toEqual([
        { type: 'json_schema', json_schema: { name: 'x', schema: optional, strict: false } },
        { type: 'json_schema', json_schema: { name: 'x', schema: lengthy, strict: false } },
      ]);
    });

    it("carries an agent's output schema and modelSettings through a turn, and parses the answer", async () => {
      answer('{"priority":"high"}');
      const agent = defineAgent({
        name: 'triage.agent',
        instructions: 'Triage.',
        model: model({ stream: false }),
        output: z.object({ priority: z.enum(['low', 'high']) }),
        modelSettings: { temperature: 0, seed: 1 },
      });
      const result = await runTurn(agent, { input: 'Freezer 3 alarms' }, { modelSettings: { seed: 2 } });
      expect(result.status === 'completed' && result.output).toEqual({ priority: 'high' });
      expect(chat.server.requests[0]?.body).toMatchObject({
        temperature: 0,
        seed: 2,
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'triage_agent',
            strict: true,
            schema: {
              type: 'object',
              properties: { priority: { type: 'string', enum: ['low', 'high'] } },
              required: ['priority'],
              additionalProperties: false,
            },
          },
        },
      });
    });
  });
});
