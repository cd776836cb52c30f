/**
 * `npm run pack:local`: builds @turnkit/core and @turnkit/adapters (and nothing else: no demo, no
 * docs site), packs each with `npm pack` into `.packs/` at the repository's root, and prints the line
 * that installs them into a project. `.packs/` is ignored by git, so the tarballs never show in
 * `git status`; an earlier pack's tarballs there are removed first, so `turnkit-core-*.tgz` names one
 * file. `--no-build` packs the `dist/` folders as they are (the tests build before they run).
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const destination = join(root, '.packs');
/** The published packages, in install order. */
const PACKAGES = ['@turnkit/core', '@turnkit/adapters'];

if (!process.argv.includes('--no-build')) {
  console.log(`Building ${PACKAGES.join(' and ')}…`);
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build-quietly.mjs'), ...PACKAGES], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

await mkdir(destination, { recursive: true });
for (const file of await readdir(destination)) {
  if (file.startsWith('turnkit-') && file.endsWith('.tgz')) await rm(join(destination, file));
}
const workspaces = PACKAGES.map((name) => `--workspace=${name}`);
const { stdout } = await run('npm', ['pack', ...workspaces, '--pack-destination', destination, '--json'], {
  cwd: root,
});
const packed = JSON.parse(stdout);
const tarballs = PACKAGES.map((name) =>
  join(destination, packed.find((entry) => entry.name === name).filename),
);
/** A path as a shell word: quoted when it holds a space or another character the shell reads. */
const word = (path) => (/^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`);

console.log(`Packed into ${destination}:`);
for (const tarball of tarballs) console.log(`  ${tarball.slice(destination.length + 1)}`);
console.log('Install them in your project (an ES module: npm pkg set type=module):');
console.log(`  npm install ${tarballs.map(word).join(' ')} zod`);
