/**
 * The tsup config of the demos' first build (`scripts/build-quietly.mjs` passes it to every
 * package's `tsup` as `--config`): the package's own `tsup.config.ts`, less its declarations. A demo
 * runs the JavaScript, never the `.d.ts`, and the declarations are most of the build's time (about a
 * minute for the adapters, seconds for the JavaScript). `npm run build` and `npm test` still build
 * them: turbo caches this build under other hashes, since its arguments differ.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The package's config, loaded as tsup loads it (bundle-require, resolved beside tsup). */
async function ownConfig(options) {
  const fromTsup = createRequire(createRequire(import.meta.url).resolve('tsup'));
  const { bundleRequire } = await import(pathToFileURL(fromTsup.resolve('bundle-require')).href);
  const { mod } = await bundleRequire({ filepath: join(process.cwd(), 'tsup.config.ts') });
  const config = mod.default ?? mod;
  return typeof config === 'function' ? await config(options) : config;
}

export default async function noDeclarations(options) {
  const config = await ownConfig(options);
  return (Array.isArray(config) ? config : [config])
    .filter((item) => !(typeof item.dts === 'object' && item.dts?.only))
    .map((item) => ({ ...item, dts: false }));
}
