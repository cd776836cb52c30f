/**
 * What a Workers-style bundle of the README's minimal handler costs (DESIGN §18, issue 25):
 * `createClientHeldHandler({ agent, secret })` alone (`createHandler` in a build without it), then with each protocol mounted, bundled by esbuild
 * (`platform: 'browser'`, minified) from the BUILT adapters, gzipped -9. "own" is TurnKit's code
 * alone (core and adapters: zod, xstate, hono, superjson, @noble and the MCP SDK left out); "all"
 * counts them. Node built-ins stay imports; the handler imports none (DESIGN §18). `npm run bench`
 * reports the "handler alone" case ({@link workersBundle}): TurnKit's own code against the 40 KB
 * min+gzip goal, and the minified bytes of each dependency apart (esbuild's metafile).
 *
 * The quickstart imports the packages as a user does (their exports maps, so the ESM build).
 * `npm run bench:bundle [-- <adapters dist>]`: pass another build's `dist` with `http.js` at its top
 * (one made from an earlier commit) to compare; a build without the mount factories is given the
 * old object form.
 */
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** Another build's adapters `dist` to measure, or none: the workspace's packages, as a user imports them. */
const dist = process.argv[2] ? resolve(process.argv[2]) : undefined;
const benchDir = fileURLToPath(new URL('..', import.meta.url));
const NODE = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];
const DEPENDENCIES = [
  'zod',
  'zod/*',
  'xstate',
  'hono',
  'hono/*',
  'superjson',
  '@noble/*',
  '@modelcontextprotocol/*',
];

type Protocol = 'aiSdk' | 'agUi' | 'mcp';
const FACTORY: Record<Protocol, { subpath: string; name: string; path: string }> = {
  aiSdk: { subpath: 'ai-sdk', name: 'aiSdkProtocol', path: '/chat' },
  agUi: { subpath: 'ag-ui', name: 'agUiProtocol', path: '/ag-ui' },
  mcp: { subpath: 'mcp', name: 'mcpProtocol', path: '/mcp' },
};

/** Where the quickstart imports an adapters subpath from: the package, or `dist/<subpath>.js` of another build. */
function adapters(subpath: string): string {
  return JSON.stringify(dist ? resolve(dist, `${subpath}.js`) : `@turnkit/adapters/${subpath}`);
}

/** Whether this build hands mounts in (`protocols: [...]`) or takes the old object form. */
const mountsHandedIn = !dist || readFileSync(resolve(dist, 'ai-sdk.js'), 'utf8').includes('aiSdkProtocol');

/** Whether this build has the client-held-only handler (`createClientHeldHandler`, no sessions); an older one is measured with `createHandler`. */
const clientHeldEntry =
  !dist || readFileSync(resolve(dist, 'http.js'), 'utf8').includes('createClientHeldHandler');
const HANDLER = clientHeldEntry ? 'createClientHeldHandler' : 'createHandler';

/** The README's minimal client-held handler, with these protocols mounted. */
function entry(protocols: Protocol[]): string {
  const lines = [
    "import { defineAgent } from '@turnkit/core';",
    `import { ${HANDLER} as createHandler } from ${adapters('http')};`,
  ];
  let mounts = '';
  if (mountsHandedIn) {
    for (const p of protocols) {
      lines.push(`import { ${FACTORY[p].name} } from ${adapters(FACTORY[p].subpath)};`);
    }
    mounts = `[${protocols.map((p) => `${FACTORY[p].name}()`).join(', ')}]`;
  } else {
    mounts = `{ ${protocols.map((p) => `${p}: '${FACTORY[p].path}'`).join(', ')} }`;
  }
  lines.push(
    "const agent = defineAgent({ name: 'lab', model: { async generate() { return { message: { role: 'assistant', content: 'ok' } }; } } });",
    `export default { fetch: createHandler({ agent, secret: 'a-secret-of-at-least-32-characters!!'${
      protocols.length ? `, protocols: ${mounts}` : ''
    } }) };`,
  );
  return lines.join('\n');
}

/** Minified and gzipped bytes of the bundle, and the minified bytes of each package in it. */
interface Bundled {
  min: number;
  gzip: number;
  byPackage: Record<string, number>;
}

/** The package an esbuild input belongs to (TurnKit's own files: "turnkit"). */
function packageOf(input: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (!match || match[1]!.startsWith('@turnkit/')) return 'turnkit';
  return match[1]!;
}

async function gzipped(source: string, external: string[]): Promise<Bundled> {
  const result = await build({
    stdin: { contents: source, resolveDir: benchDir, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
    external,
    metafile: true,
    // No tsconfig: the workspace's `paths` (adapters type-check against core's source) would make
    // esbuild bundle core's source beside its dist; a user's bundler sees only the packages.
    tsconfigRaw: '{}',
  });
  const code = result.outputFiles[0]!.contents;
  const byPackage: Record<string, number> = {};
  for (const [input, { bytesInOutput }] of Object.entries(
    Object.values(result.metafile.outputs)[0]!.inputs,
  )) {
    const name = packageOf(input);
    byPackage[name] = (byPackage[name] ?? 0) + bytesInOutput;
  }
  return { min: code.byteLength, gzip: gzipSync(code, { level: 9 }).byteLength, byPackage };
}

/**
 * The Workers quickstart bundle (the README's minimal handler): TurnKit's own code; its own code with
 * the @noble crypto it depends on (core and the adapters import one shared copy); and all of it.
 */
export async function workersBundle(): Promise<{ own: Bundled; ownAndNoble: Bundled; all: Bundled }> {
  const source = entry([]);
  const notNoble = DEPENDENCIES.filter((name) => name !== '@noble/*');
  return {
    own: await gzipped(source, [...NODE, ...DEPENDENCIES]),
    ownAndNoble: await gzipped(source, [...NODE, ...notNoble]),
    all: await gzipped(source, NODE),
  };
}

const CASES: Array<[string, Protocol[]]> = [
  ['handler alone', []],
  ['+ aiSdk', ['aiSdk']],
  ['+ agUi', ['agUi']],
  ['+ mcp', ['mcp']],
  ['+ all three', ['aiSdk', 'agUi', 'mcp']],
];

async function main(): Promise<void> {
  if (dist && !existsSync(resolve(dist, 'http.js')))
    throw new Error(`no built adapters at ${dist}: run npx turbo run build`);
  const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`.padStart(9);
  console.log(
    `adapters: ${dist ?? '@turnkit/adapters'} (${mountsHandedIn ? 'protocols: [mounts]' : 'protocols: { object form }'})`,
  );
  console.log(
    `${'bundle'.padEnd(15)} ${'own min'.padStart(9)} ${'own gzip'.padStart(9)} ${'all min'.padStart(9)} ${'all gzip'.padStart(9)}`,
  );
  for (const [name, protocols] of CASES) {
    const source = entry(protocols);
    const own = await gzipped(source, [...NODE, ...DEPENDENCIES]);
    const all = await gzipped(source, NODE);
    console.log(`${name.padEnd(15)} ${kb(own.min)} ${kb(own.gzip)} ${kb(all.min)} ${kb(all.gzip)}`);
  }
}

// Run as `npm run bench:bundle`; bench.ts bundles this file (tsup) for workersBundle alone.
if (/bundle-size\.[jt]s$/.test(process.argv[1] ?? '')) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
