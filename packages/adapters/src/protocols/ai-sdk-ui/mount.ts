/**
 * `aiSdkProtocol()`: the `useChat` back end handed to `createHandler({ protocols: [...] })`, at
 * `POST <path>`, `GET <path>/:id` — the same chat handler as `aiSdkHandler`, with the host's store,
 * options and event hub. `authorize` is asked about route `aiSdk`.
 */
import type { ProtocolMount, ProtocolMountOptions } from '../../http/index.js';
import { aiSdkMount } from './handler.js';

/**
 * Mounts AI SDK `useChat` (7 or 6) (UI message stream v1) on a `createHandler`, at `path` (default
 * `/chat`) relative to its `basePath`.
 *
 * @example
 * createHandler({ agent, store, basePath: '/api', protocols: [aiSdkProtocol({ path: '/chat' })] });
 * // useChat({ transport: new DefaultChatTransport({ api: '/api/chat' }) })
 */
export function aiSdkProtocol(options: ProtocolMountOptions = {}): ProtocolMount {
  const path = options.path ?? '/chat';
  return {
    name: 'aiSdk',
    path,
    mount(app, deps) {
      const chat = aiSdkMount(
        {
          ...deps.options,
          onEvent: deps.onEvent,
          onError: deps.onError,
          basePath: `${deps.basePath}${path}`,
        },
        { onSettled: deps.onSettled, eventsForRequest: deps.eventsForRequest },
      );
      app.all(path, (c) => chat(c.req.raw));
      app.all(`${path}/*`, (c) => chat(c.req.raw));
    },
  };
}
