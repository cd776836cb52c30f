/**
 * A hook's review through the demo server (DESIGN §26), with a policy that has every thaw reviewed:
 * the thaw waits on a `review` before its approval; approved with an edit, it thaws the edited input
 * once, and the run's decisions (what the page's transcript shows) hold the review's.
 */
import { toolPolicy } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { useDemoServer } from './demo-server.js';

const { post } = useDemoServer({
  hooks: [toolPolicy({ name: 'thaw-review', ask: ['thaw_vials'], reason: 'Thaws are reviewed.' })],
});

describe('the demo server with thaw reviews', () => {
  it('reviews the thaw before its approval; the edited input is what is thawed', async () => {
    const started = await post('/api/runs', { input: 'Thaw vials for tomorrow' });
    const runId = started.body.runId;
    const answered = await post(`/api/runs/${runId}/answer`, {
      id: started.body.pending[0].id,
      answers: { lines: 'K562', medium: 'DMEM' },
    });
    const [review] = answered.body.pending;
    expect(review).toMatchObject({
      kind: 'review',
      toolName: 'thaw_vials',
      payload: {
        hook: 'thaw-review',
        point: 'beforeTool',
        subject: { name: 'thaw_vials', input: { cellLines: ['K562'], medium: 'DMEM' } },
        reason: 'Thaws are reviewed.',
      },
    });
    const reviewed = await post(`/api/runs/${runId}/approve`, {
      id: review.id,
      edit: { cellLines: ['K562'], medium: 'RPMI-1640' },
    });
    const [approval] = reviewed.body.pending;
    expect(approval).toMatchObject({
      kind: 'approval',
      payload: { input: { cellLines: ['K562'], medium: 'RPMI-1640' } },
    });
    const done = await post(`/api/runs/${runId}/approve`, { id: approval.id });
    expect(done.body.status).toBe('completed');
    expect(done.body.output.summary).toContain('RPMI-1640');
    expect(done.body.decisions).toContainEqual(
      expect.objectContaining({ kind: 'review', resolution: 'approved', toolName: 'thaw_vials' }),
    );
  });
});
