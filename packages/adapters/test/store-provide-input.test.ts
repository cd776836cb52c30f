/**
 * `sessions.provideInput` on every store (DESIGN §14, issue 13): a tool asks for a form
 * mid-execution (`ctx.ask({ input })`), and the run pauses `needs_input`. A second worker, with its
 * own sessions, agent and store client, is sent values. It refuses an invalid one and leaves the row
 * as it was. It resumes a valid one: `resume` runs once, and `execute` never runs again. The same
 * value sent again only reads the run. The form comes in two kinds: a zod schema, which the store
 * holds as JSON Schema, and a JSON Schema kept exactly as given. In both cases the value is checked
 * against the schema the store holds.
 */
import {
  type Agent,
  AnswerError,
  createSessions,
  defineAgent,
  defineTool,
  type SessionResult,
  type ToolMessage,
} from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { findServers, sharedStores } from './helpers/lease-stores.js';

const servers = findServers();

const BOXES = ['B2-14', 'B2-15', 'C1-03'];
const CALL_ID = 'thaw';
const ASKED_AT = new Date('2026-02-03T09:00:00.000Z');

/** The form as a tool can give it: a zod schema, or a JSON Schema kept exactly as given. */
const FORMS = {
  zod: { schema: z.object({ box: z.enum(BOXES) }) },
  jsonSchema: {
    jsonSchema: {
      type: 'object',
      properties: {
        box: {
          type: 'string',
          title: 'Box',
          oneOf: BOXES.map((box) => ({ const: box, title: `Box ${box}` })),
        },
      },
      required: ['box'],
    },
  },
};
type FormKind = keyof typeof FORMS;

/** The form's JSON Schema as `pending[0].payload.schema` shows it: the zod schema converted, the JSON Schema as given. */
const SHOWN_SCHEMA: Record<FormKind, Record<string, unknown>> = {
  // As z.toJSONSchema writes it: a zod object refuses keys it does not name.
  zod: {
    type: 'object',
    properties: { box: { type: 'string', enum: BOXES } },
    required: ['box'],
    additionalProperties: false,
  },
  jsonSchema: FORMS.jsonSchema.jsonSchema,
};

/** Values the form must refuse, with the path its first issue names: another box, the box alone, no box. */
const INVALID_VALUES: { value: unknown; path: string[] }[] = [
  { value: { box: 'Z9-99' }, path: ['value', 'box'] },
  { value: 'B2-15', path: ['value'] },
  { value: {}, path: ['value', 'box'] },
];

/**
 * An LN2 agent whose `record_thaw` asks which box to thaw from, with `state` holding the boxes and a
 * Date (which must survive the store). Each `execute` and `resume` is logged as
 * `<what> <worker> <idempotencyKey>`. The model reports the tool's result.
 */
function formAgent(worker: string, form: FormKind, log: string[]): Agent {
  const recordThaw = defineTool({
    name: 'record_thaw',
    description: 'Record a thaw; asks which of the matching boxes',
    input: z.object({ cellLine: z.string() }),
    execute: ({ cellLine }, ctx) => {
      log.push(`execute ${worker} ${ctx.idempotencyKey}`);
      return ctx.ask(
        { input: { message: `${BOXES.length} boxes hold ${cellLine}: which one?`, ...FORMS[form] } },
        { boxes: BOXES, askedAt: ASKED_AT },
      );
    },
    resume: ({ cellLine }, response, ctx) => {
      log.push(`resume ${worker} ${ctx.idempotencyKey}`);
      if (response.kind !== 'input') throw new Error(`unexpected ${response.kind}`);
      const state = response.state as { boxes: string[]; askedAt: Date };
      return {
        thawed: cellLine,
        box: (response.value as { box: string }).box,
        of: state.boxes.length,
        askedAtIsDate: state.askedAt instanceof Date,
      };
    },
  });
  return defineAgent({
    name: 'freezer',
    instructions: 'You record thaws.',
    model: scriptedModel([
      { toolCalls: [{ id: CALL_ID, name: 'record_thaw', arguments: { cellLine: 'K562' } }] },
      (request) => `Recorded: ${request.messages.at(-1)?.content}`,
    ]),
    tools: [recordThaw],
  });
}

/** The tool messages of a transcript. */
const toolMessages = (result: SessionResult) =>
  result.messages.filter((message): message is ToolMessage => message.role === 'tool');

describe('sessions.provideInput on every store: a tool’s form answered by another worker', () => {
  for (const kind of ['memory', 'file', 'redis', 'postgres'] as const) {
    for (const form of ['zod', 'jsonSchema'] as const) {
      it.skipIf(servers.missing(kind))(
        `${kind}, ${form} form: refuses an invalid value unchanged, resumes once on a valid one, reads a repeat`,
        async () => {
          const backend = await sharedStores(kind, 'provide-input', 2, servers.urls[kind]);
          const log: string[] = [];
          try {
            const [firstStore, secondStore] = backend.stores;
            const first = createSessions({ agent: formAgent('first', form, log), store: firstStore! });
            const second = createSessions({ agent: formAgent('second', form, log), store: secondStore! });

            const paused = await first.start('Thaw one K562 vial');
            const { runId } = paused;
            const key = `${runId}:${CALL_ID}`;
            expect(paused.status).toBe('needs_input');
            expect(paused.pending).toHaveLength(1);
            expect(paused.pending[0]).toMatchObject({
              kind: 'input',
              toolName: 'record_thaw',
              toolCallId: CALL_ID,
              askedByTool: true,
            });
            expect(paused.pending[0]!.payload).toEqual({
              message: '3 boxes hold K562: which one?',
              schema: SHOWN_SCHEMA[form],
            });
            expect(log).toEqual([`execute first ${key}`]);
            const interactionId = paused.pending[0]!.id;

            for (const { value, path } of INVALID_VALUES) {
              const refused = await second
                .provideInput(runId, { id: interactionId, value })
                .catch((error) => error);
              expect(refused, JSON.stringify(value)).toBeInstanceOf(AnswerError);
              expect(refused).toMatchObject({ code: 'ANSWER_INVALID' });
              expect((refused as AnswerError).issues[0]?.path, JSON.stringify(value)).toEqual(path);
            }
            const unchanged = await second.get(runId);
            expect(unchanged).toMatchObject({ status: 'needs_input', version: paused.version });
            expect(unchanged.pending.map((pending) => pending.id)).toEqual([interactionId]);
            expect((await firstStore!.get(runId))?.snapshot).toBe(paused.snapshot);
            expect(log).toEqual([`execute first ${key}`]);

            const valid = { id: interactionId, value: { box: 'B2-15' } };
            const done = await second.provideInput(runId, valid);
            const toolResult = { thawed: 'K562', box: 'B2-15', of: 3, askedAtIsDate: true };
            expect(done.status).toBe('completed');
            expect(done.version).toBeGreaterThan(paused.version);
            expect(done.output).toBe(`Recorded: ${JSON.stringify(toolResult)}`);
            expect(done.events).toContainEqual(
              expect.objectContaining({ type: 'interaction_resolved', interactionId }),
            );
            expect(log).toEqual([`execute first ${key}`, `resume second ${key}`]);

            for (const worker of [second, first]) {
              const repeat = await worker.provideInput(runId, valid);
              expect(repeat).toMatchObject({
                status: 'completed',
                version: done.version,
                output: done.output,
              });
              expect(repeat.events).toEqual([]);
            }
            expect(log).toEqual([`execute first ${key}`, `resume second ${key}`]);

            const read = await first.get(runId);
            expect(read).toMatchObject({ status: 'completed', version: done.version, pending: [] });
            const results = toolMessages(read);
            expect(results.map((message) => message.tool_call_id)).toEqual([CALL_ID]);
            expect(JSON.parse(results[0]!.content)).toEqual(toolResult);
          } finally {
            await backend.teardown();
          }
        },
      );
    }
  }
});
