/**
 * Every ```ts / ```tsx block of the documentation that is no verbatim copy of a runtime test's file
 * (guides.test.ts checks those) is type-checked as a standalone module against the built packages,
 * strict and with `exactOptionalPropertyTypes` (as in a project `tsc --init` makes: an option filled
 * from `process.env` must accept `undefined`), with `moduleResolution: bundler`. The named examples
 * (`// example: <name>`), which readme.test.ts runs, are checked here too. Blocks may import
 * `./agent.js`: the `agent` example sits beside them as `agent.ts`. All blocks are one compiler
 * program, so the check costs one type-check, not one per block; the blocks live in a scratch folder
 * that exists only in the compiler's host, never on disk.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { type DocBlock, docBlocks, repoRoot } from './fixtures/doc-blocks.js';

/** The scratch folder the blocks are compiled in: beside the tests, so packages resolve as theirs. */
const scratch = join(repoRoot, 'tests', '.docs-blocks');

/** The files of tests/runtimes/app, whose copies in the guides are checked verbatim elsewhere. */
async function runtimeAppFiles(): Promise<Set<string>> {
  const dir = join(repoRoot, 'tests', 'runtimes', 'app');
  const files = (await readdir(dir)).filter((file) => file.endsWith('.ts'));
  return new Set(await Promise.all(files.map((file) => readFile(join(dir, file), 'utf8'))));
}

/** The blocks this suite checks: all but the verbatim runtime copies and `agent` (it is `agent.ts`). */
async function checkedBlocks(): Promise<DocBlock[]> {
  const copies = await runtimeAppFiles();
  return (await docBlocks()).filter((block) => block.name !== 'agent' && !copies.has(block.code));
}

/** A block's module name in the scratch folder: `docs-guides-mcp.md-L120.ts`. */
function moduleName(block: DocBlock): string {
  return `${block.file.replaceAll('/', '-')}-L${block.line}.${block.lang}`;
}

/** The compiler options: the workspace's base config, made as strict as `tsc --init`'s for standalone modules. */
function compilerOptions(): ts.CompilerOptions {
  const base = ts.readConfigFile(join(repoRoot, 'tsconfig.base.json'), ts.sys.readFile);
  const { options } = ts.convertCompilerOptionsFromJson(base.config.compilerOptions, repoRoot);
  return {
    ...options,
    strict: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    declaration: false,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    moduleDetection: ts.ModuleDetectionKind.Force,
    jsx: ts.JsxEmit.ReactJSX,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: ['node'],
  };
}

/** One problem of a block, located in its Markdown file. */
interface BlockProblem {
  where: string;
  message: string;
}

/**
 * Type-checks the blocks as one program (with `agent`, the module they may import as `./agent.js`)
 * and returns each problem as `<file.md>:<line>`, the line of the Markdown file it is on.
 */
function typeCheck(blocks: DocBlock[], agent: string): BlockProblem[] {
  const sources = new Map<string, string>([[join(scratch, 'agent.ts'), agent]]);
  const origin = new Map<string, DocBlock>();
  for (const block of blocks) {
    const path = join(scratch, moduleName(block));
    sources.set(path, block.code);
    origin.set(path, block);
  }
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const { directoryExists, fileExists, readFile: hostReadFile, getSourceFile } = host;
  host.directoryExists = (path) => path === scratch || (directoryExists?.call(host, path) ?? true);
  host.fileExists = (path) => sources.has(path) || fileExists.call(host, path);
  host.readFile = (path) => sources.get(path) ?? hostReadFile.call(host, path);
  host.getSourceFile = (path, language, onError, create) => {
    const text = sources.get(path);
    if (text === undefined) return getSourceFile.call(host, path, language, onError, create);
    return ts.createSourceFile(path, text, language, true);
  };
  const program = ts.createProgram({ rootNames: [...origin.keys()], options, host });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const file = diagnostic.file;
    const block = file ? origin.get(file.fileName) : undefined;
    if (!file || !block) {
      const where = file ? relative(repoRoot, file.fileName) : 'the compiler options';
      return { where, message };
    }
    const { line } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    return { where: `${block.file}:${block.line + line}`, message };
  });
}

let blocks: DocBlock[] = [];
let agent = '';

beforeAll(async () => {
  blocks = await checkedBlocks();
  const named = (await docBlocks()).find((block) => block.name === 'agent');
  if (!named) throw new Error('no page of the documentation has the `agent` example');
  agent = named.code;
});

describe('the code blocks of the documentation', () => {
  it('finds the blocks of every kind of page: the READMEs, Getting started and the guides', () => {
    const files = new Set(blocks.map((block) => block.file));
    expect(files).toContain('packages/core/README.md');
    expect(files).toContain('docs/getting-started.md');
    expect([...files].filter((file) => file.startsWith('docs/guides/')).length).toBeGreaterThan(5);
  });

  it('checks the named examples too, and leaves out the verbatim copies of the runtime tests', async () => {
    const copies = await runtimeAppFiles();
    expect(blocks.map((block) => block.name)).toContain('http-handler');
    expect(blocks.some((block) => copies.has(block.code))).toBe(false);
  });

  it('names the Markdown file and line of a block that does not type-check', () => {
    const broken: DocBlock = {
      file: 'docs/guides/broken.md',
      line: 40,
      lang: 'ts',
      code: "import { runTurn } from '@turnkit/core';\n\nconst turns: number = runTurn;\n",
    };
    const problems = typeCheck([broken], agent);
    expect(problems.map((problem) => problem.where)).toEqual(['docs/guides/broken.md:42']);
    expect(problems[0]?.message).toMatch(/not assignable to type 'number'/);
  }, 60_000);

  it('checks with exactOptionalPropertyTypes: an optional option that refuses undefined is reported', () => {
    const strict: DocBlock = {
      file: 'docs/guides/strict.md',
      line: 10,
      lang: 'ts',
      code: 'const options: { token?: string } = { token: process.env.API_TOKEN };\nexport { options };\n',
    };
    const problems = typeCheck([strict], agent);
    expect(problems.map((problem) => problem.where)).toEqual(['docs/guides/strict.md:10']);
    expect(problems[0]?.message).toMatch(/exactOptionalPropertyTypes/);
  }, 60_000);

  it('type-checks every other ts and tsx block as a standalone module', () => {
    const problems = typeCheck(blocks, agent).map((problem) => `${problem.where}: ${problem.message}`);
    expect(problems).toEqual([]);
  }, 120_000);
});
