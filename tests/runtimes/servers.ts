/**
 * Builds the app in app/ the way each platform's users ship it and serves it on each runtime, every
 * runtime from its npm package (DESIGN §18): workerd (esbuild, platform=browser, no
 * `nodejs_compat`), edge-runtime (platform=browser, its defaults), Deno (`--allow-net` only), Bun
 * (from source) and Node. Used by the runtime tests and by the cold-start bench.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// Two levels below the repository both here and in bench/dist, where the cold-start bench bundles this file.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const here = join(root, 'tests/runtimes');
const bin = (name: string) => join(root, 'node_modules/.bin', name);

/** A runtime the app is served on. */
export interface Runtime {
  name: 'workerd' | 'edge-runtime' | 'deno' | 'bun' | 'node';
  /** The command serving the app on `port` (after {@link buildApps}). */
  command(port: number): string[];
}

export const RUNTIMES: Runtime[] = [
  {
    name: 'workerd',
    command: (port) => [
      bin('workerd'),
      'serve',
      join(here, 'app/workerd.capnp'),
      '--socket-addr',
      `http=127.0.0.1:${port}`,
    ],
  },
  {
    name: 'edge-runtime',
    command: (port) => [bin('edge-runtime'), '--listen', '--port', String(port), join(here, 'dist/edge.js')],
  },
  {
    name: 'deno',
    command: (port) => [bin('deno'), 'run', '--allow-net', join(here, 'dist/deno.js'), String(port)],
  },
  { name: 'bun', command: (port) => [bin('bun'), join(here, 'app/bun.ts'), String(port)] },
  { name: 'node', command: (port) => [process.execPath, join(here, 'dist/node.js'), String(port)] },
];

/**
 * Bundles app/ for each runtime into dist/ (Bun runs the TypeScript itself). No tsconfig: the
 * adapters' `paths` (core's source, for their type-check) would reach into their dist files, and a
 * user's bundler sees only the built packages.
 */
export async function buildApps(): Promise<void> {
  const browser = {
    bundle: true,
    platform: 'browser',
    minify: true,
    logLevel: 'error',
    tsconfigRaw: '{}',
  } as const;
  await Promise.all([
    build({
      ...browser,
      entryPoints: [join(here, 'app/worker.ts')],
      format: 'esm',
      conditions: ['workerd', 'worker'],
      outfile: join(here, 'dist/worker.js'),
    }),
    build({
      ...browser,
      entryPoints: [join(here, 'app/edge.ts')],
      format: 'iife',
      conditions: ['edge-light'],
      outfile: join(here, 'dist/edge.js'),
    }),
    build({
      ...browser,
      entryPoints: [join(here, 'app/deno.ts')],
      format: 'esm',
      conditions: ['deno'],
      outfile: join(here, 'dist/deno.js'),
    }),
    build({
      entryPoints: [join(here, 'app/node.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'error',
      tsconfigRaw: '{}',
      outfile: join(here, 'dist/node.js'),
    }),
  ]);
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** A runtime serving the app. */
export interface Served {
  runtime: Runtime['name'];
  url: string;
  /** Milliseconds from spawning the process to its first HTTP response. */
  coldStartMs: number;
  stop(): void;
}

/** Starts `runtime` and waits for its first response (any status), at most `timeoutMs`. */
export async function serve(runtime: Runtime, timeoutMs = 60_000): Promise<Served> {
  const port = await freePort();
  const [command, ...args] = runtime.command(port);
  const started = performance.now();
  const child: ChildProcess = spawn(command!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () => {
    child.kill();
  };
  while (performance.now() - started < timeoutMs) {
    if (child.exitCode !== null) break;
    try {
      const response = await fetch(`${url}/plain/health`);
      await response.body?.cancel();
      return { runtime: runtime.name, url, coldStartMs: performance.now() - started, stop };
    } catch {
      await new Promise((wake) => setTimeout(wake, 20));
    }
  }
  stop();
  throw new Error(
    `${runtime.name} did not answer within ${timeoutMs} ms (exit ${child.exitCode}): ${stderr}`,
  );
}
