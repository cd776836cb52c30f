/**
 * A page's link to a repository file outside docs/ becomes the file's address in the repository
 * (.vitepress/repo-links.ts); links inside the site stay as written.
 */
import { describe, expect, it } from 'vitest';
import { missingRepoLinks, REPOSITORY_URL, repositoryLink } from '../.vitepress/repo-links.js';

describe('repositoryLink', () => {
  it('points a file at blob/, a folder at tree/, and keeps the #anchor', () => {
    expect(repositoryLink('guides/nextjs.md', '../../tests/runtimes/app/handler.ts')).toBe(
      `${REPOSITORY_URL}/blob/main/tests/runtimes/app/handler.ts`,
    );
    expect(repositoryLink('runtimes.md', '../tests/runtimes/app')).toBe(
      `${REPOSITORY_URL}/tree/main/tests/runtimes/app`,
    );
    expect(repositoryLink('runtimes.md', '../bench/README.md#the-table')).toBe(
      `${REPOSITORY_URL}/blob/main/bench/README.md#the-table`,
    );
    expect(REPOSITORY_URL).toMatch(/^https:\/\/github\.com\/[^/]+\/[^/]+$/);
  });

  it('leaves links inside the site, anchors and absolute addresses alone', () => {
    for (const href of [
      '../concepts/leases.md#fencing',
      'stores.md',
      '#top',
      '/api/',
      'https://example.org/x',
    ]) {
      expect(repositoryLink('guides/stores.md', href)).toBeUndefined();
    }
  });

  it('lists a link to a path the repository does not have', () => {
    const before = missingRepoLinks.length;
    repositoryLink('guides/x.md', '../../no/such/file.ts');
    expect(missingRepoLinks.slice(before)).toEqual(['guides/x.md: ../../no/such/file.ts']);
  });
});
