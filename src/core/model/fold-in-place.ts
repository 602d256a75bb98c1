// The fold written over the parsed stacks (FoldOptions.consume): when every location the samples
// use names one frame of its own (one frame per location slot, no two locations the same frame in
// the same role: as leaves, or as callers; a leaf at X and a caller returning to X + 1 are both
// frame X, told apart by where they are in a stack), each folded stack is its raw stack reversed
// with every location replaced by its frame, so it can take the raw stack's place in the same
// buffer. A large unsymbolized profile at address granularity is that case: its 52M-PC stacks
// (400 MB file) are folded with no second 200 MB array, and without the page faults of filling a
// new one (~0.2 s). The raw stacks are not lost: the location of each frame in each role is kept,
// and reading `raw.samples.stackLocs` afterwards makes them again (lendStacks).

import type { RawProfile } from '../types.ts';
import { ROW, type SortedStacks, type StackRows, sortStacks } from './calltree.ts';

/** What foldStacksInPlace needs of the fold: its location slots and their frames. */
export interface SlotFrames {
  /**
   * Per slot (2·loc as a leaf, 2·loc + 1 as a caller): its one frame once named and claimed by
   * `claim`, else negative.
   */
  readonly one: Int32Array;
  /**
   * Names slot `slot` of location `loc` and claims its frame for it: the frame, or −1 when the
   * slot has several frames or its frame is another location's in the same role (the fold then
   * could not be undone from the frames: it is given up). `caller`: the slot is a caller's.
   */
  claim(loc: number, slot: number, caller: boolean): number;
  /**
   * Per frame: the location that claimed it as a leaf, and as a caller (the arrays as they are now:
   * they may be replaced as they grow).
   */
  locOfFrame(): { leaf: Int32Array; caller: Int32Array };
  /** Frames named so far. */
  frameCount(): number;
}

/** Sums the function table while the stacks go by (the fold's TableBuilder). */
export interface StackVisitor {
  add(stack: Uint32Array, from: number, to: number, w: number, sample: number, frames: number): void;
}

export interface InPlaceFold {
  count: number;
  /** The folded stacks' sorted order (sortedStackOrder's). */
  sorted: SortedStacks;
  start: Uint32Array;
  /** A view of the raw stacks' buffer (or a compact copy when repeated stacks left much of it). */
  frames: Uint32Array;
  weight: Float64Array;
  total: number;
}

/**
 * Folds `samples`' stacks into their own buffer: root first, each location as its slot's frame,
 * repeated stacks summed into the first (the later ones' room given to the stacks after them).
 * Returns null, with the raw stacks as they were, when a slot has no frame of its own (several
 * frames, or one another location has in the same role): the caller folds the usual way then, with
 * the slots named so far (the same frames in the same order: both name slots in the order the
 * stacks first use them, root first). On success the samples' `stackLocs` is lent to the folded
 * stacks (see lendStacks), and the folded stacks come sorted (`sorted`, for the call tree).
 *
 * Repeated stacks are found by that sort, not by hashing each stack as it is folded: sorted, they
 * are neighbours (their common prefix is their length), and the sort reads the root-side frames
 * (StackRows) this writes while each stack is at hand.
 */
export function foldStacksInPlace(
  samples: RawProfile['samples'],
  slots: SlotFrames,
  visitor: StackVisitor,
): InPlaceFold | null {
  const { count: n, stackStart, weight } = samples;
  const a = samples.stackLocs;
  const one = slots.one;
  let maxLen = 0;
  for (let s = 0; s < n; s++) maxLen = Math.max(maxLen, stackStart[s + 1] - stackStart[s]);
  // One stack at a time, folded into `tmp` first: a slot that cannot be claimed leaves the stack
  // untouched, and a folded stack never overlaps raw stacks not read yet.
  const tmp = new Uint32Array(maxLen);
  const unnamed = new Uint32Array(maxLen);
  const foldedOf = new Int32Array(n);
  const fStart = new Uint32Array(n + 1);
  const fWeight = new Float64Array(n);
  const rows: StackRows = new Uint32Array(n * ROW);
  let m = 0;
  let w = 0;
  let total = 0;
  for (let s = 0; s < n; s++) {
    const lo = stackStart[s];
    const hi = stackStart[s + 1];
    if (hi <= lo) {
      foldedOf[s] = -1;
      continue;
    }
    // Small functions called per stack, not one long loop here: V8 optimizes them by their calls,
    // where this function's own loop waits on on-stack replacement (in Chromium it ran ~2× slower).
    // The stack is read leaf to root (V8's loops that walk an array backwards ran ~1.5–3× slower
    // here); slots with no frame yet are named after, root first, in the order the usual fold does.
    const len = hi - lo;
    for (let u = mapForward(a, lo, hi, one, tmp, unnamed) - 1; u >= 0; u--) {
      const p = unnamed[u];
      const loc = a[p];
      const q = p > lo ? loc * 2 + 1 : loc * 2;
      // A location twice in the stack is named at its first (rootmost) place.
      const f = one[q] >= 0 ? one[q] : slots.claim(loc, q, p > lo);
      if (f < 0) {
        undo(samples, s, foldedOf, fStart, tmp, slots);
        return null;
      }
      tmp[hi - 1 - p] = f;
    }
    const wt = weight[s];
    total += wt;
    visitor.add(tmp, 0, len, wt, s, slots.frameCount());
    a.set(tmp.subarray(0, len), w); // w ≤ lo: over this stack and those before it only
    const r = m * ROW;
    for (let j = 0, e = Math.min(len, ROW); j < e; j++) rows[r + j] = tmp[j] + 1;
    fWeight[m] = wt;
    foldedOf[s] = m;
    w += len;
    fStart[++m] = w;
  }
  const merged = mergeRepeats(a, fStart, fWeight, m, sortStacks(fStart, a, m, rows), foldedOf);
  w = merged.start[merged.count];
  // Many repeated stacks leave much of the buffer unused: a compact copy then (the raw buffer goes).
  const frames = w * 4 >= a.length * 3 ? a.subarray(0, w) : a.slice(0, w);
  lendStacks(samples, frames, merged.start, foldedOf, slots.locOfFrame());
  return { ...merged, frames, total };
}

/**
 * The `m` folded stacks of `a` (`start`, `weight`) with each repeated stack's weight summed into
 * its first (in stack order, as a fold sums them) and the later ones taken out: the stacks after
 * them move down in `a`, `foldedOf` follows, and so does the `sorted` order (a stable sort: the
 * first of equal stacks comes first).
 */
function mergeRepeats(
  a: Uint32Array,
  start: Uint32Array,
  weight: Float64Array,
  m: number,
  sorted: SortedStacks,
  foldedOf: Int32Array,
): { count: number; start: Uint32Array; weight: Float64Array; sorted: SortedStacks } {
  const { order, lcp } = sorted;
  const len = (k: number) => start[k + 1] - start[k];
  // Per stack, the stack it is a repeat of (itself when it is none).
  let into: Int32Array | null = null;
  for (let k = 1; k < m; k++) {
    const x = order[k];
    const y = order[k - 1];
    if (lcp[k] !== len(x) || len(x) !== len(y)) continue;
    if (into === null) {
      into = new Int32Array(m);
      for (let i = 0; i < m; i++) into[i] = i;
    }
    into[x] = into[y];
    weight[into[x]] += weight[x];
  }
  if (into === null) return { count: m, start: start.slice(0, m + 1), weight: weight.slice(0, m), sorted };
  const newId = new Int32Array(m);
  const nStart = new Uint32Array(m + 1);
  const nWeight = new Float64Array(m);
  let c = 0;
  for (let i = 0; i < m; i++) {
    if (into[i] !== i) continue;
    newId[i] = c;
    a.copyWithin(nStart[c], start[i], start[i + 1]);
    nWeight[c] = weight[i];
    nStart[c + 1] = nStart[c] + len(i);
    c++;
  }
  for (let s = 0; s < foldedOf.length; s++) if (foldedOf[s] >= 0) foldedOf[s] = newId[into[foldedOf[s]]];
  const nOrder = new Uint32Array(c);
  const nLcp = new Uint32Array(c);
  for (let k = 0, j = 0; k < m; k++) {
    if (into[order[k]] !== order[k]) continue;
    nOrder[j] = newId[order[k]];
    nLcp[j++] = lcp[k];
  }
  return {
    count: c,
    start: nStart.slice(0, c + 1),
    weight: nWeight.slice(0, c),
    sorted: { order: nOrder, lcp: nLcp },
  };
}

/**
 * Writes the frames of the leaf-first stack `a[lo]` … `a[hi − 1]` to `tmp` root first (the leaf's
 * slot for `a[lo]`, callers' slots for the rest), reading it forwards. Positions whose slot has no
 * frame yet are left in `tmp` and listed in `unnamed`, in order: their count.
 */
function mapForward(
  a: Uint32Array,
  lo: number,
  hi: number,
  one: Int32Array,
  tmp: Uint32Array,
  unnamed: Uint32Array,
): number {
  const top = hi - 1;
  let u = 0;
  let f = one[a[lo] * 2];
  if (f < 0) unnamed[u++] = lo;
  else tmp[top - lo] = f;
  for (let p = lo + 1; p < hi; p++) {
    f = one[a[p] * 2 + 1];
    if (f < 0) unnamed[u++] = p;
    else tmp[top - p] = f;
  }
  return u;
}

/**
 * The raw stacks of samples 0 … `upTo − 1` back in place from their folded form, from the last to
 * the first: a folded stack lies no later in the buffer than its first raw stack, so the raw stack
 * written never covers a folded one still to be read.
 */
function undo(
  samples: RawProfile['samples'],
  upTo: number,
  foldedOf: Int32Array,
  fStart: Uint32Array,
  tmp: Uint32Array,
  slots: SlotFrames,
): void {
  const a = samples.stackLocs;
  const { stackStart } = samples;
  const { leaf, caller } = slots.locOfFrame();
  for (let s = upTo - 1; s >= 0; s--) {
    const k = foldedOf[s];
    if (k < 0) continue;
    const b = fStart[k];
    const len = fStart[k + 1] - b;
    for (let j = 0; j < len; j++) tmp[j] = a[b + j];
    const lo = stackStart[s];
    for (let j = 0; j < len - 1; j++) a[lo + len - 1 - j] = caller[tmp[j]];
    a[lo] = leaf[tmp[len - 1]];
  }
}

/** Whether a fold in place took these samples' stacks over (see lendStacks). */
export function stacksLent(samples: RawProfile['samples']): boolean {
  return Object.getOwnPropertyDescriptor(samples, 'stackLocs')?.get !== undefined;
}

/**
 * Makes `samples.stackLocs` a property that, when next read, makes the raw stacks again from the
 * folded ones (a new array: the folded profile keeps its own) and becomes a plain value again. So
 * whatever reads the raw profile later (a fold with other options, symbol files, a source listing)
 * reads the stacks it was parsed with.
 */
function lendStacks(
  samples: RawProfile['samples'],
  frames: Uint32Array,
  fStart: Uint32Array,
  foldedOf: Int32Array,
  { leaf, caller }: { leaf: Int32Array; caller: Int32Array },
): void {
  const { stackStart, count: n } = samples;
  const length = stackStart[n];
  const settle = (value: Uint32Array) =>
    Object.defineProperty(samples, 'stackLocs', {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  Object.defineProperty(samples, 'stackLocs', {
    enumerable: true,
    configurable: true,
    get(): Uint32Array {
      const out = new Uint32Array(length);
      for (let s = 0; s < n; s++) {
        const k = foldedOf[s];
        if (k < 0) continue;
        const b = fStart[k];
        const len = fStart[k + 1] - b;
        const end = stackStart[s] + len - 1;
        for (let j = 0; j < len - 1; j++) out[end - j] = caller[frames[b + j]];
        out[stackStart[s]] = leaf[frames[b + len - 1]];
      }
      settle(out);
      return out;
    },
    set: settle,
  });
}
