/**
 * `agUiProtocol()`: the AG-UI endpoint handed to `createHandler({ protocols: [...] })`, at
 * `POST <path>` — the same route as `agUiHandler`, with the host's store, options and event hub.
 * `authorize` is asked about route `agUi`.
 */
import type { ProtocolMount, ProtocolMountOptions } from '../../http/index.js';
import { resolveOptions } from './options.js';
import { agUiRoute } from './route.js';

/**
 * Mounts AG-UI 1.0 (`RunAgentInput` in, AG-UI events over SSE) on a `createHandler`, at `path`
 * (default `/ag-ui`) relative to its `basePath`.
 *
 * @example
 * createHandler({ agent, store, protocols: [agUiProtocol({ path: '/ag-ui' })] });
 * // new HttpAgent({ url: 'https://example.com/ag-ui' })
 */
export function agUiProtocol(options: ProtocolMountOptions = {}): ProtocolMount {
  const path = options.path ?? '/ag-ui';
  return {
    name: 'agUi',
    path,
    mount(app, deps) {
      const route = agUiRoute({
        ...resolveOptions({ ...deps.options, onEvent: deps.onEvent, onError: deps.onError }),
        onSettled: deps.onSettled,
        eventsForRequest: deps.eventsForRequest,
      });
      app.post(path, (c) => route(c.req.raw));
    },
  };
}
