// Painting a laid-out flame graph on a canvas 2D context. Only the rows in view are drawn.

import { fitName } from '../core/text/fit-name';
import { type FlameLayout, MERGED, type Orientation, rowTop } from './layout';

export type ColorMode = 'module' | 'name' | 'heat';

export interface Theme {
  background: string;
  text: string;
  mergedFill: string;
  ancestorAlpha: number;
  dark: boolean;
}

export const LIGHT: Theme = {
  background: '#ffffff',
  text: '#111111',
  mergedFill: '#c8c8c8',
  ancestorAlpha: 0.55,
  dark: false,
};
export const DARK: Theme = {
  background: '#15171c',
  text: '#f2f2f2',
  mergedFill: '#4a4d55',
  ancestorAlpha: 0.5,
  dark: true,
};

export interface PaintInput {
  layout: FlameLayout;
  /** A node's label, and its fill colour (see frameColor). */
  label: (node: number) => string;
  color: (node: number) => string;
  orientation: Orientation;
  theme: Theme;
  rowHeight: number;
  /** Whole-graph height in CSS px and the visible window of it. */
  graphHeight: number;
  scrollTop: number;
  viewHeight: number;
  hover: number | null;
  selected: number | null;
  /** When set, nodes for which it returns false are dimmed (search, highlight). */
  highlight: ((node: number) => boolean) | null;
  font: string;
  charWidth: number;
}

/** FNV-1a: a stable hash, so colours are the same from run to run. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function frameColor(
  mode: ColorMode,
  name: string,
  module: string,
  heat: number,
  theme: Theme,
): string {
  if (mode === 'heat') {
    const l = theme.dark ? 30 + heat * 30 : 85 - heat * 40;
    return `hsl(${Math.round(50 - heat * 50)}, 90%, ${l}%)`;
  }
  const key = mode === 'module' ? module : name;
  const h = hashString(key);
  const hue = mode === 'module' ? h % 360 : 10 + (h % 50);
  // By module, functions of one module still differ: lightness and a little hue by name (a
  // one-module profile would otherwise be one flat colour).
  const n = hashString(name);
  const vary = mode === 'module' ? n % 22 : (h >>> 8) % 16;
  const shift = mode === 'module' ? ((n >>> 8) % 17) - 8 : 0;
  const light = theme.dark ? 28 + vary : 56 + vary;
  return `hsl(${(hue + shift + 360) % 360}, ${mode === 'module' ? 55 : 80}%, ${light}%)`;
}

/**
 * Paints the rows in view. Bars are batched by (colour, alpha), each group drawn after one style change, then the
 * labels, then the hover/selection outlines. Setting fillStyle and globalAlpha per bar cost more
 * than drawing on software-rendered canvases (tens of thousands of bars at a deep zoom).
 */
export function paintFlameGraph(ctx: CanvasRenderingContext2D, cssWidth: number, p: PaintInput): void {
  const { layout, rowHeight, theme } = p;
  ctx.globalAlpha = 1;
  ctx.fillStyle = theme.background;
  ctx.fillRect(0, 0, cssWidth, p.viewHeight);
  const first = Math.max(0, Math.floor(p.scrollTop / rowHeight) - 1);
  const last = Math.ceil((p.scrollTop + p.viewHeight) / rowHeight) + 1;
  const h = rowHeight - 1;
  // Pass 1: bars, grouped by fill and alpha.
  const groups = new Map<string, { fill: string; alpha: number; bars: number[] }>();
  const labels: { text: string; x: number; y: number; dimmed: boolean }[] = [];
  const outlines: { x: number; y: number; w: number; width: number }[] = [];
  for (let depth = 0; depth < layout.rowCount; depth++) {
    const top = rowTop(depth, rowHeight, p.orientation, p.graphHeight) - p.scrollTop;
    const rowIndexFromTop = Math.floor((top + p.scrollTop) / rowHeight);
    if (rowIndexFromTop < first || rowIndexFromTop > last) continue;
    for (const r of layout.rows[depth]) {
      const merged = r.node === MERGED;
      const fill = merged ? theme.mergedFill : p.color(r.node);
      const dimmed = (p.highlight !== null && (merged || !p.highlight(r.node))) || r.ancestor;
      const alpha = dimmed ? (r.ancestor && p.highlight === null ? theme.ancestorAlpha : 0.25) : 1;
      const key = alpha === 1 ? fill : `${fill}|${alpha}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { fill, alpha, bars: [] }));
      const w = Math.max(r.w - 0.5, 0.5);
      g.bars.push(r.x, top, w);
      if (merged) continue;
      if (r.node === p.hover || r.node === p.selected) {
        outlines.push({ x: r.x, y: top, w, width: r.node === p.selected ? 2 : 1 });
      }
      // Labels of bars that extend past an edge start at the visible part.
      const x0 = Math.max(r.x, 0);
      const visibleW = Math.min(r.x + r.w, layout.width) - x0;
      if (visibleW > p.charWidth * 3) {
        const text = fitName(p.label(r.node), Math.floor((visibleW - 6) / p.charWidth));
        if (text) labels.push({ text, x: x0 + 3, y: top + h / 2 + 0.5, dimmed });
      }
    }
  }
  for (const g of groups.values()) {
    ctx.globalAlpha = g.alpha;
    ctx.fillStyle = g.fill;
    // fillRect per bar: cheaper than one path with thousands of subpaths (software raster).
    for (let i = 0; i < g.bars.length; i += 3) ctx.fillRect(g.bars[i], g.bars[i + 1], g.bars[i + 2], h);
  }
  // Pass 2: labels (two alphas), then outlines.
  ctx.font = p.font;
  ctx.textBaseline = 'middle';
  ctx.fillStyle = theme.dark ? '#f5f5f5' : '#111111';
  for (const dimmed of [false, true]) {
    ctx.globalAlpha = dimmed ? 0.6 : 1;
    for (const l of labels) if (l.dimmed === dimmed) ctx.fillText(l.text, l.x, l.y);
  }
  ctx.globalAlpha = 1;
  ctx.strokeStyle = theme.text;
  for (const o of outlines) {
    ctx.lineWidth = o.width;
    ctx.strokeRect(o.x + 0.5, o.y + 0.5, Math.max(o.w - 1, 0.5), h - 1);
  }
}
