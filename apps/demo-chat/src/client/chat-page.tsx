/**
 * The chat: AI SDK 6's `useChat` over its `DefaultChatTransport`, as any AI SDK front end has it.
 * The one TurnKit piece is `turnkitSendAutomaticallyWhen`: once every part the run waits for has
 * its answer (`addToolOutput`, `addToolApprovalResponse`), it posts the chat again and the run goes
 * on. What the run waits for is drawn as cards by `MessageView`, in the last message only.
 */
import { useChat } from '@ai-sdk/react';
import { turnkitSendAutomaticallyWhen } from '@turnkit/adapters/ai-sdk/client';
import { DefaultChatTransport, type UIMessage } from 'ai';
import { useState } from 'react';
import { MessageView, type Responders } from './message-view.js';

const transport = new DefaultChatTransport({ api: '/api/chat' });

/** The chat `id` (the run id), its messages so far, and what to do when the user first sends. */
export function ChatPage(props: { id: string; initialMessages: UIMessage[]; onStart: () => void }) {
  const { messages, sendMessage, addToolOutput, addToolApprovalResponse, status, error } = useChat({
    id: props.id,
    messages: props.initialMessages,
    transport,
    sendAutomaticallyWhen: turnkitSendAutomaticallyWhen,
  });
  const [draft, setDraft] = useState('');
  const busy = status === 'submitted' || status === 'streaming';
  const respond: Responders = {
    answer: (toolCallId, output) => addToolOutput({ tool: 'AskUserQuestion', toolCallId, output }),
    dismiss: (toolCallId, reason) =>
      addToolOutput({ state: 'output-error', tool: 'AskUserQuestion', toolCallId, errorText: reason }),
    decide: (id, approved, reason) =>
      addToolApprovalResponse({ id, approved, ...(reason ? { reason } : {}) }),
  };
  const last = messages.at(-1);

  return (
    <>
      <header>
        <h1>LN2 freezer assistant</h1>
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
