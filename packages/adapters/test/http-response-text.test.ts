/**
 * Text is text over HTTP too (DESIGN §6, §13, issue 29): a control character in an approval's or a
 * rejection's rationale, a cancel reason or an edited input is a 422 ANSWER_INVALID problem naming
 * the field, and the run is unchanged (the next clean request decides it).
 */
import { memoryStore } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { createHandler } from '../src/http/public.js';
import { inventoryAgent, send } from './http-fixtures.js';

const answer = { answers: { 'Cell lines': ['K562'] } };

describe('control characters in HTTP responses', () => {
  it('answers approve, reject and cancel carrying a control character with 422 ANSWER_INVALID, changing nothing', async () => {
    const thawed: string[][] = [];
    const handler = createHandler({ agent: inventoryAgent({ thawed }), store: memoryStore() });
    const started = await send(handler, 'POST', '/runs', { input: 'Thaw a vial for tomorrow' });
    const { runId } = started.body;
    const answered = await send(handler, 'POST', `/runs/${runId}/answer`, answer);
    expect(answered.body.pending[0].kind).toBe('approval');

    const refused = [
      ['approve', { rationale: 'ok\u0000' }, ['rationale'], 'U+0000'],
      [
        'approve',
        { editedInput: { cellLines: ['K5\u001b62'], count: 1 } },
        ['editedInput', 'cellLines', 0],
        'U+001B',
      ],
      ['reject', { rationale: 'no\u009b' }, ['rationale'], 'U+009B'],
      ['cancel', { reason: 'later\u0007' }, ['reason'], 'U+0007'],
    ] as const;
    for (const [route, body, path, codePoint] of refused) {
      const response = await send(handler, 'POST', `/runs/${runId}/${route}`, body);
      expect(response.status, route).toBe(422);
      expect(response.body.code).toBe('ANSWER_INVALID');
      expect(response.body.issues).toEqual([
        { path: [0, ...path], message: expect.stringContaining(codePoint) },
      ]);
    }
    const read = await send(handler, 'GET', `/runs/${runId}`);
    expect(read.body).toMatchObject({ status: 'needs_input', version: answered.body.version });
    expect(thawed).toEqual([]);

    const approved = await send(handler, 'POST', `/runs/${runId}/approve`, { rationale: 'fine\nby me' });
    expect(approved.body.status).toBe('completed');
    expect(thawed).toEqual([['K562']]);
  });
});
