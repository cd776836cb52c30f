/**
 * `npm run demo:chat`: starts the useChat demo and prints its URL. Environment: `PORT` (default
 * 8788), `HOST` (default 127.0.0.1: the demo has no login, keep it local), `TURNKIT_CHAT_DIR`
 * (default `.turnkit/chat-runs`), `TURNKIT_QUESTION_TIMEOUT_SECONDS` (how long the assistant's
 * questions wait for an answer; default 300, 0 for no limit).
 */
import { startChatServer } from './server.js';

const port = Number(process.env.PORT ?? 8788);
const timeout = Number(process.env.TURNKIT_QUESTION_TIMEOUT_SECONDS ?? 300);
const server = await startChatServer({
  port: Number.isInteger(port) && port >= 0 ? port : 8788,
  hostname: process.env.HOST ?? '127.0.0.1',
  dataDir: process.env.TURNKIT_CHAT_DIR ?? '.turnkit/chat-runs',
  questionTimeoutMs: Number.isFinite(timeout) && timeout >= 0 ? Math.round(timeout * 1000) : 300_000,
});
console.log(`TurnKit useChat demo (offline scripted LN2 model): ${server.url}`);
console.log('Open it in a browser; press Ctrl+C to stop.');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
