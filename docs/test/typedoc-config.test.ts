/**
 * The API reference documents every entry point of both packages: typedoc.config.mjs reads them
 * from the exports maps, so a subpath added to a package is in the reference without a change here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import options, { entryPointsByImportPath } from '../typedoc.config.mjs';

function subpathsOf(folder: string): string[] {
  const manifest = JSON.parse(
    readFileSync(new URL(`../../packages/${folder}/package.json`, import.meta.url), 'utf8'),
  );
  return Object.keys(manifest.exports)
    .filter((subpath) => subpath !== './package.json')
    .map((subpath) => `${manifest.name}${subpath.slice(1)}`);
}

describe('typedoc.config.mjs', () => {
  it("names one entry point per subpath of each package's exports map, each an existing source file", () => {
    const entries = entryPointsByImportPath();

    expect(Object.keys(entries)).toEqual([...subpathsOf('core'), ...subpathsOf('adapters')]);
    expect(entries['@turnkit/adapters/http']).toMatch(/packages\/adapters\/src\/http\/public\.ts$/);
    for (const file of Object.values(entries)) expect(existsSync(file), file).toBe(true);
    expect(options.entryPoints).toEqual(Object.values(entries));
  });
});
