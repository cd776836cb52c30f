// The page's client of the TurnKit HTTP handler (mounted at /api): JSON calls (in the page's
// language: a new run's forms speak it), problem details as errors, and the run's Server-Sent
// Events read with fetch (so headers such as a bearer token could be added, which EventSource
// cannot do).

let language = 'en';

/** The language calls ask in (`Accept-Language`): the server builds a new run's context with it. */
export function useLanguage(lang) {
  language = lang;
}

/** An HTTP problem (application/problem+json) as an Error with its body. */
export class ProblemError extends Error {
  constructor(status, problem) {
    super(problem?.detail ?? `HTTP ${status}`);
    this.status = status;
    this.problem = problem ?? {};
  }
}

/** Calls the API; resolves with the JSON body, rejects with a ProblemError. */
export async function call(method, path, body) {
  const init = { method, headers: { accept: 'application/json', 'accept-language': language } };
  if (method === 'POST') {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body ?? {});
  }
  const response = await fetch(`/api${path}`, init);
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ProblemError(response.status, data);
  return data;
}

function parseFrame(frame) {
  let event = 'message';
  let id;
  const data = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'id') id = value;
    else if (field === 'data') data.push(value);
  }
  return data.length
    ? { event, id: id === undefined ? undefined : Number(id), data: JSON.parse(data.join('\n')) }
    : null;
}

/**
 * Follows the events of a run until `signal` aborts, reconnecting after a dropped connection with
 * `Last-Event-ID` (as EventSource does), so the events sent meanwhile are replayed, not lost.
 * Calls onEvent({ event, id, data }) for each event.
 */
export async function follow(runId, onEvent, signal) {
  let lastId;
  for (let attempt = 0; !signal.aborted; attempt++) {
    try {
      const headers = { accept: 'text/event-stream' };
      if (lastId !== undefined) headers['last-event-id'] = String(lastId);
      const response = await fetch(`/api/runs/${encodeURIComponent(runId)}/events`, { headers, signal });
      if (response.status === 404) return;
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      attempt = 0;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += value;
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const message = parseFrame(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (!message) continue;
          if (message.id !== undefined) lastId = message.id;
          onEvent(message);
        }
      }
    } catch {
      if (signal.aborted) return;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(1000 * (attempt + 1), 5000)));
  }
}
