/**
 * The door of `events/` for the layers above (queue, http, protocols): the event hub interface and
 * the in-process hub, what a handler publishes to a hub (its events and the run's `state` view),
 * and the count checks their options share. Light on purpose: the hubs shared across processes
 * (`hubs/`) and the JSONL log (`jsonl-event-log.ts`) are public entries of their own, so a
 * handler bundles none of them.
 */
export { checkCount, countOr } from './counts.js';
export type {
  EventHub,
  EventHubOptions,
  HubListener,
  HubMessage,
  SubscribeOptions,
  Subscription,
  Unsubscribe,
} from './hub.js';
export { createEventHub, eventPosition, parseSeq, positionOf } from './hub.js';
export type { Publisher, PublisherOptions, RequestOnEvent } from './publish.js';
export { headStateMessage, hubPublisher, stateMessage } from './publish.js';
export type { RunView } from './view.js';
export { expiredResolution, STATE_MESSAGES_MAX_CHARS, stateView, toView } from './view.js';
