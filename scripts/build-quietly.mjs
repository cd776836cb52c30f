/**
 * `node scripts/build-quietly.mjs <package>…`: builds what a demo runs before it starts (the
 * packages and what they depend on, with turbo), and says so in a few lines of its own instead of
 * turbo's banner and logs, which are shown only when the build fails:
 *
 *   Building the demo (first run, or after a change; usually under a minute)…
 *     ✓ core      2.1 s
 *     ✓ adapters  5.0 s
 *     ✓ demo-cli  6.2 s
 *
 * On a terminal a last line says what is being built and for how long; in a pipe or CI, only the
 * lines above are written. A demo runs JavaScript, never type declarations, so this build leaves them
 * out (`tsup-no-declarations.config.mjs`): they were most of a first run's time, minutes on a slow
 * machine. When turbo holds the whole build already (from an earlier run, or the full build of
 * `npm run build` or `npm test`, which is preferred: it has the declarations), it is restored and
 * one line says so. Everything goes to stderr: `npm run demo -- --json` keeps stdout for its events.
 */
import { spawn } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What turbo passes to every package's `tsup`; turbo caches this build under hashes of its own. */
const NO_DECLARATIONS = [
  '--',
  '--config',
  join(ROOT, 'scripts', 'tsup-no-declarations.config.mjs'),
  '--silent',
];
/** The command turbo reports for a package without a `build` script (nothing to run). */
const NOTHING = '<NONEXISTENT>';

const out = process.stderr;
/** A terminal gets a live last line; a pipe and CI get whole lines only. */
const live = Boolean(out.isTTY) && !process.env.CI;
const started = Date.now();

/** Runs turbo (this repository's when none is on the PATH): its exit code, stdout and stderr. */
function turbo(args) {
  return new Promise((resolve) => {
    const child = spawn('turbo', args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        PATH: [process.env.PATH, join(ROOT, 'node_modules', '.bin')].filter(Boolean).join(delimiter),
        TURBO_NO_UPDATE_NOTIFIER: '1',
        TURBO_TELEMETRY_DISABLED: '1',
      },
    });
    const stdout = [];
    const stderr = [];
    child.stdout.on('data', (chunk) => stdout.push(chunk));
    child.stderr.on('data', (chunk) => stderr.push(chunk));
    child.on('error', (error) => resolve({ code: 1, stdout: '', stderr: `${error.message}\n` }));
    child.on('close', (code) => {
      resolve({ code: code ?? 1, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr) });
    });
  });
}

/** The build tasks of `filters` in an order that builds dependencies first, with turbo's cache status. */
async function plan(filters, extra) {
  const result = await turbo(['run', 'build', ...filters, '--dry=json', ...extra]);
  if (result.code !== 0) fail(result);
  const tasks = new Map(JSON.parse(result.stdout.toString('utf8')).tasks.map((task) => [task.taskId, task]));
  const ordered = [];
  const visit = (task) => {
    if (ordered.includes(task)) return;
    for (const id of task.dependencies) if (tasks.has(id)) visit(tasks.get(id));
    ordered.push(task);
  };
  for (const task of tasks.values()) visit(task);
  return ordered;
}

const isBuilt = (tasks) => tasks.every((task) => task.command === NOTHING || task.cache.status === 'HIT');
const shortName = (task) => task.package.replace(/^@[^/]+\//, '');
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Shows turbo's own output of a failed build, then exits with its code. */
function fail(result) {
  if (live) out.write('\r\u001b[2K');
  out.write(`✗ The demo did not build (${seconds(Date.now() - started)}). turbo said:\n`);
  out.write(result.stdout);
  out.write(result.stderr);
  process.exit(result.code || 1);
}

const filters = process.argv.slice(2).map((name) => `--filter=${name}...`);
const [full, quick] = await Promise.all([plan(filters, []), plan(filters, NO_DECLARATIONS)]);

if (isBuilt(full) || isBuilt(quick)) {
  // Restores the files from turbo's cache, should any be missing.
  const extra = isBuilt(full) ? [] : NO_DECLARATIONS;
  const result = await turbo(['run', 'build', ...filters, '--output-logs=errors-only', ...extra]);
  if (result.code !== 0) fail(result);
  out.write(`✓ The demo is built (turbo's cache, ${seconds(Date.now() - started)}).\n`);
} else {
  const tasks = quick.filter((task) => task.command !== NOTHING);
  const width = Math.max(...tasks.map((task) => shortName(task).length));
  out.write('Building the demo (first run, or after a change; usually under a minute)…\n');
  for (const task of tasks) {
    const name = shortName(task);
    const status = () => out.write(`\r\u001b[2K  … ${name} · ${seconds(Date.now() - started)}`);
    const ticker = live ? setInterval(status, 1000) : undefined;
    if (live) status();
    // One package at a time, so each line says when its package is done (a demo's packages are a
    // chain). With what it depends on, built just before (so cached), for the hashes of the plan.
    const step = ['run', 'build', `--filter=${task.package}...`, '--output-logs=errors-only'];
    const result = await turbo([...step, ...NO_DECLARATIONS]);
    clearInterval(ticker);
    if (result.code !== 0) fail(result);
    const cached = task.cache.status === 'HIT' ? ' (cached)' : '';
    out.write(
      `${live ? '\r\u001b[2K' : ''}  ✓ ${name.padEnd(width)}  ${seconds(Date.now() - started)}${cached}\n`,
    );
  }
}
