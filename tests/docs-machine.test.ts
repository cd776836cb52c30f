/**
 * The machine diagram of docs/concepts/machine.md and its picture docs/public/machine.svg are
 * generated from the loop's `CHART` (docs/scripts/machine-diagram.ts, machine-svg.ts): this fails
 * when either no longer shows what the chart holds.
 * Fix it with `npx tsx docs/scripts/machine-diagram.ts --write`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diagramInPage, MACHINE_PAGE, MACHINE_SVG, machineDiagram } from '../docs/scripts/machine-diagram.js';
import { machineSvg } from '../docs/scripts/machine-svg.js';
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

  it('has the picture the script draws from CHART now, with every state in it', () => {
    expect(
      readFileSync(MACHINE_SVG, 'utf8'),
      'regenerate it: npx tsx docs/scripts/machine-diagram.ts --write',
    ).toBe(machineSvg());
    for (const state of Object.keys(CHART)) expect(machineSvg()).toContain(`class="name">${state}</text>`);
  });

  it('refers to the picture from the page', () => {
    expect(readFileSync(MACHINE_PAGE, 'utf8')).toContain('](/machine.svg)');
  });

  it('finds no diagram in a page without its marks', () => {
    expect(diagramInPage('# The machine\n\nno diagram here\n')).toBeNull();
  });
});
