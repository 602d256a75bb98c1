// Painting the flame chart: a time axis, then the boxes of the window, root at the top, coloured as
// the flame graph colours frames (by module), labelled where they are wide enough; the selected
// function's boxes outlined, the rest faded when one is selected.

import type { FlameChartBoxes } from '../core/model/flamechart';
import { fitName } from '../core/text/fit-name';
import { DARK, frameColor, LIGHT } from '../flamegraph/paint';
import { type TimeAxis, ticks, xOf } from './geometry';

/** A flame chart's boxes over a window (the worker's answer: core/analysis/session.ts FlameChartReply). */
export interface FlameChartData extends FlameChartBoxes {
  names: string[];
  labels: string[];
  modules: string[];
  window: { start: number; end: number };
}

export const CHART_ROW = 18;
export const CHART_AXIS = 20;
const FONT = '11px "DejaVu Sans Mono", Menlo, Consolas, monospace';

export interface ChartPaint {
  chart: FlameChartData;
  axis: TimeAxis;
  origin: number;
  height: number;
  dark: boolean;
  /** The selected frame's name: its boxes outlined, the others faded. */
  selected: string | null;
  hover: number | null;
}

/** The box at (x, y) on the canvas, or −1. */
export function boxAt(c: FlameChartData, axis: TimeAxis, x: number, y: number): number {
  const depth = Math.floor((y - CHART_AXIS) / CHART_ROW);
  if (depth < 0) return -1;
  const t0 = axis.start + ((x - 0.5) / axis.width) * (axis.end - axis.start);
  const t1 = axis.start + ((x + 0.5) / axis.width) * (axis.end - axis.start);
  for (let i = 0; i < c.count; i++) if (c.depth[i] === depth && c.start[i] <= t1 && c.end[i] >= t0) return i;
  return -1;
}

export function paintFlameChart(ctx: CanvasRenderingContext2D, p: ChartPaint): void {
  const { chart: c, axis, dark } = p;
  const theme = dark ? DARK : LIGHT;
  const width = axis.width;
  ctx.fillStyle = theme.background;
  ctx.fillRect(0, 0, width, p.height);
  ctx.font = '11px "DejaVu Sans", sans-serif';
  ctx.textBaseline = 'middle';
  ctx.strokeStyle = dark ? '#343842' : '#e3e5e9';
  ctx.fillStyle = dark ? '#a0a5b0' : '#666b75';
  for (const t of ticks(axis, p.origin)) {
    const x = Math.round(t.x) + 0.5;
    ctx.beginPath();
    ctx.moveTo(x, CHART_AXIS - 4);
    ctx.lineTo(x, p.height);
    ctx.stroke();
    if (x + 3 + ctx.measureText(t.label).width < width) ctx.fillText(t.label, x + 3, CHART_AXIS / 2);
  }
  ctx.font = FONT;
  const charW = ctx.measureText('M').width || 7;
  const fills = new Map<number, string>();
  const selectedId = p.selected === null ? -1 : c.names.indexOf(p.selected);
  const outlined: number[] = [];
  for (let i = 0; i < c.count; i++) {
    const x0 = Math.max(-1, xOf(axis, c.start[i]));
    const x1 = Math.min(width + 1, xOf(axis, c.end[i]));
    if (x1 < 0 || x0 > width || x1 - x0 < 0.3) continue;
    const y = CHART_AXIS + c.depth[i] * CHART_ROW;
    if (y > p.height) continue;
    const f = c.frame[i];
    let fill = fills.get(f);
    if (fill === undefined) fills.set(f, (fill = frameColor('module', c.names[f], c.modules[f], 0, theme)));
    ctx.globalAlpha = selectedId >= 0 && f !== selectedId ? 0.35 : 1;
    ctx.fillStyle = fill;
    const w = Math.max(1, x1 - x0);
    ctx.fillRect(x0, y, w > 2 ? w - 0.5 : w, CHART_ROW - 1);
    if (f === selectedId || i === p.hover) outlined.push(i);
    const chars = Math.floor((w - 6) / charW);
    if (chars >= 3) {
      ctx.fillStyle = theme.text;
      ctx.fillText(fitName(c.labels[f], chars), Math.max(x0, 0) + 3, y + CHART_ROW / 2);
    }
  }
  ctx.globalAlpha = 1;
  ctx.strokeStyle = theme.text;
  for (const i of outlined) {
    const x0 = Math.max(0, xOf(axis, c.start[i]));
    const x1 = Math.min(width, xOf(axis, c.end[i]));
    ctx.lineWidth = i === p.hover ? 2 : 1.25;
    ctx.strokeRect(
      x0 + 0.5,
      CHART_AXIS + c.depth[i] * CHART_ROW + 0.5,
      Math.max(1, x1 - x0 - 1),
      CHART_ROW - 2,
    );
  }
}
