// Call-tree transforms: FoldedProfile → FoldedProfile. Each one rewrites every stack in one linear
// pass over the typed arrays, re-merges stacks that became identical (hashing, no sort), and
// compacts the frame table, so buildCallTree/functionTableOf work unchanged on the result.
// Pure code: no DOM, no Node APIs, no recursion, no per-frame objects (runs in the worker).
//
// Semantics (Firefox Profiler's transforms, pprof's focus/ignore and speedscope are the models):
// - Functions are named by frame NAME, not by id, so a transform list serializes into a URL and
//   survives re-parsing and re-symbolization. A name that occurs in several modules matches all
//   of its frames; they stay distinct frames (one node per module) in the result. A function's
//   name also matches its line and address frames (Frames = lines, addresses: framesOfFunction),
//   so a transform made on functions holds when another granularity is asked.
// - focus-function: keep only stacks through the function, each cut to start at its first
//   (outermost) occurrence. Deeper recursive occurrences stay in the subtree. Other stacks dropped.
// - focus-subtree: keep only stacks whose first path.length frames are named path[0..], each cut
//   to start at the last path element. An empty path keeps every stack (identity).
// - hide-function: the function's frames are dropped and its callees joined to its caller (Firefox
//   "merge function"). A stack made only of the function becomes empty and is DROPPED, its weight
//   leaving the total (the function's self time was where it was; there is nothing left to show).
// - merge-module: every run of consecutive frames of the module collapses into one frame named after
//   the module's basename (belonging to that module). The module is matched by full path or by
//   basename; several paths with that basename each get their own merged frame.
// - collapse-recursion (Firefox "collapse recursion"): f … f … f → keep the stack up to the
//   outermost f, drop everything after it down to the innermost f, keep what the innermost f calls.
//   Catches indirect recursion (f → g → f). Stacks without a repeated f are unchanged.
// - collapse-direct-recursion (Firefox "collapse direct recursion only"): runs of consecutive f
//   frames become one f; f → g → f is left as it is.
// - Stacks that end up empty are dropped; meta is copied with totalSamples (and samplingTimeUs)
//   recomputed from the remaining weights. The frame table is the input's, ids unchanged (frames no
//   stack uses any more have no samples), then the new merged-module frames.

import { basename } from '../text/names';
import { type FoldedMeta, type FoldedProfile, FrameKind, type FrameTable } from '../types';
import { FrameRows, framesOfFunction, isNamed, framesNamed as namedIn, pickFrames } from './frames';

export type Transform =
  | { kind: 'focus-function'; name: string }
  | { kind: 'focus-subtree'; path: string[] }
  | { kind: 'hide-function'; name: string }
  | { kind: 'merge-module'; module: string }
  | { kind: 'collapse-recursion'; name: string }
  | { kind: 'collapse-direct-recursion'; name: string };

/**
 * Applies one transform. The input is never modified. With `trace` (one slot per stack of `p`,
 * −1 each), each stack's id in the result is written to its slot (dropped stacks keep −1).
 */
export function applyTransform(p: FoldedProfile, t: Transform, trace?: Int32Array): FoldedProfile {
  const sink = (extraFrames = 0) => new StackSink(p, extraFrames).tracing(trace);
  switch (t.kind) {
    case 'focus-function':
      return focusFunction(p, t.name, sink());
    case 'focus-subtree':
      return focusSubtree(p, t.path, sink());
    case 'hide-function':
      return hideFunction(p, t.name, sink());
    case 'merge-module':
      return mergeModule(p, t.module, sink);
    case 'collapse-recursion':
      return collapseRecursion(p, t.name, sink());
    case 'collapse-direct-recursion':
      return collapseDirectRecursion(p, t.name, sink());
  }
}

/** Applies transforms in order (each one sees the result of the previous). */
export function applyTransforms(p: FoldedProfile, ts: readonly Transform[]): FoldedProfile {
  let out = p;
  for (const t of ts) out = applyTransform(out, t);
  return out;
}

/**
 * applyTransforms, also saying where each stack of `p` went: `stackOf[s]` is its stack in the
 * result, −1 when it was dropped (for what follows samples through the transforms: the pprof
 * export's per-sample values and labels).
 */
export function applyTransformsTraced(
  p: FoldedProfile,
  ts: readonly Transform[],
): { profile: FoldedProfile; stackOf: Int32Array } {
  const stackOf = new Int32Array(p.stacks.count);
  for (let s = 0; s < stackOf.length; s++) stackOf[s] = s;
  let out = p;
  for (const t of ts) {
    const trace = new Int32Array(out.stacks.count).fill(-1);
    out = applyTransform(out, t, trace);
    for (let s = 0; s < stackOf.length; s++) if (stackOf[s] >= 0) stackOf[s] = trace[stackOf[s]];
  }
  return { profile: out, stackOf };
}

/** A short label for the transform's chip, e.g. `Focus: main`, `Merge module: libc.so.6`. */
export function describeTransform(t: Transform): string {
  switch (t.kind) {
    case 'focus-function':
      return `Focus: ${t.name}`;
    case 'focus-subtree': {
      const path = t.path.length > 3 ? [t.path[0], '…', t.path[t.path.length - 1]] : t.path;
      return `Focus subtree: ${path.join(' › ')}`;
    }
    case 'hide-function':
      return `Hide: ${t.name}`;
    case 'merge-module':
      return `Merge module: ${basename(t.module)}`;
    case 'collapse-recursion':
      return `Collapse recursion: ${t.name}`;
    case 'collapse-direct-recursion':
      return `Collapse direct recursion: ${t.name}`;
  }
}

/** 1 for every frame id whose name is `name`. */
export function framesNamed(p: FoldedProfile, name: string): Uint8Array {
  return namedIn(p.frames, name);
}

// ---------------------------------------------------------------------------------------------
// The transforms. Each is one loop over the stacks writing into a StackSink.

function focusFunction(p: FoldedProfile, name: string, sink: StackSink): FoldedProfile {
  const match = framesOfFunction(p.frames, name);
  const { start, frames, weight } = p.stacks;
  for (let s = 0; s < p.stacks.count; s++) {
    const e = start[s + 1];
    let i = start[s];
    while (i < e && match[frames[i]] === 0) i++;
    if (i === e) continue;
    sink.copy(frames, i, e);
    sink.end(weight[s], s);
  }
  return sink.finish(p);
}

function focusSubtree(p: FoldedProfile, path: readonly string[], sink: StackSink): FoldedProfile {
  const { start, frames, weight } = p.stacks;
  const named = path.map((name) => isNamed(p.frames, name));
  const n = path.length;
  for (let s = 0; s < p.stacks.count; s++) {
    const b = start[s];
    const e = start[s + 1];
    if (e - b < n) continue;
    let k = 0;
    while (k < n && named[k](frames[b + k])) k++;
    if (k < n) continue;
    sink.copy(frames, n > 0 ? b + n - 1 : b, e);
    sink.end(weight[s], s);
  }
  return sink.finish(p);
}

function hideFunction(p: FoldedProfile, name: string, sink: StackSink): FoldedProfile {
  const match = framesOfFunction(p.frames, name);
  const { start, frames, weight } = p.stacks;
  for (let s = 0; s < p.stacks.count; s++) {
    const e = start[s + 1];
    sink.reserve(e - start[s]);
    const out = sink.frames;
    let pos = sink.pos;
    for (let i = start[s]; i < e; i++) {
      const f = frames[i];
      if (match[f] === 0) out[pos++] = f;
    }
    sink.pos = pos;
    sink.end(weight[s], s);
  }
  return sink.finish(p);
}

function mergeModule(
  p: FoldedProfile,
  module: string,
  makeSink: (extraFrames: number) => StackSink,
): FoldedProfile {
  const base = basename(module);
  // Module index → the id of its merged frame (p.frames.count + k), or -1 when not merged.
  const mergedId = new Int32Array(p.modules.length).fill(-1);
  const extra = new FrameRows({ after: p.frames });
  for (let m = 0; m < p.modules.length; m++) {
    const path = p.modules[m];
    if (path !== module && basename(path) !== base) continue;
    mergedId[m] = p.frames.count + extra.add(basename(path), m, FrameKind.Module);
  }
  // Frame id → merged frame id, or -1.
  const frameTo = new Int32Array(p.frames.count).fill(-1);
  const modOf = p.frames.module;
  for (let i = 0; i < p.frames.count; i++) if (modOf[i] >= 0) frameTo[i] = mergedId[modOf[i]];

  const { start, frames, weight } = p.stacks;
  const sink = makeSink(extra.count);
  for (let s = 0; s < p.stacks.count; s++) {
    const e = start[s + 1];
    sink.reserve(e - start[s]);
    const out = sink.frames;
    let pos = sink.pos;
    let prev = -1;
    for (let i = start[s]; i < e; i++) {
      const f = frames[i];
      const m = frameTo[f];
      if (m < 0) out[pos++] = f;
      else if (m !== prev) out[pos++] = m;
      prev = m;
    }
    sink.pos = pos;
    sink.end(weight[s], s);
  }
  return sink.finish(p, extra);
}

function collapseRecursion(p: FoldedProfile, name: string, sink: StackSink): FoldedProfile {
  const match = framesOfFunction(p.frames, name);
  const { start, frames, weight } = p.stacks;
  for (let s = 0; s < p.stacks.count; s++) {
    const b = start[s];
    const e = start[s + 1];
    let first = b;
    while (first < e && match[frames[first]] === 0) first++;
    let last = e - 1;
    while (last > first && match[frames[last]] === 0) last--;
    if (first >= last) {
      sink.copy(frames, b, e);
    } else {
      sink.copy(frames, b, first + 1);
      sink.copy(frames, last + 1, e);
    }
    sink.end(weight[s], s);
  }
  return sink.finish(p);
}

function collapseDirectRecursion(p: FoldedProfile, name: string, sink: StackSink): FoldedProfile {
  const match = framesOfFunction(p.frames, name);
  const { start, frames, weight } = p.stacks;
  for (let s = 0; s < p.stacks.count; s++) {
    const e = start[s + 1];
    sink.reserve(e - start[s]);
    const out = sink.frames;
    let pos = sink.pos;
    let prev = -1;
    for (let i = start[s]; i < e; i++) {
      const f = frames[i];
      // Frames with the same name but different ids (modules) count as the same function.
      if (match[f] === 0 || prev < 0 || match[prev] === 0) out[pos++] = f;
      prev = f;
    }
    sink.pos = pos;
    sink.end(weight[s], s);
  }
  return sink.finish(p);
}

// ---------------------------------------------------------------------------------------------
// StackSink: collects rewritten stacks, merges identical ones as they arrive, builds the profile.

const EMPTY = -1;

/**
 * Collects stacks of frame ids (ids of `src`, plus `extraFrames` new ids from `src.frames.count`
 * on), merging a stack into an identical earlier one as soon as it ends (open addressing over a
 * hash of its frames). Writers either call `copy`/`push`, or `reserve(n)` and then write
 * `frames[pos++]` directly (re-read `frames` after `reserve`: it may grow).
 */
export class StackSink {
  frames: Uint32Array;
  pos = 0;
  private count = 0;
  private begin = 0;
  private start: Uint32Array;
  private weight: Float64Array;
  private hashes: Uint32Array;
  private table: Int32Array;
  private mask: number;
  /** 1 for every frame id used by a stack (marked while hashing, saving a pass in `finish`). */
  private used: Uint8Array;
  /** Per source stack, the id `end` gave it (see `tracing`). */
  private trace: Int32Array | null = null;

  constructor(
    src: FoldedProfile,
    extraFrames = 0,
    frameCapacity = src.stacks.frames.length,
    maxStacks = src.stacks.count,
  ) {
    this.frames = new Uint32Array(Math.max(16, frameCapacity));
    this.start = new Uint32Array(maxStacks + 1);
    this.weight = new Float64Array(maxStacks);
    this.hashes = new Uint32Array(maxStacks);
    this.used = new Uint8Array(src.frames.count + extraFrames);
    let size = 16;
    while (size < maxStacks * 2) size *= 2;
    this.table = new Int32Array(size).fill(EMPTY);
    this.mask = size - 1;
  }

  /** Writes into `trace` (when given) each source stack's id in the result: see `end`'s `from`. */
  tracing(trace: Int32Array | undefined): this {
    this.trace = trace ?? null;
    return this;
  }

  /** Makes room for `n` more frames in the current stack. */
  reserve(n: number): void {
    if (this.pos + n <= this.frames.length) return;
    let cap = this.frames.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const bigger = new Uint32Array(cap);
    bigger.set(this.frames.subarray(0, this.pos));
    this.frames = bigger;
  }

  push(id: number): void {
    if (this.pos === this.frames.length) this.reserve(1);
    this.frames[this.pos++] = id;
  }

  /** Appends `src[b..e)` to the current stack. */
  copy(src: Uint32Array, b: number, e: number): void {
    if (e <= b) return;
    this.reserve(e - b);
    this.frames.set(src.subarray(b, e), this.pos);
    this.pos += e - b;
  }

  /**
   * Ends the current stack with `w`: dropped when empty (-1), summed into an identical earlier one.
   * Returns the stack's id in the result (also written to the trace at `from`, the source stack's
   * id, when tracing).
   */
  end(w: number, from = -1): number {
    const id = this.endStack(w);
    if (this.trace !== null && from >= 0) this.trace[from] = id;
    return id;
  }

  private endStack(w: number): number {
    const b = this.begin;
    const e = this.pos;
    if (e === b) return -1;
    const fr = this.frames;
    const used = this.used;
    let h = Math.imul(e - b, 0x9e3779b1);
    for (let i = b; i < e; i++) {
      const f = fr[i];
      used[f] = 1;
      h = Math.imul(h ^ f, 0x01000193) ^ (h >>> 15);
    }
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
    const { start, table, hashes, mask } = this;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const other = table[slot];
      if (other === EMPTY) {
        const id = this.count++;
        table[slot] = id;
        hashes[id] = h;
        start[id] = b;
        start[id + 1] = e;
        this.weight[id] = w;
        this.begin = e;
        return id;
      }
      if (hashes[other] !== h) continue;
      const ob = start[other];
      if (start[other + 1] - ob !== e - b) continue;
      let k = 0;
      while (k < e - b && fr[ob + k] === fr[b + k]) k++;
      if (k < e - b) continue;
      this.weight[other] += w;
      this.pos = b;
      return other;
    }
  }

  /**
   * The profile of the collected stacks, meta copied with totals recomputed. Its frame table is the
   * source's, ids unchanged (frames no stack uses any more stay, with no samples), with the frames
   * of `extra` (rows made after the source's: ids `src.frames.count + k`) appended: a transform's
   * profile then has the very table the page holds (none sent again: at 2 GB, 850k names cost
   * ~0.1 s of the page's thread to receive). With `compact` (a graph of its own: a sandwich half, a
   * comparison), only the frames still used, in id order. The sink must not be used afterwards.
   */
  finish(
    src: FoldedProfile,
    extra: FrameRows | null = null,
    opts: { compact?: boolean } = {},
  ): FoldedProfile {
    const count = this.count;
    const weight = this.weight.slice(0, count);
    let total = 0;
    for (let s = 0; s < count; s++) total += weight[s];
    const start = this.start.slice(0, count + 1);
    const all = extra === null || extra.count === 0 ? src.frames : extra.finish();
    const table = opts.compact ? this.compactTable(all) : { frames: all, stackFrames: this.written() };
    return {
      meta: metaWithTotal(src.meta, total),
      frames: table.frames,
      modules: all === src.frames && table.frames === src.frames ? src.modules : src.modules.slice(),
      stacks: { count, start, frames: table.stackFrames, weight },
    };
  }

  /** The stacks' frames as written (exactly the buffer when it is full). */
  private written(): Uint32Array {
    return this.pos === this.frames.length ? this.frames : this.frames.slice(0, this.pos);
  }

  /** Only the frames the stacks use, in id order (of `all`: the source's, then extras); ids mapped. */
  private compactTable(all: FrameTable) {
    const used = this.used;
    const map = new Int32Array(used.length);
    const ids: number[] = [];
    for (let f = 0; f < used.length; f++) {
      if (used[f] === 0) {
        map[f] = -1;
        continue;
      }
      map[f] = ids.length;
      ids.push(f);
    }
    // Every frame kept: the same frame table (the source's, when none was added).
    const frames = ids.length === all.count ? all : pickFrames(all, ids);
    // The frames kept are the first ones: the stacks' ids as they are.
    if (ids.length === 0 || ids[ids.length - 1] === ids.length - 1)
      return { frames, stackFrames: this.written() };
    const fr = this.frames;
    const stackFrames = new Uint32Array(this.pos);
    for (let i = 0; i < this.pos; i++) stackFrames[i] = map[fr[i]];
    return { frames, stackFrames };
  }
}

/** A copy of `meta` with totalSamples (and samplingTimeUs when the period is known) recomputed. */
export function metaWithTotal(meta: FoldedMeta, total: number): FoldedMeta {
  const out: FoldedMeta = { ...meta, totalSamples: total };
  if (meta.periodUs > 0) out.samplingTimeUs = total * meta.periodUs;
  return out;
}
