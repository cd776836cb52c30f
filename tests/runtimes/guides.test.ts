/**
 * The runtime guides (docs/guides/) show the files the runtime tests run, verbatim: an example there
 * is one that runs. Each platform's page shows its entry; the handler guide shows the Node one.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const guides = join(here, '..', '..', 'docs', 'guides');

/** Each file of `app/` a guide copies, and the guide's page. */
const COPIES: [file: string, page: string][] = [
  ['next-route.ts', 'nextjs.md'],
  ['worker.ts', 'cloudflare-workers.md'],
  ['vercel-edge.ts', 'vercel-edge.md'],
  ['lambda.ts', 'aws-lambda.md'],
  ['deno.ts', 'deno.md'],
  ['bun.ts', 'bun.md'],
  ['node.ts', 'runtimes.md'],
];

describe('the runtime guides', () => {
  it.each(COPIES)('show app/%s exactly as tested, in docs/guides/%s', (file, page) => {
    const guide = readFileSync(join(guides, page), 'utf8');
    expect(guide).toContain(`\`\`\`ts\n${readFileSync(join(here, 'app', file), 'utf8')}\`\`\``);
  });
});
