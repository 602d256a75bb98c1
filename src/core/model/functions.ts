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
  for (let f = 0; f < t.count; f++) if (total[f] > 0) n++;
  const ids = new Int32Array(n);
  for (let f = 0, i = 0; f < t.count; f++) if (total[f] > 0) ids[i++] = f;
  // By id, then stably by total, then by self: self, total, id.
  stableByWeightDescending(ids, total);
  stableByWeightDescending(ids, self);
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
