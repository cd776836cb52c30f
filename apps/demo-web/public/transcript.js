// The conversation, rebuilt from the run's transcript (OpenAI chat messages) on every state, with
// the decisions taken on the way (the server adds the run's `decisions` to the views it sends):
// each approval (approved or rejected, its rationale, the edited input) and each form's value,
// shown next to the result of the call they were about.

import { h } from './dom.js';

function bubble(kind, who, text) {
  return h(
    'article',
    { class: `bubble ${kind}` },
    h('p', { class: 'who' }, who),
    h('p', { class: 'text' }, text),
  );
}

/**
 * The agent's final answer is a thaw plan (the agent's `output` schema): `{ summary, thawed: [{
 * cellLine, box, positions, vialsLeft }], medium, followUps, nextSteps }` as JSON. The plan a
 * message holds, or null (prose, a step's text before its tool calls).
 */
export function planOf(text) {
  if (typeof text !== 'string' || !text.trimStart().startsWith('{')) return null;
  const value = parse(text);
  const lists = ['thawed', 'followUps', 'nextSteps'];
  if (typeof value?.summary !== 'string' || !lists.every((key) => Array.isArray(value[key]))) return null;
  return value;
}

/**
 * Who speaks: the assistant, or once the run was handed to another agent (a handoff, DESIGN §27:
 * a transfer tool's result `{ ok: true, transferred_to }`) that agent, by name.
 */
function speakerOf(speaker, t) {
  return speaker ? t('speaker', speaker) : t('assistant');
}

/** The agent a tool result handed the run to, or null. */
function handedTo(content) {
  const result = parse(content);
  return result?.ok === true && typeof result.transferred_to === 'string' ? result.transferred_to : null;
}

/** An assistant bubble of a plan: its summary, a table of what was thawed, the medium, the next steps. */
function planBubble(plan, t, who = t('assistant')) {
  const article = bubble('assistant plan', who, plan.summary);
  const rows = plan.thawed.map((thaw) =>
    h(
      'tr',
      {},
      h('td', {}, thaw.cellLine),
      h('td', {}, thaw.box),
      h('td', {}, thaw.positions.join(', ')),
      h('td', {}, thaw.vialsLeft === null ? '—' : String(thaw.vialsLeft)),
    ),
  );
  const details = h('div', { class: 'plan-details', 'data-plan': '' });
  if (rows.length > 0) {
    details.append(
      h(
        'table',
        { class: 'plan-table' },
        h('caption', {}, t('planTitle')),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['planLine', 'planBox', 'planPositions', 'planLeft'].map((key) =>
              h('th', { scope: 'col' }, t(key)),
            ),
          ),
        ),
        h('tbody', {}, rows),
      ),
    );
  }
  const facts = [];
  if (plan.medium) facts.push([t('planMedium'), plan.medium]);
  if (plan.followUps.length > 0) facts.push([t('planFollowUps'), plan.followUps.join(', ')]);
  if (facts.length > 0) {
    details.append(
      h(
        'dl',
        { class: 'plan-facts' },
        facts.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
      ),
    );
  }
  if (plan.nextSteps.length > 0) {
    details.append(
      h('p', { class: 'plan-next-title' }, t('planNext')),
      h(
        'ul',
        { class: 'plan-next' },
        plan.nextSteps.map((step) => h('li', {}, step)),
      ),
    );
  }
  if (details.childElementCount > 0) article.append(details);
  return article;
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** `{"HeLa":"D2"}` → `HeLa: D2`; anything else as JSON. */
function valueText(value) {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.entries(value)
      .map(([key, item]) => `${key}: ${typeof item === 'string' ? item : JSON.stringify(item)}`)
      .join(' · ');
  }
  return JSON.stringify(value);
}

/** One decision on a call: what was decided, why, and with what input or value. */
function decisionNode(decision, toolName, t) {
  const lines = [];
  if (decision.kind === 'approval' || decision.kind === 'review') {
    const approved = decision.resolution === 'approved';
    // A hook's review (DESIGN §26) is a decision on the same call, before the tool's own approval.
    const key = decision.kind === 'review' ? 'decisionReview' : 'decision';
    lines.push(t(`${key}${approved ? 'Approved' : 'Rejected'}`, toolName));
    if (decision.editedInput !== undefined) {
      lines.push(t('decisionEdited', JSON.stringify(decision.editedInput)));
    }
  } else if (decision.kind === 'input') {
    lines.push(
      decision.resolution === 'answered'
        ? t('decisionForm', toolName, valueText(decision.value))
        : t('decisionFormClosed', toolName, decision.resolution),
    );
  } else {
    return null;
  }
  if (decision.rationale) lines.push(t('decisionRationale', decision.rationale));
  const [title, ...details] = lines;
  return h(
    'div',
    {
      class: `decision ${decision.resolution}`,
      'data-kind': decision.kind,
      'data-resolution': decision.resolution,
    },
    h('p', { class: 'decision-title' }, title),
    details.map((line) => h('p', { class: 'decision-detail' }, line)),
  );
}

function toolNode(call, content, t, decided = false, toolCallId = undefined) {
  const result = parse(content);
  if (call?.name === 'AskUserQuestion') {
    if (result?.answers) {
      const lines = Object.entries(result.answers).map(([header, value]) => `${header}: ${value}`);
      const answered = bubble('user answer', t('answered'), lines.join('\n'));
      // Which call it answered: the page offers "change this answer" on it (app.js).
      answered.dataset.toolCallId = toolCallId;
      return answered;
    }
    return h(
      'p',
      { class: 'note' },
      t(result?.error_code === 'question_timeout' ? 'timedOutNote' : 'dismissed'),
    );
  }
  if (result?.ok === false && result.error_code === 'rejected_by_user') {
    // The decision line above already says so, with its rationale.
    if (decided) return null;
    return h('p', { class: 'note' }, t('rejectedNote', result.rationale));
  }
  const pretty = result ? JSON.stringify(result, null, 2) : content;
  return h(
    'details',
    { class: 'tool' },
    h('summary', {}, h('span', { class: 'gear', 'aria-hidden': 'true' }, '⚙ '), t('tool', call?.name ?? '?')),
    h('pre', {}, pretty),
  );
}

/**
 * Replaces the contents of `log` with the transcript `messages`, each decision of `decisions` (the
 * run's, oldest first) before the result of the call it was about.
 */
export function renderTranscript(log, messages, t, decisions = []) {
  const calls = new Map();
  const results = messages.filter((message) => message.role === 'tool').map((m) => m.tool_call_id);
  // A decision on a call of the transcript goes before its result; one on a sub-agent's call (not
  // in this transcript) before the next result from where the decisions before it went.
  const byCall = new Map();
  let cursor = 0;
  for (const decision of decisions) {
    const own = results.indexOf(decision.toolCallId, cursor);
    const at = own !== -1 ? own : results.indexOf(decision.toolCallId);
    if (at !== -1) cursor = at;
    const where = at !== -1 ? results[at] : results[cursor];
    if (where !== undefined) byCall.set(where, [...(byCall.get(where) ?? []), decision]);
  }
  const nodes = [];
  let speaker = null;
  for (const message of messages) {
    if (message.role === 'user') nodes.push(bubble('user', t('you'), message.content));
    if (message.role === 'assistant') {
      const plan = message.tool_calls?.length ? null : planOf(message.content);
      const who = speakerOf(speaker, t);
      if (plan) nodes.push(planBubble(plan, t, who));
      else if (message.content) nodes.push(bubble('assistant', who, message.content));
      for (const call of message.tool_calls ?? []) calls.set(call.id, { name: call.function.name });
    }
    if (message.role === 'tool') {
      const call = calls.get(message.tool_call_id);
      const shown = (byCall.get(message.tool_call_id) ?? [])
        .map((decision) =>
          decisionNode(
            decision,
            decision.toolName ?? (decision.toolCallId === message.tool_call_id ? call?.name : null) ?? '?',
            t,
          ),
        )
        .filter(Boolean);
      nodes.push(...shown, toolNode(call, message.content, t, shown.length > 0, message.tool_call_id));
      const to = call?.name?.startsWith('transfer_to_') ? handedTo(message.content) : null;
      if (to) {
        speaker = to;
        nodes.push(h('p', { class: 'note handoff', 'data-agent': to }, t('handoff', to)));
      }
    }
  }
  // Text that streams next is the last speaker's (app.js sets it again at each live handoff).
  log.dataset.speaker = speaker ?? '';
  if (nodes.length === 0) nodes.push(h('p', { class: 'empty' }, t('empty')));
  log.replaceChildren(...nodes.filter(Boolean));
}

/** The assistant bubble that streamed text goes into (created on first use), labelled with who speaks. */
export function liveBubble(log, t) {
  let live = log.querySelector('.bubble.live .text');
  if (!live) {
    const article = bubble('assistant live', speakerOf(log.dataset.speaker, t), '');
    log.append(article);
    live = article.querySelector('.text');
  }
  return live;
}
