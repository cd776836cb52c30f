/**
 * DESIGN §18, proven here rather than on a user's Worker: core bundled for the browser platform
 * (no Node built-in may be imported) runs a whole signed and an encrypted cycle in a `node:vm`
 * context holding only Web globals — no `process`, `Buffer` or `require` — so it takes the pure-JS
 * crypto path, whose snapshots Node's own crypto must verify and open, and the other way round.
 */
import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createContext, runInContext } from 'node:vm';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerQuestion, askUserQuestion, defineAgent, parseSnapshot, runTurn } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { FIXTURE_SECRET } from './fixtures/inventory-agent.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const secret = 'edge-secret-🔑';

/** The same agent inside the sandbox and here: one question, then an answer. */
const AGENT = `(keys) => defineAgent({
  name: 'portable',
  instructions: 'Ask which line to thaw.',
  model: scriptedModel([
    { toolCalls: [{ name: 'AskUserQuestion', arguments: { questions: [{ question: 'Which line?', header: 'Line',
      options: [{ label: 'K562', description: 'parental' }, { label: 'HeLa', description: 'cervical' }] }] } }] },
    'Thawing K562.',
  ]),
  tools: [askUserQuestion()],
  snapshot: keys,
})`;

const ENTRY = `
import { answerQuestion, askUserQuestion, defineAgent, parseSnapshot, readSnapshotHeader, runTurn } from './src/index.ts';
import { recordingOf, replay, scriptedModel } from './src/testing/index.ts';
const agent = ${AGENT};
globalThis.turnkit = {
  async start(keys) {
    const paused = await runTurn(agent(keys), { input: 'thaw a vial' });
    parseSnapshot(paused.snapshot, { secret: keys.secret });
    readSnapshotHeader(paused.snapshot, { secret: keys.secret });
    return paused.needsInput ? paused.snapshot : 'did not pause: ' + paused.status;
  },
  open(snapshot, secret) {
    return parseSnapshot(snapshot, { secret }).runId + ' ' + readSnapshotHeader(snapshot, { secret }).runId;
  },
  async resume(keys, snapshot) {
    const done = await answerQuestion(agent(keys), snapshot, { answers: { Line: 'K562' } });
    return done.status + ' ' + done.output;
  },
  async replay(keys) {
    const events = [];
    const paused = await runTurn(agent(keys), { input: 'thaw a vial' }, { onEvent: (event) => events.push(event) });
    await answerQuestion(agent(keys), paused.snapshot, { answers: { Line: 'K562' } }, { onEvent: (event) => events.push(event) });
    const { result, divergences } = await replay(agent(keys), JSON.parse(JSON.stringify(recordingOf(events))));
    return result.status + ' ' + divergences.length;
  },
};
`;

const hereAgent = new Function('defineAgent', 'scriptedModel', 'askUserQuestion', `return ${AGENT};`)(
  defineAgent,
  scriptedModel,
  askUserQuestion,
) as (keys: { secret: string; encrypt?: boolean }) => ReturnType<typeof defineAgent>;

interface Sandbox {
  /** `typeof` of the sandbox's globals named. */
  typeOf(names: string): string;
  start(keys: { secret: string; encrypt?: boolean }): Promise<string>;
  resume(keys: { secret: string; encrypt?: boolean }, snapshot: string): Promise<string>;
  /** Records a run and replays it there (DESIGN §28): its status and how many divergences. */
  replay(keys: { secret: string }): Promise<string>;
  /** parseSnapshot's and readSnapshotHeader's run ids. */
  open(snapshot: string, secret: string): string;
}

let bundle: string;

beforeAll(async () => {
  const result = await build({
    stdin: { contents: ENTRY, resolveDir: root, loader: 'ts' },
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  bundle = result.outputFiles[0]!.text;
}, 60_000);

/** Only what Workers and Vercel Edge offer too (plus `extra`); no Node global. */
function sandbox(extra: Record<string, unknown> = {}): Sandbox {
  const context = createContext({
    ...{ crypto, TextEncoder, TextDecoder, performance, URL, AbortController, AbortSignal, structuredClone },
    ...{ setTimeout, clearTimeout, setInterval, clearInterval, queueMicrotask, console, DOMException },
    ...{ Event, EventTarget },
    ...extra,
  });
  runInContext(bundle, context);
  const typeOf = (names: string) =>
    names
      .split(' ')
      .map((name) => runInContext(`typeof ${name}`, context) as string)
      .join(' ');
  return { ...(context.turnkit as Omit<Sandbox, 'typeOf'>), typeOf };
}

describe('core on a runtime with only Web globals (DESIGN §18)', () => {
  it('bundles for the browser platform with no Node built-in, and sees no process, Buffer or require', () => {
    expect(bundle).not.toMatch(/["']node:/);
    expect(sandbox().typeOf('process Buffer require global')).toBe('undefined undefined undefined undefined');
  });

  it('records a run and replays it there, with no divergence (DESIGN §28)', async () => {
    expect(await sandbox().replay({ secret })).toBe('completed 0');
  });

  it('signs and resumes there, with signatures Node’s createHmac computes, in both directions', async () => {
    const edge = sandbox();
    const keys = { secret };
    const paused = await edge.start(keys);
    const unsigned = `${paused.slice(0, -74)}}`;
    expect(paused.slice(-66, -2)).toBe(createHmac('sha256', secret).update(unsigned).digest('hex'));
    expect((await answerQuestion(hereAgent(keys), paused, { answers: { Line: 'K562' } })).status).toBe(
      'completed',
    );
    const here = await runTurn(hereAgent(keys), { input: 'thaw a vial' });
    expect(await edge.resume(keys, here.snapshot)).toBe('completed Thawing K562.');
    const forged = `${here.snapshot.slice(0, -3)}${here.snapshot.at(-3) === '0' ? '1' : '0'}"}`;
    await expect(edge.resume(keys, forged)).rejects.toMatchObject({ code: 'SNAPSHOT_TAMPERED' });
  });

  it('encrypts and resumes there, and Node’s crypto opens what it sealed and the other way round', async () => {
    const edge = sandbox();
    const keys = { secret, encrypt: true };
    const paused = await edge.start(keys);
    expect(paused).toContain(',"enc":{"alg":"A256GCM"');
    expect(parseSnapshot(paused, { secret }).agent).toBe('portable');
    const here = await runTurn(hereAgent(keys), { input: 'thaw a vial' });
    expect(await edge.resume(keys, here.snapshot)).toBe('completed Thawing K562.');
  });

  it('verifies and decrypts every signed and encrypted fixture there', () => {
    const edge = sandbox();
    const directory = new URL('./fixtures/snapshots/', import.meta.url);
    const files = readdirSync(directory).filter((file) => /signed|encrypted/.test(file));
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const file of files) {
      const text = readFileSync(new URL(file, directory), 'utf8');
      const { runId } = parseSnapshot(text, { secret: FIXTURE_SECRET });
      expect(edge.open(text, FIXTURE_SECRET), file).toBe(`${runId} ${runId}`);
      expect(() => edge.open(text, 'another secret'), file).toThrow(
        /SNAPSHOT_TAMPERED|does not match|cannot be opened/,
      );
    }
  });

  it('runs where process exists but reading its environment throws (Deno without --allow-env)', async () => {
    const env = new Proxy(
      {},
      {
        get(_target, key) {
          throw new Error(`NotCapable: Requires env access to "${String(key)}"`);
        },
      },
    );
    const deno = sandbox({ process: { env } });
    const paused = await deno.start({ secret });
    expect(await deno.resume({ secret }, paused)).toBe('completed Thawing K562.');
  });
});
