/**
 * The chat: AI SDK's `useChat` (7, or 6: the same code) over its `DefaultChatTransport`, as any
 * AI SDK front end has it.
 * The one TurnKit piece is `turnkitSendAutomaticallyWhen`: once every part the run waits for has
 * its answer (`addToolOutput`, `addToolApprovalResponse`), it posts the chat again and the run goes
 * on. What the run waits for is drawn as cards by `MessageView`, in the last message only.
 */
import { useChat } from '@ai-sdk/react';
import { turnkitSendAutomaticallyWhen } from '@turnkit/adapters/ai-sdk/client';
import { DefaultChatTransport, type UIMessage } from 'ai';
import { useState } from 'react';
import { useInboxCount } from './inbox-page.js';
import { MessageView, type Responders } from './message-view.js';
import { RunBar, useRunState } from './run-bar.js';

const transport = new DefaultChatTransport({ api: '/api/chat' });

/** The chat `id` (the run id), its messages so far, and what to do when the user first sends. */
export function ChatPage(props: { id: string; initialMessages: UIMessage[]; onStart: () => void }) {
  const { messages, setMessages, sendMessage, addToolOutput, addToolApprovalResponse, status, error } =
    useChat({
      id: props.id,
      messages: props.initialMessages,
      transport,
      sendAutomaticallyWhen: turnkitSendAutomaticallyWhen,
    });
  const [draft, setDraft] = useState('');
  const [deciding, setDeciding] = useState(false);
  const [started, setStarted] = useState(props.initialMessages.length > 0);
  const busy = status === 'submitted' || status === 'streaming' || deciding;
  // The run exists once a turn answered: before, `GET /api/runs/:id` would be a 404.
  const answered = messages.some((message) => message.role === 'assistant');
  const run = useRunState(props.id, answered, busy, messages);
  /**
   * A budget interaction is answered on the handler's own routes (`approve` with `extend`, or
   * `reject`), which play the turn; the chat is then read back as the server keeps it.
   */
  const decideBudget = async (id: string, extend: object | null) => {
    setDeciding(true);
    try {
      const route = extend ? 'approve' : 'reject';
      await fetch(`/api/runs/${encodeURIComponent(props.id)}/${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(extend ? { id, extend } : { id }),
      });
      const response = await fetch(`/api/chat/${encodeURIComponent(props.id)}`);
      if (response.ok) setMessages((await response.json()) as UIMessage[]);
    } finally {
      setDeciding(false);
    }
  };
  const respond: Responders = {
    answer: (toolCallId, output) => addToolOutput({ tool: 'AskUserQuestion', toolCallId, output }),
    dismiss: (toolCallId, reason) =>
      addToolOutput({ state: 'output-error', tool: 'AskUserQuestion', toolCallId, errorText: reason }),
    decide: (id, approved, reason) =>
      addToolApprovalResponse({ id, approved, ...(reason ? { reason } : {}) }),
    budget: (id, extend) => void decideBudget(id, extend),
  };
  const last = messages.at(-1);
  // Counted again after each turn (and once at the start).
  const inboxCount = useInboxCount(busy ? null : messages.length);

  return (
    <>
      <header>
        <h1>LN2 freezer assistant</h1>
        <a id="inbox-link" href="/inbox.html">
          {inboxCount === null ? 'Inbox' : `Inbox (${inboxCount})`}
        </a>
        <a href="/">New chat</a>
      </header>
      <main id="log" aria-live="polite">
        {messages.length === 0 && (
          <p className="empty">Try “Thaw vials for tomorrow”, or “Store 2 new vials of HeLa”.</p>
        )}
        {messages.map((message) => (
          <MessageView
            key={message.id}
            message={message}
            respond={message === last && !busy ? respond : null}
          />
        ))}
        {busy && <p className="thinking">The assistant is working…</p>}
        <RunBar runId={props.id} started={started} busy={busy} run={run} />
        {error && (
          <p role="alert" className="error">
            {error.message}
          </p>
        )}
      </main>
      <form
        id="composer"
        onSubmit={(event) => {
          event.preventDefault();
          if (draft.trim() === '') return;
          props.onStart();
          setStarted(true);
          void sendMessage({ text: draft });
          setDraft('');
        }}
      >
        <input
          aria-label="Message"
          placeholder="Ask the assistant…"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
        />
        <button type="submit" disabled={busy || draft.trim() === ''}>
          Send
        </button>
      </form>
    </>
  );
}
