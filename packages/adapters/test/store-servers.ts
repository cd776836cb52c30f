/**
 * Where the Redis and PostgreSQL suites find their servers: the URL in the environment, else the
 * machine's standard loopback server if it answers, else a skip with a notice (a failure under
 * `CI=true`). Probed synchronously, in a child process, because suites ask at module load.
 */
import { spawnSync } from 'node:child_process';

type ServerVariable = 'TURNKIT_PG_URL' | 'TURNKIT_REDIS_URL';

/** The servers a developer machine (and `.ci/run`) runs, used when the variable is unset. */
export const LOOPBACK_URLS: Record<ServerVariable, string> = {
  TURNKIT_PG_URL: 'postgres://postgres@127.0.0.1:5432/test',
  TURNKIT_REDIS_URL: 'redis://127.0.0.1:6379',
};

/** How long the probe may take, connecting included. */
const PROBE_TIMEOUT_MS = 1_500;

/**
 * Connects, sends the protocol's opening (Redis PING, PostgreSQL SSLRequest) and exits 0 when the
 * server answers as that server would. Args: host, port, 'redis' | 'pg'.
 */
const PROBE = `
const [host, port, kind] = process.argv.slice(1);
const socket = require('node:net').connect(Number(port), host);
socket.setTimeout(${PROBE_TIMEOUT_MS - 300}, () => process.exit(1));
socket.on('error', () => process.exit(1));
socket.on('close', () => process.exit(1));
socket.on('connect', () => {
  if (kind === 'redis') socket.write('PING\\r\\n');
  else socket.write(Buffer.from([0, 0, 0, 8, 4, 210, 22, 47]));
});
socket.once('data', (data) => {
  const reply = data.toString('latin1');
  process.exit((kind === 'redis' ? /^(\\+PONG|-)/.test(reply) : reply === 'S' || reply === 'N') ? 0 : 1);
});
`;

/** Whether a Redis or PostgreSQL server answers at `url`. */
export function serverAnswers(url: string): boolean {
  const { hostname, port, protocol } = new URL(url);
  const kind = protocol.startsWith('redis') ? 'redis' : 'pg';
  const probe = spawnSync(
    process.execPath,
    ['-e', PROBE, hostname, port || (kind === 'redis' ? '6379' : '5432'), kind],
    { timeout: PROBE_TIMEOUT_MS, stdio: 'ignore' },
  );
  return probe.status === 0;
}

/**
 * The URL of a test server: `variable` from the environment, else the loopback server of
 * {@link LOOPBACK_URLS} if it answers. Neither: the suite is skipped with a notice, except under
 * `CI=true`, where a missing server must fail the run rather than pass silently.
 */
export function serverUrl(variable: ServerVariable, what: string): string | undefined {
  const url = process.env[variable];
  if (url) return url;
  const loopback = LOOPBACK_URLS[variable];
  if (serverAnswers(loopback)) return loopback;
  if (process.env.CI === 'true') {
    throw new Error(
      `${variable} is not set and no ${what} server answers at ${loopback}, but CI=true: ${what} tests ` +
        'must run in CI (see .ci/run).',
    );
  }
  console.warn(
    `[turnkit] ${variable} is not set and no ${what} server answers at ${loopback}: skipping the ${what} ` +
      'store tests. Start one there, or set the variable.',
  );
  return undefined;
}
