import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  answerQuestion,
  approve,
  askUserQuestion,
  defineTool,
  parseSnapshot,
  readSnapshotHeader,
  runTurn,
  SnapshotError,
} from '../src/index.js';
import { ask, cellLineQuestion, makeAgent, queryTool, thawTool } from './helpers.js';

const secret = 'test-secret-do-not-use';

async function pausedOnQuestion(config = {}) {
  const agent = makeAgent([{ toolCalls: [ask([cellLineQuestion])] }, 'done'], config);
  const result = await runTurn(agent, { input: 'go' });
  return { agent, result };
}

const codeOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: { code?: string }) => error.code,
  );

describe('snapshot format', () => {
  it('is a plain JSON envelope with a readable transcript', async () => {
    const { result } = await pausedOnQuestion();
    const envelope = JSON.parse(result.snapshot);
    expect(envelope).toMatchObject({
      format: 'turnkit.snapshot',
      version: 2,
      agent: 'inventory',
      agentVersion: '0',
      runId: result.runId,
      turn: 1,
      state: { value: 'waitingInput' },
      context: null,
    });
    expect(envelope.seq).toBe(result.events.at(-1)?.seq);
    expect(envelope.state.context.messages).toEqual(result.messages);
  });

  it('keeps model values as JSON strings, so hostile keys are inert', async () => {
    const agent = makeAgent([
      {
        toolCalls: [
          {
            name: 'record_thaw',
            arguments: '{"cellLine":"K562","vials":1,"__proto__":{"polluted":1},"constructor":{"x":1}}',
          },
        ],
      },
      'ok',
    ]);
    const r1 = await runTurn(agent, { input: 'go' });
    expect(r1.status).toBe('needs_input');
    const r2 = await approve(agent, r1.snapshot);
    expect(r2.status).toBe('completed');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('costs about the transcript plus a small constant', async () => {
    const history = Array.from({ length: 200 }, (_, index) => ({
      role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `message ${index} ${'x'.repeat(180)}`,
    }));
    const agent = makeAgent([
      ...Array.from({ length: 100 }, () => 'filler'),
      { toolCalls: [ask([cellLineQuestion])] },
    ]);
    const result = await runTurn(agent, { input: [...history, { role: 'user', content: 'go' }] });
    expect(result.status).toBe('needs_input');
    const raw = JSON.stringify(result.messages).length;
    expect(result.snapshot.length).toBeLessThan(raw * 1.1 + 2000);
  });
});

describe('signed snapshots', () => {
  it('appends an HMAC-SHA256 of the exact unsigned text', async () => {
    const { result } = await pausedOnQuestion({ snapshot: { secret } });
    const match = /,"sig":"([0-9a-f]{64})"\}$/.exec(result.snapshot);
    expect(match).not.toBeNull();
    const unsigned = `${result.snapshot.slice(0, match!.index)}}`;
    expect(match![1]).toBe(createHmac('sha256', secret).update(unsigned).digest('hex'));
    expect(parseSnapshot(result.snapshot, { secret }).runId).toBe(result.runId);
  });

  it('refuses an edited, unsigned or wrongly signed snapshot with SNAPSHOT_TAMPERED', async () => {
    const { agent, result } = await pausedOnQuestion({ snapshot: { secret } });
    const edited = result.snapshot.replace('K562-dTAG', 'K562-dTAH');
    expect(await codeOf(answerQuestion(agent, edited, { answers: 'K562-dTAG' }))).toBe('SNAPSHOT_TAMPERED');
    const unsigned = result.snapshot.replace(/,"sig":"[0-9a-f]{64}"\}$/, '}');
    expect(await codeOf(answerQuestion(agent, unsigned, { answers: 'K562-dTAG' }))).toBe('SNAPSHOT_TAMPERED');
    expect(() => parseSnapshot(result.snapshot, { secret: 'other' })).toThrow(SnapshotError);
    const r2 = await answerQuestion(agent, result.snapshot, { answers: 'K562-dTAG' });
    expect(r2.status).toBe('completed');
  });

  it('an agent without a secret ignores the signature', async () => {
    const { result } = await pausedOnQuestion({ snapshot: { secret } });
    const plain = makeAgent([{ toolCalls: [ask([cellLineQuestion])] }, 'done']);
    const r2 = await answerQuestion(plain, result.snapshot, { answers: 'K562-dTAG' });
    expect(r2.status).toBe('completed');
  });
});

describe('unreadable snapshots', () => {
  it.each([
    ['garbage', 'not json at all'],
    ['a JSON array', '[]'],
    ['another format', '{"format":"other","version":1}'],
    ['an envelope without state', '{"format":"turnkit.snapshot","version":1,"agent":"inventory"}'],
  ])('refuses %s with SNAPSHOT_INVALID', async (_name, text) => {
    const { agent } = await pausedOnQuestion();
    expect(await codeOf(answerQuestion(agent, text, { answers: 'x' }))).toBe('SNAPSHOT_INVALID');
  });

  it('refuses a non-string', async () => {
    const { agent } = await pausedOnQuestion();
    expect(await codeOf(answerQuestion(agent, 42 as unknown as string, { answers: 'x' }))).toBe(
      'SNAPSHOT_INVALID',
    );
  });

  it('refuses a newer format version with SNAPSHOT_VERSION, saying which it reads', async () => {
    const { agent, result } = await pausedOnQuestion();
    const newer = result.snapshot.replace('"version":2', '"version":3');
    const error = await answerQuestion(agent, newer, { answers: 'x' }).catch((caught: Error) => caught);
    expect((error as SnapshotError).code).toBe('SNAPSHOT_VERSION');
    expect((error as Error).message).toContain('versions 1 to 2');
  });

  it('names the path of the first field that does not fit, in a nested step or at the top', async () => {
    const { result } = await pausedOnQuestion();
    // biome-ignore lint/suspicious/noExplicitAny: the test edits the parsed JSON at any depth
    const broken = (edit: (envelope: Record<string, any>) => void) => {
      const envelope = JSON.parse(result.snapshot);
      edit(envelope);
      return JSON.stringify(envelope);
    };
    const messageOf = (text: string) => {
      try {
        parseSnapshot(text);
        return 'parsed';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(messageOf(broken((e) => (e.turn = 'one')))).toContain(
      '(turn: expected an integer >= 0, got string)',
    );
    expect(messageOf(broken((e) => (e.state = null)))).toContain('(state: expected an object, got null)');
    expect(messageOf(broken((e) => (e.state.context.step[0].status = 'later')))).toContain(
      '(state.context.step[0].status: expected one of "queued", "approved", "pending", "resuming", "done")',
    );
    expect(
      messageOf(broken((e) => (e.state.context.step[0].interaction.questions[0].options[1].label = 7))),
    ).toContain(
      '(state.context.step[0].interaction.questions[0].options[1].label: expected a string, got number)',
    );
    expect(messageOf(broken((e) => (e.state.context.step[0].interaction.limits = { a: 'x' })))).toContain(
      '(state.context.step[0].interaction.limits.a: expected a number, got string)',
    );
    expect(messageOf(broken((e) => (e.context = { json: 1, meta: 2 })))).toBe('parsed');
  });

  it('refuses a transcript with an impossible message', async () => {
    const { agent, result } = await pausedOnQuestion();
    const envelope = JSON.parse(result.snapshot);
    envelope.state.context.messages[0] = { role: 'wizard', content: 1 };
    expect(await codeOf(answerQuestion(agent, JSON.stringify(envelope), { answers: 'x' }))).toBe(
      'SNAPSHOT_INVALID',
    );
  });

  it('never pollutes prototypes, whatever keys the snapshot holds', async () => {
    const { agent, result } = await pausedOnQuestion();
    const hostile = result.snapshot.replace(
      '"format":"turnkit.snapshot"',
      '"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"format":"turnkit.snapshot"',
    );
    const r2 = await answerQuestion(agent, hostile, { answers: 'K562-dTAG' });
    expect(r2.status).toBe('completed');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const contextHostile = JSON.parse(result.snapshot);
    contextHostile.context = { json: { a: 1 }, meta: { values: { __proto__: ['Date'] } } };
    await codeOf(answerQuestion(agent, JSON.stringify(contextHostile), { answers: 'K562-dTAG' }));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('compatibility between pause and resume', () => {
  it('allows new instructions and added tools', async () => {
    const { result } = await pausedOnQuestion();
    const changed = makeAgent([{ toolCalls: [ask([cellLineQuestion])] }, 'done'], {
      instructions: 'New instructions',
      tools: [
        queryTool(),
        thawTool(),
        askUserQuestion(),
        defineTool({ name: 'extra', description: 'e', input: z.object({}), execute: () => 1 }),
      ],
    });
    expect((await answerQuestion(changed, result.snapshot, { answers: 'K562-dTAG' })).status).toBe(
      'completed',
    );
  });

  it('answers a pending question whatever became of the question tool: its limits, ASK_* or the tool itself (DESIGN §12)', async () => {
    const { result } = await pausedOnQuestion();
    const narrower = makeAgent(['(paused here)', 'done'], {
      tools: [askUserQuestion({ limits: { maxOptions: 2, headerMaxLength: 4, questionMaxLength: 5 } })],
    });
    expect((await answerQuestion(narrower, result.snapshot, { answers: 'K562-dTAG' })).status).toBe(
      'completed',
    );
    const previous = process.env.ASK_MAX_OPTIONS;
    process.env.ASK_MAX_OPTIONS = '2';
    try {
      const fromEnvironment = makeAgent(['(paused here)', 'done']);
      const answered = await answerQuestion(fromEnvironment, result.snapshot, { answers: 'K562-dTAG' });
      expect(answered.messages.at(-2)).toMatchObject({ content: '{"answers":{"Cell line":"K562-dTAG"}}' });
    } finally {
      if (previous === undefined) delete process.env.ASK_MAX_OPTIONS;
      else process.env.ASK_MAX_OPTIONS = previous;
    }
    const withoutQuestions = makeAgent(['(paused here)', 'done'], { tools: [queryTool()] });
    expect((await answerQuestion(withoutQuestions, result.snapshot, { answers: 'K562-dTAG' })).status).toBe(
      'completed',
    );
    // The answer is still checked against the question as it was asked.
    expect(await codeOf(answerQuestion(narrower, result.snapshot, { answers: 'HeLa' }))).toBe(
      'ANSWER_INVALID',
    );
  });

  it('refuses a resume only when the agent name differs; a changed pending tool gets tool_changed (DESIGN §21)', async () => {
    const agent = makeAgent([
      { toolCalls: [{ name: 'record_thaw', arguments: { cellLine: 'K562', vials: 1 } }] },
      'done',
    ]);
    const paused = await runTurn(agent, { input: 'go' });
    expect(paused.pendingQuestion?.kind).toBe('approval');
    const changedCode = async (resumed: Promise<{ messages: { role: string; content: unknown }[] }>) => {
      const result = await resumed;
      const tool = result.messages.find((message) => message.role === 'tool');
      return JSON.parse(String(tool?.content)).error_code;
    };
    const withoutThaw = makeAgent(['(paused here)', 'done'], { tools: [queryTool(), askUserQuestion()] });
    expect(await changedCode(approve(withoutThaw, paused.snapshot))).toBe('tool_changed');
    const changedThaw = defineTool({
      name: 'record_thaw',
      description: 'Record that vials were thawed',
      input: z.object({ cellLine: z.string(), vials: z.number().int().positive(), box: z.string() }),
      needsApproval: true,
      execute: async () => 'ok',
    });
    const changed = makeAgent(['(paused here)', 'done'], { tools: [changedThaw, askUserQuestion()] });
    expect(await changedCode(approve(changed, paused.snapshot))).toBe('tool_changed');
    const renamed = makeAgent(['(paused here)', 'done'], { name: 'other' });
    expect(await codeOf(approve(renamed, paused.snapshot))).toBe('SNAPSHOT_INCOMPATIBLE');
    expect((await approve(makeAgent(['(paused here)', 'done']), paused.snapshot)).status).toBe('completed');
  });

  it('calls migrate when the agent version differs', async () => {
    const { result } = await pausedOnQuestion({ version: '1' });
    const seen: string[] = [];
    const v2 = makeAgent([{ toolCalls: [ask([cellLineQuestion])] }, 'done'], {
      version: '2',
      migrate: (decoded) => {
        seen.push(decoded.agentVersion);
        return { ...decoded, agentVersion: '2' };
      },
    });
    const r2 = await answerQuestion(v2, result.snapshot, { answers: 'K562-dTAG' });
    expect(seen).toEqual(['1']);
    expect(JSON.parse(r2.snapshot).agentVersion).toBe('2');
  });
});

describe('readSnapshotHeader', () => {
  it('reads who a snapshot belongs to without its transcript, after checking the signature', async () => {
    const { result } = await pausedOnQuestion({ snapshot: { secret }, version: '3' });
    expect(readSnapshotHeader(result.snapshot, { secret })).toEqual({
      agent: 'inventory',
      agentVersion: '3',
      runId: result.runId,
      turn: 1,
      seq: result.events.at(-1)!.seq,
      version: 2,
      encrypted: false,
      nonce: JSON.parse(result.snapshot).sig,
    });
    const edited = result.snapshot.replace(result.runId, 'run_someone_else_entirely');
    expect(() => readSnapshotHeader(edited, { secret })).toThrow(
      expect.objectContaining({ code: 'SNAPSHOT_TAMPERED' }),
    );
  });

  it('refuses what is not a snapshot header with SNAPSHOT_INVALID', () => {
    for (const text of [
      'nope',
      '[]',
      '{"format":"other","state":{}}',
      '{"format":"turnkit.snapshot","runId":5,"state":{}}',
    ]) {
      expect(() => readSnapshotHeader(text)).toThrow(expect.objectContaining({ code: 'SNAPSHOT_INVALID' }));
    }
  });
});

describe('encrypted snapshots (format 2)', () => {
  const encrypting = (steps: unknown[] = [{ toolCalls: [ask([cellLineQuestion])] }, 'done']) =>
    makeAgent(steps as never, { snapshot: { secret, encrypt: true } });

  it('hides the transcript and the context from whoever holds the snapshot, and resumes with the secret', async () => {
    const agent = encrypting();
    const paused = await runTurn(agent, { input: 'thaw the dTAG line', context: { user: 'ada@lab' } });
    expect(paused.status).toBe('needs_input');
    for (const secretText of ['thaw the dTAG line', 'Which K562 line', 'ada@lab', 'AskUserQuestion']) {
      expect(paused.snapshot).not.toContain(secretText);
    }
    expect(paused.snapshot).not.toContain('"sig"');
    expect(readSnapshotHeader(paused.snapshot)).toEqual({
      agent: 'inventory',
      agentVersion: '0',
      runId: paused.runId,
      turn: 1,
      seq: paused.events.at(-1)!.seq,
      version: 2,
      encrypted: true,
      nonce: JSON.parse(paused.snapshot).enc.iv,
    });
    expect(readSnapshotHeader(paused.snapshot, { secret }).encrypted).toBe(true);
    const done = await answerQuestion(agent, paused.snapshot, { answers: 'K562-dTAG' });
    expect(done.status).toBe('completed');
    expect(parseSnapshot(done.snapshot, { secret }).state.value).toBe('completed');
    // An agent that only signs, with the same secret, can open it too (turning encryption on or off).
    const signing = makeAgent(['', 'done'], { snapshot: { secret } });
    expect((await answerQuestion(signing, paused.snapshot, { answers: 'K562-dTAG' })).status).toBe(
      'completed',
    );
  });

  it('refuses an edited ciphertext, an edited header, a plain snapshot and a missing secret', async () => {
    const agent = encrypting();
    const paused = await runTurn(agent, { input: 'go' });
    const flipped = paused.snapshot.replace(
      /"ct":"(.)/,
      (_match, first: string) => `"ct":"${first === 'A' ? 'B' : 'A'}`,
    );
    expect(await codeOf(answerQuestion(agent, flipped, { answers: 'K562-dTAG' }))).toBe('SNAPSHOT_TAMPERED');
    const moved = paused.snapshot.replace(`"turn":1`, `"turn":7`);
    expect(await codeOf(answerQuestion(agent, moved, { answers: 'K562-dTAG' }))).toBe('SNAPSHOT_TAMPERED');
    expect(() => readSnapshotHeader(moved, { secret })).toThrow(
      expect.objectContaining({ code: 'SNAPSHOT_TAMPERED' }),
    );
    const plain = await runTurn(makeAgent([{ toolCalls: [ask([cellLineQuestion])] }, 'done']), {
      input: 'go',
    });
    expect(await codeOf(answerQuestion(agent, plain.snapshot, { answers: 'K562-dTAG' }))).toBe(
      'SNAPSHOT_TAMPERED',
    );
    const noSecret = makeAgent(['', 'done']);
    expect(await codeOf(answerQuestion(noSecret, paused.snapshot, { answers: 'K562-dTAG' }))).toBe(
      'SNAPSHOT_INVALID',
    );
    const otherSecret = makeAgent(['', 'done'], { snapshot: { secret: 'another-secret', encrypt: true } });
    expect(await codeOf(answerQuestion(otherSecret, paused.snapshot, { answers: 'K562-dTAG' }))).toBe(
      'SNAPSHOT_TAMPERED',
    );
  });

  it('refuses every re-encoding of the "enc" member with SNAPSHOT_TAMPERED, so one snapshot has one form', async () => {
    const agent = encrypting();
    const paused = await runTurn(agent, { input: 'go' });
    const cut = paused.snapshot.indexOf(',"enc":');
    const header = paused.snapshot.slice(0, cut);
    const enc = JSON.parse(paused.snapshot).enc as { alg: string; iv: string; tag: string; ct: string };
    const withEnc = (text: string) => `${header},"enc":${text}}`;
    const variants = [
      withEnc(JSON.stringify(enc).replace('{', '{ ')),
      withEnc(JSON.stringify({ iv: enc.iv, alg: enc.alg, tag: enc.tag, ct: enc.ct })),
      withEnc(JSON.stringify({ ...enc, extra: 1 })),
      withEnc(JSON.stringify({ ...enc, iv: `${enc.iv}=` })),
      withEnc(JSON.stringify(enc).replace('"A256GCM"', '"\\u0041256GCM"')),
      `${paused.snapshot} `,
    ];
    expect(withEnc(JSON.stringify(enc))).toBe(paused.snapshot);
    for (const variant of variants) {
      expect(variant).not.toBe(paused.snapshot);
      expect(await codeOf(answerQuestion(agent, variant, { answers: 'K562-dTAG' }))).toBe(
        'SNAPSHOT_TAMPERED',
      );
      expect(() => readSnapshotHeader(variant, { secret })).toThrow(
        expect.objectContaining({ code: 'SNAPSHOT_TAMPERED' }),
      );
    }
  });

  it('refuses an iv whose unused low bits are set (a second spelling of the same bytes)', async () => {
    const agent = encrypting();
    const paused = await runTurn(agent, { input: 'go' });
    const { iv } = JSON.parse(paused.snapshot).enc as { iv: string };
    // 12 bytes are 16 characters with no spare bits; the 16-byte tag (22 characters) has 4 spare bits.
    const { tag } = JSON.parse(paused.snapshot).enc as { tag: string };
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(tag.at(-1)!);
    const respelled = `${tag.slice(0, -1)}${alphabet[last ^ 1]}`;
    const variant = paused.snapshot.replace(`"tag":"${tag}"`, `"tag":"${respelled}"`);
    expect(iv).toHaveLength(16);
    expect(await codeOf(answerQuestion(agent, variant, { answers: 'K562-dTAG' }))).toBe('SNAPSHOT_TAMPERED');
  });

  it('needs a secret to encrypt', () => {
    expect(() => makeAgent([], { snapshot: { encrypt: true } })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });
});
