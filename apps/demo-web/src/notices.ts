/**
 * Asks that are kept (DESIGN §30), as the demo shows them: the handler's `onInteraction` is told
 * when an ask is asked, reminded and escalated (the sweeper fires the last two, once each); a real
 * app sends the e-mail or the chat message there. The demo keeps the reminders and escalations it
 * was told, in memory, and adds them to the inbox's items (`GET /api/interactions`), so the inbox
 * shows "reminded at …" and "escalated to … at …". A restart forgets them (nothing is lost: they
 * were notices, not state).
 */
import type { InteractionNotice, PendingInteraction } from '@turnkit/core';

/** One reminder or escalation of an ask. */
export interface Notice {
  reason: 'reminder' | 'escalated';
  /** When the sweeper fired it (ISO). */
  at: string;
  /** An escalation's new assignees. */
  assignees?: string[];
}

/** The reminders and escalations told so far, by run and interaction (the newest 10 000 asks). */
export class NoticeLog {
  private readonly notices = new Map<string, Notice[]>();

  /** The handler's `onInteraction`: keeps each reminder and escalation. */
  readonly onInteraction = (
    pending: PendingInteraction,
    run: { runId: string },
    notice: InteractionNotice,
  ): void => {
    if (notice.reason === 'asked') return;
    const key = `${run.runId}\n${pending.id}`;
    const kept = this.notices.get(key) ?? [];
    kept.push({
      reason: notice.reason,
      at: new Date().toISOString(),
      ...(notice.reason === 'escalated' && pending.assignees ? { assignees: pending.assignees } : {}),
    });
    this.notices.set(key, kept);
    if (this.notices.size > 10_000) this.notices.delete(this.notices.keys().next().value as string);
  };

  /** What was told about one ask, oldest first. */
  of(runId: string, id: string): Notice[] {
    return this.notices.get(`${runId}\n${id}`) ?? [];
  }

  /** An inbox page (`GET /api/interactions`) with each item's `notices` added; anything else unchanged. */
  async withNotices(response: Response): Promise<Response> {
    if (response.status !== 200) return response;
    const page = (await response.json()) as { items?: { runId: string; id: string }[] };
    const items = (page.items ?? []).map((item) => ({ ...item, notices: this.of(item.runId, item.id) }));
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify({ ...page, items }), { status: 200, headers });
  }
}
