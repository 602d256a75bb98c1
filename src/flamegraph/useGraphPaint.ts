// Painting the flame graph: each bar's colour (by module, name or heat; in a comparison by the
// change) and label (core/text/frame-text.ts: from the frame's kind and fields), painted on the
// canvas in an animation frame whenever something it shows changed.

import { type RefObject, useCallback, useEffect, useMemo } from 'react';
import { type CallTree, chainOf } from '../core/model/calltree';
import type { DiffTotals } from '../core/model/diff';
import { frameLabel, frameName } from '../core/text/frame-text';
import type { FoldedProfile } from '../core/types';
import { type DiffScale, diffColor, diffScale } from './diffColor';
import type { Orientation } from './layout';
import { type ColorMode, DARK, frameColor, LIGHT, paintFlameGraph } from './paint';
import { type GraphView, ROW_HEIGHT } from './useGraphView';

const FONT = '12px "DejaVu Sans Mono", Menlo, Consolas, monospace';

export interface PaintProps {
  graph: { profile: Pick<FoldedProfile, 'frames' | 'modules' | 'meta'>; tree: CallTree };
  orientation: Orientation;
  colorMode: ColorMode;
  dark: boolean;
  selected: number | null;
  highlight: Uint8Array | null;
  heat?: (frame: number) => number;
  diff?: { totals: Pick<DiffTotals, 'comp' | 'base'>; normalized: boolean };
  onPainted?: () => void;
}

/** Paints the graph; returns a comparison's colour scale (the tooltip reads the change from it). */
export function useGraphPaint(
  canvasRef: RefObject<HTMLCanvasElement | null>,
  view: GraphView,
  hover: number | null,
  props: PaintProps,
): DiffScale | null {
  const { graph, orientation, dark, selected, highlight, onPainted } = props;
  const { tree } = graph;
  const { layout, size, scrollTop, graphHeight } = view;
  const { colorOf, scale } = useColors(props);
  const labelOf = useLabels(graph, props.diff);
  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas || !layout || size.width === 0) return;
    const id = requestAnimationFrame(() => {
      const ctx = sizedContext(canvas, size.width, size.height);
      if (!ctx) return;
      paintFlameGraph(ctx, size.width, {
        layout,
        label: labelOf,
        color: colorOf,
        orientation,
        theme: dark ? DARK : LIGHT,
        rowHeight: ROW_HEIGHT,
        graphHeight,
        scrollTop,
        viewHeight: size.height,
        hover,
        selected,
        highlight: highlight ? (node) => highlight[tree.frame[node]] === 1 : null,
        font: FONT,
        charWidth: ctx.measureText('M').width || 7,
      });
      canvas.dataset.painted = String(layout.rects.length);
      // One reusable mark: benchmarks time an input event to the paint that follows it.
      performance.clearMarks('flamelens:paint');
      performance.mark('flamelens:paint');
      onPainted?.();
    });
    return () => cancelAnimationFrame(id);
  }, [
    canvasRef,
    layout,
    size,
    scrollTop,
    hover,
    selected,
    highlight,
    dark,
    graphHeight,
    labelOf,
    colorOf,
    tree,
    orientation,
    onPainted,
  ]);
  return scale;
}

/** The canvas's 2D context with its backing store at the device's pixel ratio for a w × h CSS px box. */
export function sizedContext(
  canvas: HTMLCanvasElement,
  w: number,
  h: number,
): CanvasRenderingContext2D | null {
  const dpr = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    canvas.style.width = `${w}px`;
    canvas.style.height = `${h}px`;
  }
  const ctx = canvas.getContext('2d');
  if (!ctx) return null;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.font = FONT;
  return ctx;
}

/** A node's label: its frame's (frameLabel); in a comparison a path only in one side is marked `+ `/`− `. */
function useLabels(graph: PaintProps['graph'], diff: PaintProps['diff']): (node: number) => string {
  const { tree, profile } = graph;
  return useCallback(
    (node: number) => {
      const label = frameLabel(profile.frames, tree.frame[node]);
      if (!diff) return label;
      const c = chainOf(tree, node);
      if (diff.totals.base.total[c] === 0) return `+ ${label}`;
      if (diff.totals.comp.total[c] === 0) return `− ${label}`;
      return label;
    },
    [diff, tree, profile],
  );
}

/** A node's fill, cached per frame (per chain in a comparison, coloured by its change). */
function useColors(props: PaintProps): { colorOf: (node: number) => string; scale: DiffScale | null } {
  const { graph, colorMode, dark, heat, diff } = props;
  const { tree, profile } = graph;
  const scale = useMemo(() => (diff ? diffScale(tree, diff.totals, diff.normalized) : null), [diff, tree]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a fresh cache whenever colours change
  const cache = useMemo(() => new Map<number, string>(), [colorMode, dark, profile, heat, scale]);
  const colorOf = useCallback(
    (node: number) => {
      const theme = dark ? DARK : LIGHT;
      const key = scale ? chainOf(tree, node) : tree.frame[node];
      let c = cache.get(key);
      if (c === undefined) {
        if (scale) c = diffColor(scale.delta(node), scale.maxAbs, theme);
        else {
          const module = profile.modules[profile.frames.module[key]] ?? '';
          c = frameColor(colorMode, frameName(profile.frames, key), module, heat ? heat(key) : 0, theme);
        }
        cache.set(key, c);
      }
      return c;
    },
    [cache, colorMode, profile, tree, heat, dark, scale],
  );
  return { colorOf, scale };
}
