// Per-function self and total straight from the stacks (no tree needed): used where the graph
// shows another tree than the one the table describes (inverted view). The fold sums the table of
// the profile it makes as it goes, and hands it over here.

import type { FoldedProfile } from '../types';
import type { FunctionTable } from './calltree';
import { stableByWeightDescending } from './order';

/** The functions with samples by self, then total, heaviest first, then by id (FunctionTable.bySelf). */
export function functionsBySelf(t: FunctionTable): Int32Array {
  const { self, total } = t;
  let n = 0;
  let others = 0;
  for (let f = 0; f < t.count; f++) {
    if (!(total[f] > 0)) continue;
    n++;
    if (self[f] !== total[f]) others++;
  }
  // Rows whose total is their self (all of a flat profile's but its image's: 8.75M at 400 MB) are
  // ordered by self alone, and the few others put where the sort by both would put them: one sort
  // of the many, not two (at 400 MB the image's total passes 2^32: that sort took ~0.7 s).
  const merge = others > 0 && others <= n >> 4;
  const flat = new Int32Array(merge ? n - others : n);
  const rest = new Int32Array(merge ? others : 0);
  for (let f = 0, i = 0, j = 0; f < t.count; f++) {
    if (!(total[f] > 0)) continue;
    if (merge && self[f] !== total[f]) rest[j++] = f;
    else flat[i++] = f;
  }
  // By id, then stably by total, then by self: self, total, id.
  if (!merge) {
    if (others > 0) stableByWeightDescending(flat, total);
    stableByWeightDescending(flat, self);
    return flat;
  }
  stableByWeightDescending(flat, self);
  stableByWeightDescending(rest, total);
  stableByWeightDescending(rest, self);
  const before = (a: number, b: number) =>
    self[a] > self[b] || (self[a] === self[b] && (total[a] > total[b] || (total[a] === total[b] && a < b)));
  const ids = new Int32Array(n);
  let from = 0;
  let at = 0;
  for (let j = 0; j < rest.length; j++) {
    // the first of the flat rows left that comes after rest[j]
    let lo = from;
    let hi = flat.length;
    while (lo < hi) {
      const m = (lo + hi) >>> 1;
      if (before(flat[m], rest[j])) lo = m + 1;
      else hi = m;
    }
    ids.set(flat.subarray(from, lo), at);
    at += lo - from;
    from = lo;
    ids[at++] = rest[j];
  }
  ids.set(flat.subarray(from), at);
  return ids;
}

/**
 * Tables the fold summed as it went (foldProfile), by the stacks they describe: a profile made
 * from another with other stacks (transforms, views, a diff) has none and gets its own.
 */
const known = new WeakMap<FoldedProfile['stacks'], FunctionTable>();

/** The function table of `p`, summed already by whoever made its stacks. */
export function rememberFunctionTable(p: FoldedProfile, t: FunctionTable): void {
  known.set(p.stacks, t);
}

/**
 * A fold's table of at least this many rows (16 MB) is handed over rather than copied: a later view
 * of the same stacks sums its own (a 400 MB DCPI profile's 8.75M rows: 220–330 ms, against 107 ms
 * for the copy, and 140 MB not held). A smaller one is copied and kept: summing again would cost a
 * pass over all the stacks (a 100 MB gperftools profile's 65k rows: ~50 ms against 0.6 ms).
 */
export const HAND_OVER_ROWS = 1 << 20;

/**
 * Self = samples with the function as leaf; Total = samples with it anywhere, counted once. Tables
 * are transferred to the page, which detaches their buffers: the fold's is copied, or handed over
 * when large (HAND_OVER_ROWS).
 */
export function functionTableOf(p: FoldedProfile): FunctionTable {
  const made = known.get(p.stacks);
  if (made !== undefined && made.count === p.frames.count) {
    if (made.count < HAND_OVER_ROWS)
      return { count: made.count, self: made.self.slice(), total: made.total.slice() };
    known.delete(p.stacks);
    return made;
  }
  const n = p.frames.count;
  const self = new Float64Array(n);
  const total = new Float64Array(n);
  // lastStack[f] = the last stack that counted f: a recursive function counts once per stack.
  const lastStack = new Int32Array(n).fill(-1);
  const { start, frames, weight } = p.stacks;
  for (let s = 0; s < p.stacks.count; s++) {
    const b = start[s];
    const e = start[s + 1];
    const w = weight[s];
    if (e > b) self[frames[e - 1]] += w;
    for (let i = b; i < e; i++) {
      const f = frames[i];
      if (lastStack[f] !== s) {
        lastStack[f] = s;
        total[f] += w;
      }
    }
  }
  return { count: n, self, total };
}
