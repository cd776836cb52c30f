/**
 * The page's entry. A chat is a run, and its id goes into the URL (`?chat=…`) with the first
 * message: a reload — mid-question, say — reads the chat back from the server (`GET /api/chat/:id`)
 * and shows it where it stopped, waiting parts included. A page without one starts a new chat.
 * `/inbox.html` is the inbox: the pending asks of every chat (`InboxPage`).
 */
import type { UIMessage } from 'ai';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ChatPage } from './chat-page.js';
import { InboxPage } from './inbox-page.js';

/** What the server takes as a chat id (a subset of the run ids every store accepts). */
const CHAT_ID = /^[A-Za-z0-9_-]{1,200}$/;

/** A new chat id: 16 random bytes as hex (`crypto.getRandomValues` works on plain http too). */
function newChatId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `chat_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** Writes the chat id into the URL (without a new history entry), once the chat has started. */
function keepInUrl(id: string): void {
  const url = new URL(window.location.href);
  if (url.searchParams.get('chat') === id) return;
  url.searchParams.set('chat', id);
  window.history.replaceState(null, '', url);
}

/** The chat's messages as the server keeps them. */
async function loadMessages(id: string): Promise<UIMessage[]> {
  const response = await fetch(`/api/chat/${encodeURIComponent(id)}`);
  if (!response.ok) throw new Error(`Could not read the chat (${response.status}): ${await response.text()}`);
  return (await response.json()) as UIMessage[];
}

const inUrl = new URL(window.location.href).searchParams.get('chat');
const id = inUrl !== null && CHAT_ID.test(inUrl) ? inUrl : newChatId();
const root = createRoot(document.getElementById('root')!);
/** The inbox's page size (`?limit=`, default 20). */
const limit = Math.min(
  Math.max(Number(new URL(window.location.href).searchParams.get('limit')) || 20, 1),
  500,
);
if (window.location.pathname === '/inbox.html') {
  root.render(
    <StrictMode>
      <InboxPage pageSize={limit} />
    </StrictMode>,
  );
} else
  (id === inUrl ? loadMessages(id) : Promise.resolve([])).then(
    (messages) =>
      root.render(
        <StrictMode>
          <ChatPage id={id} initialMessages={messages} onStart={() => keepInUrl(id)} />
        </StrictMode>,
      ),
    (error: Error) =>
      root.render(
        <p role="alert" className="error">
          {error.message}
        </p>,
      ),
  );
