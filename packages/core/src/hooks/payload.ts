/**
 * The public form of a hook's ask (DESIGN §26), as `toPending` shows it. Any pending interaction
 * may be one, so this stays out of the hook machinery hooks carry (runtime.ts).
 */
import type { StoredInteraction } from '../machine/index.js';
import type { ReviewPayload } from '../types.js';

/** The public payload of a hook's ask: the subject as data (a model request shows its messages). */
export function reviewPayload(interaction: StoredInteraction): ReviewPayload {
  const { hook, point, subject } = interaction.review!;
  const parsed = JSON.parse(subject) as unknown;
  return {
    hook,
    point,
    subject: point === 'beforeModel' ? (parsed as { messages: unknown }).messages : parsed,
    ...(interaction.reason !== undefined ? { reason: interaction.reason } : {}),
  };
}
