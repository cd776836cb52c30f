/**
 * Draws the loop's state machine (the `CHART` of packages/core/src/machine/chart.ts) as an SVG for
 * docs/concepts/machine.md, written to docs/public/machine.svg by `machine-diagram.ts --write`.
 * States sit at fixed places (below); every edge of the chart is drawn, either as an arrow or, for
 * the ways out of the states where a run ends up at rest, as a line of text under the state, so
 * no arrow crosses the picture to reach `callingModel` or `settling` from the bottom row.
 * A state of the chart without a place here throws, so a new state cannot be left out unseen.
 */
import { CHART, type ChartEdge } from '../../packages/core/src/machine/chart.js';

const WIDTH = 1240;
const HEIGHT = 590;
const BOX = { width: 150, height: 44 };

/** Where each state's box is centred. */
const PLACES: Record<string, { x: number; y: number }> = {
  idle: { x: 80, y: 150 },
  callingModel: { x: 280, y: 150 },
  executingTools: { x: 640, y: 150 },
  settling: { x: 915, y: 150 },
  waitingInput: { x: 790, y: 330 },
  completed: { x: 110, y: 480 },
  maxSteps: { x: 360, y: 480 },
  failed: { x: 610, y: 480 },
  aborted: { x: 860, y: 480 },
  budgetExceeded: { x: 1110, y: 480 },
  blocked: { x: 110, y: 330 },
};

/** Arrows bent by hand (perpendicular offset of the curve's control point), so none runs through a box. */
const BENDS: Record<string, number> = {
  'settling→callingModel': -150,
  'executingTools→settling': 60,
  'settling→executingTools': 60,
};

/** Where along an arrow its label sits (0 at the start, 1 at the end; default the middle). */
const LABEL_AT: Record<string, number> = {
  'callingModel→completed': 0.3,
  'callingModel→maxSteps': 0.8,
  'callingModel→failed': 0.55,
  'callingModel→aborted': 0.8,
  'executingTools→aborted': 0.55,
  'callingModel→waitingInput': 0.62,
  'waitingInput→callingModel': 0.38,
};

/** States whose ways out are written under them instead of drawn. */
const BOTTOM_ROW = new Set(['completed', 'failed', 'maxSteps', 'aborted', 'budgetExceeded', 'blocked']);

interface Edge {
  from: string;
  to: string;
  label: string;
}

const xmlText = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

function placeOf(state: string): { x: number; y: number } {
  const place = PLACES[state];
  if (!place) throw new Error(`machine-svg: the chart has a state "${state}" with no place in PLACES`);
  return place;
}

/** Every edge of the chart, those between the same two states merged into one label. */
function chartEdges(): Edge[] {
  const merged = new Map<string, Edge>();
  const add = (from: string, trigger: string, edge: ChartEdge) => {
    const to = typeof edge === 'string' ? edge : edge.target;
    const guard = typeof edge === 'string' ? undefined : edge.guard;
    const label = guard ? `${trigger} [${guard}]` : trigger;
    const key = `${from}→${to}`;
    const known = merged.get(key);
    if (known) {
      if (!known.label.split(' | ').includes(label)) known.label += ` | ${label}`;
    } else merged.set(key, { from, to, label });
  };
  for (const [state, chart] of Object.entries(CHART)) {
    for (const edge of [chart.always ?? []].flat()) add(state, 'always', edge);
    for (const [event, edges] of Object.entries(chart.on ?? {})) {
      for (const edge of [edges ?? []].flat()) add(state, event, edge);
    }
  }
  // The same event with different guards to one target reads better as the event once.
  for (const edge of merged.values()) {
    const parts = edge.label.split(' | ');
    const events = new Set(parts.map((part) => part.split(' ')[0]));
    if (parts.length > 1 && events.size === 1) edge.label = [...events][0]!;
  }
  return [...merged.values()];
}

/** Where the line from a box's centre towards `toward` leaves the box. */
function border(center: { x: number; y: number }, toward: { x: number; y: number }) {
  const dx = toward.x - center.x;
  const dy = toward.y - center.y;
  const scale = 1 / Math.max(Math.abs(dx) / (BOX.width / 2), Math.abs(dy) / (BOX.height / 2));
  return { x: center.x + dx * scale, y: center.y + dy * scale };
}

const round = (value: number) => Math.round(value * 10) / 10;

function arrow(edge: Edge, bends: boolean): string {
  const from = placeOf(edge.from);
  const to = placeOf(edge.to);
  if (edge.from === edge.to) {
    const top = from.y - BOX.height / 2;
    const path = `M ${from.x - 30} ${top} C ${from.x - 40} ${top - 50}, ${from.x + 40} ${top - 50}, ${from.x + 30} ${top}`;
    return `<path d="${path}" class="edge" marker-end="url(#arrow)"/>\n<text x="${from.x}" y="${top - 44}" class="label">${xmlText(edge.label)}</text>`;
  }
  // Two states with arrows both ways: each arrow bends to its own side.
  const key = `${edge.from}→${edge.to}`;
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const length = Math.hypot(dx, dy);
  const offset = BENDS[key] ?? (bends ? 28 : 0);
  const control = {
    x: (from.x + to.x) / 2 + (dy / length) * offset,
    y: (from.y + to.y) / 2 + (-dx / length) * offset,
  };
  const start = border(from, control);
  const end = border(to, control);
  const t = LABEL_AT[key] ?? 0.5;
  const at = {
    x: (1 - t) ** 2 * start.x + 2 * (1 - t) * t * control.x + t ** 2 * end.x,
    y: (1 - t) ** 2 * start.y + 2 * (1 - t) * t * control.y + t ** 2 * end.y,
  };
  const path = `M ${round(start.x)} ${round(start.y)} Q ${round(control.x)} ${round(control.y)}, ${round(end.x)} ${round(end.y)}`;
  const lift = Math.abs(end.y - start.y) < 1 ? -6 : 4;
  return `<path d="${path}" class="edge" marker-end="url(#arrow)"/>\n<text x="${round(at.x)}" y="${round(at.y + lift)}" class="label">${xmlText(edge.label)}</text>`;
}

function box(state: string, exits: string[]): string {
  const { x, y } = placeOf(state);
  const resting = BOTTOM_ROW.has(state) || state === 'waitingInput';
  const lines = [
    `<rect x="${x - BOX.width / 2}" y="${y - BOX.height / 2}" width="${BOX.width}" height="${BOX.height}" rx="10" class="${resting ? 'state resting' : 'state'}"/>`,
    `<text x="${x}" y="${y + 5}" class="name">${state}</text>`,
  ];
  exits.forEach((exit, index) => {
    lines.push(
      `<text x="${x}" y="${y + BOX.height / 2 + 18 + index * 15}" class="exit">${xmlText(exit)}</text>`,
    );
  });
  return lines.join('\n');
}

/** The SVG text of the diagram. */
export function machineSvg(): string {
  const edges = chartEdges();
  for (const state of Object.keys(CHART)) placeOf(state);
  const drawn = edges.filter((edge) => !BOTTOM_ROW.has(edge.from));
  const pairs = new Set(drawn.map((edge) => `${edge.from}→${edge.to}`));
  const exits = (state: string) =>
    edges
      .filter((edge) => edge.from === state && BOTTOM_ROW.has(state))
      .flatMap((edge) => edge.label.split(' | ').map((label) => `${label} → ${edge.to}`));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-labelledby="machine-title">`,
    `<title id="machine-title">The states of TurnKit's agent loop and the events that move between them</title>`,
    '<style>',
    '  .state { fill: #eef2ff; stroke: #4f46e5; stroke-width: 1.5; }',
    '  .resting { fill: #f0fdf4; stroke: #15803d; }',
    '  .name { font: 600 15px system-ui, sans-serif; text-anchor: middle; fill: #111827; }',
    '  .edge { fill: none; stroke: #6b7280; stroke-width: 1.3; }',
    '  .label { font: 11px ui-monospace, monospace; text-anchor: middle; fill: #374151; paint-order: stroke; stroke: #ffffff; stroke-width: 4px; }',
    '  .exit { font: 10px ui-monospace, monospace; text-anchor: middle; fill: #15803d; }',
    '  .note { font: 12px system-ui, sans-serif; fill: #6b7280; }',
    '</style>',
    '<rect width="100%" height="100%" fill="#ffffff"/>',
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#6b7280"/></marker></defs>',
    ...drawn.map((edge) => arrow(edge, pairs.has(`${edge.to}→${edge.from}`))),
    ...Object.keys(CHART).map((state) => box(state, exits(state))),
    `<text x="20" y="${HEIGHT - 16}" class="note">Green: states where a turn returns (the run rests). Generated from CHART by docs/scripts/machine-diagram.ts.</text>`,
    '</svg>',
    '',
  ].join('\n');
}
