// Two profiles compared: the comparison's call tree merged with the baseline's by call path.
// Frames are the same when their function names and module names agree (after symbolization and
// transforms; never addresses, which ASLR moves). The merged tree has one node per path found on
// either side; each chain carries both sides' totals and selves, and the tree's own weights (what
// the layout draws as widths) are one of them, or their sum so that paths that vanished stay visible.
//
// Colour is the change in a path's share of its profile (normalized) or in its samples (absolute).

import { frameName } from '../text/frame-text';
import { basename } from '../text/names';
import type { FoldedProfile, SampleType } from '../types';
import {
  buildCallTree,
  type CallTree,
  chainOf,
  type FunctionTable,
  reweighTree,
  sortedStackOrder,
} from './calltree';
import { FrameRows } from './frames';
import { functionTableOf } from './functions';
import { isTimeUnit } from './sample-types';
import { metaWithTotal, StackSink } from './transforms';

export type DiffWidth = 'comparison' | 'baseline' | 'both';

/** One side's weights, per chain of the merged tree (every node of a chain shares them). */
export interface SideTotals {
  total: Float64Array;
  self: Float64Array;
  /** All samples of the side. */
  whole: number;
}

export interface DiffTotals {
  base: SideTotals;
  comp: SideTotals;
  /** Per function (frame id of the merged profile): each side's self and total. */
  baseFunctions: FunctionTable;
  compFunctions: FunctionTable;
}

/** Both sides' stacks in one frame table: each unique stack once, with each side's weight. */
export interface MergedSides {
  /** Weights are the sum of both sides (every stack on either side has weight). */
  profile: FoldedProfile;
  comp: Float64Array;
  base: Float64Array;
}

const frameKey = (p: FoldedProfile, f: number) =>
  `${basename(p.modules[p.frames.module[f]] ?? '')}\0${frameName(p.frames, f)}`;

/**
 * Why the two sides' weights do not compare, or null when they do: their units differ (CPU
 * nanoseconds against sample counts), or, in one unit, their kinds (heap bytes in use against
 * bytes allocated, objects against samples). CPU time by other names (pprof's `cpu`, perf's
 * `cpu-clock`, `task-clock`) in one time unit compares.
 */
export function comparisonMismatch(comp: SampleType, base: SampleType): string | null {
  if (base.unit === comp.unit && (base.type === comp.type || isTimeUnit(base.unit))) return null;
  const what = (t: SampleType) => `${t.type} (${t.unit})`;
  return `the baseline sums ${what(base)}, the comparison ${what(comp)}: their counts do not compare`;
}

/** Merges the comparison's and the baseline's stacks by frame names (and module names). */
export function mergeSides(comp: FoldedProfile, base: FoldedProfile): MergedSides {
  const same = sameStacks(comp, base);
  if (same) return same;
  // Baseline frames map to the comparison's by name and module; the others become extra frames.
  const ids = new Map<string, number>();
  for (let f = 0; f < comp.frames.count; f++) ids.set(frameKey(comp, f), f);
  const modules = comp.modules.slice();
  const moduleIds = new Map(modules.map((m, i) => [basename(m), i]));
  // The baseline's frames the comparison lacks, with their kinds and fields.
  const extra = new FrameRows({ after: comp.frames });
  const baseMap = new Uint32Array(base.frames.count);
  for (let f = 0; f < base.frames.count; f++) {
    const key = frameKey(base, f);
    let id = ids.get(key);
    if (id === undefined) {
      id = comp.frames.count + extra.count;
      ids.set(key, id);
      const m = base.frames.module[f];
      let mod = -1;
      if (m >= 0) {
        const path = base.modules[m];
        mod = moduleIds.get(basename(path)) ?? -1;
        if (mod < 0) {
          mod = modules.length;
          modules.push(path);
          moduleIds.set(basename(path), mod);
        }
      }
      extra.copy(base.frames, f, mod);
    }
    baseMap[f] = id;
  }
  const src: FoldedProfile = { ...comp, modules };
  const sink = new StackSink(
    src,
    extra.count,
    comp.stacks.frames.length + base.stacks.frames.length,
    comp.stacks.count + base.stacks.count,
  );
  const compW: number[] = [];
  const baseW: number[] = [];
  const add = (id: number, column: number[], other: number[], w: number) => {
    if (id < 0) return;
    while (column.length <= id) {
      column.push(0);
      other.push(0);
    }
    column[id] += w;
  };
  {
    const { start, frames, weight } = comp.stacks;
    for (let s = 0; s < comp.stacks.count; s++) {
      sink.copy(frames, start[s], start[s + 1]);
      add(sink.end(weight[s]), compW, baseW, weight[s]);
    }
  }
  {
    const { start, frames, weight } = base.stacks;
    for (let s = 0; s < base.stacks.count; s++) {
      const e = start[s + 1];
      sink.reserve(e - start[s]);
      for (let i = start[s]; i < e; i++) sink.push(baseMap[frames[i]]);
      add(sink.end(weight[s]), baseW, compW, weight[s]);
    }
  }
  const profile = sink.finish(src, extra, { compact: true });
  return { profile, comp: Float64Array.from(compW), base: Float64Array.from(baseW) };
}

/**
 * Both sides merged, when they are the same stacks of one frame table with other weights (a
 * two-count file's columns folded once: fold.ts foldOtherWeights): the stacks as they are
 * (unique, as every FoldedProfile's), each side's weight its column, as the merge by names sums
 * them, without naming every frame of both sides and writing and hashing every stack again. A
 * frame is itself on both sides: the merge by names gives the same, as a fold names one frame per
 * name and module (two modules of one base name aside, whose frames the merge by names would
 * mix up between sides that are the same). Null when they are not, or when a stack is empty or
 * a frame unused (the merge leaves those out).
 */
function sameStacks(comp: FoldedProfile, base: FoldedProfile): MergedSides | null {
  const { count, start, frames } = comp.stacks;
  if (base.frames !== comp.frames || base.modules !== comp.modules) return null;
  if (base.stacks.start !== start || base.stacks.frames !== frames) return null;
  for (let s = 0; s < count; s++) if (start[s + 1] <= start[s]) return null;
  const used = new Uint8Array(comp.frames.count);
  for (let i = start[0]; i < start[count]; i++) used[frames[i]] = 1;
  if (used.indexOf(0) >= 0) return null;
  const c = comp.stacks.weight;
  const b = base.stacks.weight;
  const weight = new Float64Array(count);
  const compW = new Float64Array(count);
  const baseW = new Float64Array(count);
  let total = 0;
  for (let s = 0; s < count; s++) {
    // as the merge sums them: each side's column from 0, the stack's weight the comparison's plus the baseline's
    compW[s] = 0 + c[s];
    baseW[s] = 0 + b[s];
    weight[s] = c[s] + b[s];
    total += weight[s];
  }
  const profile: FoldedProfile = {
    meta: metaWithTotal(comp.meta, total),
    frames: comp.frames,
    modules: comp.modules.slice(),
    stacks: { count, start, frames, weight },
  };
  return { profile, comp: compW, base: baseW };
}

/**
 * The merged call tree with both sides' totals per chain, its widths taken from `width`. The tree's structure comes from both sides together, so a chain's nodes
 * share their totals on each side.
 */
export function diffTree(
  m: MergedSides,
  width: DiffWidth,
): { tree: CallTree; sides: Pick<DiffTotals, 'comp' | 'base'> } {
  const p = m.profile;
  const leaf = new Uint32Array(p.stacks.count);
  // children ordered once: by the tree's own weights (both sides), else by the side's (reweighTree)
  const tree = buildCallTree(p, sortedStackOrder(p), leaf, null, width === 'both');
  const side = (w: Float64Array): SideTotals => {
    const n = tree.chains.count;
    const total = new Float64Array(n);
    const self = new Float64Array(n);
    let whole = 0;
    for (let s = 0; s < p.stacks.count; s++) {
      const x = w[s];
      if (x === 0) continue;
      whole += x;
      let c = chainOf(tree, leaf[s]);
      self[c] += x;
      for (;;) {
        total[c] += x;
        if (c === 0) break;
        c = chainOf(tree, tree.chains.parent[c]);
      }
    }
    return { total, self, whole };
  };
  const comp = side(m.comp);
  const base = side(m.base);
  if (width !== 'both') {
    const w = width === 'comparison' ? comp : base;
    reweighTree(tree, w.total, w.self);
  }
  return { tree, sides: { comp, base } };
}

/**
 * A side's function table (of its un-inverted profile: functions are the same whichever way the
 * graph grows) in the frame ids of the merged profile; functions the side lacks are zero.
 */
export function functionsIn(merged: FoldedProfile, side: FoldedProfile): FunctionTable {
  const own = functionTableOf(side);
  const ids = new Map<string, number>();
  for (let f = 0; f < side.frames.count; f++) ids.set(frameKey(side, f), f);
  const n = merged.frames.count;
  const self = new Float64Array(n);
  const total = new Float64Array(n);
  for (let f = 0; f < n; f++) {
    const g = ids.get(frameKey(merged, f));
    if (g === undefined) continue;
    self[f] = own.self[g];
    total[f] = own.total[g];
  }
  return { count: n, self, total };
}

/**
 * The change of a path (or function) from the baseline to the comparison: in its share of each
 * profile's samples (normalized, the default), or in samples.
 */
export function deltaOf(
  comp: number,
  base: number,
  compWhole: number,
  baseWhole: number,
  normalized: boolean,
): number {
  if (!normalized) return comp - base;
  return (compWhole > 0 ? comp / compWhole : 0) - (baseWhole > 0 ? base / baseWhole : 0);
}

/** Per function of a comparison: the change of its self, and that change relative to the baseline's. */
export interface FunctionChanges {
  /** deltaOf the function's self: in share of each side's samples (normalized), or in samples. */
  delta: Float64Array;
  /** `delta` in percent of the baseline's self (share or samples); Infinity where only the comparison has it. */
  relative: Float64Array;
}

/**
 * The comparison table's Δ columns, as the graph colours a change (deltaOf): normalized, a
 * function's self as a share of each side's whole; otherwise in samples.
 */
export function functionChanges(
  base: FunctionTable,
  comp: FunctionTable,
  baseWhole: number,
  compWhole: number,
  normalized: boolean,
): FunctionChanges {
  const n = comp.count;
  const delta = new Float64Array(n);
  const relative = new Float64Array(n);
  for (let f = 0; f < n; f++) {
    const d = deltaOf(comp.self[f], base.self[f], compWhole, baseWhole, normalized);
    const b = normalized ? (baseWhole > 0 ? base.self[f] / baseWhole : 0) : base.self[f];
    delta[f] = d;
    relative[f] = b > 0 ? (d / b) * 100 : comp.self[f] > 0 ? Number.POSITIVE_INFINITY : 0;
  }
  return { delta, relative };
}
