// The inbox page (DESIGN §20): every pending ask across the runs of the store, oldest first, read
// a page at a time from `GET /interactions` ("More" while a cursor comes back). Each item shows its
// run, kind, summary and times, and the ask's own card (question, approval, form or budget, the
// same cards as the run page, drawn from the run's pending interaction), answered in place: the
// item leaves the list and the list is read again, so an ask the run made next shows up.

import { call, ProblemError, useLanguage } from './api.js';
import { budgetCard } from './budget.js';
import { approvalCard, questionCard, setBusy, showError } from './cards.js';
import { attachCountdown } from './countdown.js';
import { h } from './dom.js';
import { inputCard } from './form-card.js';
import { pickLang, translator } from './i18n.js';

const params = new URLSearchParams(location.search);
const lang = pickLang(params.get('lang'), navigator.languages);
const t = translator(lang);
useLanguage(lang);
/** Items per page (`?limit=`, default 20). */
const PAGE = Math.min(Math.max(Number(params.get('limit')) || 20, 1), 500);

const $ = (selector) => document.querySelector(selector);
const list = $('#inbox-list');
const more = $('#more');
const empty = $('#inbox-empty');

const state = { cursor: null, loading: false, again: false };

const KINDS = {
  question: 'kindQuestion',
  approval: 'kindApproval',
  input: 'kindInput',
  budget: 'kindBudget',
};
const dates = new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'medium' });
const when = (iso) => (iso ? dates.format(new Date(iso)) : '—');
/** A link that keeps the page's `?lang=`. */
function linkTo(path, query = {}) {
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  if (params.get('lang')) url.searchParams.set('lang', params.get('lang'));
  return url.pathname + url.search;
}

function flash(text) {
  const box = $('#flash');
  box.textContent = text;
  box.hidden = !text;
}

function applyStrings() {
  document.documentElement.lang = lang;
  document.title = `${t('inbox')} · TurnKit`;
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  const toggle = $('#lang');
  toggle.setAttribute('aria-label', t('switchLangLabel'));
  toggle.addEventListener('click', () => {
    const next = new URL(location.href);
    next.searchParams.set('lang', lang === 'en' ? 'zh-CN' : 'en');
    location.assign(next);
  });
  $('#new-run').href = linkTo('/');
}

/** Sends one answer of an item's card; the item leaves on success, the list is read again. */
async function answer(item, card, path, body) {
  flash('');
  setBusy(card, true);
  try {
    await call('POST', `/runs/${encodeURIComponent(item.runId)}/${path}`, { id: item.id, ...body });
    card.closest('.inbox-item')?.remove();
    flash(t('inboxAnswered'));
    await reload();
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    if (error.status === 409 || error.status === 410) {
      card.closest('.inbox-item')?.remove();
      flash(error.status === 410 ? t('expired') : t('taken'));
      await reload();
      return;
    }
    const issues = (error.problem.issues ?? []).map(
      (issue) => `\n• ${issue.path.join('.')}: ${issue.message}`,
    );
    showError(card, `${error.problem.detail ?? error.message}${issues.join('')}`);
  } finally {
    if (card.isConnected) setBusy(card, false);
  }
}

/** The card of a pending interaction, each action answering it in place. */
function cardOf(item, interaction) {
  let card;
  const send = (path) => (body) => answer(item, card, path, body);
  if (interaction.kind === 'question') {
    card = questionCard(interaction, t, {
      onAnswer: (answers) => send('answer')({ answers }),
      onDismiss: () => send('cancel')({}),
    });
  } else if (interaction.kind === 'approval') {
    card = approvalCard(interaction, t, { onApprove: send('approve'), onReject: send('reject') });
  } else if (interaction.kind === 'input') {
    card = inputCard(interaction, t, {
      onSubmit: (value) => send('input')({ value }),
      onDismiss: () => send('cancel')({}),
    });
  } else if (interaction.kind === 'budget') {
    card = budgetCard(interaction, t, {
      onApprove: (extend) => send('approve')({ extend }),
      onStop: () => send('reject')({}),
    });
  } else {
    return null;
  }
  if (interaction.expiresAt) attachCountdown(card, interaction.expiresAt, t);
  return card;
}

/** A reminder or an escalation the sweeper fired for the ask (DESIGN §30), as a line of its item. */
function noticeOf(notice) {
  const time = h('time', { datetime: notice.at }, when(notice.at));
  if (notice.reason === 'reminder') {
    return h('div', { class: 'notice reminder' }, h('dt', {}, t('inboxReminded')), h('dd', {}, time));
  }
  const who = (notice.assignees ?? []).join(', ');
  return h(
    'div',
    { class: 'notice escalated' },
    h('dt', {}, t('inboxEscalated')),
    h('dd', {}, `${who} · `, time),
  );
}

/** One item of the list: what it is, a link to its run, then its card (read from the run). */
async function itemOf(item) {
  const view = await call('GET', `/runs/${encodeURIComponent(item.runId)}`);
  const interaction = view.pending.find((pending) => pending.id === item.id);
  if (!interaction) return null;
  const meta = (label, value, cls) => h('div', { class: cls }, h('dt', {}, label), h('dd', {}, value));
  return h(
    'li',
    { class: 'inbox-item', 'data-id': item.id, 'data-run-id': item.runId, 'data-kind': item.kind },
    h(
      'div',
      { class: 'inbox-meta' },
      h('p', { class: 'inbox-summary' }, item.summary),
      h(
        'dl',
        {},
        meta(t('inboxRun'), h('code', { title: item.runId }, item.runId.slice(0, 12)), 'run'),
        meta(t('inboxKind'), t(KINDS[item.kind] ?? item.kind), 'kind'),
        meta(t('inboxAsked'), h('time', { datetime: item.askedAt }, when(item.askedAt)), 'asked'),
        item.expiresAt
          ? meta(t('inboxExpires'), h('time', { datetime: item.expiresAt }, when(item.expiresAt)), 'expires')
          : null,
        item.assignees ? meta(t('inboxAssignees'), item.assignees.join(', '), 'assignees') : null,
        ...(item.notices ?? []).map(noticeOf),
      ),
      h('a', { class: 'open-run', href: linkTo('/', { run: item.runId }) }, t('inboxOpen')),
    ),
    cardOf(item, interaction),
  );
}

/** Shows one page's items after those shown (an item already shown keeps its card as it is). */
async function show(items, shown) {
  for (const item of items) {
    const key = `${item.runId}\n${item.id}`;
    let node = shown.get(key);
    shown.delete(key);
    node ??= await itemOf(item).catch((error) => {
      if (error instanceof ProblemError && error.status === 404) return null;
      throw error;
    });
    if (node) list.append(node);
  }
}

/**
 * Reads the inbox from its first page again, as many pages as were shown (at least one), once at
 * a time: a call meanwhile asks for one more read after it.
 */
async function reload() {
  if (state.loading) {
    state.again = true;
    return;
  }
  state.loading = true;
  try {
    do {
      state.again = false;
      const wanted = Math.max(list.children.length, 1);
      const shown = new Map(
        [...list.children].map((node) => [`${node.dataset.runId}\n${node.dataset.id}`, node]),
      );
      list.replaceChildren();
      let cursor = null;
      let count = 0;
      do {
        const page = await call('GET', `/interactions?${query(cursor)}`);
        await show(page.items, shown);
        count += page.items.length;
        cursor = page.cursor;
      } while (cursor && count < wanted);
      state.cursor = cursor;
    } while (state.again);
  } catch (error) {
    flash(`${t('error')} ${error.problem?.detail ?? error.message}`);
  } finally {
    state.loading = false;
    updateFooter();
  }
}

function query(cursor) {
  const search = new URLSearchParams({ limit: String(PAGE) });
  if (cursor) search.set('cursor', cursor);
  return search;
}

/** The next page, after the items shown. */
async function loadMore() {
  if (state.loading || !state.cursor) return;
  state.loading = true;
  more.disabled = true;
  try {
    const page = await call('GET', `/interactions?${query(state.cursor)}`);
    await show(page.items, new Map());
    state.cursor = page.cursor;
  } catch (error) {
    flash(`${t('error')} ${error.problem?.detail ?? error.message}`);
  } finally {
    state.loading = false;
    more.disabled = false;
    updateFooter();
  }
}

function updateFooter() {
  more.hidden = !state.cursor;
  empty.hidden = list.children.length > 0 || Boolean(state.cursor);
  document.body.dataset.loaded = 'true';
}

applyStrings();
more.addEventListener('click', () => void loadMore());
$('#refresh').addEventListener('click', () => {
  flash('');
  void reload();
});
void reload();
