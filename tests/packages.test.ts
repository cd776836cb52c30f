/**
 * Each published package is ready for npm (DESIGN §19): its own README with an install line and a
 * start, a LICENSE, `repository`, `keywords`, `homepage`; and `npm run check:package` (publint
 * --strict, then attw --pack --profile node16 on the packed tarball) passes.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe.each(['core', 'adapters'])('the published package @turnkit/%s', (name) => {
  const dir = join(root, 'packages', name);

  it('has a README with its install line and a start, a MIT LICENSE, repository, keywords and homepage', async () => {
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    const readme = await readFile(join(dir, 'README.md'), 'utf8');
    expect(readme).toMatch(new RegExp(`npm install [^\\n]*@turnkit/${name}`));
    expect(readme).toContain(`// start: ${name}`);
    expect(await readFile(join(dir, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(manifest).toMatchObject({
      license: 'MIT',
      repository: { type: 'git', directory: `packages/${name}` },
      homepage: expect.stringMatching(/^https:\/\//),
    });
    expect(manifest.keywords.length).toBeGreaterThan(3);
  });

  it('passes publint --strict and attw --profile node16 on its packed tarball', async () => {
    const { stdout } = await run('npm', ['run', 'check:package'], { cwd: dir, timeout: 180_000 });
    expect(stdout).toContain('All good!');
    expect(stdout).not.toMatch(/❌|🐛|🥴|⚠️/u);
  }, 200_000);
});
