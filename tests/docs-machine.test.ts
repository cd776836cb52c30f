/**
 * The machine diagram of docs/concepts/machine.md is generated from the loop's `CHART`
 * (docs/scripts/machine-diagram.ts): this fails when the page no longer shows what the chart holds.
 * Fix it with `npx tsx docs/scripts/machine-diagram.ts --write`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diagramInPage, MACHINE_PAGE, machineDiagram } from '../docs/scripts/machine-diagram.js';
import { CHART } from '../packages/core/src/machine/chart.js';

describe('the machine diagram in docs/concepts/machine.md', () => {
  it('is what the script prints from CHART now', () => {
    const page = readFileSync(MACHINE_PAGE, 'utf8');
    expect(diagramInPage(page), 'regenerate it: npx tsx docs/scripts/machine-diagram.ts --write').toBe(
      machineDiagram(),
    );
  });

  it('shows every state and every transition of the chart', () => {
    const diagram = machineDiagram();
    for (const [state, chart] of Object.entries(CHART)) {
      expect(diagram).toMatch(new RegExp(`^${state}\\b`, 'm'));
      const triggers = Object.keys(chart.on ?? {});
      for (const trigger of triggers) expect(diagram).toContain(`  ${trigger}`);
    }
    const edges = Object.values(CHART).flatMap((chart) =>
      [chart.always ?? [], ...Object.values(chart.on ?? {})].flat(),
    );
    const arrows = diagram.split('\n').filter((line) => line.includes('──▶'));
    expect(arrows).toHaveLength(edges.length);
  });

  it('finds no diagram in a page without its marks', () => {
    expect(diagramInPage('# The machine\n\nno diagram here\n')).toBeNull();
  });
});
