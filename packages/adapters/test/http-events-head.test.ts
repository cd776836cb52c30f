/**
 * `GET /runs/:id/events` reads the head alone for its first `state` (DESIGN §17, issue 29's item):
 * with row layout 2 and a transcript too long for a state to carry, the stream's first state is
 * built without reading or assembling the history — a store wrapper counts what was read — and it
 * says what the run's full state says, but the transcript.
 */
import { createSessions, memoryStore, type SnapshotStore } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { createHandler } from '../src/http/public.js';
import { approvalAgent, priorMessages } from './helpers/store-resume.js';
import { jsonRequest, readSse, send } from './http-fixtures.js';

/** A store counting its reads. */
function countingReads(inner: SnapshotStore) {
  const reads = { get: 0, getParts: 0, getHead: 0 };
  const store: SnapshotStore = {
    ...inner,
    get: (runId) => {
      reads.get++;
      return inner.get(runId);
    },
    getParts: (runId) => {
      reads.getParts++;
      return inner.getParts!(runId);
    },
    getHead: (runId) => {
      reads.getHead++;
      return inner.getHead!(runId);
    },
  };
  return { store, reads };
}

describe('GET /runs/:id/events on a long run', () => {
  it('builds the first state from the head alone, and it agrees with GET /runs/:id', async () => {
    const { store, reads } = countingReads(memoryStore());
    const prior = 400;
    const agent = approvalAgent(prior);
    const handler = createHandler({ agent, store });
    // A long history (the routes take one message per request): started through sessions.
    const { runId } = await createSessions({ agent, store }).start(priorMessages(prior));
    const full = (await send(handler, 'GET', `/runs/${runId}`)).body;
    expect(JSON.stringify(full.messages).length).toBeGreaterThan(64 * 1024);

    reads.get = reads.getParts = reads.getHead = 0;
    const response = await handler(jsonRequest('GET', `/runs/${runId}/events`));
    const events = readSse(response.body!);
    const { value: state } = await events.next();
    await events.return(undefined);
    expect(reads).toEqual({ get: 0, getParts: 0, getHead: 1 });
    expect(state).toMatchObject({
      event: 'state',
      data: {
        runId,
        status: 'needs_input',
        needsInput: true,
        pending: full.pending,
        version: full.version,
        messageCount: full.messages.length,
      },
    });
    expect(state!.data.messages).toBeUndefined();
  });

  it('still reads a short run whole, so its first state carries the transcript', async () => {
    const { store, reads } = countingReads(memoryStore());
    const agent = approvalAgent(2);
    const handler = createHandler({ agent, store });
    const { runId } = await createSessions({ agent, store }).start(priorMessages(2));
    reads.getParts = 0;
    const response = await handler(jsonRequest('GET', `/runs/${runId}/events`));
    const events = readSse(response.body!);
    const { value: state } = await events.next();
    await events.return(undefined);
    expect(reads.getHead).toBe(1);
    expect(state!.data.messages).toHaveLength(state!.data.messageCount);
  });
});
