// The function table's row order for a sort and a filter, computed a slice at a time.
//
// A flat profile's table has a row per sampled address: 2.2M rows for a 100 MB DCPI file, 8.75M
// at 400 MB. Its filter names every row and a comparison sort calls its comparison ~20 times a
// row: 0.6–1.1 s of the page's thread at 100 MB, 2.5–5.4 s at 400 MB, for each click on a column
// and each key typed in the filter. `orderWork` does that work in steps that end when their
// deadline passes, so the page can paint and take input between them and drop the work when a
// newer query comes; `sortFunctions` runs it to the end. The order is the same either way: the
// rows kept by the filter in frame-id order, then sorted stably by the column (numeric columns by
// radix, KeySort; by self, the worker's order read instead, lightestFirst; names by a merge sort
// of natively sorted runs, MergeSort), every tie ending in the frame id.

import { frameName } from '../text/frame-text';
import { basename } from '../text/names';
import type { FrameTable } from '../types';
import type { FunctionTable } from './calltree';
import { type FunctionChanges, functionChanges } from './diff';
import { type RadixPasses, weightOrder } from './order';

/** `base*`, `delta` (|Δ self|) and `deltaPct` are a comparison's columns. */
export type SortKey = 'name' | 'module' | 'self' | 'total' | 'baseSelf' | 'baseTotal' | 'delta' | 'deltaPct';

export interface TableQuery {
  key: SortKey;
  desc: boolean;
  /** Case-insensitive substring of the function or module name. */
  filter: string;
  /** Frames to leave out (e.g. the address rows of a flat DCPI profile). */
  exclude?: Uint8Array;
  /** A comparison's Δ columns (the table's): made here, normalized unless `normalized` is false, when absent. */
  changes?: FunctionChanges;
  normalized?: boolean;
}

/** What a table's order is computed from: the page's analysis (or the core's, in tests). */
export interface TableSource {
  functions: FunctionTable;
  profile: { frames: FrameTable; modules: readonly string[] };
  diff?: { baseFunctions: FunctionTable; base: { whole: number }; comp: { whole: number } };
}

/** The Δ columns of a comparison's functions: changes of self in share (normalized) or in samples. */
export function changesOf(a: TableSource, normalized: boolean): FunctionChanges | null {
  const d = a.diff;
  return d ? functionChanges(d.baseFunctions, a.functions, d.base.whole, d.comp.whole, normalized) : null;
}

/** An order being computed: `step` works until `deadline` (performance.now()) and gives the order when done. */
export interface OrderWork {
  /** Works until the deadline passes (checked every few thousand rows); the order once it is done, else null. */
  step(deadline: number): Int32Array | null;
  /** How far it is, 0–1 (the filter a tenth, the sort the rest). */
  readonly progress: number;
}

/** Rows between two looks at the clock. */
const CHECK = 4096;
/** Rows of a run sorted natively before the runs are merged. */
const RUN = 2048;

/** Row order for a sort and filter: frame ids. Pure, so it is tested without a DOM. */
export function sortFunctions(a: TableSource, q: TableQuery): Int32Array {
  return orderWork(a, q).step(Number.POSITIVE_INFINITY)!;
}

/** The work of `sortFunctions`, to be done a slice at a time (see the file's comment). */
export function orderWork(a: TableSource, q: TableQuery): OrderWork {
  const { functions, profile } = a;
  const base = a.diff?.baseFunctions;
  const needle = q.filter.trim().toLowerCase();
  // The default order comes sorted from the worker.
  if (q.key === 'self' && q.desc && !needle && !q.exclude && !base && functions.bySelf) {
    const done = functions.bySelf;
    return { step: () => done, progress: 1 };
  }
  // Names made once each (a DCPI profile's address frames are named when asked: frames.ts), kept
  // only for a sort by name.
  const byNameSort = q.key === 'name' || q.key === 'module';
  const names = byNameSort ? new Array<string | undefined>(functions.count) : null;
  const name = (f: number): string =>
    names ? (names[f] ??= frameName(profile.frames, f)) : frameName(profile.frames, f);
  const mod = (f: number) => profile.modules[profile.frames.module[f]] ?? '';
  // Whether a module's base name holds the needle, asked once per module.
  const moduleHas = new Map<number, boolean>();
  const modMatches = (f: number): boolean => {
    const m = profile.frames.module[f];
    let has = moduleHas.get(m);
    if (has === undefined) {
      has = basename(profile.modules[m] ?? '')
        .toLowerCase()
        .includes(needle);
      moduleHas.set(m, has);
    }
    return has;
  };
  const sign = q.desc ? -1 : 1;
  const byName = (x: number, y: number) => (name(x) < name(y) ? -1 : name(x) > name(y) ? 1 : 0);
  const { self, total } = functions;
  let changes: FunctionChanges | null | undefined;
  const changed = (): FunctionChanges | null =>
    (changes ??= base ? (q.changes ?? changesOf(a, q.normalized ?? true)) : null);
  // Numeric columns are sorted by radix (KeySort): the least significant key first, each sort
  // stable, the rows coming in frame-id order, which ends every tie (a missing column reads as
  // 0). The others by comparison (MergeSort), ties ending in the frame id.
  const sorterOf = (ids: Int32Array, selfTiesNeeded: boolean): Sorter => {
    const dir = q.desc;
    const zeros = () => new Float64Array(functions.count);
    const bySelf = { weight: self, desc: true };
    const byTotal = { weight: total, desc: true };
    switch (q.key) {
      case 'self':
        return new KeySort(ids, [byTotal, { weight: self, desc: dir }]);
      case 'total':
        return new KeySort(
          ids,
          selfTiesNeeded ? [bySelf, { weight: total, desc: dir }] : [{ weight: total, desc: dir }],
        );
      case 'baseSelf':
        return new KeySort(ids, [{ weight: base?.self ?? zeros(), desc: dir }]);
      case 'baseTotal':
        return new KeySort(ids, [{ weight: base?.total ?? zeros(), desc: dir }]);
      case 'delta': {
        const delta = changed()?.delta;
        return new KeySort(ids, [{ weight: delta ? delta.map(Math.abs) : zeros(), desc: dir }]);
      }
      case 'name':
        return new MergeSort(ids, (x, y) => sign * byName(x, y) || x - y);
      case 'module':
        return new MergeSort(
          ids,
          (x, y) => sign * (mod(x) < mod(y) ? -1 : mod(x) > mod(y) ? 1 : 0) || byName(x, y) || x - y,
        );
      case 'deltaPct': {
        const relative = changed()?.relative;
        // Infinity (new functions) less Infinity is NaN: equal.
        return new MergeSort(
          ids,
          (x, y) => sign * ((relative?.[x] ?? 0) - (relative?.[y] ?? 0) || 0) || x - y,
        );
      }
    }
  };

  // Unfiltered by self, the rows are read in the worker's order by self (FunctionTable.bySelf: the
  // rows with samples, by self, then total, heaviest first, then id) and need no sort; ascending,
  // its runs of one self from the last (lightestFirst). A filter reads the rows in frame order
  // (their columns in memory order: 2–3× faster when most are named) and sorts the few it keeps.
  const bySelf = q.key === 'self' && !base && !needle ? functions.bySelf : undefined;
  const rowAt = bySelf ? (q.desc ? (i: number) => bySelf[i] : lightestFirst(bySelf, self)) : null;
  const n = bySelf ? bySelf.length : functions.count;
  const totalTies = q.key === 'total' && !base ? new SelfAmongTies(self, total) : null;
  let ids = new Int32Array(n);
  let kept = 0;
  let at = 0; // the filter's next row
  let sorter: Sorter | null = null;
  let progress = 0;
  return {
    get progress() {
      return progress;
    },
    step(deadline: number): Int32Array | null {
      while (at < n) {
        const end = Math.min(n, at + CHECK);
        for (; at < end; at++) {
          const f = rowAt ? rowAt(at) : at;
          if ((functions.total[f] <= 0 && !(base && base.total[f] > 0)) || q.exclude?.[f]) continue;
          if (needle && !modMatches(f) && !name(f).toLowerCase().includes(needle)) continue;
          ids[kept++] = f;
          if (totalTies) totalTies.add(f);
        }
        progress = ((bySelf ? 1 : 0.1) * at) / n;
        if (at < n && performance.now() >= deadline) return null;
      }
      if (!sorter) {
        ids = ids.slice(0, kept);
        if (bySelf) {
          progress = 1;
          return ids;
        }
        // by total, self only orders ties of total: not needed when none can differ in self
        sorter = sorterOf(ids, !totalTies?.none());
      }
      const sorted = sorter.step(deadline);
      progress = 0.1 + 0.9 * sorter.progress;
      return sorted;
    },
  };
}

/**
 * The rows of `bySelf` (heaviest first) lightest first, ties in their order: its runs of one self
 * from the last, each read forwards. A function of the position, asked for 0, 1, 2, … in turn.
 */
function lightestFirst(bySelf: Int32Array, self: Float64Array): (i: number) => number {
  let lo = bySelf.length; // the run being read: [lo, hi), at p
  let hi = lo;
  let p = lo;
  return () => {
    if (p === hi) {
      hi = lo;
      const v = self[bySelf[hi - 1]];
      lo = hi - 1;
      while (lo > 0 && self[bySelf[lo - 1]] === v) lo--;
      p = lo;
    }
    return bySelf[p++];
  };
}

/**
 * Whether rows of one total can differ in self, seen row by row: only where a row's self is not its
 * total (a caller) and another row has its total. A flat profile's rows are its addresses (self
 * is total) and its image, whose total is all samples: the second sort by self is not needed.
 */
class SelfAmongTies {
  /** The largest total of a row whose self is its total. */
  private plain = Number.NEGATIVE_INFINITY;
  /** The totals of the rows whose self is not (up to MAX_CALLERS, then: may differ). */
  private callers: number[] = [];
  private many = false;

  constructor(
    private readonly self: Float64Array,
    private readonly total: Float64Array,
  ) {}

  add(f: number): void {
    const t = this.total[f];
    if (this.self[f] === t) {
      if (t > this.plain) this.plain = t;
    } else if (this.callers.length < MAX_CALLERS) this.callers.push(t);
    else this.many = true;
  }

  /** No two rows share a total but for rows whose self is their total. */
  none(): boolean {
    if (this.many) return false;
    const seen = new Set<number>();
    for (const t of this.callers) {
      if (t <= this.plain || seen.has(t)) return false;
      seen.add(t);
    }
    return true;
  }
}

const MAX_CALLERS = 64;

interface Sorter {
  step(deadline: number): Int32Array | null;
  readonly progress: number;
}

/** A numeric sort key: each row's value, and its direction. */
interface NumericKey {
  weight: Float64Array;
  desc: boolean;
}

/**
 * The rows sorted by numeric keys (least significant first), each by a stable radix sort (order.ts;
 * ascending as the descending sort of the rows reversed, reversed): ~10× a comparison sort's speed
 * on millions of rows. A chunk at a time: each key's values gathered in the rows' current order
 * (reads all over the column: ~45 ms for 2.2M rows in one piece), the positions sorted by them
 * (reads in order), and the rows put in the positions' order.
 */
class KeySort implements Sorter {
  private key = 0;
  private phase: 'gather' | 'sort' | 'apply' = 'gather';
  private i = 0;
  private values: Float64Array;
  private positions: Int32Array;
  private passes: RadixPasses | null = null;
  private ids: Int32Array;
  private next: Int32Array;
  progress = 0;

  constructor(
    ids: Int32Array,
    private readonly keys: NumericKey[],
  ) {
    this.ids = ids;
    this.next = new Int32Array(ids.length);
    this.values = new Float64Array(ids.length);
    this.positions = new Int32Array(ids.length);
  }

  step(deadline: number): Int32Array | null {
    const stop = () => performance.now() >= deadline;
    const m = this.ids.length;
    while (this.key < this.keys.length) {
      const { weight, desc } = this.keys[this.key];
      const { ids, values, positions } = this;
      if (this.phase === 'gather') {
        // ascending: the positions from the last, so that the descending sort keeps ties in order
        while (this.i < m) {
          const end = Math.min(m, this.i + RADIX_CHUNK);
          for (let i = this.i; i < end; i++) {
            values[i] = weight[ids[i]];
            positions[i] = desc ? i : m - 1 - i;
          }
          this.i = end;
          if (this.i < m && stop()) return this.pause(0.4);
        }
        this.i = 0;
        this.passes = weightOrder(positions, values);
        this.phase = 'sort';
      }
      if (this.phase === 'sort') {
        if (this.passes && !this.passes.run(stop)) return this.pause(0.4 + 0.4 * this.passes.progress);
        this.passes = null;
        this.phase = 'apply';
      }
      const { next } = this;
      while (this.i < m) {
        const end = Math.min(m, this.i + RADIX_CHUNK);
        // ascending: the descending order read backwards
        if (desc) for (let i = this.i; i < end; i++) next[i] = ids[positions[i]];
        else for (let i = this.i; i < end; i++) next[i] = ids[positions[m - 1 - i]];
        this.i = end;
        if (this.i < m && stop()) return this.pause(0.8 + (0.2 * this.i) / m);
      }
      this.ids = next;
      this.next = ids;
      this.i = 0;
      this.phase = 'gather';
      this.key++;
      this.progress = this.key / this.keys.length;
      if (this.key < this.keys.length && stop()) return null;
    }
    return this.ids;
  }

  private pause(within: number): null {
    this.progress = (this.key + within) / this.keys.length;
    return null;
  }
}

/** Rows a key sort goes through between looks at the clock. */
const RADIX_CHUNK = 1 << 16;

/**
 * A stable bottom-up merge sort of `ids` by `cmp`, resumable: runs of RUN rows sorted natively
 * (stable), then merged in passes of doubling width, CHECK rows between looks at the clock.
 */
class MergeSort implements Sorter {
  private src: Int32Array;
  private dst: Int32Array;
  private runsSorted = 0;
  private width = RUN;
  /** The pair being merged: [lo, mid) and [mid, hi), read at i and j, written at k. */
  private lo = 0;
  private i = -1;
  private j = 0;
  private k = 0;
  private passes: number;
  private pass = 0;
  progress = 0;

  constructor(
    ids: Int32Array,
    private readonly cmp: (x: number, y: number) => number,
  ) {
    this.src = ids;
    this.dst = ids.length > RUN ? new Int32Array(ids.length) : ids;
    this.passes = Math.max(0, Math.ceil(Math.log2(Math.max(1, ids.length / RUN))));
  }

  step(deadline: number): Int32Array | null {
    const n = this.src.length;
    const { cmp } = this;
    while (this.runsSorted < n) {
      const end = Math.min(n, this.runsSorted + RUN);
      this.src.subarray(this.runsSorted, end).sort(cmp);
      this.runsSorted = end;
      if (this.runsSorted < n && performance.now() >= deadline) {
        this.progress = this.runsSorted / n / (this.passes + 1);
        return null;
      }
    }
    while (this.width < n) {
      const { src, dst, width } = this;
      while (this.lo < n) {
        const mid = Math.min(n, this.lo + width);
        const hi = Math.min(n, this.lo + 2 * width);
        if (this.i < 0) {
          this.i = this.lo;
          this.j = mid;
          this.k = this.lo;
        }
        let { i, j, k } = this;
        while (k < hi) {
          const stop = Math.min(hi, k + CHECK);
          while (k < stop) {
            if (i < mid && (j >= hi || cmp(src[i], src[j]) <= 0)) dst[k++] = src[i++];
            else dst[k++] = src[j++];
          }
          if (k < hi && performance.now() >= deadline) {
            this.i = i;
            this.j = j;
            this.k = k;
            this.progress = (this.pass + 1 + k / n) / (this.passes + 1);
            return null;
          }
        }
        this.i = -1;
        this.lo = hi;
      }
      // the pass is done: its output is the next one's input
      this.src = dst;
      this.dst = src;
      this.width *= 2;
      this.lo = 0;
      this.pass++;
      this.progress = (this.pass + 1) / (this.passes + 1);
      if (this.width < n && performance.now() >= deadline) return null;
    }
    this.progress = 1;
    return this.src;
  }
}
