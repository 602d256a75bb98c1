// Time on a horizontal axis, for the timeline and the flame chart: time ↔ x, the axis's ticks, a
// window zoomed around a point or panned within its bounds, a dragged span as a range, the colour
// of a CPU. Pure: no DOM.

import type { TimeRange } from '../core/model/timeline';
import { formatTime } from '../core/text/units';

/** A window of time drawn over `width` CSS pixels. */
export interface TimeAxis {
  start: number;
  end: number;
  width: number;
}

/** The x of time `t` on the axis. */
export function xOf(a: TimeAxis, t: number): number {
  const span = a.end - a.start;
  return span > 0 ? ((t - a.start) / span) * a.width : 0;
}

/** The time at x on the axis. */
export function timeAt(a: TimeAxis, x: number): number {
  return a.start + (a.width > 0 ? (x / a.width) * (a.end - a.start) : 0);
}

/** Nanoseconds per CSS pixel on the axis. */
export function nsPerPixel(a: TimeAxis): number {
  return a.width > 0 ? (a.end - a.start) / a.width : 0;
}

/**
 * The axis's ticks: a round step (1, 2 or 5 × 10^k ns) at least `minPx` apart, each labelled with its
 * time since `origin` (the profile's first sample).
 */
export function ticks(a: TimeAxis, origin: number, minPx = 90): { x: number; label: string }[] {
  const per = nsPerPixel(a);
  if (!(per > 0)) return [];
  const least = Math.max(1, per * minPx);
  const mag = 10 ** Math.floor(Math.log10(least));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((x) => x >= least) ?? 10 * mag;
  const out: { x: number; label: string }[] = [];
  const first = Math.ceil((a.start - origin) / step) * step + origin;
  for (let t = first; t <= a.end && out.length < 200; t += step)
    out.push({ x: xOf(a, t), label: formatTime((t - origin) / 1000) });
  return out;
}

/** A range from two times in either order, in whole nanoseconds, inside `bounds`. */
export function spanOf(t0: number, t1: number, bounds: TimeRange): TimeRange {
  const clamp = (t: number) => Math.min(bounds.end, Math.max(bounds.start, Math.round(t)));
  const a = clamp(Math.min(t0, t1));
  const b = clamp(Math.max(t0, t1));
  return { start: a, end: b };
}

/**
 * `w` zoomed by `factor` (> 1: in) around the point a fraction `at` across it, kept inside `bounds`
 * and no narrower than `minSpan`.
 */
export function zoomWindow(
  w: TimeRange,
  factor: number,
  at: number,
  bounds: TimeRange,
  minSpan = 1000,
): TimeRange {
  const span = w.end - w.start;
  const whole = bounds.end - bounds.start;
  const next = Math.min(whole, Math.max(Math.min(minSpan, whole), span / factor));
  const pivot = w.start + span * at;
  return clampWindow({ start: pivot - next * at, end: pivot - next * at + next }, bounds);
}

/** `w` moved by `fraction` of its width (> 0: later), inside `bounds`. */
export function panWindow(w: TimeRange, fraction: number, bounds: TimeRange): TimeRange {
  const d = (w.end - w.start) * fraction;
  return clampWindow({ start: w.start + d, end: w.end + d }, bounds);
}

/** `w` moved (not resized, unless wider) to lie inside `bounds`. */
export function clampWindow(w: TimeRange, bounds: TimeRange): TimeRange {
  const span = Math.min(w.end - w.start, bounds.end - bounds.start);
  let start = Math.max(bounds.start, w.start);
  if (start + span > bounds.end) start = bounds.end - span;
  return { start, end: start + span };
}

/** The colour of CPU `i` of `n`: hues spread around the wheel, in the theme's lightness. */
export function cpuColor(i: number, n: number, dark: boolean): string {
  if (i < 0) return dark ? 'hsl(220, 8%, 55%)' : 'hsl(220, 8%, 60%)';
  const hue = Math.round((210 + (i * 360) / Math.max(1, n)) % 360);
  return `hsl(${hue}, 65%, ${dark ? 58 : 48}%)`;
}

/** A duration in nanoseconds as text (`350.0 ms`). */
export function formatNs(ns: number): string {
  return formatTime(ns / 1000);
}
