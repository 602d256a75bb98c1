// Painting a laid-out flame graph on a canvas 2D context. Only the rows in view are drawn.

import { type FlameLayout, type FrameRect, MERGED, type Orientation, rowTop } from './layout';

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
  const vary = mode === 'module' ? hashString(name) % 12 : (h >>> 8) % 16;
  const light = theme.dark ? 32 + vary : 62 + vary;
  return `hsl(${hue}, ${mode === 'module' ? 55 : 80}%, ${light}%)`;
}

/** Truncates text to fit `maxChars`, with an ellipsis. */
export function fitLabel(text: string, maxChars: number): string {
  if (maxChars <= 0) return '';
  if (text.length <= maxChars) return text;
  if (maxChars <= 1) return '';
  return `${text.slice(0, maxChars - 1)}…`;
}

export function paintFlameGraph(ctx: CanvasRenderingContext2D, cssWidth: number, p: PaintInput): void {
  const { layout, rowHeight, theme } = p;
  ctx.fillStyle = theme.background;
  ctx.fillRect(0, 0, cssWidth, p.viewHeight);
  ctx.font = p.font;
  ctx.textBaseline = 'middle';
  const first = Math.max(0, Math.floor(p.scrollTop / rowHeight) - 1);
  const last = Math.ceil((p.scrollTop + p.viewHeight) / rowHeight) + 1;
  for (let depth = 0; depth < layout.rowCount; depth++) {
    const top = rowTop(depth, rowHeight, p.orientation, p.graphHeight) - p.scrollTop;
    const rowIndexFromTop = Math.floor((top + p.scrollTop) / rowHeight);
    if (rowIndexFromTop < first || rowIndexFromTop > last) continue;
    for (const r of layout.rows[depth]) paintRect(ctx, r, top, p);
  }
}

function paintRect(ctx: CanvasRenderingContext2D, r: FrameRect, top: number, p: PaintInput): void {
  const h = p.rowHeight - 1;
  const w = Math.max(r.w - 0.5, 0.5);
  let fill: string;
  let label = '';
  if (r.node === MERGED) {
    fill = p.theme.mergedFill;
  } else {
    label = p.label(r.node);
    fill = p.color(r.node);
  }
  const dimmed = (p.highlight !== null && (r.node === MERGED || !p.highlight(r.node))) || r.ancestor;
  ctx.globalAlpha = dimmed ? (r.ancestor && p.highlight === null ? p.theme.ancestorAlpha : 0.25) : 1;
  ctx.fillStyle = fill;
  ctx.fillRect(r.x, top, w, h);
  if (r.node !== MERGED && (r.node === p.hover || r.node === p.selected)) {
    ctx.globalAlpha = 1;
    ctx.strokeStyle = p.theme.text;
    ctx.lineWidth = r.node === p.selected ? 2 : 1;
    ctx.strokeRect(r.x + 0.5, top + 0.5, Math.max(w - 1, 0.5), h - 1);
  }
  // Labels of bars that extend past an edge start at the visible part.
  const x0 = Math.max(r.x, 0);
  const visibleW = Math.min(r.x + r.w, p.layout.width) - x0;
  if (label && visibleW > p.charWidth * 3) {
    const text = fitLabel(label, Math.floor((visibleW - 6) / p.charWidth));
    if (text) {
      ctx.globalAlpha = dimmed ? 0.6 : 1;
      ctx.fillStyle = p.theme.dark ? '#f5f5f5' : '#111111';
      ctx.fillText(text, x0 + 3, top + h / 2 + 0.5);
    }
  }
  ctx.globalAlpha = 1;
}
