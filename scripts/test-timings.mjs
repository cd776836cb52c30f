#!/usr/bin/env node
/**
 * Where `npm test`'s time goes: reads the JSON report each package's vitest wrote
 * (`npm run test:timings` runs `npm test` with `--reporter=json --outputFile.json=.vitest-timings.json`
 * passed through turbo) and prints, per package, its wall time and its slowest files.
 *
 *   node scripts/test-timings.mjs [--top N]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const REPORT = '.vitest-timings.json';
const topIndex = process.argv.indexOf('--top');
const top = topIndex > 0 ? Number(process.argv[topIndex + 1]) : 8;

/** The workspaces' folders, from the root manifest's globs (`dir/*` or a plain folder). */
function workspaceFolders() {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return workspaces.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [pattern];
    const parent = pattern.slice(0, -2);
    return readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${parent}/${entry.name}`);
  });
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

const rows = [];
for (const folder of workspaceFolders()) {
  const file = join(root, folder, REPORT);
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const files = report.testResults.map((result) => ({
    name: relative(join(root, folder), result.name),
    ms: result.endTime - result.startTime,
    tests: result.assertionResults.length,
  }));
  const end = Math.max(...report.testResults.map((result) => result.endTime));
  rows.push({ folder, wall: end - report.startTime, tests: report.numTotalTests, files });
}

if (rows.length === 0) {
  console.error(`No ${REPORT} found: run \`npm run test:timings\` first.`);
  process.exit(1);
}
rows.sort((a, b) => b.wall - a.wall);
console.log('| package | tests | wall | slowest files (time in their tests) |');
console.log('| --- | --: | --: | --- |');
for (const row of rows) {
  const slowest = row.files
    .sort((a, b) => b.ms - a.ms)
    .slice(0, top)
    .map((entry) => `${entry.name} ${seconds(entry.ms)}`)
    .join(', ');
  console.log(`| ${row.folder} | ${row.tests} | ${seconds(row.wall)} | ${slowest} |`);
}
