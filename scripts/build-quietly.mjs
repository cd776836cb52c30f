/**
 * `node scripts/build-quietly.mjs <package>…`: builds the packages (and what they depend on) with
 * turbo before a demo starts, printing nothing when the build succeeds. turbo has no quiet mode:
 * its banner ("• turbo 2.x • Packages in scope …") and summary would stand above every demo's first
 * screen, so its output is kept and shown only when the build fails.
 */
import { spawn } from 'node:child_process';

const filters = process.argv.slice(2).map((name) => `--filter=${name}...`);
const turbo = spawn('npx', ['turbo', 'run', 'build', ...filters, '--output-logs=errors-only'], {
  stdio: ['ignore', 'pipe', 'pipe'],
  env: { ...process.env, TURBO_NO_UPDATE_NOTIFIER: '1', TURBO_TELEMETRY_DISABLED: '1' },
});
const output = [];
turbo.stdout.on('data', (chunk) => output.push(chunk));
turbo.stderr.on('data', (chunk) => output.push(chunk));
turbo.on('close', (code) => {
  if (code !== 0) process.stderr.write(Buffer.concat(output));
  process.exitCode = code ?? 1;
});
