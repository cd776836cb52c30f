/**
 * The deployment guide (docs/runtimes.md) shows the files the runtime tests run, verbatim: an
 * example there is one that runs.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const guide = readFileSync(join(here, '../../docs/runtimes.md'), 'utf8');

describe('docs/runtimes.md', () => {
  it.each(['next-route.ts', 'worker.ts', 'vercel-edge.ts', 'lambda.ts', 'deno.ts', 'bun.ts', 'node.ts'])(
    'shows app/%s exactly as tested',
    (file) => {
      expect(guide).toContain(`\`\`\`ts\n${readFileSync(join(here, 'app', file), 'utf8')}\`\`\``);
    },
  );
});
