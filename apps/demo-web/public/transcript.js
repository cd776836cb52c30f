// The conversation, rebuilt from the run's transcript (OpenAI chat messages) on every state.

import { h } from './dom.js';

function bubble(kind, who, text) {
  return h(
    'article',
    { class: `bubble ${kind}` },
    h('p', { class: 'who' }, who),
    h('p', { class: 'text' }, text),
  );
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function toolNode(call, content, t) {
  const result = parse(content);
  if (call?.name === 'AskUserQuestion') {
    if (result?.answers) {
      const lines = Object.entries(result.answers).map(([header, value]) => `${header}: ${value}`);
      return bubble('user answer', t('answered'), lines.join('\n'));
    }
    return h(
      'p',
      { class: 'note' },
      t(result?.error_code === 'question_timeout' ? 'timedOutNote' : 'dismissed'),
    );
  }
  if (result?.ok === false && result.error_code === 'rejected_by_user') {
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

/** Replaces the contents of `log` with the transcript `messages`. */
export function renderTranscript(log, messages, t) {
  const calls = new Map();
  const nodes = [];
  for (const message of messages) {
    if (message.role === 'user') nodes.push(bubble('user', t('you'), message.content));
    if (message.role === 'assistant') {
      if (message.content) nodes.push(bubble('assistant', t('assistant'), message.content));
      for (const call of message.tool_calls ?? []) calls.set(call.id, { name: call.function.name });
    }
    if (message.role === 'tool') nodes.push(toolNode(calls.get(message.tool_call_id), message.content, t));
  }
  if (nodes.length === 0) nodes.push(h('p', { class: 'empty' }, t('empty')));
  log.replaceChildren(...nodes);
}

/** The assistant bubble that streamed text goes into (created on first use). */
export function liveBubble(log, t) {
  let live = log.querySelector('.bubble.live .text');
  if (!live) {
    const article = bubble('assistant live', t('assistant'), '');
    log.append(article);
    live = article.querySelector('.text');
  }
  return live;
}
