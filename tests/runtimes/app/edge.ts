/** Vercel Edge / edge-runtime entry: the service-worker `fetch` event edge-runtime's CLI serves. */
import { handle } from './agent.js';

interface FetchEvent extends Event {
  request: Request;
  respondWith(response: Promise<Response>): void;
}

addEventListener('fetch', (event) => {
  const fetchEvent = event as FetchEvent;
  fetchEvent.respondWith(handle(fetchEvent.request));
});
