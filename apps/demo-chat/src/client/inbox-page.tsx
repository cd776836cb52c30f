/**
 * The inbox (DESIGN §20): every pending ask across the demo's runs, oldest first, read a page at a
 * time from the handler's `GET /api/interactions` (route `inbox`; "More" while a cursor comes
 * back). Each item shows its run (short id and a link to its chat), kind, summary and times, and
 * the chat's own card for it — drawn from the run's pending interaction (`GET /api/runs/:id`: an
 * inbox item has a summary, not the payload) — answered in place on the handler's routes
 * (`answer`, `approve`, `reject`, `input`, `cancel`). The item then leaves the list and the list
 * is read again, so the ask a run makes next shows up. The page's own words are in English or
 * Chinese (`?lang=`, else the browser's languages).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApprovalCard } from './approval-card.js';
import { BudgetCard, type BudgetInput } from './budget-card.js';
import { FormCard, type FormInput } from './form-card.js';
import { type Question, QuestionCard } from './question-card.js';

/** One item of `GET /api/interactions`. */
export interface InboxItem {
  runId: string;
  id: string;
  kind: string;
  agentPath: string[];
  summary: string;
  askedAt: string;
  expiresAt?: string;
}

/** An item with the run's pending interaction (its payload), as the card needs it. */
interface Shown extends InboxItem {
  payload: Record<string, unknown>;
}

const STRINGS = {
  en: {
    title: 'Inbox',
    heading: 'Waiting for an answer',
    intro:
      'Every question, approval and form a chat is waiting on, oldest first. Answer here; the chat goes on.',
    empty: 'Nothing is waiting for an answer.',
    more: 'More',
    refresh: 'Refresh',
    run: 'Run',
    kind: 'Kind',
    asked: 'Asked',
    expires: 'Expires',
    open: 'Open chat',
    back: 'Chat',
    answered: 'Answered: the chat goes on.',
    taken: 'Someone else already answered this, or it expired.',
    kinds: { question: 'question', approval: 'approval', input: 'form', budget: 'budget' } as Record<
      string,
      string
    >,
  },
  zh: {
    title: '待办',
    heading: '等待回答',
    intro: '所有对话正在等待的问题、批准和表单，最早的在前。在这里回答，对话就会继续。',
    empty: '没有等待回答的事项。',
    more: '更多',
    refresh: '刷新',
    run: '运行',
    kind: '类型',
    asked: '提问时间',
    expires: '截止时间',
    open: '打开对话',
    back: '对话',
    answered: '已回答：对话继续。',
    taken: '已有人回答了这个事项，或它已过期。',
    kinds: { question: '问题', approval: '批准', input: '表单', budget: '预算' } as Record<string, string>,
  },
};

/** `zh` when `?lang=` or the browser prefers Chinese, else `en`. */
export function inboxLang(): 'en' | 'zh' {
  const asked = new URL(window.location.href).searchParams.get('lang');
  for (const tag of [asked, ...navigator.languages]) {
    if (!tag) continue;
    if (/^zh\b/i.test(tag)) return 'zh';
    if (/^en\b/i.test(tag)) return 'en';
  }
  return 'en';
}

async function json<T>(method: string, path: string, body?: unknown): Promise<{ status: number; data: T }> {
  const response = await fetch(`/api${path}`, {
    method,
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, data: (await response.json().catch(() => null)) as T };
}

/** The item with its run's pending interaction, or null when the run no longer waits on it. */
async function withPayload(item: InboxItem): Promise<Shown | null> {
  const { status, data } = await json<{ pending?: { id: string; payload?: Record<string, unknown> }[] }>(
    'GET',
    `/runs/${encodeURIComponent(item.runId)}`,
  );
  const pending = status === 200 ? data?.pending?.find((p) => p.id === item.id) : undefined;
  return pending ? { ...item, payload: pending.payload ?? {} } : null;
}

/** "Inbox (n)": how many asks wait across the chats ("50+" past the first page); null until read. */
export function useInboxCount(version: unknown): string | null {
  const [count, setCount] = useState<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` says when to count again.
  useEffect(() => {
    json<{ items: unknown[]; cursor: string | null }>('GET', '/interactions?limit=50')
      .then(({ status, data }) => {
        if (status === 200) setCount(`${data.items.length}${data.cursor ? '+' : ''}`);
      })
      // The count is a hint: without it the link says "Inbox".
      .catch(() => {});
  }, [version]);
  return count;
}

export function InboxPage(props: { pageSize: number }) {
  const lang = inboxLang();
  const t = STRINGS[lang];
  const [items, setItems] = useState<Shown[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [note, setNote] = useState('');
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const shownCount = useRef(0);
  shownCount.current = items.length;

  const page = useCallback(
    async (after: string | null) => {
      const search = new URLSearchParams({ limit: String(props.pageSize) });
      if (after) search.set('cursor', after);
      const { status, data } = await json<{ items: InboxItem[]; cursor: string | null }>(
        'GET',
        `/interactions?${search}`,
      );
      if (status !== 200) throw new Error(`GET /api/interactions: ${status}`);
      const shown = (await Promise.all(data.items.map(withPayload))).filter(
        (item): item is Shown => item !== null,
      );
      return { shown, cursor: data.cursor };
    },
    [props.pageSize],
  );

  /** Reads the list again from its first page, as many items as were shown (at least a page). */
  const reload = useCallback(async () => {
    try {
      const wanted = Math.max(shownCount.current, 1);
      const all: Shown[] = [];
      let next: string | null = null;
      do {
        const read = await page(next);
        all.push(...read.shown);
        next = read.cursor;
      } while (next && all.length < wanted);
      setItems(all);
      setCursor(next);
    } catch (error) {
      setProblem((error as Error).message);
    } finally {
      setLoaded(true);
    }
  }, [page]);

  useEffect(() => {
    document.title = `${t.title} · TurnKit × useChat`;
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    void reload();
  }, [reload, t.title, lang]);

  const more = async () => {
    if (!cursor) return;
    try {
      const read = await page(cursor);
      setItems((before) => [
        ...before,
        ...read.shown.filter((item) => !before.some((b) => b.id === item.id)),
      ]);
      setCursor(read.cursor);
    } catch (error) {
      setProblem((error as Error).message);
    }
  };

  /** Answers an item on the handler's `route`; it leaves the list, which is read again. */
  const answer = async (item: Shown, route: string, body: object) => {
    setBusy(item.id);
    setNote('');
    setProblem('');
    try {
      const { status, data } = await json<{ detail?: string }>(
        'POST',
        `/runs/${encodeURIComponent(item.runId)}/${route}`,
        { id: item.id, ...body },
      );
      if (status === 409 || status === 410) setNote(t.taken);
      else if (status !== 200) {
        setProblem(data?.detail ?? `HTTP ${status}`);
        return;
      } else setNote(t.answered);
      setItems((before) => before.filter((other) => other.id !== item.id || other.runId !== item.runId));
      shownCount.current -= 1;
      await reload();
    } finally {
      setBusy(null);
    }
  };

  const when = (iso: string) =>
    new Intl.DateTimeFormat(lang === 'zh' ? 'zh-CN' : 'en', {
      dateStyle: 'short',
      timeStyle: 'medium',
    }).format(new Date(iso));
  const chatLink = (runId: string) => `/?chat=${encodeURIComponent(runId)}`;

  const card = (item: Shown) => {
    const p = item.payload;
    if (item.kind === 'question')
      return (
        <QuestionCard
          questions={(p.questions as Question[]) ?? []}
          onAnswer={(answers) => void answer(item, 'answer', { answers })}
          onDismiss={() => void answer(item, 'cancel', {})}
        />
      );
    if (item.kind === 'approval')
      return (
        <ApprovalCard
          toolName={String(p.toolName ?? '')}
          input={p.input}
          runId={item.runId}
          approvalId={item.id}
          agentPath={item.agentPath}
          onDecide={(approved, reason) =>
            void answer(item, approved ? 'approve' : 'reject', reason ? { rationale: reason } : {})
          }
        />
      );
    if (item.kind === 'input')
      return (
        <FormCard
          form={p as unknown as FormInput}
          onSubmit={(value) => void answer(item, 'input', { value })}
          onDismiss={() => void answer(item, 'cancel', {})}
        />
      );
    if (item.kind === 'budget')
      return (
        <BudgetCard
          input={p as unknown as BudgetInput}
          onDecide={(extend) => void answer(item, extend ? 'approve' : 'reject', extend ? { extend } : {})}
        />
      );
    return null;
  };

  return (
    <>
      <header>
        <h1>{t.heading}</h1>
        <a href="/">{t.back}</a>
        <button type="button" className="secondary" onClick={() => void reload()}>
          {t.refresh}
        </button>
      </header>
      <main id="inbox" aria-live="polite" data-loaded={loaded ? 'true' : undefined}>
        <p className="intro">{t.intro}</p>
        {note && (
          <p className="note" role="status">
            {note}
          </p>
        )}
        {problem && (
          <p role="alert" className="error">
            {problem}
          </p>
        )}
        <ol className="inbox-list">
          {items.map((item) => (
            <li
              key={`${item.runId} ${item.id}`}
              className="inbox-item"
              data-run-id={item.runId}
              data-kind={item.kind}
              aria-busy={busy === item.id}
            >
              <p className="summary">{item.summary}</p>
              <dl>
                <div className="run">
                  <dt>{t.run}</dt>
                  <dd>
                    <code title={item.runId}>{item.runId.slice(0, 12)}</code>
                  </dd>
                </div>
                <div className="kind">
                  <dt>{t.kind}</dt>
                  <dd>{t.kinds[item.kind] ?? item.kind}</dd>
                </div>
                <div className="asked">
                  <dt>{t.asked}</dt>
                  <dd>
                    <time dateTime={item.askedAt}>{when(item.askedAt)}</time>
                  </dd>
                </div>
                {item.expiresAt && (
                  <div className="expires">
                    <dt>{t.expires}</dt>
                    <dd>
                      <time dateTime={item.expiresAt}>{when(item.expiresAt)}</time>
                    </dd>
                  </div>
                )}
              </dl>
              <a className="open-run" href={chatLink(item.runId)}>
                {t.open}
              </a>
              {card(item)}
            </li>
          ))}
        </ol>
        {loaded && items.length === 0 && !cursor && <p className="empty">{t.empty}</p>}
        {cursor && (
          <button type="button" className="more secondary" onClick={() => void more()}>
            {t.more}
          </button>
        )}
      </main>
    </>
  );
}
