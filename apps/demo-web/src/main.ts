/**
 * `npm run demo:web`: starts the web demo and prints its URL. Environment: `PORT` (default 8787),
 * `HOST` (default 127.0.0.1: the demo has no login, keep it local), `TURNKIT_WEB_DIR` (default
 * `.turnkit/web-runs`).
 */
import { startDemoServer } from './server.js';

const port = Number(process.env.PORT ?? 8787);
const server = await startDemoServer({
  port: Number.isInteger(port) && port >= 0 ? port : 8787,
  hostname: process.env.HOST ?? '127.0.0.1',
  dataDir: process.env.TURNKIT_WEB_DIR ?? '.turnkit/web-runs',
});
console.log(`TurnKit web demo (offline scripted LN2 model): ${server.url}`);
console.log('Open it in a browser; press Ctrl+C to stop.');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
