/**
 * The page each AI SDK major's `useChat` runs: the demo's bundle (AI SDK 7, built by tsup into
 * `dist/client/`) and the same source bundled against AI SDK 6 (`dist/client-ai-sdk-6/`), both
 * built by the global setup. The browser suites run once per entry (`describe.each`).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { AI_SDK_MAJORS, type AiSdkMajor } from '../build/ai-sdk-major.js';
import { BUNDLE_DIR, type PageFiles, PUBLIC_DIR, readPage } from '../src/page.js';

/** Where the global setup writes the page's AI SDK 6 bundle. */
export const AI_SDK_6_BUNDLE_DIR = fileURLToPath(new URL('../dist/client-ai-sdk-6/', import.meta.url));

/**
 * The version of the `ai` that AI SDK `major`'s `@ai-sdk/react` depends on, which the bundle must
 * hold (its `VERSION` constant), once: the proof that a page is the major its suite names.
 */
function aiVersionOf(major: AiSdkMajor): string {
  const react = createRequire(import.meta.url).resolve(`${AI_SDK_MAJORS[major].react}/package.json`);
  const ai = createRequire(react).resolve('ai/package.json');
  return (JSON.parse(readFileSync(ai, 'utf8')) as { version: string }).version;
}

export interface MajorPage {
  major: AiSdkMajor;
  /** The version of `ai` bundled in the page, e.g. `7.0.173`. */
  aiVersion: string;
  /** `AI SDK 7 (@ai-sdk/react 4)`: what the suite's title says. */
  name: string;
  /** Added to screenshot names: `''` for the demo's own major, `-ai-sdk-6` for the other. */
  suffix: string;
  /** The page's files, the bundle of this major as `/app.js`. */
  files(): PageFiles;
}

export const MAJOR_PAGES: MajorPage[] = [
  {
    major: 7,
    aiVersion: aiVersionOf(7),
    name: AI_SDK_MAJORS[7].name,
    suffix: '',
    files: () => readPage([PUBLIC_DIR, BUNDLE_DIR]),
  },
  {
    major: 6,
    aiVersion: aiVersionOf(6),
    name: AI_SDK_MAJORS[6].name,
    suffix: '-ai-sdk-6',
    files: () => readPage([PUBLIC_DIR, AI_SDK_6_BUNDLE_DIR]),
  },
];
