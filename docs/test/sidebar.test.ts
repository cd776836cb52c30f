/**
 * The sidebar and the nav come from the pages' files and frontmatter (.vitepress/sidebar.ts): a
 * throwaway docs tree in a temporary folder shows how pages are grouped, ordered and titled.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DefaultTheme } from 'vitepress';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { navOf, readPage, sidebarOf } from '../.vitepress/sidebar.js';

let root: string;

function page(path: string, frontmatter: Record<string, string | number> | undefined, body = 'Text.') {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true });
  const head = frontmatter
    ? `---\n${Object.entries(frontmatter)
        .map(([key, value]) => `${key}: ${value}`)
        .join('\n')}\n---\n`
    : '';
  writeFileSync(file, `${head}${body}\n`);
}

function texts(items: DefaultTheme.SidebarItem[]): unknown[] {
  return items.map((item) => (item.items ? { [item.text!]: texts(item.items) } : item.text));
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'turnkit-docs-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('sidebarOf', () => {
  it('groups folders, sorts by order then title, and places top-level pages around the folders by order', () => {
    page('index.md', { layout: 'home' });
    page('getting-started.md', { title: 'Getting started', order: 1 });
    page('security.md', { title: 'Security', order: 50 });
    page('performance.md', { title: 'Performance', order: 40 });
    page('guides/nextjs.md', { title: 'Next.js', order: 2 });
    page('guides/runtimes.md', { title: 'Runtimes', order: 1 });
    page('guides/bun.md', { title: 'Bun', order: 2 });
    page('concepts/turns.md', { title: 'Turns', order: 1 });
    page('architecture/layers.md', { title: 'Layers', order: 1 });
    page('api/index.md', { title: 'Not a guide page' });
    page('test/notes.md', { title: 'Not a page' });

    const sidebar = sidebarOf(root, []);

    expect(texts(sidebar['/']!)).toEqual([
      'Getting started',
      { Concepts: ['Turns'] },
      { Guides: ['Runtimes', 'Bun', 'Next.js'] },
      { Architecture: ['Layers'] },
      'Performance',
      'Security',
      'API reference',
    ]);
  });

  it('titles a page without a title after its first heading, and puts pages without an order last', () => {
    page('guides/a.md', { title: 'Ordered', order: 5 });
    page('guides/b.md', undefined, '# From the heading\n\nText.');
    page('guides/c.md', { order: 1 }, 'No heading here.');

    const [guides] = sidebarOf(root, [])['/']!;

    expect(texts(guides!.items!)).toEqual(['c', 'Ordered', 'From the heading']);
    expect(guides!.items!.map((item) => item.link)).toEqual(['/guides/c', '/guides/a', '/guides/b']);
  });

  it("takes a folder's title and place from its index.md, which is not listed twice", () => {
    page('extras/index.md', { title: 'Recipes', order: 5 });
    page('extras/one.md', { title: 'One', order: 1 });
    page('concepts/turns.md', { title: 'Turns', order: 1 });

    expect(texts(sidebarOf(root, [])['/']!)).toEqual([
      { Recipes: ['One'] },
      { Concepts: ['Turns'] },
      'API reference',
    ]);
  });

  it("gives each API module a sidebar of every module's link and its own members", () => {
    page('getting-started.md', { title: 'Getting started', order: 1 });
    const api: DefaultTheme.SidebarItem[] = [
      {
        text: '@turnkit/core',
        link: '/api/core/',
        items: [{ text: 'Functions', items: [{ text: 'runTurn', link: '/api/core/functions/runTurn.md' }] }],
      },
      {
        text: '@turnkit/adapters/http',
        link: '/api/adapters/http/',
        items: [
          {
            text: 'Functions',
            items: [{ text: 'createHandler', link: '/api/adapters/http/functions/createHandler.md' }],
          },
        ],
      },
    ];

    const sidebars = sidebarOf(root, api);

    expect(Object.keys(sidebars).sort()).toEqual(['/', '/api/', '/api/adapters/http/', '/api/core/']);
    expect(texts(sidebars['/api/adapters/http/']!)).toEqual([
      '← Guide',
      'API reference',
      { Modules: ['@turnkit/core', '@turnkit/adapters/http'] },
      { '@turnkit/adapters/http': [{ Functions: ['createHandler'] }] },
    ]);
    expect(sidebars['/api/']![0]!.link).toBe('/getting-started');
  });
});

describe('navOf', () => {
  it('links the pages before the folders, each folder at its first page, then the API reference', () => {
    page('getting-started.md', { title: 'Getting started', order: 1 });
    page('guides/runtimes.md', { title: 'Runtimes', order: 1 });
    page('guides/bun.md', { title: 'Bun', order: 2 });
    page('concepts/turns.md', { title: 'Turns', order: 1 });
    page('security.md', { title: 'Security', order: 50 });

    expect(navOf(root)).toEqual([
      { text: 'Getting started', link: '/getting-started' },
      { text: 'Concepts', link: '/concepts/turns', activeMatch: '^/concepts/' },
      { text: 'Guides', link: '/guides/runtimes', activeMatch: '^/guides/' },
      { text: 'API reference', link: '/api/', activeMatch: '^/api/' },
    ]);
  });
});

describe('readPage', () => {
  it('reads title and order from the frontmatter', () => {
    page('x.md', { title: '"Stores: file, Redis, PostgreSQL"', order: 8 });
    expect(readPage(join(root, 'x.md'))).toEqual({ title: 'Stores: file, Redis, PostgreSQL', order: 8 });
  });

  it('names the page whose frontmatter is not valid YAML (an unquoted title with ": " in it)', () => {
    page('guides/stores.md', { title: 'Stores: file, Redis', order: 8 });
    expect(() => readPage(join(root, 'guides/stores.md'))).toThrow(/guides\/stores\.md is not valid YAML/);
  });
});

describe("the site's own pages", () => {
  /** Every hand-written page: the docs tree without the generated API reference and the tooling. */
  function pages(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      if (['api', 'node_modules', 'public', 'test', 'test-artifacts', 'scripts'].includes(entry.name))
        return [];
      if (entry.name.startsWith('.')) return [];
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return pages(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
  }
  const docs = fileURLToPath(new URL('..', import.meta.url));

  it('each has a title and an order in valid frontmatter (a formatter can turn it into a heading)', () => {
    // The home page is a layout of its own, outside the sidebar.
    const found = pages(docs).filter((file) => file !== join(docs, 'index.md'));
    expect(found.length).toBeGreaterThan(20);
    for (const file of found) {
      const text = readFileSync(file, 'utf8');
      expect(text.startsWith('---\n'), `${file} starts with frontmatter`).toBe(true);
      const { order } = readPage(file);
      const title = /^title:/m.test(text.split('\n---\n')[0]!);
      expect(title && order < 1000, `${file} has a title and an order`).toBe(true);
    }
  });
});
