/**
 * Signatures, encryption and schema hashes stay byte for byte what Node's crypto module computed
 * before core stopped importing it (DESIGN §18). Node's crypto is the reference here: both of core's
 * paths (pure JS, and the native one it picks where the runtime offers it) must agree with it, and
 * snapshots made by either side must open on the other.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes as nodeRandomBytes,
} from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { answerQuestion, hashSchema, parseSnapshot, runTurn } from '../src/index.js';
import {
  fromBase64url,
  hkdfBytes,
  portablePrimitives,
  randomBytes,
  toBase64url,
} from '../src/snapshot/crypto.js';
import { nativePrimitives } from '../src/snapshot/native-crypto.js';
import { ask, cellLineQuestion, makeAgent } from './helpers.js';

const secret = 'lab-secret-ß-🔑';
const texts = ['', 'a', '{"format":"turnkit.snapshot"}', `K562 é 漢字 🧪 "\\u0000" ${'x'.repeat(70_000)}`];
const nodeKey = () =>
  new Uint8Array(hkdfSync('sha256', secret, 'turnkit.snapshot', 'turnkit.snapshot.enc.v2', 32));

const paths = [
  ['pure-JS (@noble)', portablePrimitives],
  ['native', nativePrimitives()!],
] as const;

describe.each(paths)('the %s path computes what Node computes', (_name, primitives) => {
  it('HMAC-SHA-256 of text fed in pieces, as createHmac of the whole text', () => {
    for (const text of texts) {
      const cut = Math.floor(text.length / 3);
      expect(primitives.hmacHex([text.slice(0, cut), text.slice(cut)], secret)).toBe(
        createHmac('sha256', secret).update(text).digest('hex'),
      );
    }
  });

  it('SHA-256 as createHash', () => {
    for (const text of texts) {
      expect(primitives.sha256Hex(text)).toBe(createHash('sha256').update(text).digest('hex'));
    }
  });

  it('AES-256-GCM that Node opens, opens what Node sealed, and refuses a flipped bit or another AAD', () => {
    const key = nodeKey();
    for (const text of texts) {
      const iv = nodeRandomBytes(12);
      const sealed = primitives.seal(key, iv, '{"runId":"r"', text);
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
      decipher.setAAD(Buffer.from('{"runId":"r"'));
      decipher.setAuthTag(sealed.tag);
      expect(Buffer.concat([decipher.update(sealed.ct), decipher.final()]).toString('utf8')).toBe(text);

      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from('{"runId":"r"'));
      const ct = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      expect(Buffer.from(sealed.ct).equals(ct) && Buffer.from(sealed.tag).equals(tag)).toBe(true);
      expect(primitives.open(key, iv, '{"runId":"r"', ct, tag)).toBe(text);
      expect(() => primitives.open(key, iv, '{"runId":"s"', ct, tag)).toThrow();
      const flipped = Uint8Array.from(tag);
      flipped[0]! ^= 1;
      expect(() => primitives.open(key, iv, '{"runId":"r"', ct, flipped)).toThrow();
    }
  });
});

describe('the shared pieces', () => {
  it('derives the AES key as hkdfSync does', () => {
    expect(Buffer.from(hkdfBytes(secret, 'turnkit.snapshot', 'turnkit.snapshot.enc.v2', 32))).toEqual(
      Buffer.from(nodeKey()),
    );
  });

  it("writes and reads base64url as Node's buffers do, and refuses what is not base64url", () => {
    for (let length = 0; length < 40; length++) {
      const bytes = nodeRandomBytes(length);
      const text = bytes.toString('base64url');
      expect(toBase64url(bytes)).toBe(text);
      expect(Buffer.from(fromBase64url(text)!)).toEqual(bytes);
    }
    for (const bad of ['a', 'ab+c', 'ab/c', 'ab=c', 'abcde', 'ab c']) expect(fromBase64url(bad)).toBeNull();
  });

  it('draws random bytes from Web Crypto', () => {
    expect(randomBytes(16)).toHaveLength(16);
    expect(toBase64url(randomBytes(16))).not.toBe(toBase64url(randomBytes(16)));
  });

  it('hashes a schema as the first 16 hex of its JSON text’s SHA-256', () => {
    const schema = { type: 'object', properties: { cellLine: { type: 'string', description: 'é' } } };
    expect(hashSchema(schema)).toBe(
      createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 16),
    );
  });
});

describe('snapshots between core and a reference made with node:crypto', () => {
  const steps = () => [{ toolCalls: [ask([cellLineQuestion])] }, 'done'] as never;

  it('signs what createHmac signs, and accepts a snapshot signed with createHmac', async () => {
    const signed = await runTurn(makeAgent(steps(), { snapshot: { secret } }), { input: 'thaw K562' });
    const unsigned = `${signed.snapshot.slice(0, -74)}}`;
    expect(signed.snapshot).toBe(
      `${unsigned.slice(0, -1)},"sig":"${createHmac('sha256', secret).update(unsigned).digest('hex')}"}`,
    );

    const plain = await runTurn(makeAgent(steps()), { input: 'thaw K562' });
    const sig = createHmac('sha256', secret).update(plain.snapshot).digest('hex');
    const byNode = `${plain.snapshot.slice(0, -1)},"sig":"${sig}"}`;
    expect(parseSnapshot(byNode, { secret }).runId).toBe(plain.runId);
    const done = await answerQuestion(makeAgent(steps(), { snapshot: { secret } }), byNode, {
      answers: 'K562-dTAG',
    });
    expect(done.status).toBe('completed');
  });

  it('encrypts what createDecipheriv opens, and opens what createCipheriv encrypted', async () => {
    const agent = makeAgent(steps(), { snapshot: { secret, encrypt: true } });
    const paused = await runTurn(agent, { input: 'thaw K562' });
    const cut = paused.snapshot.indexOf(',"enc":');
    const enc = JSON.parse(paused.snapshot.slice(cut + 7, -1)) as Record<string, string>;
    const decipher = createDecipheriv('aes-256-gcm', nodeKey(), Buffer.from(enc.iv!, 'base64url'));
    decipher.setAAD(Buffer.from(paused.snapshot.slice(0, cut)));
    decipher.setAuthTag(Buffer.from(enc.tag!, 'base64url'));
    const text = Buffer.concat([decipher.update(Buffer.from(enc.ct!, 'base64url')), decipher.final()]);
    expect(JSON.parse(text.toString('utf8')).runId).toBe(paused.runId);

    const iv = nodeRandomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', nodeKey(), iv);
    cipher.setAAD(Buffer.from(paused.snapshot.slice(0, cut)));
    const ct = Buffer.concat([cipher.update(text), cipher.final()]);
    const byNode = `${paused.snapshot.slice(0, cut)},"enc":${JSON.stringify({
      alg: 'A256GCM',
      iv: iv.toString('base64url'),
      tag: cipher.getAuthTag().toString('base64url'),
      ct: ct.toString('base64url'),
    })}}`;
    expect(parseSnapshot(byNode, { secret }).runId).toBe(paused.runId);
    expect((await answerQuestion(agent, byNode, { answers: 'K562-dTAG' })).status).toBe('completed');
  });
});
