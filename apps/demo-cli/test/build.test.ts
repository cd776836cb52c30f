/**
 * The build before `npm run demo` (`scripts/build-quietly.mjs`), run against a stand-in for turbo on
 * the PATH (the real build would rewrite the packages' dist under the other tests): a first run says
 * what it builds, one line per package done; a run with everything in turbo's cache is one line; a
 * failed build shows turbo's output. And the tsup config it hands the packages
 * (`scripts/tsup-no-declarations.config.mjs`), run by tsup on a small package: the JavaScript
 * builds, not the declarations.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliRun, cleanEnv, cleanup, outputOf, PACKAGE_DIR, tempDir } from './helpers.js';
import { hasTmux, inCI, open } from './terminal.js';

afterAll(cleanup);

const ROOT = join(PACKAGE_DIR, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'build-quietly.mjs');
const CONFIG = join(ROOT, 'scripts', 'tsup-no-declarations.config.mjs');

/**
 * turbo as the demo's build sees it: `--dry=json` answers the demo-cli graph (in turbo's order,
 * demo-models without a build script) with the cache status of `state.json` for the full build or
 * for the one without declarations (`--config`); a run fails for the package `state.fail` names.
 * Every call's arguments are appended to `calls.jsonl`.
 */
const FAKE_TURBO = `
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
const dir = process.env.FAKE_TURBO_DIR;
const args = process.argv.slice(2);
appendFileSync(join(dir, 'calls.jsonl'), JSON.stringify(args) + '\\n');
const state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'));
const status = args.includes('--config') ? state.quick : state.full;
const task = (name, dependencies, command = 'tsup') => ({
  taskId: '@turnkit/' + name + '#build',
  package: '@turnkit/' + name,
  command,
  dependencies: dependencies.map((dependency) => '@turnkit/' + dependency + '#build'),
  cache: { status },
});
if (args.includes('--dry=json')) {
  const tasks = [
    task('adapters', ['core']),
    task('core', []),
    task('demo-cli', ['adapters', 'core', 'demo-models']),
    task('demo-models', ['adapters', 'core'], '<NONEXISTENT>'),
  ];
  console.log(JSON.stringify({ tasks }));
} else if (args.includes('--filter=' + state.fail + '...')) {
  console.log(state.fail + ':build: ✘ [ERROR] Unexpected ";"');
  console.error(' ERROR  run failed: command  exited (1)');
  process.exit(1);
} else {
  console.log('   • turbo 2.11.11');
}
`;

interface Turbo {
  dir: string;
  /** The arguments of every call, in order. */
  calls(): string[][];
}

function fakeTurbo(state: { full: 'HIT' | 'MISS'; quick: 'HIT' | 'MISS'; fail?: string }): Turbo {
  const dir = tempDir();
  writeFileSync(join(dir, 'state.json'), JSON.stringify(state));
  writeFileSync(join(dir, 'calls.jsonl'), '');
  writeFileSync(join(dir, 'fake-turbo.mjs'), FAKE_TURBO);
  writeFileSync(join(dir, 'turbo'), `#!/bin/sh\nexec "${process.execPath}" "${dir}/fake-turbo.mjs" "$@"\n`);
  chmodSync(join(dir, 'turbo'), 0o755);
  return {
    dir,
    calls: () =>
      readFileSync(join(dir, 'calls.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as string[]),
  };
}

/** `node scripts/build-quietly.mjs @turnkit/demo-cli`, piped, with `turbo` on the PATH first. */
function buildDemo(turbo: Turbo): Promise<CliRun> {
  const child = spawn(process.execPath, [SCRIPT, '@turnkit/demo-cli'], {
    env: cleanEnv({ PATH: `${turbo.dir}:${process.env.PATH}`, FAKE_TURBO_DIR: turbo.dir }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return outputOf(child);
}

const ELAPSED = '\\d+\\.\\d s';

describe('the build before `npm run demo`', () => {
  it('says what a first build does: one line per package done, in build order, without declarations', async () => {
    const turbo = fakeTurbo({ full: 'MISS', quick: 'MISS' });
    const run = await buildDemo(turbo);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('Building the demo (first run, or after a change; usually under a minute)…');
    expect(lines.slice(1)).toHaveLength(3);
    expect(lines[1]).toMatch(new RegExp(`^  ✓ core      ${ELAPSED}$`));
    expect(lines[2]).toMatch(new RegExp(`^  ✓ adapters  ${ELAPSED}$`));
    expect(lines[3]).toMatch(new RegExp(`^  ✓ demo-cli  ${ELAPSED}$`));
    expect(run.stderr).not.toContain('turbo 2.11.11');
    const builds = turbo.calls().filter((args) => !args.includes('--dry=json'));
    expect(builds.map((args) => args.find((arg) => arg.startsWith('--filter=')))).toEqual([
      '--filter=@turnkit/core...',
      '--filter=@turnkit/adapters...',
      '--filter=@turnkit/demo-cli...',
    ]);
    for (const args of builds)
      expect(args.slice(args.indexOf('--'))).toEqual(['--', '--config', CONFIG, '--silent']);
  });

  it('is one line when turbo holds the build without declarations: it restores that one', async () => {
    const turbo = fakeTurbo({ full: 'MISS', quick: 'HIT' });
    const run = await buildDemo(turbo);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(new RegExp(`^✓ The demo is built \\(turbo's cache, ${ELAPSED}\\)\\.\\n$`));
    const builds = turbo.calls().filter((args) => !args.includes('--dry=json'));
    expect(builds).toEqual([
      [
        'run',
        'build',
        '--filter=@turnkit/demo-cli...',
        '--output-logs=errors-only',
        '--',
        '--config',
        CONFIG,
        '--silent',
      ],
    ]);
  });

  it('prefers the full build (declarations included) when turbo holds it, as after npm test', async () => {
    const turbo = fakeTurbo({ full: 'HIT', quick: 'HIT' });
    const run = await buildDemo(turbo);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(new RegExp(`^✓ The demo is built \\(turbo's cache, ${ELAPSED}\\)\\.\\n$`));
    const builds = turbo.calls().filter((args) => !args.includes('--dry=json'));
    expect(builds).toEqual([['run', 'build', '--filter=@turnkit/demo-cli...', '--output-logs=errors-only']]);
  });

  it('shows what turbo said when a package does not build, and exits with its code', async () => {
    const turbo = fakeTurbo({ full: 'MISS', quick: 'MISS', fail: '@turnkit/adapters' });
    const run = await buildDemo(turbo);
    expect(run.code).toBe(1);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines[1]).toMatch(/^ {2}✓ core/);
    expect(lines[2]).toMatch(new RegExp(`^✗ The demo did not build \\(${ELAPSED}\\)\\. turbo said:$`));
    expect(lines.slice(3)).toEqual([
      '@turnkit/adapters:build: ✘ [ERROR] Unexpected ";"',
      ' ERROR  run failed: command  exited (1)',
    ]);
  });
});

describe.skipIf(!hasTmux && !inCI)('the build before `npm run demo`, in a real terminal (tmux)', () => {
  it('replaces its live line with each package’s line, and leaves none behind', async () => {
    const turbo = fakeTurbo({ full: 'MISS', quick: 'MISS' });
    // Outside CI, as a person's terminal: the live line is drawn.
    const terminal = open(
      `env -u CI PATH="${turbo.dir}:$PATH" FAKE_TURBO_DIR="${turbo.dir}" node ${SCRIPT} @turnkit/demo-cli`,
      turbo.dir,
    );
    const screen = await terminal.waitFor('EXIT=0');
    const lines = screen.split('\n').filter((line) => line.trim() !== '');
    expect(lines.slice(0, 5)).toEqual([
      'Building the demo (first run, or after a change; usually under a minute)…',
      expect.stringMatching(new RegExp(`^  ✓ core      ${ELAPSED}$`)),
      expect.stringMatching(new RegExp(`^  ✓ adapters  ${ELAPSED}$`)),
      expect.stringMatching(new RegExp(`^  ✓ demo-cli  ${ELAPSED}$`)),
      'EXIT=0',
    ]);
  });
});

describe('the tsup config of the demo build', () => {
  it("builds a package's JavaScript from its own tsup.config.ts, and leaves its declarations out", () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'package.json'), '{ "name": "vials", "type": "module" }\n');
    writeFileSync(join(dir, 'src', 'index.ts'), 'export const vials: number = 3;\n');
    writeFileSync(
      join(dir, 'tsup.config.ts'),
      `export default [
  { entry: { index: 'src/index.ts' }, format: ['esm', 'cjs'] },
  { entry: { index: 'src/index.ts' }, format: ['esm', 'cjs'], dts: { only: true } },
];
`,
    );
    const tsup = join(
      dirname(createRequire(import.meta.url).resolve('tsup/package.json')),
      'dist',
      'cli-default.js',
    );
    const result = spawnSync(process.execPath, [tsup, '--config', CONFIG, '--silent'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(readFileSync(join(dir, 'dist', 'index.js'), 'utf8')).toContain('vials = 3');
    expect(existsSync(join(dir, 'dist', 'index.cjs'))).toBe(true);
    expect(existsSync(join(dir, 'dist', 'index.d.ts'))).toBe(false);
    expect(existsSync(join(dir, 'dist', 'index.d.cts'))).toBe(false);
  });
});
