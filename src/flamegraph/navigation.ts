// Pure navigation math for the flame graph: keyboard moves over the call tree and the
// horizontal viewport (wheel zoom around a point, pan, fit). Tested without a DOM.

import { type CallTree, firstChildOf, nextSiblingOf, parentOf, totalOf } from '../core/model/calltree';
import type { FlameLayout, Orientation } from './layout';

export type Viewport = readonly [number, number];
export const FULL: Viewport = [0, 1];
/** The narrowest viewport: deeper zoom is done by zooming to a frame. */
const MIN_SPAN = 1e-7;

export type Move = 'parent' | 'child' | 'prev' | 'next';

/** The arrow key's move for an orientation: in a flame graph (root at the bottom) Up goes to a child. */
export function moveForKey(key: string, orientation: Orientation): Move | null {
  switch (key) {
    case 'ArrowUp':
      return orientation === 'flame' ? 'child' : 'parent';
    case 'ArrowDown':
      return orientation === 'flame' ? 'parent' : 'child';
    case 'ArrowLeft':
      return 'prev';
    case 'ArrowRight':
      return 'next';
    default:
      return null;
  }
}

/**
 * The node a move selects among the nodes drawn in the layout (so the selection stays visible).
 * Siblings are the drawn bars of the same row; a child is the widest drawn bar under the node.
 */
export function moveSelection(tree: CallTree, layout: FlameLayout, from: number, move: Move): number {
  const drawn = new Map<number, { depth: number; index: number }>();
  layout.rows.forEach((row, depth) => {
    row.forEach((r, index) => {
      if (r.node >= 0) drawn.set(r.node, { depth, index });
    });
  });
  const at = drawn.get(from);
  if (!at) return firstDrawn(layout) ?? from;
  const row = layout.rows[at.depth];
  switch (move) {
    case 'parent': {
      const p = parentOf(tree, from);
      return p > 0 && drawn.has(p) ? p : from;
    }
    case 'child': {
      let best = -1;
      for (const r of layout.rows[at.depth + 1] ?? []) {
        if (
          r.node >= 0 &&
          parentOf(tree, r.node) === from &&
          (best < 0 || totalOf(tree, r.node) > totalOf(tree, best))
        ) {
          best = r.node;
        }
      }
      return best >= 0 ? best : from;
    }
    case 'prev':
    case 'next': {
      const step = move === 'prev' ? -1 : 1;
      for (let i = at.index + step; i >= 0 && i < row.length; i += step)
        if (row[i].node >= 0) return row[i].node;
      return from;
    }
  }
}

/** The widest bar of the first row: where keyboard selection starts. */
export function firstDrawn(layout: FlameLayout): number | null {
  for (const row of layout.rows) {
    let best: number | null = null;
    let w = -1;
    for (const r of row) {
      if (r.node >= 0 && !r.ancestor && r.w > w) {
        best = r.node;
        w = r.w;
      }
    }
    if (best !== null) return best;
  }
  return null;
}

/** Zooms the viewport by `factor` (> 1 zooms in) keeping the point at fraction `at` (0..1 of the width) fixed. */
export function zoomViewport(v: Viewport, factor: number, at: number): Viewport {
  const span = v[1] - v[0];
  const newSpan = Math.min(1, Math.max(MIN_SPAN, span / factor));
  const pivot = v[0] + at * span;
  let x0 = pivot - at * newSpan;
  x0 = Math.min(Math.max(0, x0), 1 - newSpan);
  return [x0, x0 + newSpan];
}

/** Pans the viewport by `dx` fractions of its own width (positive moves the view right). */
export function panViewport(v: Viewport, dx: number): Viewport {
  const span = v[1] - v[0];
  const x0 = Math.min(Math.max(0, v[0] + dx * span), 1 - span);
  return [x0, x0 + span];
}

/** The viewport that makes a node (under the focus node) fill the width. */
export function fitViewport(tree: CallTree, focus: number, node: number): Viewport | null {
  // The node's horizontal position within the focus: sum of the heavier-first siblings before
  // it at every level between the focus and the node.
  const total = totalOf(tree, focus);
  if (total <= 0) return null;
  let offset = 0;
  let v = node;
  while (v !== focus) {
    const p = parentOf(tree, v);
    if (p < 0) return null; // not under the focus
    for (let c = firstChildOf(tree, p); c !== v && c !== -1; c = nextSiblingOf(tree, c))
      offset += totalOf(tree, c);
    v = p;
  }
  const x0 = offset / total;
  return [x0, Math.min(1, x0 + Math.max(MIN_SPAN, totalOf(tree, node) / total))];
}
