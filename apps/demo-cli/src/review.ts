/**
 * A hook's review in the terminal (DESIGN §26): asked on the approval card, with what is under review
 * as its (editable) input — the call's input at `beforeTool`, else the subject itself — and the hook,
 * the point and its reason shown. Approving sends `approve` (with `edit` when the person changed it),
 * rejecting sends `reject` with the rationale, which the model reads as the `denied` reason. With
 * `TURNKIT_REVIEW_THAWS=1` the demo's agent has a policy that has every thaw reviewed.
 */
import type { ApprovalPayload, ResponseInput, ReviewPayload } from '@turnkit/core';
import { toolPolicy } from '@turnkit/core';
import type { Lang } from './i18n.js';
import type { Ui } from './ui.js';

/** What the card edits: a tool call's input, or the subject as a whole. */
function editable(payload: ReviewPayload): unknown {
  return payload.point === 'beforeTool' ? (payload.subject as { input: unknown }).input : payload.subject;
}

/** The review as the approval card shows it. */
export function reviewApproval(ui: Ui, payload: ReviewPayload): ApprovalPayload {
  return {
    toolName: ui.t('reviewTool', { hook: payload.hook, point: payload.point }),
    input: editable(payload),
    reason: payload.reason ?? ui.t('reviewAsk'),
  };
}

/** The response of the card's decision: its edit is what the card showed (a call's input, or the subject). */
export function reviewResponse(
  id: string,
  decision: { decision: 'approve' | 'reject'; editedInput?: unknown; rationale?: string },
): ResponseInput {
  const rationale = decision.rationale === undefined ? {} : { rationale: decision.rationale };
  if (decision.decision === 'reject') return { id, type: 'reject', ...rationale };
  if (decision.editedInput === undefined) return { id, type: 'approve', ...rationale };
  return { id, type: 'approve', edit: decision.editedInput, ...rationale };
}

/** `TURNKIT_REVIEW_THAWS=1`: every `record_thaw` call is reviewed by a person first (a lab manager). */
export function reviewFromEnv(env: NodeJS.ProcessEnv, lang: Lang) {
  if (env.TURNKIT_REVIEW_THAWS?.trim() !== '1') return {};
  const reason =
    lang === 'zh-CN'
      ? '取出冻存管前需实验室负责人审核。'
      : 'Thaws are reviewed by the lab manager before they are recorded.';
  return { hooks: [toolPolicy({ name: 'thaw-review', ask: ['record_thaw'], reason })] };
}
