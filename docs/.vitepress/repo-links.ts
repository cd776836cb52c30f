/**
 * Links from a page to a file of the repository outside docs/ (`../tests/runtimes/app/handler.ts`,
 * `../bench/README.md#…`) work on GitHub, where the pages are read as Markdown, but the site holds
 * no such file. This markdown-it rule rewrites them, before VitePress renders links, to the file's
 * address in the repository (its `repository` in packages/core/package.json, on `main`): `tree/`
 * for a folder, `blob/` for a file. A target that is not in the repository is a broken link: it is
 * listed in `missingRepoLinks`, which the build prints and the site's test checks.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, posix, relative, resolve } from 'node:path';
import type { MarkdownRenderer } from 'vitepress';

const docs = resolve(import.meta.dirname ?? dirname(new URL(import.meta.url).pathname), '..');
const repoRoot = resolve(docs, '..');

/** `https://github.com/<owner>/<name>`, from core's package.json. */
export const REPOSITORY_URL = (() => {
  const manifest = JSON.parse(readFileSync(resolve(repoRoot, 'packages/core/package.json'), 'utf8'));
  return String(manifest.repository.url)
    .replace(/^git\+/, '')
    .replace(/\.git$/, '');
})();

/** Links of the pages to repository paths that do not exist, as `page: link`. */
export const missingRepoLinks: string[] = [];

/** The repository address of `href` written in page `page` (relative to docs/), or undefined if it stays in the site. */
export function repositoryLink(page: string, href: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:|^\/|^#/i.test(href)) return undefined;
  const [path = '', hash] = href.split('#', 2);
  const target = posix.normalize(posix.join(posix.dirname(page), decodeURI(path)));
  if (!target.startsWith('../')) return undefined;
  const fromRoot = relative(repoRoot, resolve(docs, target)).split('\\').join('/');
  const absolute = resolve(repoRoot, fromRoot);
  if (!existsSync(absolute)) missingRepoLinks.push(`${page}: ${href}`);
  const kind = existsSync(absolute) && statSync(absolute).isDirectory() ? 'tree' : 'blob';
  return `${REPOSITORY_URL}/${kind}/main/${fromRoot}${hash === undefined ? '' : `#${hash}`}`;
}

/** Installs the rule on VitePress's markdown-it. */
export function repoLinks(md: MarkdownRenderer): void {
  md.core.ruler.push('turnkit_repo_links', (state) => {
    const page = (state.env as { relativePath?: string }).relativePath;
    if (!page) return;
    for (const block of state.tokens) {
      for (const token of block.children ?? []) {
        if (token.type !== 'link_open') continue;
        const href = token.attrGet('href');
        const rewritten = href ? repositoryLink(page, href) : undefined;
        if (rewritten) token.attrSet('href', rewritten);
      }
    }
  });
}
