// Flame graph geometry as pure code: no canvas, no DOM. Tested in node.
//
// d3-hierarchy's partition lays out the part of the call tree that is visible at the current zoom;
// children narrower than about a pixel are merged into one bar per parent; d3-scale maps the
// partition's unit interval to pixels.

import { type HierarchyRectangularNode, hierarchy, partition } from 'd3-hierarchy';
import { type ScaleLinear, scaleLinear } from 'd3-scale';
import {
  type CallTree,
  chainOf,
  childCountOf,
  depthOf,
  firstChildOf,
  LIGHT_CHILDREN,
  nextSiblingOf,
  parentOf,
  selfOf,
  totalOf,
} from '../core/model/calltree';

export type Orientation = 'flame' | 'icicle';

/** A node id, or MERGED for a bar standing for several narrow siblings. */
export const MERGED = -1;
/** Space for children outside the horizontal viewport: laid out, never drawn. */
const SPACER = -2;

export type ChildOrder = 'weight' | 'name';

export interface FrameRect {
  /** Call tree node, or MERGED. */
  node: number;
  /** For a merged bar: its parent node and how many siblings it stands for. */
  parent: number;
  mergedCount: number;
  /** Row from the root (0 = the focus node's first ancestor row, or the root). */
  depth: number;
  /** CSS pixels. */
  x: number;
  w: number;
  /** Weight (samples) the bar stands for. */
  value: number;
  /** True for ancestors of the focus node, drawn full width above/below it. */
  ancestor: boolean;
}

export interface FlameLayout {
  rects: FrameRect[];
  /** True when `maxRows` left deeper rows out: scrolling there needs a new layout. */
  cut: boolean;
  /** Rects of each row, sorted by x, for hit-testing. */
  rows: FrameRect[][];
  rowCount: number;
  focus: number;
  width: number;
  x: ScaleLinear<number, number>;
}

export interface LayoutOptions {
  focus: number;
  width: number;
  /** Bars narrower than this (CSS px) are merged. */
  minWidth?: number;
  /** The visible part of the focus node's width, as fractions [x0, x1] (wheel zoom, pan). */
  viewport?: readonly [number, number];
  /** Children heaviest first (default) or by name. */
  order?: ChildOrder;
  /** Frame name of a node, for ordering by name. */
  nameOf?: (node: number) => string;
  /** Rows (from the bottom row 0) to lay out; deeper rows are off screen. Default: all. */
  maxRows?: number;
}

interface Datum {
  /** The first node of the run this datum stands for, MERGED or SPACER. */
  node: number;
  /**
   * The last node of the run: a node's only child (with no self weight) has the node's exact
   * extent, so a chain of them (CallTree chains) is one datum for d3, one bar per row at the end.
   */
  last: number;
  parent: number;
  value: number;
  mergedCount: number;
  children?: Datum[];
}

interface Walk {
  tree: CallTree;
  focusTotal: number;
  /** Narrower children (in samples) are merged. */
  minValue: number;
  vx0: number;
  vx1: number;
  order: ChildOrder;
  nameOf?: (node: number) => string;
  /** Levels below the focus node to lay out (rows further away are off screen). */
  maxLevels: number;
}

/** Children in name order (weight order needs no array: the tree's lists are heaviest first). */
function childrenByName(w: Walk, node: number, name: (node: number) => string): number[] {
  const out: number[] = [];
  for (let c = firstChildOf(w.tree, node); c !== -1; c = nextSiblingOf(w.tree, c))
    if (totalOf(w.tree, c) > 0) out.push(c);
  return out.sort((a, b) => {
    const na = name(a);
    const nb = name(b);
    return na < nb ? -1 : na > nb ? 1 : totalOf(w.tree, b) - totalOf(w.tree, a);
  });
}

/**
 * Collects the part of the focus subtree that is visible, iteratively (stacks are 250+ deep):
 * children narrower than `minValue` become one merged bar per run; children outside the viewport
 * become spacers (laid out so positions stay exact, never drawn or descended); levels past
 * `maxLevels` are not entered. Returns whether that limit cut anything off.
 */
function visibleTree(w: Walk, focus: number): { root: Datum; cut: boolean } {
  const { tree } = w;
  const byName = w.order === 'name' && w.nameOf ? w.nameOf : null;
  const focusDepth = depthOf(tree, focus);
  let cut = false;
  /** A datum for the run of single children from `v` down, within the levels laid out. */
  const run = (v: number, parent: number, value: number): Datum => {
    const c = chainOf(tree, v);
    let chainLast = tree.chains.end[c] - 1;
    // A coarse tree's LIGHT_CHILDREN node, the only child of a heavy node, ends its chain: the
    // run stops above it and the children's loop draws it as the merged bar it stands for.
    if (chainLast > v && tree.frame[chainLast] === LIGHT_CHILDREN) chainLast--;
    const lastAllowed = v + (w.maxLevels - (depthOf(tree, v) - focusDepth));
    if (chainLast > lastAllowed) cut = true;
    return { node: v, last: Math.min(chainLast, lastAllowed), parent, value, mergedCount: 0 };
  };
  const root = run(focus, parentOf(tree, focus), totalOf(tree, focus));
  const work: { d: Datum; x0: number }[] = [{ d: root, x0: 0 }];
  while (work.length > 0) {
    const { d, x0 } = work.pop()!;
    const end = d.last;
    if (firstChildOf(tree, end) === -1) continue;
    if (depthOf(tree, end) - focusDepth >= w.maxLevels) {
      cut = true;
      continue;
    }
    let merged: Datum | null = null;
    let spacer: Datum | null = null;
    let offset = 0;
    const kids: Datum[] = [];
    const list = byName ? childrenByName(w, end, byName) : null;
    let i = 0;
    /** Children of `end` visited so far, the current one included. */
    let visited = 0;
    for (
      let c = list ? (list[0] ?? -1) : firstChildOf(tree, end);
      c !== -1;
      c = list ? (list[++i] ?? -1) : nextSiblingOf(tree, c)
    ) {
      visited++;
      const v = totalOf(tree, c);
      if (v <= 0) continue;
      const cx0 = x0 + offset / w.focusTotal;
      const cx1 = cx0 + v / w.focusTotal;
      offset += v;
      if (cx1 <= w.vx0 || cx0 >= w.vx1) {
        if (!spacer) {
          spacer = { node: SPACER, last: SPACER, parent: end, value: 0, mergedCount: 0 };
          kids.push(spacer);
        }
        spacer.value += v;
        merged = null;
        continue;
      }
      spacer = null;
      // A coarse tree's LIGHT_CHILDREN node is drawn as the merged bar it stands for.
      const lightChildren = tree.frame[c] === LIGHT_CHILDREN;
      if (v < w.minValue || lightChildren) {
        if (!merged) {
          merged = { node: MERGED, last: MERGED, parent: end, value: 0, mergedCount: 0 };
          kids.push(merged);
        }
        merged.value += v;
        if (lightChildren) continue; // how many, it does not know
        merged.mergedCount++;
        if (!list) {
          // Heaviest first: every later sibling is narrower still. They join this bar without
          // being visited (an inverted root has thousands of children): their weight is what the
          // children's total lacks, their number what the count lacks.
          merged.value += Math.max(0, totalOf(tree, end) - selfOf(tree, end) - offset);
          merged.mergedCount += childCountOf(tree, end) - visited;
          break;
        }
        continue;
      }
      merged = null;
      const child = run(c, end, v);
      kids.push(child);
      work.push({ d: child, x0: cx0 });
    }
    // A merged bar still narrower than the threshold is drawn as nothing (like self time).
    for (const k of kids) if (k.node === MERGED && k.value < w.minValue) k.node = SPACER;
    if (kids.length > 0) d.children = kids;
  }
  return { root, cut };
}

/** Lays out the graph for a focus (zoomed) node at a given width. */
export function layoutFlameGraph(tree: CallTree, opts: LayoutOptions): FlameLayout {
  const focus = opts.focus > 0 && opts.focus < tree.count ? opts.focus : 0;
  const width = Math.max(1, opts.width);
  const minWidth = opts.minWidth ?? 1;
  const [vx0, vx1] = opts.viewport ?? [0, 1];
  const x = scaleLinear().domain([vx0, vx1]).range([0, width]);
  const focusTotal = totalOf(tree, focus) || 1;
  const pxPerUnit = width / Math.max(1e-12, vx1 - vx0);

  // Ancestors of the focus node, full width (the virtual root itself is not drawn).
  const ancestors: number[] = [];
  for (let v = focus; v > 0; v = parentOf(tree, v)) ancestors.push(v);
  ancestors.reverse();
  const focusDepth = ancestors.length; // rows above the focus subtree's first row
  const rects: FrameRect[] = [];
  for (let i = 0; i + 1 < ancestors.length; i++) {
    const v = ancestors[i];
    rects.push({
      node: v,
      parent: parentOf(tree, v),
      mergedCount: 0,
      depth: i,
      x: 0,
      w: width,
      value: totalOf(tree, v),
      ancestor: true,
    });
  }

  // With the virtual root as focus, its row is not drawn: depth 1 becomes row 0.
  const rowOffset = focus === 0 ? -1 : focusDepth - 1;
  const walk: Walk = {
    tree,
    focusTotal,
    minValue: (minWidth / pxPerUnit) * focusTotal,
    vx0,
    vx1,
    order: opts.order ?? 'weight',
    nameOf: opts.nameOf,
    maxLevels: opts.maxRows === undefined ? Number.POSITIVE_INFINITY : Math.max(1, opts.maxRows - rowOffset),
  };
  const { root, cut } = visibleTree(walk, focus);
  const h = hierarchy<Datum>(root, (d) => d.children);
  // Each bar's value is its node's total (self time is the space its children leave free).
  h.each((n) => {
    (n as { value?: number }).value = n.data.value;
  });
  const laid = partition<Datum>().size([1, 1]).round(false)(h);
  // Preorder (depth first, left to right): every row comes out left to right, also with runs.
  laid.eachBefore((n: HierarchyRectangularNode<Datum>) => {
    const d = n.data;
    if (d.node === SPACER) return;
    const x0 = x(n.x0);
    const x1 = x(n.x1);
    if (d.node === MERGED) {
      const depth = depthOf(tree, d.parent);
      rects.push({
        node: MERGED,
        parent: d.parent,
        mergedCount: d.mergedCount,
        depth,
        x: x0,
        w: x1 - x0,
        value: d.value,
        ancestor: false,
      });
      return;
    }
    // One bar per node of the run, on consecutive rows (the virtual root has none).
    const row0 = depthOf(tree, d.node) - 1;
    for (let v = Math.max(d.node, 1); v <= d.last; v++) {
      rects.push({
        node: v,
        parent: v === d.node ? d.parent : v - 1,
        mergedCount: 0,
        depth: row0 + (v - d.node),
        x: x0,
        w: x1 - x0,
        value: d.value,
        ancestor: false,
      });
    }
  });

  let rowCount = 0;
  for (const r of rects) rowCount = Math.max(rowCount, r.depth + 1);
  const rows: FrameRect[][] = Array.from({ length: rowCount }, () => []);
  // Ancestors first, then the preorder above: each row is already left to right.
  for (const r of rects) rows[r.depth].push(r);
  return { rects, rows, rowCount, focus, width, x, cut };
}

/** What a merged bar stands for, for tooltips. */
export function mergedLabel(r: FrameRect): string {
  return r.mergedCount > 0 ? `${r.mergedCount} frames too narrow to draw` : 'Frames too narrow to draw';
}

/** The row at a vertical position (CSS px from the top of the whole graph). */
export function rowAt(y: number, rowHeight: number, orientation: Orientation, graphHeight: number): number {
  const fromTop = Math.floor(y / rowHeight);
  if (orientation === 'icicle') return fromTop;
  return Math.floor((graphHeight - y) / rowHeight);
}

/** Top edge (CSS px, whole-graph coordinates) of a row. */
export function rowTop(
  depth: number,
  rowHeight: number,
  orientation: Orientation,
  graphHeight: number,
): number {
  return orientation === 'icicle' ? depth * rowHeight : graphHeight - (depth + 1) * rowHeight;
}

/** The bar under a point, or null. */
export function hitTest(layout: FlameLayout, row: number, x: number): FrameRect | null {
  const cells = layout.rows[row];
  if (!cells) return null;
  let lo = 0;
  let hi = cells.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = cells[mid];
    if (x < r.x) hi = mid - 1;
    else if (x >= r.x + r.w) lo = mid + 1;
    else return r;
  }
  return null;
}
