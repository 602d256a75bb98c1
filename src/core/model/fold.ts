// RawProfile → FoldedProfile: names every location (its own lines, embedded symbols, a Symbolizer,
// or the default MODULE+0xOFFSET) as frames with their kinds and fields (fold-slots.ts,
// naming.ts, granularity.ts), reverses stacks to root first and sums identical stacks.
// Pure over the RawProfile, so the worker can re-run it with a symbolizer without re-parsing.
//
// foldProfile's steps: drop_frames, the label filters and the group-by (foldFilters: the group-by
// frames are named first), the slots the kept samples use named in address order when symbols name
// them (FoldSlots), the fold in place when every slot is one frame of its own (foldInPlace), else
// each stack written into a hashed table (foldStacks), then the metadata, frame table and function
// table (finishFold).

import { F64Builder, U32Builder } from '../address.ts';
import { mappingInfo } from '../symbols/modules.ts';
import { compilePattern, type Pattern } from '../text/pattern.ts';
import type { FoldedMeta, FoldedProfile, LabelFilter, RawProfile, Symbolizer } from '../types.ts';
import { rememberSortedStacks, type SortedStacks } from './calltree.ts';
import { foldFlat, foldsFlat } from './fold-flat.ts';
import { foldStacksInPlace } from './fold-in-place.ts';
import { FoldSlots, SEVERAL_FRAMES } from './fold-slots.ts';
import { rememberFunctionTable } from './functions.ts';
import { groupFrames, labelKeepMask } from './labels.ts';
import { FrameNaming, type FrameNamingOptions } from './naming.ts';
import { defaultSampleTypeIndex, sampleTypesOf } from './sample-types.ts';

export interface FoldOptions extends FrameNamingOptions {
  fileName: string;
  symbolizer?: Symbolizer;
  /**
   * Keep the frames `meta.dropFrames` would drop (heap profiles' allocator frames, pprof's
   * drop_frames). By default they are dropped, as pprof does.
   */
  ignoreDropFrames?: boolean;
  /** Keep or drop samples by their labels (pprof's -tagfocus/-tagignore; model/labels.ts). */
  labelFilters?: readonly LabelFilter[];
  /** A label key: each stack gets a root frame `key=value` (`key=(none)` without the label). */
  groupBy?: string;
  /**
   * The caller gives up `raw.samples.stackLocs` (no other raw profile shares that array): when each
   * location the stacks use names one frame of its own (addresses no symbol names, at address
   * granularity), the folded stacks are written over the raw ones (fold-in-place.ts), and reading
   * `raw.samples.stackLocs` later makes them again.
   */
  consume?: boolean;
  /**
   * Filled with each sample's folded stack (`stacks` index), −1 for a sample left out (no stack,
   * or dropped by a label filter): for what keeps per-sample values the fold sums away (every
   * sample type, labels: the pprof export). Length `raw.samples.count`. The stacks are then never
   * folded in place (`consume`).
   */
  sampleStacks?: Int32Array;
}

/** Unique stacks of frame ids, found through an open-addressing hash of the id sequence. */
class StackTable {
  count = 0;
  readonly start: U32Builder;
  readonly frames: U32Builder;
  readonly weight: F64Builder;
  private slots: Int32Array;
  private hashes: Uint32Array;

  /**
   * `capacity`: expected number of frame ids in all unique stacks; `stacks`, of unique stacks (a
   * flat profile's: one per sample, sized once instead of doubled and rehashed ~11 times for the
   * 8.75M addresses of a 400 MB DCPI profile). Both grow if exceeded.
   */
  constructor(capacity: number, stacks = 2048) {
    const n = Math.max(2048, stacks);
    this.frames = new U32Builder(capacity);
    this.start = new U32Builder(n + 1);
    this.weight = new F64Builder(n);
    this.slots = new Int32Array(2 ** Math.ceil(Math.log2(n * 2))).fill(-1);
    this.hashes = new Uint32Array(n);
    this.start.push(0);
  }

  /**
   * Adds the stack written at the end of `frames` (its `len` ids from `frames.length` on, not yet
   * counted in it): a new stack keeps them, a repeated one only adds its weight (the ids are left
   * to be overwritten). `fnv`: the caller's FNV-1a of the ids (see fnvStep), computed while it
   * wrote them: hashing in a separate pass read every frame id a second time. Returns the stack's id.
   */
  addLast(len: number, w: number, fnv: number): number {
    const h = stackHash(fnv, len);
    const mask = this.slots.length - 1;
    let p = h & mask;
    const starts = this.start.data;
    const frames = this.frames.data;
    const at = this.frames.length;
    for (;;) {
      const id = this.slots[p];
      if (id < 0) break;
      if (this.hashes[id] === h) {
        const s = starts[id];
        if (starts[id + 1] - s === len) {
          let k = 0;
          while (k < len && frames[s + k] === frames[at + k]) k++;
          if (k === len) {
            this.weight.data[id] += w;
            return id;
          }
        }
      }
      p = (p + 1) & mask;
    }
    const id = this.count++;
    this.frames.length = at + len;
    this.start.push(this.frames.length);
    this.weight.push(w);
    if (id === this.hashes.length) {
      const nh = new Uint32Array(id * 2);
      nh.set(this.hashes);
      this.hashes = nh;
    }
    this.hashes[id] = h;
    this.slots[p] = id;
    if (this.count * 2 > this.slots.length) this.rehash();
    return id;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2).fill(-1);
    const mask = slots.length - 1;
    for (let id = 0; id < this.count; id++) {
      let p = this.hashes[id] & mask;
      while (slots[p] >= 0) p = (p + 1) & mask;
      slots[p] = id;
    }
    this.slots = slots;
  }
}

const FNV_OFFSET = 0x811c9dc5;
/** One FNV-1a step over a frame id. */
const fnvStep = (h: number, f: number) => Math.imul(h ^ f, 0x01000193);

/** FNV-1a of the frame ids `a[from]` … `a[to − 1]`. */
function fnvOf(a: Uint32Array, from: number, to: number): number {
  let h = FNV_OFFSET;
  for (let k = from; k < to; k++) h = fnvStep(h, a[k]);
  return h;
}

/** A stack's table hash: the FNV-1a of its `len` frame ids, mixed with its length. */
function stackHash(fnv: number, len: number): number {
  let h = fnv ^ len;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return (h ^ (h >>> 13)) >>> 0;
}

/** An Int32Array of at least `min` values (doubling), −1 past those of `from`. */
function unclaimed(min: number, from?: Int32Array): Int32Array {
  const a = new Int32Array(Math.max(1024, min, from ? from.length * 2 : 0)).fill(-1);
  if (from) a.set(from);
  return a;
}

/** The first `n` values: a view when it uses most of the buffer, else a compact copy. */
function trimmed(a: Uint32Array, n: number): Uint32Array {
  return n * 4 >= a.length * 3 ? a.subarray(0, n) : a.slice(0, n);
}

/** Names that pprof keeps whole when it strips an argument list (profile/prune.go). */
const RESERVED_NAMES = ['(anonymous namespace)', 'operator()'];

/**
 * pprof's simplifyFunc: a leading `.` and the argument list (from the first `(` that does not
 * begin `(anonymous namespace)` or `operator()`) removed.
 */
export function simplifyFuncName(name: string): string {
  const f = name.startsWith('.') ? name.slice(1) : name;
  let j = f.indexOf('(');
  if (j < 0) return f;
  j = Math.max(0, j - 'operator'.length);
  while (j < f.length) {
    const reserved = RESERVED_NAMES.find((r) => f.startsWith(r, j));
    if (reserved !== undefined) j += reserved.length;
    else if (f.charCodeAt(j) === 40 /* ( */) return f.slice(0, j);
    else j++;
  }
  return f;
}

/**
 * The frame test of RawMeta.dropFrames / keepFrames: whether frame `f` is dropped (by its
 * function's name, at any granularity), cached per frame id. Null when the profile has no
 * dropFrames (or an invalid one, reported in `warning`).
 */
class DropTest {
  private cache = new Int8Array(256); // 0 unknown, 1 drop, 2 keep
  private constructor(
    private readonly drop: Pattern,
    private readonly keep: Pattern | null,
    private readonly functionName: (f: number) => string,
  ) {}

  static of(
    raw: RawProfile,
    functionName: (f: number) => string,
  ): { test: DropTest | null; warning?: string } {
    const d = raw.meta.dropFrames;
    if (d === undefined || d === '') return { test: null };
    // RE2, wrapped as pprof wraps them (`^(` + pattern + `)$`): linear time whatever the file says.
    const drop = compilePattern(`^(${d})$`);
    if (!drop.ok) return { test: null, warning: `drop_frames not applied: ${drop.error}` };
    const k = raw.meta.keepFrames;
    if (k === undefined || k === '') return { test: new DropTest(drop.pattern, null, functionName) };
    const keep = compilePattern(`^(${k})$`);
    if (!keep.ok) return { test: null, warning: `drop_frames not applied: keep_frames ${keep.error}` };
    return { test: new DropTest(drop.pattern, keep.pattern, functionName) };
  }

  drops(f: number): boolean {
    if (f >= this.cache.length) {
      const n = new Int8Array(Math.max(f + 1, this.cache.length * 2));
      n.set(this.cache);
      this.cache = n;
    }
    let c = this.cache[f];
    if (c === 0) {
      const name = simplifyFuncName(this.functionName(f));
      c = this.drop.test(name) && !(this.keep?.test(name) ?? false) ? 1 : 2;
      this.cache[f] = c;
    }
    return c === 1;
  }

  /**
   * pprof's Prune on a root-first stack, `stack[from]` … `stack[end − 1]` (`from`: past a
   * group-by root frame): past the first frame that is not dropped, the first that is dropped goes,
   * with everything leafward. Returns the new end.
   */
  cut(stack: Uint32Array, from: number, end: number): number {
    let user = false;
    for (let i = from; i < end; i++) {
      if (!this.drops(stack[i])) user = true;
      else if (user) return i;
    }
    return end;
  }
}

/** Per-function self and total summed by sample during the fold (see foldProfile). */
class TableBuilder {
  private self = new Float64Array(1024);
  /**
   * Per frame f, the last sample that counted it (slot 2f, −1 for none) and its total (2f + 1):
   * side by side, so that a frame's check and sum touch one cache line (the frames of 50M stack
   * entries, in no order, miss the cache once each instead of twice).
   */
  private lastTotal = TableBuilder.unseen(new Float64Array(2048), 0);
  private exact = true;

  /** A sample of weight `w`: the frames `stack[from]` … `stack[to − 1]`, root first. */
  add(stack: Uint32Array, from: number, to: number, w: number, sample: number, frames: number): void {
    if (!this.exact) return;
    if (!Number.isInteger(w)) {
      this.exact = false;
      return;
    }
    if (frames > this.self.length) this.grow(frames);
    if (to > from) this.self[stack[to - 1]] += w;
    const lt = this.lastTotal;
    for (let k = from; k < to; k++) {
      const i = stack[k] * 2;
      if (lt[i] !== sample) {
        lt[i] = sample;
        lt[i + 1] += w;
      }
    }
  }

  private grow(min: number): void {
    const n = Math.max(min, this.self.length * 2);
    const self = new Float64Array(n);
    self.set(this.self);
    const lt = new Float64Array(2 * n);
    lt.set(this.lastTotal);
    [this.self, this.lastTotal] = [self, TableBuilder.unseen(lt, this.lastTotal.length)];
  }

  /** Marks the frames from slot `from` on as counted by no sample yet. */
  private static unseen(lt: Float64Array, from: number): Float64Array {
    for (let i = from; i < lt.length; i += 2) lt[i] = -1;
    return lt;
  }

  /** Gives the table to functionTableOf for this profile's stacks, when it is exact. */
  finish(p: FoldedProfile): void {
    if (!this.exact) return;
    const n = p.frames.count;
    const total = new Float64Array(n);
    for (let f = 0; f < n; f++) total[f] = this.lastTotal[2 * f + 1];
    rememberFunctionTable(p, { count: n, self: this.self.slice(0, n), total });
  }
}

/**
 * expandStack's other results: the hash so far (0), and where it stopped (1: the position of the
 * location it could not write, 2: the end of what it wrote).
 */
const expanded = new Uint32Array(3);

/**
 * The fold's inner loop, apart so that it is a plain function of typed arrays: writes the frames
 * of the leaf-first stack `stackLocs[a]` … `stackLocs[top]` root first into `out` from `end`
 * (callers' frames from their slot 2·loc + 1, the leaf's from 2·loc, as `one` and `range` say),
 * hashing from `h`. Returns the new end (the hash in `expanded[0]`), or −1 when a location is not
 * named yet or `out` has no room for it and one frame per location after it: `expanded` then says
 * where it stopped, to go on from there.
 */
function expandStack(
  stackLocs: Uint32Array,
  a: number,
  top: number,
  one: Int32Array,
  range: Int32Array,
  seqs: Uint32Array,
  out: Uint32Array,
  end: number,
  h: number,
): number {
  const cap = out.length;
  for (let p = top; p >= a; p--) {
    const q = p > a ? stackLocs[p] * 2 + 1 : stackLocs[p] * 2;
    const f = one[q];
    if (f >= 0 && end + (p - a) < cap) {
      out[end++] = f;
      h = fnvStep(h, f);
      continue;
    }
    const rs = range[2 * q];
    const e = rs + range[2 * q + 1];
    if (f !== SEVERAL_FRAMES || end + (e - rs) + (p - a) > cap) {
      expanded[0] = h;
      expanded[1] = p;
      expanded[2] = end;
      return -1;
    }
    for (let k = rs; k < e; k++) {
      const x = seqs[k];
      out[end++] = x;
      h = fnvStep(h, x);
    }
  }
  expanded[0] = h;
  return end;
}

/** Folds a RawProfile into unique root-first stacks of named frames. */
export function foldProfile(raw: RawProfile, opts: FoldOptions): FoldedProfile {
  const naming = new FrameNaming(raw.meta.mappings, opts);
  const filters = foldFilters(raw, opts, naming);
  if (!filters.active && foldsFlat(raw)) {
    // no table kept: functionTableOf sums the flat stacks when asked, in the same order
    const flat = foldFlat(raw, naming, opts.symbolizer, opts.sampleStacks ?? null);
    return finishFold(raw, opts, naming, filters, flat, null);
  }
  const slots = new FoldSlots(raw, naming, opts.symbolizer);
  const uses = slots.inAddressOrder ? slots.nameInAddressOrder(filters.keep) : null;
  let table = new TableBuilder();
  const sampleStacks = opts.sampleStacks ?? null;
  sampleStacks?.fill(-1);
  if (
    opts.consume &&
    sampleStacks === null &&
    raw.flat !== true &&
    raw.lines === undefined &&
    !filters.active
  ) {
    const folded = foldInPlace(raw, slots, naming, table);
    if (folded !== null) {
      const profile = finishFold(raw, opts, naming, filters, folded, table);
      rememberSortedStacks(profile.stacks, folded.sorted);
      return profile;
    }
    table = new TableBuilder(); // it saw the stacks before the one that could not be folded so
  }
  const folded = foldStacks(raw, slots, filters, table, uses, sampleStacks);
  return finishFold(raw, opts, naming, filters, folded, table);
}

/**
 * The fold of `other` — the samples `folded` was folded from (with `sampleStacks`, FoldOptions's:
 * where each went), weighed by another of their columns (withSampleType) — made from `folded`
 * rather than folded again: the same frames and stacks (shared, not copied), each stack's weight
 * summed from its samples in sample order, as foldProfile sums them, so the two agree to the bit.
 * A two-count file's sample is pictured so: its second column's fold was a second fold of the
 * same stacks. `folded`'s own options (naming, filters, group-by) hold for it: its metadata is
 * `other`'s, with `folded`'s warnings and filters and the label filters' dropped weight in
 * `other`'s column.
 */
export function foldOtherWeights(
  folded: FoldedProfile,
  other: RawProfile,
  sampleStacks: Int32Array,
): FoldedProfile {
  const { stackStart, weight: w } = other.samples;
  const weight = new Float64Array(folded.stacks.count);
  let next = 0; // stacks are made in the order of their first samples
  let total = 0;
  let droppedWeight = 0;
  for (let s = 0; s < other.samples.count; s++) {
    const id = sampleStacks[s];
    if (id < 0) {
      // left out: a label filter's (counted as dropped), or a sample with no stack (not counted)
      if (stackStart[s + 1] > stackStart[s]) droppedWeight += w[s];
      continue;
    }
    if (id === next) {
      weight[id] = w[s];
      next++;
    } else weight[id] += w[s];
    total += w[s];
  }
  const own = folded.meta;
  const meta = foldedMeta(other, own.fileName, total);
  meta.warnings = own.warnings.slice();
  if (own.labelFilters) meta.labelFilters = own.labelFilters;
  if (own.labelDropped) meta.labelDropped = { samples: own.labelDropped.samples, weight: droppedWeight };
  if (own.groupBy !== undefined) meta.groupBy = own.groupBy;
  return { ...folded, meta, stacks: { ...folded.stacks, weight } };
}

/** What drop_frames, the label filters and the group-by do to the samples (foldFilters). */
interface FoldFilters {
  dropTest: DropTest | null;
  /** Per sample, 0 where the label filters leave it out; null when they leave none. */
  keep: Uint8Array | null;
  /** Per sample, its group-by root frame; null when not grouped. */
  group: Int32Array | null;
  /** Any of them at work (the fold in place does none of them). */
  active: boolean;
  warnings: string[];
}

/** The fold's filters of these options (group-by frames are named here, before any other). */
function foldFilters(raw: RawProfile, opts: FoldOptions, naming: FrameNaming): FoldFilters {
  const dropped = opts.ignoreDropFrames ? { test: null } : DropTest.of(raw, (f) => naming.functionName(f));
  const filtered = labelKeepMask(raw, opts.labelFilters);
  const keep = filtered.keep;
  const grouped =
    opts.groupBy === undefined
      ? null
      : groupFrames(raw, opts.groupBy, (name) => naming.intern(name, -1), keep);
  const warnings: string[] = [];
  if (dropped.warning !== undefined) warnings.push(dropped.warning);
  warnings.push(...filtered.warnings);
  if (grouped?.warning !== undefined) warnings.push(grouped.warning);
  const group = grouped === null ? null : grouped.frame;
  return {
    dropTest: dropped.test,
    keep,
    group,
    active: dropped.test !== null || keep !== null || group !== null,
    warnings,
  };
}

/** A fold's stacks, their total weight, and what the label filters left out. */
interface FoldedStacks {
  stacks: FoldedProfile['stacks'];
  total: number;
  droppedSamples: number;
  droppedWeight: number;
}

/**
 * The fold over the raw stacks (FoldOptions.consume, fold-in-place.ts), when every slot the
 * stacks use has one frame of its own; null (the raw stacks as they were) when not.
 */
function foldInPlace(
  raw: RawProfile,
  slots: FoldSlots,
  naming: FrameNaming,
  table: TableBuilder,
): (FoldedStacks & { sorted: SortedStacks }) | null {
  const one = slots.one;
  const range = slots.range;
  // Per frame, the location it is as a leaf, and as a caller.
  const locOf = { leaf: unclaimed(naming.count), caller: unclaimed(naming.count) };
  const claim = (slot: number): number => {
    const f = one[slot];
    if (f < 0) return -1;
    if (f >= locOf.leaf.length) {
      locOf.leaf = unclaimed(f + 1, locOf.leaf);
      locOf.caller = unclaimed(f + 1, locOf.caller);
    }
    const role = slot & 1 ? locOf.caller : locOf.leaf;
    const loc = slot >>> 1;
    if (role[f] >= 0 && role[f] !== loc) return -1;
    role[f] = loc;
    return f;
  };
  // Slots named already (in address order) claim their frames first.
  for (let k = 0; k < one.length; k++) if (range[2 * k] >= 0 && claim(k) < 0) return null;
  const r = foldStacksInPlace(
    raw.samples,
    {
      one,
      claim: (loc, slot, caller) => {
        slots.ensure(loc, slot, caller);
        return claim(slot);
      },
      locOfFrame: () => locOf,
      frameCount: () => naming.count,
    },
    table,
  );
  if (r === null) return null;
  const { total, sorted, ...stacks } = r;
  return { stacks, total, sorted, droppedSamples: 0, droppedWeight: 0 };
}

/**
 * The usual fold: each kept sample's stack written root first straight into the table's buffer
 * (`od`, a repeated one left there to be overwritten), its group-by frame first and its
 * drop_frames cut applied, then summed into a hashed table of unique stacks (StackTable).
 */
function foldStacks(
  raw: RawProfile,
  slots: FoldSlots,
  filters: FoldFilters,
  table: TableBuilder,
  uses: Uint32Array | null,
  sampleStacks: Int32Array | null,
): FoldedStacks {
  const { samples, flat } = raw;
  const { keep, group, dropTest } = filters;
  const first = group === null ? 0 : 1;
  // With the slots named already, the stacks' buffer is made the size they will take (inline chains
  // make them longer than their PCs), so that it never grows: a copy of everything so far, and
  // memory faulted in twice.
  const capacity =
    uses !== null
      ? namedSize(samples, keep, uses, first, slots.range)
      : flat
        ? samples.count * 3
        : samples.stackLocs.length;
  const stacks = new StackTable(capacity + 16, flat ? samples.count + 1 : undefined);
  const out = new StackBuffer(stacks.frames, slots, samples.count);
  const { stackStart, stackLocs, weight } = samples;
  let total = 0;
  let droppedSamples = 0;
  let droppedWeight = 0;
  for (let s = 0; s < samples.count; s++) {
    const a = stackStart[s];
    const b = stackStart[s + 1];
    if (b <= a) continue;
    if (keep !== null && keep[s] === 0) {
      droppedSamples++;
      droppedWeight += weight[s];
      continue;
    }
    const base = stacks.frames.length;
    let end = out.room(base, b - a + first, s);
    if (group !== null) out.od[end++] = group[s];
    let h: number;
    if (flat) {
      for (let p = a; p < b; p++) end = out.append(stackLocs[p], stackLocs[p] * 2, false, end, b - p - 1, s);
      h = fnvOf(out.od, base, end);
    } else {
      end = out.expand(stackLocs, a, b, end, fnvOf(out.od, base, end), s); // the group-by frame, if any
      h = expanded[0];
    }
    if (dropTest !== null) {
      const cut = dropTest.cut(out.od, base + first, end);
      if (cut < end) {
        end = cut;
        h = fnvOf(out.od, base, end);
      }
    }
    const w = weight[s];
    table.add(out.od, base, end, w, s, slots.frameCount());
    const id = stacks.addLast(end - base, w, h);
    if (sampleStacks !== null) sampleStacks[s] = id;
    total += w;
  }
  return {
    stacks: {
      count: stacks.count,
      start: stacks.start.finish(),
      frames: trimmed(stacks.frames.data, stacks.frames.length),
      weight: stacks.weight.finish(),
    },
    total,
    droppedSamples,
    droppedWeight,
  };
}

/** The frames the kept samples' stacks take (with a group-by frame each), their slots named. */
function namedSize(
  samples: RawProfile['samples'],
  keep: Uint8Array | null,
  uses: Uint32Array,
  first: number,
  range: Int32Array,
): number {
  const { stackStart } = samples;
  let kept = 0;
  for (let s = 0; s < samples.count; s++)
    if (stackStart[s + 1] > stackStart[s] && (keep === null || keep[s] !== 0)) kept++;
  let n = kept * first;
  for (let k = 0; k < uses.length; k++) if (uses[k] !== 0) n += uses[k] * Math.max(1, range[2 * k + 1]);
  return n;
}

/**
 * The stacks' buffer of the usual fold (`od`, the table's frames), grown as the stacks so far
 * predict (inlined frames make stacks longer than their PCs: grown to the size predicted for all
 * of them, not by doublings, each a copy of everything so far). Invariant while a stack is
 * written: room for one frame per location still to come.
 */
class StackBuffer {
  od: Uint32Array;

  constructor(
    private readonly out: U32Builder,
    private readonly slots: FoldSlots,
    private readonly samples: number,
  ) {
    this.od = out.data;
  }

  /** Room for `more` frames at `end` while writing stack `s`; returns `end`. */
  room(end: number, more: number, s: number): number {
    if (end + more <= this.od.length) return end;
    const n = new Uint32Array(Math.ceil((end / (s + 1)) * this.samples * 1.05) + more + 1024);
    n.set(this.od.subarray(0, end));
    this.out.data = this.od = n;
    return end;
  }

  /**
   * Writes the frames of a location slot at `end` (naming it first if needed), with room left
   * for `after` more locations; returns the new end.
   */
  append(loc: number, slot: number, caller: boolean, end: number, after: number, s: number): number {
    const { slots } = this;
    slots.ensure(loc, slot, caller);
    const rs = slots.range[slot * 2];
    const rl = slots.range[slot * 2 + 1];
    this.room(end, rl + after, s);
    this.od.set(slots.seqs.data.subarray(rs, rs + rl), end);
    return end + rl;
  }

  /**
   * Writes the leaf-first stack `stackLocs[a]` … `stackLocs[b − 1]` root first at `end`, hashing
   * from `h`, by expandStack, which stops at a location not named yet or when the buffer needs
   * room: that one is named and the buffer grown here, and it goes on from there. Returns the new
   * end (the hash in `expanded[0]`).
   */
  expand(stackLocs: Uint32Array, a: number, b: number, end: number, h: number, s: number): number {
    const { slots } = this;
    let top = b - 1;
    for (;;) {
      const e = expandStack(stackLocs, a, top, slots.one, slots.range, slots.seqs.data, this.od, end, h);
      if (e >= 0) return e;
      h = expanded[0];
      top = expanded[1];
      end = expanded[2];
      const loc = stackLocs[top];
      const slot = top > a ? loc * 2 + 1 : loc * 2;
      slots.ensure(loc, slot, top > a);
      this.room(end, slots.range[slot * 2 + 1] + (top - a), s);
    }
  }
}

/** The folded profile of these stacks: its metadata, frames and function table (`table`'s, when kept). */
function finishFold(
  raw: RawProfile,
  opts: FoldOptions,
  naming: FrameNaming,
  filters: FoldFilters,
  folded: FoldedStacks,
  table: TableBuilder | null,
): FoldedProfile {
  const meta = foldedMeta(raw, opts.fileName, folded.total);
  for (const message of filters.warnings) meta.warnings.push({ message });
  if (filters.keep !== null && opts.labelFilters) {
    meta.labelFilters = opts.labelFilters.map((f) =>
      'values' in f ? { ...f, values: f.values.slice() } : { ...f },
    );
    meta.labelDropped = { samples: folded.droppedSamples, weight: folded.droppedWeight };
  }
  if (opts.groupBy !== undefined) meta.groupBy = opts.groupBy;
  const profile: FoldedProfile = { meta, ...naming.finish(), stacks: folded.stacks };
  table?.finish(profile);
  return profile;
}

/**
 * The metadata of a profile folded from `raw` with `total` samples; the gperftools raw preview
 * describes the file through this too.
 */
export function foldedMeta(
  raw: Pick<RawProfile, 'format' | 'meta' | 'warnings' | 'sampleTypes' | 'defaultSampleType'>,
  fileName: string,
  total: number,
): FoldedMeta {
  const periodUs = raw.meta.periodUs;
  const meta: FoldedMeta = {
    fileName,
    format: raw.format,
    periodUs,
    totalSamples: total,
    mappings: raw.meta.mappings.map(mappingInfo),
    warnings: raw.warnings.slice(),
    sampleType: { ...sampleTypesOf(raw)[defaultSampleTypeIndex(raw)] },
    sampleTypes: sampleTypesOf(raw).map((t) => ({ ...t })),
  };
  const { period, durationNs, timeNs, comments, dropFrames, keepFrames } = raw.meta;
  if (period) meta.period = { value: period.value, type: { ...period.type } };
  if (durationNs !== undefined) meta.durationNs = durationNs;
  if (timeNs !== undefined) meta.timeNs = timeNs;
  if (comments && comments.length > 0) meta.comments = comments.slice();
  if (dropFrames) meta.dropFrames = dropFrames;
  if (keepFrames) meta.keepFrames = keepFrames;
  if (raw.meta.wordSize !== undefined) meta.wordSize = raw.meta.wordSize;
  if (raw.meta.byteOrder !== undefined) meta.byteOrder = raw.meta.byteOrder;
  if (periodUs > 0) meta.samplingTimeUs = total * periodUs;
  if (raw.meta.headerLines) meta.headerLines = raw.meta.headerLines.map((l) => ({ ...l }));
  if (raw.meta.extra) meta.extra = { ...raw.meta.extra };
  return meta;
}
