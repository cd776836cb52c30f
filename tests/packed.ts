/**
 * The packed packages, as a user's `npm install` gets them (DESIGN §19): `npm pack` of core and
 * adapters, done once per build and kept in `node_modules/.cache/turnkit-packed/<digest>/`, the digest
 * of what the tarballs hold (each manifest, README, LICENSE and `dist/` file). Every consumer project
 * of the run (the consumer test, the peer matrix's columns) installs copies of the same two tarballs;
 * a rebuild that changes `dist/` packs again.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository's root folder. */
export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The published packages, in install order. */
const PACKAGES = ['core', 'adapters'];
const cache = join(root, 'node_modules', '.cache', 'turnkit-packed');

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** A digest of every file the packages' tarballs are made of. */
async function contentsDigest(): Promise<string> {
  const hash = createHash('sha256');
  for (const name of PACKAGES) {
    const dir = join(root, 'packages', name);
    const files = [
      ...['package.json', 'README.md', 'LICENSE'].map((file) => join(dir, file)),
      ...(await filesUnder(join(dir, 'dist'))),
    ].sort();
    for (const file of files) hash.update(`${relative(root, file)}\0`).update(await readFile(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/** The tarballs in `folder`, in install order, or null when one is missing. */
async function tarballsIn(folder: string): Promise<string[] | null> {
  const names = await readdir(folder).catch(() => [] as string[]);
  const tarballs = PACKAGES.map((name) => names.find((file) => file.startsWith(`turnkit-${name}-`)));
  return tarballs.every((file) => file?.endsWith('.tgz'))
    ? tarballs.map((file) => join(folder, file!))
    : null;
}

let packing: Promise<string[]> | undefined;

/** Packs the packages unless this build's tarballs are cached; their paths, core first. */
function cachedTarballs(): Promise<string[]> {
  packing ??= (async () => {
    const digest = await contentsDigest();
    const folder = join(cache, digest);
    const cached = await tarballsIn(folder);
    if (cached) return cached;
    await mkdir(cache, { recursive: true });
    const staging = await mkdtemp(join(cache, 'staging-'));
    for (const name of PACKAGES)
      await run('npm', ['pack', '--pack-destination', staging], { cwd: join(root, 'packages', name) });
    // Another test process may have packed the same build meanwhile: its folder is as good.
    await rename(staging, folder).catch(() => rm(staging, { recursive: true, force: true }));
    for (const entry of await readdir(cache))
      if (entry !== digest && !entry.startsWith('staging-'))
        await rm(join(cache, entry), { recursive: true, force: true });
    const packed = await tarballsIn(folder);
    if (!packed) throw new Error(`npm pack left no tarballs in ${folder}`);
    return packed;
  })();
  return packing;
}

/**
 * Copies this build's tarballs into `project/tarballs/` (packing them first if no test of this
 * build has) and returns their paths there, core first.
 */
export async function packedTarballsFor(project: string): Promise<string[]> {
  const folder = join(project, 'tarballs');
  await mkdir(folder, { recursive: true });
  const copies: string[] = [];
  for (const tarball of await cachedTarballs()) {
    const copy = join(folder, tarball.slice(dirname(tarball).length + 1));
    await copyFile(tarball, copy);
    copies.push(copy);
  }
  return copies;
}
