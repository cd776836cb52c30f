/** The Vercel Edge function served by edge-runtime's CLI, which delivers service-worker `fetch` events. */
import edgeFunction from './vercel-edge.js';

interface FetchEvent extends Event {
  request: Request;
  respondWith(response: Promise<Response>): void;
}

addEventListener('fetch', (event) => {
  const fetchEvent = event as FetchEvent;
  fetchEvent.respondWith(edgeFunction(fetchEvent.request));
});
