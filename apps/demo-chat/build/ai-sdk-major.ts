/**
 * Which AI SDK major the page is bundled against. The page's source is the same for AI SDK 7
 * (`ai@7`, `@ai-sdk/react@4`, what the demo ships) and AI SDK 6 (`ai@6`, `@ai-sdk/react@3`, still
 * what many apps run); the tests bundle it once per major and play both in Chromium, so a change
 * of the protocol that one major's `useChat` would not read fails there.
 *
 * The esbuild plugin resolves `@ai-sdk/react` to the chosen major's package, and every `ai` —
 * the page's and the hooks' own — to the `ai` that package depends on: one copy per bundle.
 * Without it the page's `ai` (this package's) and the hooks' `ai` (pinned by `@ai-sdk/react`,
 * nested under it) are bundled side by side, twice the code for the same version.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OnResolveArgs, OnResolveResult, Plugin, PluginBuild } from 'esbuild';

/** An AI SDK major the page is built and tested against. */
export type AiSdkMajor = 6 | 7;

/** What each major's page is built from: the `@ai-sdk/react` package (an npm alias for v6). */
export const AI_SDK_MAJORS: Record<AiSdkMajor, { name: string; react: string }> = {
  7: { name: 'AI SDK 7 (@ai-sdk/react 4)', react: '@ai-sdk/react' },
  6: { name: 'AI SDK 6 (@ai-sdk/react 3)', react: '@ai-sdk/react-3' },
};

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
/** Marks the plugin's own `build.resolve` calls, so they take esbuild's ordinary resolution. */
const OWN = Symbol('ai-sdk-major');

async function resolve(build: PluginBuild, path: string, from: string, args: OnResolveArgs) {
  const found = await build.resolve(path, { kind: args.kind, resolveDir: from, pluginData: OWN });
  const result: OnResolveResult = { errors: found.errors, warnings: found.warnings };
  if (found.errors.length === 0) Object.assign(result, { path: found.path, sideEffects: found.sideEffects });
  return { found, result };
}

/** Bundles `ai` and `@ai-sdk/react` of AI SDK `major`, one copy of each. */
export function aiSdkMajor(major: AiSdkMajor): Plugin {
  return {
    name: `ai-sdk-${major}`,
    setup(build) {
      build.onResolve({ filter: /^(ai|@ai-sdk\/react)$/ }, async (args) => {
        if (args.pluginData === OWN) return undefined;
        const react = await resolve(build, AI_SDK_MAJORS[major].react, PACKAGE_DIR, args);
        if (args.path === '@ai-sdk/react' || react.found.errors.length > 0) return react.result;
        return (await resolve(build, 'ai', dirname(react.found.path), args)).result;
      });
    },
  };
}

/**
 * The page's bundle against AI SDK `major`, as `tsup.config.ts` builds it for the demo (browser,
 * ES2022, minified, React in production mode), written to `outdir/app.js`.
 */
export async function buildPage(major: AiSdkMajor, outdir: string): Promise<void> {
  const { build } = await import('esbuild');
  await build({
    entryPoints: { app: fileURLToPath(new URL('../src/client/main.tsx', import.meta.url)) },
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [aiSdkMajor(major)],
    logLevel: 'error',
  });
}
