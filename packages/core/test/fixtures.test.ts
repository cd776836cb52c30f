/**
 * Replays the committed snapshot fixtures (test/fixtures/snapshots, written once per format version
 * by test/fixtures/generate.ts): a snapshot that a released TurnKit wrote must keep loading and
 * resuming in every later build (DESIGN §4).
 */
import { readdirSync, readFileSync } from 'node:fs';
import SuperJSON from 'superjson';
import { describe, expect, it } from 'vitest';
import {
  answerQuestion,
  approve,
  parseSnapshot,
  readSnapshotHeader,
  reject,
  runTurn,
  SNAPSHOT_VERSION,
  SnapshotError,
  StateError,
  type TurnResult,
} from '../src/index.js';
import {
  FIXTURE_NOW,
  FIXTURE_RUN_ID,
  FIXTURE_SECRET,
  HEADER,
  inventoryAgent,
  LABELS,
  SECOND_INPUT,
} from './fixtures/inventory-agent.js';

const directory = new URL('./fixtures/snapshots/', import.meta.url);
const options = { now: FIXTURE_NOW };
const agent = inventoryAgent();
const signedAgent = inventoryAgent({ secret: FIXTURE_SECRET });

function fixture(name: string): string {
  return readFileSync(new URL(name, directory), 'utf8');
}

const files = readdirSync(directory)
  .filter((file) => file.endsWith('.txt'))
  .sort();

/** The tool message answering `toolCallId`. */
function toolContent(result: TurnResult, toolCallId: string): string | undefined {
  for (const message of result.messages) {
    if (message.role === 'tool' && message.tool_call_id === toolCallId) return message.content;
  }
  return undefined;
}

describe('snapshot fixtures', () => {
  it('keep a fixture for every format version ever released', () => {
    for (let version = 1; version <= SNAPSHOT_VERSION; version++) {
      expect(
        files.some((file) => file.startsWith(`v${version}-`)),
        `no fixture for format version ${version}: run test/fixtures/generate.ts`,
      ).toBe(true);
    }
  });

  it.each(files)('%s parses as the format version its name says', (file) => {
    const secret = file.includes('signed') || file.includes('encrypted') ? FIXTURE_SECRET : undefined;
    const decoded = parseSnapshot(fixture(file), { secret });
    expect(`v${decoded.version}-`).toBe(file.slice(0, file.indexOf('-') + 1));
    expect(decoded.agent).toBe('inventory');
    expect(decoded.agentVersion).toBe('1');
    expect(decoded.runId.startsWith(FIXTURE_RUN_ID)).toBe(true);
    expect(decoded.createdAt).toBe(FIXTURE_NOW.toISOString());
  });

  it.each(files)('%s: readSnapshotHeader reads whose run it is', (file) => {
    const secret = file.includes('signed') || file.includes('encrypted') ? FIXTURE_SECRET : undefined;
    const text = fixture(file);
    const decoded = parseSnapshot(text, { secret });
    expect(readSnapshotHeader(text, { secret })).toMatchObject({
      agent: 'inventory',
      agentVersion: '1',
      runId: decoded.runId,
      version: decoded.version,
      encrypted: file.includes('encrypted'),
    });
  });
});

describe.each([1, 2])('v%i fixtures', (version) => {
  const fixture = (name: string) => readFileSync(new URL(`v${version}-${name}`, directory), 'utf8');

  it('resumes the paused question to completion with the answer as the tool result', async () => {
    const snapshot = fixture('paused-question.txt');
    const waiting = await runTurn(agent, { snapshot }, options);
    expect(waiting.status).toBe('needs_input');
    expect(waiting.snapshot).toBe(snapshot);
    expect(waiting.pendingQuestion).toMatchObject({
      kind: 'question',
      toolCallId: 'call_ask',
      agentPath: ['inventory'],
    });

    const result = await answerQuestion(agent, snapshot, { answers: { [HEADER]: LABELS[1] } }, options);
    expect(result.status).toBe('completed');
    expect(result.runId).toBe(FIXTURE_RUN_ID);
    expect(toolContent(result, 'call_ask')).toBe(`{"answers":{"${HEADER}":"${LABELS[1]}"}}`);
    expect(result.output).toBe(`5 vials of ${LABELS[1]} in the freezer.`);
    expect(result.usage.modelCalls).toBe(2);
    expect(parseSnapshot(result.snapshot).state.value).toBe('completed');
  });

  it('resumes the paused approval: approved, the tool runs once and the run completes', async () => {
    const snapshot = fixture('paused-approval.txt');
    const waiting = await runTurn(agent, { snapshot }, options);
    expect(waiting.pending).toHaveLength(1);
    expect(waiting.pendingQuestion).toMatchObject({
      kind: 'approval',
      toolName: 'thaw_vial',
      payload: { toolName: 'thaw_vial', input: { cellLine: LABELS[0], vials: 1 } },
    });

    const approved = await approve(agent, snapshot, { rationale: 'go ahead' }, options);
    expect(approved.status).toBe('completed');
    expect(approved.output).toBe(`Thawed 1 vial of ${LABELS[0]}.`);
    expect(approved.usage.toolCalls).toBe(1);
    expect(toolContent(approved, 'call_thaw')).toBe(`{"cellLine":"${LABELS[0]}","thawed":1}`);
  });

  it('resumes the paused approval when rejected: the tool does not run', async () => {
    const rejected = await reject(agent, fixture('paused-approval.txt'), { rationale: 'not today' }, options);
    expect(rejected.status).toBe('completed');
    expect(rejected.output).toBe('I did not thaw anything.');
    expect(rejected.usage.toolCalls).toBe(0);
    expect(JSON.parse(toolContent(rejected, 'call_thaw') ?? '{}')).toMatchObject({
      error_code: 'rejected_by_user',
      rationale: 'not today',
    });
  });

  it('continues the completed run with the next user message, and refuses to continue it without one', async () => {
    const snapshot = fixture('completed.txt');
    await expect(runTurn(agent, { snapshot }, options)).rejects.toMatchObject({ code: 'NOT_WAITING' });
    await expect(runTurn(agent, { snapshot }, options)).rejects.toBeInstanceOf(StateError);

    const next = await runTurn(agent, { snapshot, input: SECOND_INPUT }, options);
    expect(next.status).toBe('needs_input');
    expect(next.pendingQuestion).toMatchObject({ kind: 'approval', toolName: 'thaw_vial' });
    expect(next.messages.slice(0, 6)).toEqual(parseSnapshot(snapshot).state.context.messages);
  });

  it('resumes the signed fixture with the documented test secret, and refuses another secret', async () => {
    const snapshot = fixture('signed-paused-question.txt');
    const result = await answerQuestion(signedAgent, snapshot, { answers: LABELS[0] }, options);
    expect(result.status).toBe('completed');
    expect(result.output).toBe(`3 vials of ${LABELS[0]} in the freezer.`);
    expect(result.snapshot).toMatch(/,"sig":"[0-9a-f]{64}"\}$/);

    const otherSecret = inventoryAgent({ secret: 'another secret' });
    const refused = answerQuestion(otherSecret, snapshot, { answers: LABELS[0] }, options);
    await expect(refused).rejects.toBeInstanceOf(SnapshotError);
    await expect(refused).rejects.toMatchObject({ code: 'SNAPSHOT_TAMPERED' });
  });

  it('restores the superjson context (a Date and a Map) for the tools when resumed', async () => {
    const snapshot = fixture('superjson-context-paused-question.txt');
    const stored = SuperJSON.deserialize(parseSnapshot(snapshot).context!) as {
      stock: unknown;
      countedAt: unknown;
    };
    expect(stored.stock).toBeInstanceOf(Map);
    expect(stored.countedAt).toBeInstanceOf(Date);

    const result = await answerQuestion(agent, snapshot, { answers: LABELS[0] }, options);
    expect(result.status).toBe('completed');
    expect(JSON.parse(toolContent(result, 'call_query') ?? '{}')).toEqual({
      cellLine: LABELS[0],
      vials: 7,
      countedAt: '2025-02-28T17:30:00.000Z',
    });
    expect(result.output).toBe(`7 vials of ${LABELS[0]} in the freezer.`);
  });
});

describe('v2 fixtures only', () => {
  it('resumes the encrypted fixture with the documented test secret, and cannot be read without it', async () => {
    const snapshot = fixture('v2-encrypted-paused-question.txt');
    expect(snapshot).not.toContain(HEADER);
    expect(snapshot).not.toContain('K562');
    const encrypting = inventoryAgent({ secret: FIXTURE_SECRET, encrypt: true });
    const result = await answerQuestion(encrypting, snapshot, { answers: LABELS[0] }, options);
    expect(result.status).toBe('completed');
    expect(result.output).toBe(`3 vials of ${LABELS[0]} in the freezer.`);
    expect(result.snapshot).toMatch(/,"enc":\{"alg":"A256GCM"/);
    await expect(answerQuestion(agent, snapshot, { answers: LABELS[0] }, options)).rejects.toMatchObject({
      code: 'SNAPSHOT_INVALID',
    });
    const otherSecret = inventoryAgent({ secret: 'another secret', encrypt: true });
    await expect(
      answerQuestion(otherSecret, snapshot, { answers: LABELS[0] }, options),
    ).rejects.toMatchObject({
      code: 'SNAPSHOT_TAMPERED',
    });
  });
});
