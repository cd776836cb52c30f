/**
 * The `use-chat` example of the useChat guide, run in Chromium exactly as written: the ```tsx block
 * that starts `// example: use-chat` is read from docs/guides/use-chat.md at test time, bundled with
 * esbuild together with a three-line entry that renders its `<Assistant />`, and served by the demo's
 * own handler in place of the demo's page. The test then chats through it: a question answered with
 * its buttons, an approval, the assistant's report — on AI SDK 7 and on AI SDK 6, the majors the
 * guide says it works with.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { type AiSdkMajor, aiSdkMajor } from '../build/ai-sdk-major.js';
import { type PageFiles, PUBLIC_DIR, readPage } from '../src/page.js';
import { ARTIFACTS, available, withChromium } from './chromium.js';
import { withChatServer } from './helpers.js';
import { MAJOR_PAGES } from './pages.js';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
/** The guide that holds the `use-chat` example (it moved there from the root README). */
const README = fileURLToPath(new URL('../../../docs/guides/use-chat.md', import.meta.url));

/** The guide's `// example: <name>` block (a ```ts or ```tsx fence), as written. */
async function readmeExample(name: string): Promise<string> {
  const text = await readFile(README, 'utf8');
  for (const match of text.matchAll(/```tsx?\n(\/\/ example: ([\w-]+)\n[\s\S]*?)```/g)) {
    if (match[2] === name) return match[1]!;
  }
  throw new Error(`docs/guides/use-chat.md has no \`// example: ${name}\` block`);
}

const ENTRY = `
import { createRoot } from 'react-dom/client';
import { Assistant } from 'readme:use-chat';
createRoot(document.getElementById('root')!).render(<Assistant />);
`;

/** The demo's HTML with the README component's bundle, on AI SDK `major`, as its `/app.js`. */
async function readmePage(major: AiSdkMajor): Promise<PageFiles> {
  const example = await readmeExample('use-chat');
  // The example's imports resolve from this package, as they would from an app's.
  const readme: Plugin = {
    name: 'readme',
    setup(on) {
      on.onResolve({ filter: /^readme:use-chat$/ }, () => ({ path: 'use-chat.tsx', namespace: 'readme' }));
      on.onLoad({ filter: /.*/, namespace: 'readme' }, () => ({
        contents: example,
        loader: 'tsx',
        resolveDir: PACKAGE_DIR,
      }));
    },
  };
  const bundle = await build({
    stdin: { contents: ENTRY, loader: 'tsx', resolveDir: PACKAGE_DIR, sourcefile: 'entry.tsx' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [readme, aiSdkMajor(major)],
    logLevel: 'silent',
  });
  const page = readPage([PUBLIC_DIR]);
  page.set('/app.js', { body: bundle.outputFiles[0]!.text, type: 'text/javascript; charset=utf-8' });
  return page;
}

const openPage = withChromium();

describe.skipIf(!available).each(MAJOR_PAGES)(
  'the README’s use-chat example in Chromium on $name',
  ({ major, suffix }) => {
    const { server, toolSteps } = withChatServer(async () => ({ page: await readmePage(major) }));

    it('asks with its question buttons, takes an approval, and shows the report', async () => {
      const page = await openPage(server().url);
      const firstPost = page.waitForRequest((request) => request.method() === 'POST');
      const composer = page.locator('main > form > input');
      await composer.fill('Thaw vials for tomorrow');
      await composer.press('Enter');
      // The example keeps its chat id to itself: read it from what useChat posted.
      const chatId = JSON.parse((await firstPost).postData() ?? '{}').id as string;

      await page.locator('fieldset').waitFor();
      expect(await page.locator('legend').allTextContents()).toEqual([
        'Which cell lines should I thaw (one vial each)?',
        'Which medium should the vials go into?',
      ]);
      await page.getByRole('button', { name: 'K562', exact: true }).click();
      await page.getByRole('button', { name: 'DMEM', exact: true }).click();

      const approve = page.getByRole('button', { name: 'Approve' });
      await approve.waitFor();
      expect(await approve.locator('..').textContent()).toContain('Run thaw_vials?');
      await page.screenshot({ path: join(ARTIFACTS, `readme-use-chat-approval${suffix}.png`) });
      await approve.click();

      const reply = page.locator('article.assistant').last();
      await expect
        .poll(() => reply.textContent(), { timeout: 15_000 })
        .toContain('I thawed K562 (A3-12) into DMEM.');
      await expect.poll(() => page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      // The composer is enabled again once useChat is `ready`: the turn, and its run's save, ended.
      await expect.poll(() => composer.isEnabled()).toBe(true);
      expect(await toolSteps(chatId)).toEqual(['thaw_vials.execute']);
      await page.screenshot({ path: join(ARTIFACTS, `readme-use-chat${suffix}.png`), fullPage: true });
    });
  },
);
