/**
 * A signed run's stored row is bound to the version its write created (issue 26, low), on a server
 * store: someone with the table but not the secret puts an older, validly signed row's content back
 * under the run's current version, and the next approval is refused with SNAPSHOT_TAMPERED — the
 * approved tool ran once.
 */
import { randomUUID } from 'node:crypto';
import { createSessions, defineAgent, defineTool, SnapshotError } from '@turnkit/core';
import { scriptedModel } from '@turnkit/core/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { postgresStore } from '../src/stores/postgres-store.js';
import { serverUrl } from './store-servers.js';

const url = serverUrl('TURNKIT_PG_URL', 'PostgreSQL');
const SECRET = 'store-row-version-secret';

/** An agent that asks to record a thaw (approval first), counting each time the tool runs. */
function thawAgent(ran: string[]) {
  const recordThaw = defineTool({
    name: 'record_thaw',
    description: 'Record a thaw.',
    input: z.object({ cellLine: z.string() }),
    needsApproval: true,
    execute: async ({ cellLine }) => {
      ran.push(cellLine);
      return { recorded: cellLine };
    },
  });
  return defineAgent({
    name: 'freezer',
    instructions: 'You record thaws.',
    model: scriptedModel([
      { toolCalls: [{ id: 'thaw', name: 'record_thaw', arguments: { cellLine: 'K562' } }] },
      'Recorded one K562 thaw.',
    ]),
    tools: [recordThaw],
    snapshot: { secret: SECRET },
  });
}

describe.skipIf(!url)('postgresStore: an older signed row restored under a newer version', () => {
  let pool: pg.Pool;
  const table = `turnkit_test_${randomUUID().replaceAll('-', '')}`;
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: url, max: 4 });
    await postgresStore(pool, { table }).migrate();
  });
  afterAll(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_log`);
    await pool.end();
  });

  it('is refused with SNAPSHOT_TAMPERED, and the approved tool ran once', async () => {
    const ran: string[] = [];
    const sessions = createSessions({ agent: thawAgent(ran), store: postgresStore(pool, { table }) });
    const paused = await sessions.start('Thaw one vial of K562.');
    expect(paused.pendingQuestion?.kind).toBe('approval');
    // What a backup taken now holds: the run's row and its log rows.
    const [old] = (
      await pool.query(`SELECT snapshot, head, log_from FROM ${table} WHERE run_id = $1`, [paused.runId])
    ).rows;
    const oldLog = (await pool.query(`SELECT * FROM ${table}_log WHERE run_id = $1`, [paused.runId])).rows;

    expect((await sessions.approve(paused.runId)).status).toBe('completed');
    expect(ran).toEqual(['K562']);

    // Restored content, current version: the row's text and logs as they were, version untouched.
    await pool.query(`UPDATE ${table} SET snapshot = $2, head = $3, log_from = $4 WHERE run_id = $1`, [
      paused.runId,
      old.snapshot,
      old.head,
      old.log_from,
    ]);
    await pool.query(`DELETE FROM ${table}_log WHERE run_id = $1`, [paused.runId]);
    for (const row of oldLog) {
      await pool.query(
        `INSERT INTO ${table}_log (run_id, version, messages, resolved) VALUES ($1, $2, $3, $4)`,
        [row.run_id, row.version, row.messages, row.resolved],
      );
    }
    const refused = await sessions.approve(paused.runId).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SnapshotError);
    expect((refused as SnapshotError).code).toBe('SNAPSHOT_TAMPERED');
    expect(ran).toEqual(['K562']);
  });
});
