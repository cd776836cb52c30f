/**
 * The demo server without a browser: the page and its bundle are served (and nothing else), and
 * AI SDK's own `Chat` (what `useChat` runs on, here in Node) plays the LN2 story through
 * `POST /api/chat` — a question, an approval, the box form `thaw_vials` asks mid-execution — while
 * `GET /api/chat/:id` gives back the chat a reloaded page would show. The story is played by the
 * `Chat` of AI SDK 7 (`@ai-sdk/react@4`) and of AI SDK 6 (`@ai-sdk/react@3`) alike.
 */
import { Chat } from '@ai-sdk/react';
import { Chat as Chat6 } from '@ai-sdk/react-3';
import { turnkitMetadataOf, turnkitSendAutomaticallyWhen } from '@turnkit/adapters/ai-sdk/client';
import { DefaultChatTransport, getToolName, isToolUIPart, type UIMessage } from 'ai';
import { DefaultChatTransport as DefaultChatTransport6 } from 'ai-6';
import { describe, expect, it } from 'vitest';
import { withChatServer } from './helpers.js';

const { server, toolSteps } = withChatServer({ paceMs: 0, thinkMs: 0 });

/** What the tests call on a `Chat`: the same methods, with the same arguments, on both majors. */
interface HeadlessChat {
  sendMessage(message: { text: string }): Promise<void>;
  addToolOutput(output: { tool: 'AskUserQuestion'; toolCallId: string; output: unknown }): Awaitable;
  addToolApprovalResponse(response: { id: string; approved: boolean }): Awaitable;
}
type Awaitable = void | PromiseLike<void>;

/** A chat's options: its id, TurnKit's re-post predicate, and a callback at the end of each turn. */
interface ChatInit {
  id: string;
  api: string;
  onFinish: (message: UIMessage) => void;
}

/** Each major's `Chat` over its own `DefaultChatTransport`. */
const MAJORS: { name: string; open(init: ChatInit): HeadlessChat }[] = [
  {
    name: 'AI SDK 7 (@ai-sdk/react 4)',
    open: ({ id, api, onFinish }) =>
      new Chat({
        id,
        transport: new DefaultChatTransport({ api }),
        sendAutomaticallyWhen: turnkitSendAutomaticallyWhen,
        onFinish: ({ message }) => onFinish(message),
      }),
  },
  {
    name: 'AI SDK 6 (@ai-sdk/react 3)',
    open: ({ id, api, onFinish }) =>
      new Chat6({
        id,
        transport: new DefaultChatTransport6({ api }),
        sendAutomaticallyWhen: turnkitSendAutomaticallyWhen,
        onFinish: ({ message }) => onFinish(message),
      }),
  },
];

/** The tool parts of a message, as `<tool>:<state>`. */
const toolStates = (message: UIMessage) =>
  message.parts.filter(isToolUIPart).map((part) => `${getToolName(part)}:${part.state}`);

const textOf = (message: UIMessage) =>
  message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');

describe('the useChat demo server', () => {
  it('serves the page and its bundle with a strict CSP, and nothing else', async () => {
    const page = await fetch(server().url);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<script type="module" src="/app.js"></script>');
    const bundle = await fetch(new URL('/app.js', server().url));
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await bundle.text()).toContain('/api/chat');
    expect((await fetch(new URL('/style.css', server().url))).status).toBe(200);
    const base = server().url.replace(/\/$/, '');
    for (const path of [
      '/../package.json',
      '/%2e%2e/package.json',
      '/src/server.ts',
      '/app.js.map',
      '/nope.js',
    ]) {
      expect((await fetch(`${base}${path}`)).status).toBe(404);
    }
    expect((await fetch(`${base}/api/chat/chat_unknown`)).status).toBe(404);
  });
});

describe.each(MAJORS)('the useChat demo server played by the Chat of $name', ({ open }) => {
  /** A chat against the demo server, and a way to wait for the end of its next turn. */
  function openChat(id: string) {
    let turnEnded: (message: UIMessage) => void = () => {};
    const chat = open({
      id,
      api: new URL('/api/chat', server().url).toString(),
      onFinish: (message) => turnEnded(message),
    });
    const nextTurn = () => new Promise<UIMessage>((resolve) => (turnEnded = resolve));
    return { chat, nextTurn };
  }

  it('plays a question, an approval and a form through useChat; thaw_vials runs once', async () => {
    const id = `chat_${crypto.randomUUID()}`;
    const { chat, nextTurn } = openChat(id);

    let turn = nextTurn();
    await chat.sendMessage({ text: 'Thaw vials for tomorrow' });
    let message = await turn;
    expect(toolStates(message)).toEqual([
      'query_inventory:output-available',
      'AskUserQuestion:input-available',
    ]);
    const [question] = turnkitMetadataOf(message)!.pending;
    expect(question).toMatchObject({ kind: 'question', agentPath: ['ln2-web'] });

    turn = nextTurn();
    await chat.addToolOutput({
      tool: 'AskUserQuestion',
      toolCallId: question!.toolCallId,
      output: { answers: { lines: { selected: ['K562', 'HeLa'] }, medium: { selected: ['DMEM'] } } },
    });
    message = await turn;
    const approval = message.parts.filter(isToolUIPart).find((part) => part.state === 'approval-requested');
    expect(approval && getToolName(approval)).toBe('thaw_vials');
    expect(approval?.input).toEqual({ cellLines: ['K562', 'HeLa'], medium: 'DMEM' });

    turn = nextTurn();
    await chat.addToolApprovalResponse({ id: approval!.approval!.id, approved: true });
    message = await turn;
    // thaw_vials asked which box (ctx.ask): a synthetic AskUserQuestion part holding the form.
    const [form] = turnkitMetadataOf(message)!.pending;
    expect(form).toMatchObject({ kind: 'input' });
    const formPart = message.parts.filter(isToolUIPart).find((part) => part.toolCallId === form!.toolCallId);
    expect(formPart?.input).toMatchObject({
      message: 'Some of these lines are in more than one box. Which box should each vial come from?',
      schema: { properties: { HeLa: { enum: ['B1', 'D2'] } } },
    });
    expect(await toolSteps(id)).toEqual(['thaw_vials.execute']);

    // What a page reloaded now gets back: the same parts, waiting at the same places.
    const reloaded = (await (await fetch(new URL(`/api/chat/${id}`, server().url))).json()) as UIMessage[];
    expect(reloaded.map((item) => item.role)).toEqual(['user', 'assistant']);
    expect(turnkitMetadataOf(reloaded[1])!.pending).toEqual(turnkitMetadataOf(message)!.pending);

    turn = nextTurn();
    await chat.addToolOutput({
      tool: 'AskUserQuestion',
      toolCallId: form!.toolCallId,
      output: { value: { HeLa: 'D2' } },
    });
    message = await turn;
    expect(turnkitMetadataOf(message)?.status).toBe('completed');
    expect(textOf(message)).toContain('I thawed K562 (A3-12), HeLa (D2-11) into DMEM.');
    expect(await toolSteps(id)).toEqual(['thaw_vials.execute', 'thaw_vials.resume']);
  });

  it('brings a storage sub-agent’s free-text question and approval as synthetic parts', async () => {
    const { chat, nextTurn } = openChat(`chat_${crypto.randomUUID()}`);
    let turn = nextTurn();
    await chat.sendMessage({ text: 'Store 2 new vials of HeLa' });
    let message = await turn;
    const [question] = turnkitMetadataOf(message)!.pending;
    expect(question).toMatchObject({ kind: 'question', agentPath: ['ln2-web', 'storage'] });
    // The sub-agent's question is not a call of the top agent: its part's id is the interaction id.
    expect(question!.toolCallId).toBe(question!.id);

    turn = nextTurn();
    await chat.addToolOutput({
      tool: 'AskUserQuestion',
      toolCallId: question!.toolCallId,
      output: { answers: { position: 'B2-14, B2-15' } },
    });
    message = await turn;
    const approval = message.parts.filter(isToolUIPart).find((part) => part.state === 'approval-requested');
    expect(approval && getToolName(approval)).toBe('store_vials');

    turn = nextTurn();
    await chat.addToolApprovalResponse({ id: approval!.approval!.id, approved: true });
    message = await turn;
    expect(textOf(message)).toContain('The storage agent reports: Stored 2 vial(s) of HeLa at B2-14, B2-15.');
  });
});
