// Alternative views of a profile, each a FoldedProfile so buildCallTree/functionTableOf work on
// them unchanged: the inverted (bottom-up) profile and the sandwich of one function.
// Linear passes over typed arrays; no recursion, no per-frame objects (runs in the worker).
//
// Choices:
// - invertProfile: every stack reversed (leaf first), so the roots are the functions that were
//   running and their children are their callers. Totals unchanged; the inverted tree's root
//   totals are the functions' self times.
// - sandwich (speedscope's model), function named by frame name:
//   - callees: for every stack through the function, the suffix from its FIRST (outermost)
//     occurrence to the leaf: a flame graph rooted at the function, merged over all call sites.
//     Deeper recursive occurrences stay inside it.
//   - callers: for every stack through the function, the prefix from the root to its LAST
//     (innermost) occurrence, reversed: rooted at the function, growing through its callers
//     (caller, caller's caller, …). Using the innermost occurrence shows the recursive callers
//     too (f ← g ← f ← main for main → f → g → f); the outermost would hide g. Between the two
//     occurrences a recursive stack shows in both graphs; that is intended.
//   - each sample (stack) is counted once in each graph, however often the function recurses:
//     both roots' totals equal `total`, the samples with the function anywhere on the stack
//     (functionTableOf's total); `self` is the samples where it is the leaf.
//   - frames named like the function in several modules are merged into one (the first such
//     frame id), so each graph has one root.

import type { FoldedProfile } from '../types';
import { framesNamed, StackSink } from './transforms';

/** Leaf-first stacks: the leaves become roots. */
export function invertProfile(p: FoldedProfile): FoldedProfile {
  const { start, frames, weight } = p.stacks;
  const sink = new StackSink(p);
  for (let s = 0; s < p.stacks.count; s++) {
    const b = start[s];
    const e = start[s + 1];
    sink.reserve(e - b);
    const out = sink.frames;
    let pos = sink.pos;
    for (let i = e - 1; i >= b; i--) out[pos++] = frames[i];
    sink.pos = pos;
    sink.end(weight[s]);
  }
  return sink.finish(p);
}

export interface Sandwich {
  /** Rooted at the function; children are its callers (inverted prefixes). */
  callers: FoldedProfile;
  /** Rooted at the function; children are its callees. */
  callees: FoldedProfile;
  /** Samples with the function as the leaf. */
  self: number;
  /** Samples with the function anywhere on the stack, each counted once. */
  total: number;
}

/**
 * Callers and callees of the function called `name` (speedscope's sandwich view). Each half keeps
 * `p`'s frame table, ids unchanged (the page has it already: at 2 GB its 850k names took ~0.1 s of
 * the page's thread to receive again), or with `compact` only the frames it uses (a comparison's
 * halves, merged by name: fewer to merge).
 */
export function sandwich(p: FoldedProfile, name: string, opts: { compact?: boolean } = {}): Sandwich {
  const match = framesNamed(p, name);
  const canonical = match.indexOf(1);
  const { start, frames, weight } = p.stacks;
  const callers = new StackSink(p);
  const callees = new StackSink(p);
  let self = 0;
  let total = 0;
  for (let s = 0; s < p.stacks.count; s++) {
    const b = start[s];
    const e = start[s + 1];
    let first = b;
    while (first < e && match[frames[first]] === 0) first++;
    if (first === e) continue;
    let last = e - 1;
    while (match[frames[last]] === 0) last--;
    const w = weight[s];
    total += w;
    if (last === e - 1) self += w;

    callees.reserve(e - first);
    let out = callees.frames;
    let pos = callees.pos;
    for (let i = first; i < e; i++) {
      const f = frames[i];
      out[pos++] = match[f] === 1 ? canonical : f;
    }
    callees.pos = pos;
    callees.end(w);

    callers.reserve(last + 1 - b);
    out = callers.frames;
    pos = callers.pos;
    for (let i = last; i >= b; i--) {
      const f = frames[i];
      out[pos++] = match[f] === 1 ? canonical : f;
    }
    callers.pos = pos;
    callers.end(w);
  }
  return {
    callers: callers.finish(p, null, opts),
    callees: callees.finish(p, null, opts),
    self,
    total,
  };
}
