/**
 * Runs every ```ts block of the root README that starts with `// example: <name>`, exactly as
 * written, in a fresh Node process against the built packages, and checks what it prints.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const scratch = join(here, '.examples');
const run = promisify(execFile);

async function examples(): Promise<Map<string, string>> {
  const readme = await readFile(join(here, '..', 'README.md'), 'utf8');
  const found = new Map<string, string>();
  for (const match of readme.matchAll(/```ts\n(\/\/ example: ([\w-]+)\n[\s\S]*?)```/g))
    found.set(match[2]!, match[1]!);
  return found;
}

async function runExample(name: string): Promise<string> {
  const code = (await examples()).get(name);
  if (!code) throw new Error(`README has no example named ${name}`);
  await mkdir(scratch, { recursive: true });
  const file = join(scratch, `${name}.ts`);
  await writeFile(file, code);
  const { stdout } = await run(process.execPath, ['--import', 'tsx', file], { cwd: here });
  return stdout;
}

afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('README examples', () => {
  it('lists the examples this suite knows', async () => {
    expect([...(await examples()).keys()].sort()).toEqual(['quickstart', 'sessions']);
  });

  it('quickstart: pauses, stores the snapshot in a file, and resumes from it', async () => {
    const lines = (await runExample('quickstart')).trim().split('\n');
    expect(lines[0]).toBe('needs_input');
    expect(lines.join('\n')).toContain("header: 'Cell line'");
    expect(lines.at(-1)).toBe('completed Found it: {"cellLine":"K562-dTAG","vials":3,"rack":"B2"}');
  });

  it('sessions: pauses for approval and lets exactly one of two concurrent decisions win', async () => {
    const output = await runExample('sessions');
    expect(output).toMatch(/^approval \{\s+toolName: 'record_thaw'/);
    expect(output.trim().split('\n').at(-1)).toBe("[ 'completed', true ]");
  });
});
