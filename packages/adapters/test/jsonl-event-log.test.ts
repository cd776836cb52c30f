import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentEvent, SnapshotError, TurnkitError } from '@turnkit/core';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonlEventLog, readEvents } from '../src/events/jsonl-event-log.js';

const scratch: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'turnkit-events-'));
  scratch.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
});

let seq = 0;
function event(runId: string, at: string, fields: Partial<AgentEvent> = {}): AgentEvent {
  seq += 1;
  return {
    type: 'model_delta',
    text: `piece ${seq}`,
    runId,
    turn: 1,
    seq,
    at,
    agentPath: ['agent'],
    ...fields,
  } as AgentEvent;
}

describe('jsonlEventLog', () => {
  it('appends one JSON line per event to <dir>/<runId>/events-YYYYMMDD.jsonl, in order', async () => {
    const dir = await tempDir();
    const log = jsonlEventLog(dir);
    const events = Array.from({ length: 50 }, () => event('run-1', '2025-03-04T10:00:00.000Z'));
    for (const item of events) log.onEvent(item);
    await log.flush();
    const text = await readFile(join(dir, 'run-1', 'events-20250304.jsonl'), 'utf8');
    expect(text.split('\n')).toHaveLength(51);
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(events);
  });

  it('rotates by the UTC day of event.at and keeps runs in separate folders', async () => {
    const dir = await tempDir();
    const log = jsonlEventLog(dir);
    log.onEvent(event('run-a', '2025-12-31T23:59:59.000Z'));
    log.onEvent(event('run-b', '2025-12-31T12:00:00.000Z'));
    // 01:30 at +02:00 is still Dec 31 in UTC.
    log.onEvent(event('run-a', '2026-01-01T01:30:00.000+02:00'));
    log.onEvent(event('run-a', '2026-01-01T00:00:00.000Z'));
    await log.flush();
    expect((await readdir(dir)).sort()).toEqual(['run-a', 'run-b']);
    expect((await readdir(join(dir, 'run-a'))).sort()).toEqual([
      'events-20251231.jsonl',
      'events-20260101.jsonl',
    ]);
  });

  it('only appends: a second log on the same folder adds to the files', async () => {
    const dir = await tempDir();
    const first = jsonlEventLog(dir);
    first.onEvent(event('run-1', '2025-03-04T10:00:00.000Z'));
    await first.close();
    const second = jsonlEventLog(dir);
    second.onEvent(event('run-1', '2025-03-04T11:00:00.000Z'));
    await second.flush();
    expect(await readEvents(dir, 'run-1')).toHaveLength(2);
  });

  it('keeps only the events the filter accepts', async () => {
    const dir = await tempDir();
    const log = jsonlEventLog(dir, { filter: (item) => item.type !== 'model_delta' });
    log.onEvent(event('run-1', '2025-03-04T10:00:00.000Z'));
    log.onEvent(event('run-1', '2025-03-04T10:00:00.000Z', { type: 'turn_aborted' }));
    await log.flush();
    expect((await readEvents(dir, 'run-1')).map((item) => item.type)).toEqual(['turn_aborted']);
  });

  it('never throws from onEvent: a bad run id goes to onError and fails the next flush', async () => {
    const dir = await tempDir();
    const errors: unknown[] = [];
    const log = jsonlEventLog(dir, { onError: (error) => errors.push(error) });
    expect(() => log.onEvent(event('../escape', '2025-03-04T10:00:00.000Z'))).not.toThrow();
    log.onEvent(event('run-ok', '2025-03-04T10:00:00.000Z'));
    await expect(log.flush()).rejects.toThrow(TurnkitError);
    await expect(log.flush()).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
    expect(await readdir(dir)).toEqual(['run-ok']);
  });

  it('reports a failed write (the run folder is a file) without losing the other runs', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'run-blocked'), 'not a folder');
    const errors: unknown[] = [];
    const log = jsonlEventLog(dir, { onError: (error) => errors.push(error) });
    log.onEvent(event('run-blocked', '2025-03-04T10:00:00.000Z'));
    log.onEvent(event('run-fine', '2025-03-04T10:00:00.000Z'));
    await expect(log.flush()).rejects.toThrow();
    expect(errors).toHaveLength(1);
    expect(await readEvents(dir, 'run-fine')).toHaveLength(1);
  });

  it('ignores events after close', async () => {
    const dir = await tempDir();
    const log = jsonlEventLog(dir);
    await log.close();
    log.onEvent(event('run-1', '2025-03-04T10:00:00.000Z'));
    await log.flush();
    expect(await readdir(dir).catch(() => [])).toEqual([]);
  });
});

describe('readEvents', () => {
  it('reads every day file in date order', async () => {
    const dir = await tempDir();
    const log = jsonlEventLog(dir);
    const late = event('run-1', '2025-03-05T00:00:01.000Z', { type: 'turn_completed', output: 'done' });
    const early = event('run-1', '2025-03-04T09:00:00.000Z', { type: 'turn_paused', pending: ['q1'] });
    log.onEvent(late);
    await log.flush();
    await appendFile(join(dir, 'run-1', 'events-20250304.jsonl'), `${JSON.stringify(early)}\n`);
    expect(await readEvents(dir, 'run-1')).toEqual([early, late]);
  });

  it('returns [] for a run with no log', async () => {
    expect(await readEvents(await tempDir(), 'never-logged')).toEqual([]);
  });

  it('skips a last line cut short by a crash, and refuses a corrupt line elsewhere', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'run-1'));
    const whole = event('run-1', '2025-03-04T10:00:00.000Z');
    await writeFile(join(dir, 'run-1', 'events-20250304.jsonl'), `${JSON.stringify(whole)}\n{"type":"mod`);
    expect(await readEvents(dir, 'run-1')).toEqual([whole]);
    await writeFile(join(dir, 'run-1', 'events-20250304.jsonl'), `{oops}\n${JSON.stringify(whole)}\n`);
    await expect(readEvents(dir, 'run-1')).rejects.toThrow(SnapshotError);
    await expect(readEvents(dir, 'run-1')).rejects.toThrow(/events-20250304\.jsonl:1/);
  });

  it.each(['../outside', '..', 'a/b', '/etc', 'a\\b', 'a\0b', '', '.hidden'])(
    'refuses the run id %j with TurnkitError CONFIG_INVALID',
    async (runId) => {
      const dir = await tempDir();
      const error = await readEvents(join(dir, 'logs'), runId).then(
        () => expect.fail('expected a refusal'),
        (caught: unknown) => caught as TurnkitError,
      );
      expect(error).toBeInstanceOf(TurnkitError);
      expect(error.code).toBe('CONFIG_INVALID');
    },
  );

  it('never writes outside dir, whatever the run id', async () => {
    const parent = await tempDir();
    const dir = join(parent, 'logs');
    const log = jsonlEventLog(dir, { onError: () => undefined });
    for (const runId of ['../escape', '/tmp/abs', '..', 'a/../../b', 'a\0b', 'C:\\x']) {
      log.onEvent(event(runId, '2025-03-04T10:00:00.000Z'));
    }
    await expect(log.flush()).rejects.toThrow(TurnkitError);
    expect(await readdir(parent)).toEqual([]);
  });
});

describe('jsonlEventLog redact', () => {
  it('masks the given fields before writing, wherever the path occurs, and leaves the event itself alone', async () => {
    const { createSessions, defineAgent, defineTool, memoryStore } = await import('@turnkit/core');
    const { scriptedModel } = await import('@turnkit/core/testing');
    const { z } = await import('zod');
    const enrol = defineTool({
      name: 'enrol_donor',
      description: 'Enrol a blood donor',
      input: z.object({
        name: z.string(),
        ssn: z.string(),
        contacts: z.array(z.object({ phone: z.string() })),
      }),
      needsApproval: true,
      execute: () => 'enrolled',
    });
    const agent = defineAgent({
      name: 'clinic',
      instructions: 'Enrol donors.',
      model: scriptedModel([
        {
          toolCalls: [
            {
              name: 'enrol_donor',
              arguments: { name: 'Ada', ssn: '078-05-1120', contacts: [{ phone: '+1 555 0100' }] },
            },
          ],
        },
        'Enrolled.',
      ]),
      tools: [enrol],
    });
    const dir = await tempDir();
    const log = jsonlEventLog(dir, { redact: ['payload.input.ssn', 'editedInput.ssn', 'contacts.*.phone'] });
    const seen: AgentEvent[] = [];
    const onEvent = (item: AgentEvent) => {
      seen.push(item);
      log.onEvent(item);
    };
    const sessions = createSessions({ agent, store: memoryStore() });
    const paused = await sessions.start('enrol Ada', { onEvent });
    await sessions.approve(
      paused.runId,
      { editedInput: { name: 'Ada', ssn: '078-05-1121', contacts: [{ phone: '+1 555 0199' }] } },
      { onEvent },
    );
    await log.flush();
    const written = await readEvents(dir, paused.runId);
    const text = JSON.stringify(written);
    for (const secret of ['078-05-1120', '078-05-1121', '+1 555 0100', '+1 555 0199']) {
      expect(text).not.toContain(secret);
    }
    const requested = written.find((item) => item.type === 'interaction_requested');
    expect(requested).toMatchObject({
      interaction: {
        payload: { input: { name: 'Ada', ssn: '[redacted]', contacts: [{ phone: '[redacted]' }] } },
      },
    });
    const resolved = written.find((item) => item.type === 'interaction_resolved');
    expect(resolved).toMatchObject({ decision: 'approved', editedInput: { name: 'Ada', ssn: '[redacted]' } });
    // The model's own tool call carries the input as a JSON string: masked there too.
    const decided = written.find((item) => item.type === 'model_finished' && item.toolCalls === 1);
    const call = decided?.type === 'model_finished' ? decided.message?.tool_calls?.[0] : undefined;
    expect(JSON.parse(call?.function.arguments ?? 'null')).toEqual({
      name: 'Ada',
      ssn: '[redacted]',
      contacts: [{ phone: '[redacted]' }],
    });
    // The tool's result carries the edited input (for the model): masked there too.
    const finished = written.find((item) => item.type === 'tool_finished');
    expect(JSON.parse(finished?.type === 'tool_finished' ? finished.result! : 'null')).toMatchObject({
      result: 'enrolled',
      input_edited_by_user: { ssn: '[redacted]', contacts: [{ phone: '[redacted]' }] },
    });
    // The events handed to other observers keep their values.
    expect(JSON.stringify(seen)).toContain('078-05-1121');
  });

  it("masks the JSON inside the messages a turn adds: a turn's input and a delivered message", async () => {
    const history = [
      { role: 'user' as const, content: 'enrol Ada' },
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function' as const,
            function: { name: 'enrol_donor', arguments: '{"name":"Ada","ssn":"078-05-1120"}' },
          },
        ],
      },
      { role: 'tool' as const, tool_call_id: 'c1', content: '{"enrolled":true,"ssn":"078-05-1120"}' },
    ];
    const dir = await tempDir();
    const log = jsonlEventLog(dir, { redact: ['ssn'] });
    const at = '2026-05-01T10:00:00.000Z';
    log.onEvent(event('run-messages', at, { type: 'turn_started', trigger: 'input', input: history }));
    log.onEvent(
      event('run-messages', at, { type: 'message_delivered', messageId: 'm-1', messages: history }),
    );
    await log.flush();
    const written = await readEvents(dir, 'run-messages');
    expect(written).toHaveLength(2);
    expect(JSON.stringify(written)).not.toContain('078-05-1120');
    for (const line of written) {
      const messages = (
        line.type === 'turn_started'
          ? line.input
          : line.type === 'message_delivered'
            ? line.messages
            : undefined
      )!;
      const call = messages[1]!.role === 'assistant' ? messages[1]!.tool_calls![0]! : undefined;
      expect(JSON.parse(call!.function.arguments)).toEqual({ name: 'Ada', ssn: '[redacted]' });
      expect(JSON.parse(messages[2]!.content as string)).toEqual({ enrolled: true, ssn: '[redacted]' });
    }
    // The events themselves were not changed.
    expect(history[1]!.tool_calls![0]!.function.arguments).toContain('078-05-1120');
  });
});
