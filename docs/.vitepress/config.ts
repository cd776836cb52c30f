/**
 * The VitePress configuration of TurnKit's documentation site. The sidebar and the nav are
 * generated from the pages (./sidebar.ts); the API reference under /api/ is generated from the
 * packages' TSDoc by TypeDoc before the build (../typedoc.config.mjs). Search is VitePress's local
 * index, built with the site.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type DefaultTheme, defineConfig } from 'vitepress';
import { missingRepoLinks, repoLinks } from './repo-links.js';
import { NOT_PAGES, navOf, sidebarOf } from './sidebar.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const apiSidebarFile = new URL('../api/typedoc-sidebar.json', import.meta.url);
const apiSidebar: DefaultTheme.SidebarItem[] = existsSync(apiSidebarFile)
  ? JSON.parse(readFileSync(apiSidebarFile, 'utf8'))
  : [];

export default defineConfig({
  title: 'TurnKit',
  description:
    'A stateless, turn-based agent SDK for TypeScript: a turn pauses for a question or an approval and resumes anywhere from a snapshot.',
  lang: 'en-US',
  srcExclude: [
    ...NOT_PAGES.filter((folder) => folder !== 'api').map((folder) => `${folder}/**`),
    '**/README.md',
  ],
  // Links to a local dev server in the guides (`http://localhost:8787/…`) are examples, not pages.
  ignoreDeadLinks: [/^https?:\/\/(localhost|127\.0\.0\.1)/],
  markdown: { config: repoLinks },
  // The local search index of several hundred API pages is one chunk of about 1 MB, loaded when the
  // search box opens.
  vite: { build: { chunkSizeWarningLimit: 2000 } },
  buildEnd() {
    if (missingRepoLinks.length > 0) {
      throw new Error(`Links to files that are not in the repository:\n${missingRepoLinks.join('\n')}`);
    }
  },
  themeConfig: {
    nav: navOf(root),
    sidebar: sidebarOf(root, apiSidebar),
    search: { provider: 'local' },
    outline: { level: [2, 3] },
    footer: { message: 'Released under the MIT License.' },
  },
});
