/**
 * `npm run pack:local` (scripts/pack-local.mjs), the command the README and Getting started install
 * from a clone with: the tarballs of core and adapters land in `.packs/`, which git ignores, and never
 * in the repository's root, so `git status --porcelain` stays as it was (empty in a clean clone). Run
 * with `--no-build`: the packages are built before the tests run, and a build here would rewrite the
 * `dist/` folders other test files are reading.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { root } from './packed.js';

const run = promisify(execFile);
const packs = join(root, '.packs');

/** `git status --porcelain` of the repository, one entry a line. */
async function gitStatus(): Promise<string[]> {
  const { stdout } = await run('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root });
  return stdout.split('\n').filter(Boolean);
}

describe('npm run pack:local', () => {
  it('packs core and adapters into the ignored .packs/ folder, never the root, and git status stays as it was', async () => {
    const before = await gitStatus();
    const { stdout } = await run(process.execPath, [join(root, 'scripts', 'pack-local.mjs'), '--no-build'], {
      cwd: root,
      timeout: 120_000,
    });
    const tarballs = (await readdir(packs)).filter((file) => file.endsWith('.tgz')).sort();
    expect(tarballs).toEqual([
      expect.stringMatching(/^turnkit-adapters-\d+\.\d+\.\d+.*\.tgz$/),
      expect.stringMatching(/^turnkit-core-\d+\.\d+\.\d+.*\.tgz$/),
    ]);
    for (const tarball of tarballs) {
      const { stdout: manifest } = await run('tar', ['-xzOf', join(packs, tarball), 'package/package.json']);
      expect(JSON.parse(manifest).name).toBe(
        tarball.startsWith('turnkit-core-') ? '@turnkit/core' : '@turnkit/adapters',
      );
      await run('git', ['check-ignore', '--quiet', join('.packs', tarball)], { cwd: root });
    }
    expect((await readdir(root)).filter((file) => file.endsWith('.tgz'))).toEqual([]);
    expect((await gitStatus()).filter((line) => !before.includes(line))).toEqual([]);
    const [core, adapters] = [tarballs[1], tarballs[0]].map((file) => join(packs, file!));
    expect(stdout).toContain(`npm install ${core} ${adapters} zod`);
  }, 120_000);

  it('is how the README and Getting started install from a clone, whatever its folder is called', async () => {
    for (const page of ['README.md', 'docs/getting-started.md']) {
      const text = await readFile(join(root, page), 'utf8');
      expect(text, page).toContain('npm run pack:local');
      expect(text, page).toContain('"$PACKS"/turnkit-core-*.tgz "$PACKS"/turnkit-adapters-*.tgz');
      expect(text, page).not.toMatch(/\.\.\/turnkit\/|cd \.\.\/my-agent/);
    }
  });
});
