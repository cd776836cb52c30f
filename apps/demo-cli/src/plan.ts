/**
 * The agent's final answer is a typed object (`defineAgent({ output: ThawPlan })`, issue 30): this
 * reads it back from the model's JSON text and draws it as the agent's line and a small list —
 * each thaw (line, box, positions, vials left), the medium, the follow-ups and the next steps.
 */
import { ThawPlan, type ThawPlanValue } from '@turnkit/demo-models';
import { safeLine, safeText } from './sanitize.js';
import type { Ui } from './ui.js';

/** The plan `text` holds as JSON, or null when it is not one (prose, a tool-calling step's text). */
export function readPlan(text: unknown): ThawPlanValue | null {
  let value = text;
  if (typeof text === 'string') {
    if (!text.trimStart().startsWith('{')) return null;
    try {
      value = JSON.parse(text);
    } catch {
      return null;
    }
  }
  const parsed = ThawPlan.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The plan's lines: its summary after the speaker, then one indented line per field that has a value. */
export function planLines(ui: Ui, speaker: string, plan: ThawPlanValue): string[] {
  const { color, t } = ui;
  const lines = [`${color.bold(color.magenta(speaker))} › ${safeText(plan.summary)}`];
  const details: string[] = [];
  for (const thaw of plan.thawed) {
    const where = t('planThawed', {
      cellLine: safeLine(thaw.cellLine),
      box: safeLine(thaw.box),
      positions: thaw.positions.map(safeLine).join(', '),
    });
    details.push(
      thaw.vialsLeft === null ? where : `${where} · ${t('planLeft', { count: String(thaw.vialsLeft) })}`,
    );
  }
  if (plan.medium) details.push(t('planMedium', { medium: safeLine(plan.medium) }));
  if (plan.followUps.length > 0)
    details.push(t('planFollowUps', { tasks: plan.followUps.map(safeLine).join(', ') }));
  for (const step of plan.nextSteps) details.push(t('planNext', { step: safeLine(step) }));
  if (plan.thawed.length > 0 || details.length > 0) {
    lines.push(`  ${color.bold(t('planTitle'))}`);
    for (const detail of details) lines.push(`    ${color.dim('•')} ${detail}`);
  }
  return lines;
}
