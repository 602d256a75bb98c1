// Painting the timeline: a time axis, then per track its activity (a bar per bucket, as tall as the
// bucket's share of busy time, or of the heaviest bucket when weights are no time) coloured by the
// CPU the bucket ran on most; the selection (the rest dimmed), the ranges set to compare, the
// pointer's line.

import type { TimeRange } from '../core/model/timeline';
import { cpuColor, type TimeAxis, ticks, xOf } from './geometry';

/** What the timeline shows (the timeline derivation's result: core/analysis/derivations.ts). */
export interface TimelineData {
  first: number;
  last: number;
  start: number;
  end: number;
  buckets: number;
  tracks: { name: string; pid?: string; tid?: string; samples: number; weight: number }[];
  weight: Float64Array;
  samples: Uint32Array;
  cpu: Int16Array;
  cpus: string[];
}

export const ROW = 26;
export const AXIS = 20;

export interface TimelinePaint {
  data: TimelineData;
  width: number;
  /** ns per unit of weight when weights are a time; undefined for counts. */
  weightNs?: number;
  dark: boolean;
  /** The selection, or the span being dragged. */
  selection: TimeRange | null;
  marks: { label: string; range: TimeRange }[];
  hoverX: number | null;
}

/** Each bucket's height as a fraction of a row (0..1), track-major. */
export function activity(data: TimelineData, weightNs?: number): Float32Array {
  const out = new Float32Array(data.weight.length);
  const bucketNs = (data.end - data.start) / data.buckets;
  if (weightNs !== undefined && bucketNs > 0) {
    for (let i = 0; i < out.length; i++) out[i] = Math.min(1, (data.weight[i] * weightNs) / bucketNs);
    return out;
  }
  let max = 0;
  for (let i = 0; i < data.weight.length; i++) if (data.weight[i] > max) max = data.weight[i];
  if (max > 0) for (let i = 0; i < out.length; i++) out[i] = data.weight[i] / max;
  return out;
}

export function paintTimeline(ctx: CanvasRenderingContext2D, p: TimelinePaint, heights: Float32Array): void {
  const { data, width, dark } = p;
  const nTracks = data.tracks.length;
  const h = AXIS + nTracks * ROW;
  const fg = dark ? '#e9eaee' : '#1b1d22';
  const muted = dark ? '#a0a5b0' : '#666b75';
  const grid = dark ? '#343842' : '#e3e5e9';
  ctx.clearRect(0, 0, width, h);
  const axis: TimeAxis = { start: data.start, end: data.end, width };
  // axis and grid
  ctx.font = '11px "DejaVu Sans", sans-serif';
  ctx.textBaseline = 'middle';
  ctx.fillStyle = muted;
  ctx.strokeStyle = grid;
  ctx.lineWidth = 1;
  for (const t of ticks(axis, data.first)) {
    const x = Math.round(t.x) + 0.5;
    ctx.beginPath();
    ctx.moveTo(x, AXIS - 4);
    ctx.lineTo(x, h);
    ctx.stroke();
    if (x + 3 + ctx.measureText(t.label).width < width) ctx.fillText(t.label, x + 3, AXIS / 2);
  }
  for (let k = 0; k <= nTracks; k++) {
    const y = AXIS + k * ROW + 0.5;
    ctx.beginPath();
    ctx.moveTo(0, y);
    ctx.lineTo(width, y);
    ctx.stroke();
  }
  // activity: a bar per bucket from the row's bottom
  const { buckets } = data;
  const bw = width / buckets;
  const nCpu = data.cpus.length;
  const fills = new Map<number, string>();
  for (let k = 0; k < nTracks; k++) {
    const bottom = AXIS + (k + 1) * ROW - 1;
    const tall = ROW - 4;
    for (let b = 0; b < buckets; b++) {
      const i = k * buckets + b;
      const f = heights[i];
      if (f <= 0) continue;
      const c = data.cpu[i];
      let fill = fills.get(c);
      if (fill === undefined) fills.set(c, (fill = cpuColor(c, nCpu, dark)));
      ctx.fillStyle = fill;
      const bh = Math.max(1, f * tall);
      ctx.fillRect(b * bw, bottom - bh, Math.max(bw, 1), bh);
    }
  }
  // the ranges set to compare: a band under the axis each, labelled
  for (const m of p.marks) {
    const x0 = xOf(axis, m.range.start);
    const x1 = Math.max(x0 + 2, xOf(axis, m.range.end));
    if (x1 < 0 || x0 > width) continue;
    ctx.fillStyle = m.label === 'A' ? 'hsla(210, 70%, 50%, 0.35)' : 'hsla(25, 90%, 50%, 0.35)';
    ctx.fillRect(x0, AXIS - 6, x1 - x0, 6);
    ctx.fillStyle = fg;
    ctx.font = 'bold 10px "DejaVu Sans", sans-serif';
    ctx.fillText(m.label, Math.max(0, x0) + 2, AXIS - 12);
  }
  // the selection: the rest dimmed
  if (p.selection) {
    const x0 = Math.max(0, xOf(axis, p.selection.start));
    const x1 = Math.min(width, Math.max(x0 + 1, xOf(axis, p.selection.end)));
    ctx.fillStyle = dark ? 'rgba(0, 0, 0, 0.55)' : 'rgba(255, 255, 255, 0.7)';
    ctx.fillRect(0, AXIS, x0, h - AXIS);
    ctx.fillRect(x1, AXIS, width - x1, h - AXIS);
    ctx.strokeStyle = dark ? '#fb923c' : '#c2410c';
    ctx.lineWidth = 1.5;
    ctx.strokeRect(x0 + 0.75, AXIS + 0.75, x1 - x0 - 1.5, h - AXIS - 1.5);
  }
  if (p.hoverX !== null) {
    ctx.strokeStyle = fg;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(Math.round(p.hoverX) + 0.5, AXIS);
    ctx.lineTo(Math.round(p.hoverX) + 0.5, h);
    ctx.stroke();
  }
}
