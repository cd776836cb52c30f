/**
 * Every relative link of the READMEs (the root's, the packages' and the apps') points at a file or
 * folder of the repository, and a `#anchor` into a Markdown page names one of its headings (its
 * slug, or an explicit `{#id}`). The site test checks the site's own links; this checks the pages
 * a reader of GitHub or npm opens first.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The READMEs a reader lands on: the root's and each workspace package's or app's. */
function readmes(): string[] {
  const found = ['README.md'];
  for (const folder of ['packages', 'apps']) {
    for (const name of readdirSync(join(root, folder))) {
      const readme = join(folder, name, 'README.md');
      if (existsSync(join(root, readme))) found.push(readme);
    }
  }
  return found;
}

/** Markdown link targets outside code (fenced blocks and inline code dropped). */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!);
}

/** The anchors a Markdown page offers: each heading's slug (as VitePress and GitHub make it) and each `{#id}`. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of markdown.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const explicit = /\{#([^}]+)\}\s*$/.exec(heading!);
    if (explicit) anchors.add(explicit[1]!);
    const text = heading!
      .replace(/\{#[^}]+\}\s*$/, '')
      .replace(/[`*_]/g, '')
      .trim();
    anchors.add(
      text
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s-]/gu, '')
        .trim()
        .replace(/\s+/g, '-'),
    );
  }
  return anchors;
}

describe('README links', () => {
  for (const readme of readmes()) {
    it(`${readme}: every relative link resolves`, () => {
      const broken: string[] = [];
      for (const target of linkTargets(readFileSync(join(root, readme), 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? join(root, readme) : join(root, dirname(readme), decodeURI(path));
        if (!existsSync(file) || relative(root, file).startsWith('..')) {
          broken.push(`${target} (no such file)`);
          continue;
        }
        if (anchor && statSync(file).isFile() && file.endsWith('.md')) {
          if (!anchorsOf(readFileSync(file, 'utf8')).has(anchor))
            broken.push(`${target} (no heading #${anchor})`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});
