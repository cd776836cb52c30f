// The time left on a card whose interaction expires ("Time left to answer: 4:59"), ticking every
// second. When it reaches zero the card says "Question timed out, the agent will continue" and its
// controls are disabled: the server's sweep resolves the interaction and the run goes on (the page
// sees that on the run's event stream).

import { h } from './dom.js';

/** `4:59`, or `1:02:03` past an hour: the time left, rounded up to the second. */
export function formatCountdown(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const two = (n) => String(n).padStart(2, '0');
  const [hours, minutes, seconds] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  return hours > 0 ? `${hours}:${two(minutes)}:${two(seconds)}` : `${minutes}:${two(seconds)}`;
}

/** Adds the countdown to `card` (shown already), before its actions, until `expiresAt` (ISO). */
export function attachCountdown(card, expiresAt, t) {
  const deadline = Date.parse(expiresAt);
  const line = h('p', { class: 'countdown', role: 'timer' });
  card.querySelector('.actions')?.before(line);
  const tick = () => {
    // A card answered or resolved elsewhere is removed: its countdown stops with it.
    if (!card.isConnected) return clearInterval(timer);
    const left = deadline - Date.now();
    if (left > 0) {
      line.textContent = t('timeLeft', formatCountdown(left));
      line.classList.toggle('soon', left <= 30_000);
      return;
    }
    clearInterval(timer);
    line.textContent = t('timedOut');
    line.classList.add('expired');
    for (const control of card.querySelectorAll('input, textarea, button')) control.disabled = true;
  };
  const timer = setInterval(tick, 250);
  tick();
}
