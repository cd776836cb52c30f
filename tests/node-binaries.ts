/**
 * The Node versions the consumer tests run on (DESIGN §25), installed from npm like the workspace's
 * own Node 24: `npm install node@<major>` (the `node` package fetches the official binary) into
 * `node_modules/.cache/turnkit-node/node-<major>/`, once; later runs reuse it.
 */
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { root } from './packed.js';

const run = promisify(execFile);
const installing = new Map<number, Promise<string>>();

async function versionOf(binary: string): Promise<string | null> {
  try {
    await access(binary, constants.X_OK);
    return (await run(binary, ['--version'])).stdout.trim();
  } catch {
    return null;
  }
}

/** The path of a Node binary of this major (the newest the registry had when it was first installed). */
export function nodeBinary(major: number): Promise<string> {
  let binary = installing.get(major);
  if (!binary) {
    binary = (async () => {
      const prefix = join(root, 'node_modules', '.cache', 'turnkit-node', `node-${major}`);
      const path = join(prefix, 'node_modules', 'node', 'bin', 'node');
      if ((await versionOf(path))?.startsWith(`v${major}.`)) return path;
      await run(
        'npm',
        ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', `node@${major}`],
        {
          timeout: 300_000,
        },
      );
      const version = await versionOf(path);
      if (!version?.startsWith(`v${major}.`))
        throw new Error(`npm install node@${major} left ${version ?? 'no binary'} at ${path}`);
      return path;
    })();
    installing.set(major, binary);
  }
  return binary;
}
