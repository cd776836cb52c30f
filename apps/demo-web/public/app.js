// The demo page: a chat with the LN2 assistant. The run lives on the server (?run=<id> in the URL),
// so a reload, or another browser with the same URL, shows the same pending card. Streamed text and
// other windows' progress arrive over the run's Server-Sent Events. Their `state` events carry the
// transcript only while it is short (and `messageCount` always): when it is missing the page keeps
// the transcript it shows, or reads the run again (`GET /runs/:id`) when it has grown. A card
// whose interaction expires counts down; when the server's sweep lets the run go on, the page
// sees the turn on the event stream (with no `state` event) and reads the run again.

import { call, follow, ProblemError, useLanguage } from './api.js';
import { budgetCard, budgetLine } from './budget.js';
import { approvalCard, questionCard, setBusy, showError } from './cards.js';
import { attachCountdown } from './countdown.js';
import { h } from './dom.js';
import { inputCard } from './form-card.js';
import { pickLang, translator } from './i18n.js';
import { reviewCard } from './review-card.js';
import { liveBubble, renderTranscript } from './transcript.js';

const params = new URLSearchParams(location.search);
const lang = pickLang(params.get('lang'), navigator.languages);
const t = translator(lang);
useLanguage(lang);

const $ = (selector) => document.querySelector(selector);
const log = $('#log');
const pendingArea = $('#pending');
const statusLine = $('#status');
const composer = $('#composer');
const message = $('#message');
const stopButton = $('#stop');
const budgetText = $('#budget');

const state = {
  runId: params.get('run'),
  busy: false,
  running: false,
  renderedSeq: 0,
  stream: null,
  view: null,
  /** The store version of the view shown: an older view (a late response or event) is dropped. */
  version: -1,
  /** How many messages the transcript on the page holds. */
  messageCount: 0,
  /** The run's decisions (approvals, forms), as the server's views add them. */
  decisions: [],
  /** A `GET /runs/:id` in flight, and whether another is wanted after it. */
  refreshing: false,
  refreshAgain: false,
};

function applyStrings() {
  document.documentElement.lang = lang;
  document.title = `${t('title')} · TurnKit`;
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  log.setAttribute('aria-label', t('conversation'));
  message.placeholder = t('placeholder');
  pendingArea.setAttribute('aria-label', t('waiting'));
  const toggle = $('#lang');
  toggle.setAttribute('aria-label', t('switchLangLabel'));
  toggle.addEventListener('click', () => {
    const next = new URL(location.href);
    next.searchParams.set('lang', lang === 'en' ? 'zh-CN' : 'en');
    location.assign(next);
  });
  const fresh = new URL(location.origin);
  if (params.get('lang')) fresh.searchParams.set('lang', params.get('lang'));
  $('#new-run').href = fresh.pathname + fresh.search;
  const inbox = new URL('/inbox.html', location.origin);
  if (params.get('lang')) inbox.searchParams.set('lang', params.get('lang'));
  $('#inbox-link').href = inbox.pathname + inbox.search;
}

/** How many asks wait across runs, in the header's "Inbox (n)" ("50+" past the first page). */
async function updateInboxCount() {
  try {
    const page = await call('GET', '/interactions?limit=50');
    const count = `${page.items.length}${page.cursor ? '+' : ''}`;
    const link = $('#inbox-link');
    // A phone's header shows the count alone (the word is hidden by the style sheet).
    link.replaceChildren(h('span', { class: 'inbox-label' }, t('inbox')), ` (${count})`);
    link.setAttribute('aria-label', t('inboxCount', count));
  } catch {
    // The count is a hint: without it the link still says "Inbox".
  }
}

function updateStatus() {
  statusLine.textContent = state.busy ? t('thinking') : state.running ? t('working') : '';
  statusLine.classList.toggle('active', state.busy || state.running);
  // Stop: while a turn of a known run plays (the first turn's run id comes with its answer).
  stopButton.hidden = !(state.runId && (state.busy || state.running));
}

/** Asks the server to stop the run's turn wherever it plays; the turn's own answer shows it ended. */
async function stopTurn() {
  if (!state.runId) return;
  stopButton.disabled = true;
  stopButton.textContent = t('stopping');
  try {
    const view = await call('POST', `/runs/${state.runId}/stop`, { reason: t('stopReason') });
    // A paused run stopped at once (its asks cancelled); a playing turn ends with its own answer.
    if (view.stop === 'stopped') render(view);
  } catch (error) {
    flash(`${t('error')} ${error.problem?.detail ?? error.message}`);
  } finally {
    stopButton.disabled = false;
    stopButton.textContent = t('stop');
  }
}

/** The line under the transcript that says how the last turn ended, when it ended early. */
function showTurnEnd(view) {
  log.querySelector('.turn-end')?.remove();
  const text =
    view.status === 'aborted'
      ? t('stopped')
      : view.status === 'budget_exceeded'
        ? t('budgetExceeded', budgetLine(view, t))
        : '';
  if (!text) return;
  const line = document.createElement('p');
  line.className = `note turn-end ${view.status}`;
  line.setAttribute('role', 'status');
  line.textContent = text;
  log.append(line);
}

/** The run's spend against its budget, when it has one. */
function showBudget(view) {
  const text = budgetLine(view, t);
  budgetText.hidden = !text;
  budgetText.textContent = text ? t('budgetLine', text) : '';
}

/** A transient line in the conversation (gone with the next state). */
function notice(text) {
  const line = document.createElement('p');
  line.className = 'note';
  line.textContent = text;
  log.append(line);
  line.scrollIntoView({ block: 'end' });
}

/** A message that stays until the user's next action. */
function flash(text) {
  const box = $('#flash');
  box.textContent = text;
  box.hidden = !text;
}

function setRun(runId) {
  state.runId = runId;
  const url = new URL(location.href);
  url.searchParams.set('run', runId);
  history.replaceState(null, '', url);
  $('#run-chip').hidden = false;
  $('#run-id').textContent = runId.slice(0, 12);
  $('#run-id').title = runId;
  listen();
}

/** Reads the whole run again (with its transcript), once at a time; a call meanwhile asks for one more. */
async function refresh() {
  if (state.refreshing) {
    state.refreshAgain = true;
    return;
  }
  state.refreshing = true;
  try {
    do {
      state.refreshAgain = false;
      render(await call('GET', `/runs/${state.runId}`));
    } while (state.refreshAgain);
  } catch (error) {
    flash(`${t('error')} ${error.message}`);
  } finally {
    state.refreshing = false;
  }
}

/** Shows the transcript of a view; a view without one (a long run's state event) keeps or fetches it. */
function showTranscript(view) {
  // A state event has no decisions: when its transcript grew, the run is read again for them.
  const grew = (view.messages?.length ?? view.messageCount) !== state.messageCount;
  if (view.decisions) state.decisions = view.decisions;
  if (view.messages) {
    renderTranscript(log, view.messages, t, state.decisions);
    state.messageCount = view.messages.length;
  }
  if (!view.decisions && grew && view.messageCount !== undefined) void refresh();
}

/** Shows a run's state: transcript, pending cards (kept when already shown), status. */
function render(view) {
  if (view.version !== undefined && view.version < state.version) return;
  state.version = view.version ?? state.version;
  state.view = view;
  state.renderedSeq = Math.max(state.renderedSeq, view.lastSeq ?? 0);
  state.running = view.status === 'running';
  showTranscript(view);
  rememberQuestions(view.pending);
  offerChanges();
  showTurnEnd(view);
  showBudget(view);
  if ((view.status === 'failed' || view.status === 'blocked') && view.error)
    flash(t('failed', view.error.message));
  const ids = new Set(view.pending.map((interaction) => interaction.id));
  for (const card of pendingArea.querySelectorAll('.card')) if (!ids.has(card.dataset.id)) card.remove();
  let first = null;
  const builders = {
    question: buildQuestion,
    approval: buildDecision(approvalCard),
    input: buildInput,
    budget: buildBudget,
    review: buildDecision(reviewCard),
  };
  for (const interaction of view.pending) {
    if (pendingArea.querySelector(`.card[data-id="${CSS.escape(interaction.id)}"]`)) continue;
    const card = builders[interaction.kind](interaction);
    pendingArea.append(card);
    if (interaction.expiresAt) attachCountdown(card, interaction.expiresAt, t);
    first ??= card;
  }
  message.placeholder = t(view.pending.length ? 'placeholderPending' : 'placeholder');
  updateStatus();
  if (first) first.querySelector('input, textarea, button')?.focus({ preventScroll: true });
  (pendingArea.lastElementChild ?? log.lastElementChild)?.scrollIntoView({ block: 'end' });
}

/**
 * "Change this answer" (issue 32): the questions this tab saw, by run, as tool call id → interaction
 * id, so an answered question in the transcript can fork the run just before its answer.
 */
function askedIn(runId) {
  try {
    return JSON.parse(sessionStorage.getItem(`asked:${runId}`) ?? '{}');
  } catch {
    return {};
  }
}

function rememberQuestions(pending) {
  const asked = askedIn(state.runId);
  const questions = pending.filter((interaction) => interaction.kind === 'question');
  if (questions.every((interaction) => asked[interaction.toolCallId] === interaction.id)) return;
  for (const interaction of questions) asked[interaction.toolCallId] = interaction.id;
  sessionStorage.setItem(`asked:${state.runId}`, JSON.stringify(asked));
}

/** Adds "Change this answer" to each answered question of the transcript this tab saw asked. */
function offerChanges() {
  const asked = askedIn(state.runId);
  for (const answered of log.querySelectorAll('.bubble.answer[data-tool-call-id]')) {
    const interactionId = asked[answered.dataset.toolCallId];
    if (!interactionId || answered.querySelector('.change-answer')) continue;
    answered.append(
      h(
        'button',
        { type: 'button', class: 'change-answer', onclick: () => changeAnswer(interactionId) },
        t('changeAnswer'),
      ),
    );
  }
}

/** Forks the run just before `interactionId` was answered, and follows the new run. */
function changeAnswer(interactionId) {
  if (state.busy) return;
  const from = state.runId;
  return play(null, async () => {
    const view = await call('POST', `/runs/${from}/fork`, { at: { interactionId } });
    sessionStorage.setItem(`asked:${view.runId}`, JSON.stringify(askedIn(from)));
    // A new run: its versions and events count on from the point it was forked at.
    state.version = -1;
    state.renderedSeq = 0;
    pendingArea.replaceChildren();
    setRun(view.runId);
    return view;
  });
}

/** Runs one request that plays a turn; renders its result or explains its problem. */
async function play(card, request) {
  state.busy = true;
  flash('');
  updateStatus();
  if (card) setBusy(card, true);
  try {
    render(await request());
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    if (error.status === 410 && error.problem.run) {
      render(error.problem.run);
      flash(t('expired'));
    } else if (error.status === 409 && state.runId) {
      render(await call('GET', `/runs/${state.runId}`));
      flash(t('taken'));
    } else if (card?.isConnected) {
      const issues = (error.problem.issues ?? []).map(
        (issue) => `\n• ${issue.path.join('.')}: ${issue.message}`,
      );
      showError(card, `${error.problem.detail ?? error.message}${issues.join('')}`);
    } else {
      flash(`${t('error')} ${error.problem.detail ?? error.message}`);
    }
  } finally {
    state.busy = false;
    if (card?.isConnected) setBusy(card, false);
    log.querySelector('.bubble.live')?.remove();
    updateStatus();
    void updateInboxCount();
  }
}

function buildQuestion(interaction) {
  const card = questionCard(interaction, t, {
    onAnswer: (answers) =>
      play(card, () => call('POST', `/runs/${state.runId}/answer`, { id: interaction.id, answers })),
    onDismiss: () => play(card, () => call('POST', `/runs/${state.runId}/cancel`, { id: interaction.id })),
  });
  return card;
}

/** An approval's card, or a hook's review's (DESIGN §26): both decided on the approve and reject routes. */
function buildDecision(cardOf) {
  return (interaction) => {
    const card = cardOf(interaction, t, {
      onApprove: (decision) =>
        play(card, () => call('POST', `/runs/${state.runId}/approve`, { id: interaction.id, ...decision })),
      onReject: (decision) =>
        play(card, () => call('POST', `/runs/${state.runId}/reject`, { id: interaction.id, ...decision })),
    });
    return card;
  };
}

function buildInput(interaction) {
  const card = inputCard(interaction, t, {
    onSubmit: (value) =>
      play(card, () => call('POST', `/runs/${state.runId}/input`, { id: interaction.id, value })),
    onDismiss: () => play(card, () => call('POST', `/runs/${state.runId}/cancel`, { id: interaction.id })),
  });
  return card;
}

function buildBudget(interaction) {
  const card = budgetCard(interaction, t, {
    onApprove: (extend) =>
      play(card, () => call('POST', `/runs/${state.runId}/approve`, { id: interaction.id, extend })),
    onStop: () => play(card, () => call('POST', `/runs/${state.runId}/reject`, { id: interaction.id })),
  });
  return card;
}

/** Events that end a turn: its `state` event follows, except after a sweep (then the page reads the run). */
const TURN_ENDS = new Set([
  'turn_paused',
  'turn_completed',
  'turn_failed',
  'turn_aborted',
  'turn_max_steps',
  'turn_budget_exceeded',
  'turn_blocked',
]);

/** Live events of the run: streamed text, tools at work, timeouts, and the state after each turn. */
function onEvent({ event, id, data }) {
  if (event === 'state') return render(data);
  if (id !== undefined && id <= state.renderedSeq) return;
  if (event === 'interaction_resolved' && data.resolution === 'timed_out') flash(t('timedOut'));
  if (TURN_ENDS.has(event) && !state.busy) {
    // A turn this page did not ask for and no state event told about (a sweep): read the run.
    setTimeout(() => {
      if (state.renderedSeq < id) void refresh();
    }, 500);
  }
  if (event === 'turn_started' && !state.busy) {
    state.running = true;
    updateStatus();
  }
  if (event === 'model_started') log.querySelector('.bubble.live')?.classList.remove('live');
  // A handoff (DESIGN §27): the agent handed to speaks from here on.
  if (event === 'handoff') {
    log.dataset.speaker = data.to;
    notice(t('handoff', data.to));
  }
  if (event === 'model_delta') {
    const live = liveBubble(log, t);
    // A final answer streams as the JSON of a thaw plan: say it is coming, the transcript shows it.
    live.dataset.raw = (live.dataset.raw ?? '') + data.text;
    live.textContent = live.dataset.raw.trimStart().startsWith('{') ? t('writingPlan') : live.dataset.raw;
    live.scrollIntoView({ block: 'end' });
  }
  if (event === 'tool_started' && data.toolName !== 'AskUserQuestion') {
    notice(t('toolRunning', data.toolName));
  }
}

function listen() {
  state.stream?.abort();
  state.stream = new AbortController();
  void follow(state.runId, onEvent, state.stream.signal);
}

composer.addEventListener('submit', (event) => {
  event.preventDefault();
  const input = message.value.trim();
  if (!input || state.busy) return;
  message.value = '';
  if (!state.runId) {
    log.querySelector('.empty')?.remove();
    log.append(
      Object.assign(document.createElement('article'), {
        className: 'bubble user pending-echo',
        textContent: input,
      }),
    );
    return play(null, async () => {
      const view = await call('POST', '/runs', { input });
      setRun(view.runId);
      return view;
    });
  }
  return play(null, () => call('POST', `/runs/${state.runId}/messages`, { input }));
});

stopButton.addEventListener('click', () => void stopTurn());
stopButton.setAttribute('aria-label', t('stopLabel'));

message.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    composer.requestSubmit();
  }
});

applyStrings();
void updateInboxCount();
if (state.runId) {
  setRun(state.runId);
  call('GET', `/runs/${state.runId}`)
    .then(render)
    .catch((error) => {
      if (error instanceof ProblemError && error.status === 404) {
        state.stream?.abort();
        flash(t('notFound'));
      } else flash(`${t('error')} ${error.message}`);
    });
} else {
  renderTranscript(log, [], t);
}
