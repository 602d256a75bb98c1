// RawProfile → FoldedProfile: names every location (its own lines, embedded symbols, a Symbolizer,
// or the default MODULE+0xOFFSET), reverses stacks to root first and sums identical stacks.
// Pure over the RawProfile, so the worker can re-run it with a symbolizer without re-parsing.

import { F64Builder, hexOf, minusOne, StringInterner, U32Builder } from '../address.ts';
import { isKernelMapping } from '../symbols/kallsyms.ts';
import { MappingIndex, mappingInfo } from '../symbols/modules.ts';
import { shortFunctionName } from '../text/names.ts';
import { compilePattern, type Pattern } from '../text/pattern.ts';
import {
  type FoldedMeta,
  type FoldedProfile,
  FrameKind,
  type LabelFilter,
  type Mapping,
  type RawProfile,
  type Symbolizer,
} from '../types.ts';
import { rememberSortedStacks } from './calltree.ts';
import { foldStacksInPlace } from './fold-in-place.ts';
import { rememberFunctionTable } from './functions.ts';
import { groupFrames, labelKeepMask } from './labels.ts';
import { defaultSampleTypeIndex, sampleTypesOf } from './sample-types.ts';

/**
 * How function names are shown: `short` as pprof and the Firefox Profiler show C++/Rust names
 * (shortFunctionName: no template arguments, parameters or return type; frames whose short names
 * are equal merge, as in pprof), or `full` as the demangler (or the profile) gives them.
 */
export type FrameNames = 'short' | 'full';

/**
 * Code that no symbol names: `addresses`, one frame per address (`MODULE+0xOFFSET`); `functions`,
 * one frame per module (`[MODULE]`, as pprof names it). Addresses outside every mapping are `0x…`
 * either way, and a flat (DCPI) profile keeps its image → function → address frames.
 */
export type FrameGranularity = 'functions' | 'addresses';

export interface FrameNamingOptions {
  /** Default 'full' (the core API's compatibility; the pipeline and the CLI default to 'short'). */
  names?: FrameNames;
  /** Default 'addresses' (the core API's compatibility; the pipeline and the CLI: 'functions'). */
  granularity?: FrameGranularity;
  /** Tells unnamed code in a module with a symbol file from code in one without (frames.kind). */
  symbolizer?: Symbolizer;
}

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

/**
 * The frames of a profile: interned by (name, module), modules numbered by mapping path in
 * MappingIndex order, addresses without symbols named `MODULE+0xOFFSET` (or `[MODULE]`, by the
 * granularity), function names shortened or not. foldProfile and the gperftools raw preview
 * (gperftools-preview.ts) both name frames through this, so a preview shows exactly the names and
 * modules the fold will.
 */
export class FrameNaming {
  readonly index: MappingIndex;
  private readonly modules = new StringInterner();
  private readonly mappingModule: number[];
  /** The frame name of each mapping's unnamed code (addressFrame's), made once. */
  private readonly moduleFrames: (string | undefined)[] = [];
  private readonly frameNames: string[] = [];
  private readonly fullNames: string[] | null;
  private readonly kinds = new U32Builder(1024);
  private readonly module = new U32Builder(1024);
  /** Per module (+1), name → frame id. */
  private readonly ids: Map<string, number>[] = [];
  /** Per module (+1), an address frame's offset in the module's file (outside all: its address) → id. */
  private readonly idsByOffset: Map<number, number>[] = [];
  /** Whether address frames are in `ids` too (once a name was interned that one could have). */
  private addressesByName = false;
  /** Full name → short name, with short names. */
  private readonly shortOf: Map<string, string> | null;
  private readonly perModule: boolean;
  private readonly symbolizer: Symbolizer | undefined;

  constructor(mappings: readonly Mapping[], opts: FrameNamingOptions = {}) {
    this.index = new MappingIndex(mappings);
    this.mappingModule = this.index.mappings.map((m) => this.modules.intern(m.path));
    const short = opts.names === 'short';
    this.shortOf = short ? new Map() : null;
    this.fullNames = short ? [] : null;
    this.perModule = opts.granularity === 'functions';
    this.symbolizer = opts.symbolizer;
  }

  get count(): number {
    return this.frameNames.length;
  }

  /** The names of the frames interned so far, by frame id (the live array: do not modify). */
  names(): string[] {
    return this.frameNames;
  }

  /** The module of mapping `m` (MappingIndex.find's answer): -1 outside every mapping. */
  moduleOf(m: number): number {
    return m < 0 ? -1 : this.mappingModule[m];
  }

  /** The frame named exactly `name` in `module` (-1: none), of kind `kind`. */
  intern(name: string, module: number, kind: FrameKind = FrameKind.Function, full = name): number {
    // A name an address frame could have: address frames must be found by their names from now on.
    if (!this.addressesByName && ADDRESS_NAME.test(name)) this.nameAddresses();
    return this.byName(name, module, kind, full);
  }

  private byName(name: string, module: number, kind: FrameKind, full: string): number {
    const byName = (this.ids[module + 1] ??= new Map());
    let id = byName.get(name);
    if (id === undefined) {
      id = this.add(name, module, kind, full);
      byName.set(name, id);
    }
    return id;
  }

  private add(name: string, module: number, kind: FrameKind, full: string): number {
    const id = this.frameNames.length;
    this.frameNames.push(name);
    this.fullNames?.push(full);
    this.kinds.push(kind);
    this.module.push(module + 1); // stored +1 so -1 fits in a uint32 builder
    return id;
  }

  /**
   * Puts the address frames made so far (by offset) in the maps by name, where every later one
   * goes too: a frame of another kind may have the same name (a report's profile names addresses).
   */
  private nameAddresses(): void {
    this.addressesByName = true;
    for (const byOffset of this.idsByOffset)
      for (const id of byOffset?.values() ?? []) {
        const module = this.module.data[id] - 1;
        (this.ids[module + 1] ??= new Map()).set(this.frameNames[id], id);
      }
  }

  /** The frame of a function name (from symbols or the profile): shortened with short names. */
  functionFrame(name: string, module: number): number {
    // A function named by the empty string has no name, as pprof shows it (and as every writer
    // can write it back: profile.proto has no empty name).
    if (name === '') return this.intern('[unknown]', module);
    const shortOf = this.shortOf;
    if (shortOf === null) return this.intern(name, module);
    let s = shortOf.get(name);
    if (s === undefined) {
      s = shortFunctionName(name);
      shortOf.set(name, s);
    }
    return this.intern(s, module, FrameKind.Function, name);
  }

  /**
   * The frame of an address that has no symbol, as looked up (callers' return addresses already
   * moved to PC − 1), in the mapping `m` that holds it: `MODULE+0xOFFSET` per address, or
   * `[MODULE]` per module with the granularity `functions`; `0x…` outside all.
   */
  addressFrame(hi: number, lo: number, m = this.index.find(hi, lo)): number {
    if (!this.perModule || m < 0) return this.exactAddressFrame(hi, lo, m);
    let name = this.moduleFrames[m];
    if (name === undefined) {
      // `[module]`, as pprof names it (`[[vdso]]` too); the kernel's code `[kernel.kallsyms]`, as perf does
      const base = this.index.names[m];
      name = base.startsWith('[') && isKernelMapping(this.index.mappings[m]) ? base : `[${base}]`;
      this.moduleFrames[m] = name;
    }
    return this.intern(name, this.moduleOf(m), this.unnamedKind(hi, lo, m));
  }

  /** `MODULE+0xOFFSET` (or `0x…`) whatever the granularity: DCPI's address frames. */
  exactAddressFrame(hi: number, lo: number, m = this.index.find(hi, lo)): number {
    const module = this.moduleOf(m);
    // Found by the offset in the module's file (by the address outside all): within a module the
    // name is a function of it, so the name is made once per frame and never hashed (~1 µs a
    // frame: 0.3 s for the 250k addresses of a 400 MB profile).
    const key = this.addressesByName ? -1 : this.index.offsetKey(m, hi, lo);
    if (key < 0) {
      const name = this.index.nameIn(m, hi, lo);
      return this.byName(name, module, this.unnamedKind(hi, lo, m), name);
    }
    const byOffset = (this.idsByOffset[module + 1] ??= new Map());
    let id = byOffset.get(key);
    if (id === undefined) {
      const name = this.index.nameIn(m, hi, lo);
      id = this.add(name, module, this.unnamedKind(hi, lo, m), name);
      byOffset.set(key, id);
    }
    return id;
  }

  private unnamedKind(hi: number, lo: number, m: number): FrameKind {
    if (m < 0) return FrameKind.NoModule;
    return this.symbolizer?.hasSymbolFile?.(hi, lo) ? FrameKind.OutsideSymbols : FrameKind.NoSymbolFile;
  }

  /** The frame table and module list of a FoldedProfile. */
  finish(): Pick<FoldedProfile, 'frames' | 'modules'> {
    const n = this.frameNames.length;
    const module = new Int32Array(n);
    const stored = this.module.data;
    for (let f = 0; f < n; f++) module[f] = stored[f] - 1;
    const kind = Uint8Array.from(this.kinds.data.subarray(0, n));
    const frames: FoldedProfile['frames'] = { count: n, name: this.frameNames, module, kind };
    if (this.fullNames !== null) {
      // Names the symbolizer shortened itself (from the mangled name): their full names now, one
      // demangling per frame.
      const fullOf = this.symbolizer?.fullName?.bind(this.symbolizer);
      if (fullOf)
        for (let f = 0; f < n; f++)
          if (kind[f] === FrameKind.Function)
            this.fullNames[f] = fullOf(this.fullNames[f]) ?? this.fullNames[f];
      frames.fullName = this.fullNames;
    }
    return { frames, modules: this.modules.strings };
  }
}

/** Unique stacks of frame ids, found through an open-addressing hash of the id sequence. */
class StackTable {
  count = 0;
  readonly start = new U32Builder(4096);
  readonly frames: U32Builder;
  readonly weight = new F64Builder(4096);
  private slots = new Int32Array(1 << 12).fill(-1);
  private hashes = new Uint32Array(1 << 11);

  /** `capacity`: expected number of frame ids in all unique stacks (grows if exceeded). */
  constructor(capacity: number) {
    this.frames = new U32Builder(capacity);
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

/** A location's frames not looked up yet (its fast-path slot). */
const UNRESOLVED = -1;
/** A location that names several frames (an inline chain): no single-frame fast path. */
const SEVERAL_FRAMES = -2;

/** A name FrameNaming.exactAddressFrame could give: `MODULE+0xOFFSET` or `0x…`. */
const ADDRESS_NAME = /(^|\+)0x[0-9a-f]+$/;

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
 * The frame test of RawMeta.dropFrames / keepFrames: whether frame `f` is dropped, cached per frame
 * id. Null when the profile has no dropFrames (or an invalid one, reported in `warning`).
 */
class DropTest {
  private cache = new Int8Array(256); // 0 unknown, 1 drop, 2 keep
  private constructor(
    private readonly drop: Pattern,
    private readonly keep: Pattern | null,
    private readonly names: () => string[],
  ) {}

  static of(raw: RawProfile, names: () => string[]): { test: DropTest | null; warning?: string } {
    const d = raw.meta.dropFrames;
    if (d === undefined || d === '') return { test: null };
    // RE2, wrapped as pprof wraps them (`^(` + pattern + `)$`): linear time whatever the file says.
    const drop = compilePattern(`^(${d})$`);
    if (!drop.ok) return { test: null, warning: `drop_frames not applied: ${drop.error}` };
    const k = raw.meta.keepFrames;
    if (k === undefined || k === '') return { test: new DropTest(drop.pattern, null, names) };
    const keep = compilePattern(`^(${k})$`);
    if (!keep.ok) return { test: null, warning: `drop_frames not applied: keep_frames ${keep.error}` };
    return { test: new DropTest(drop.pattern, keep.pattern, names) };
  }

  drops(f: number): boolean {
    if (f >= this.cache.length) {
      const n = new Int8Array(Math.max(f + 1, this.cache.length * 2));
      n.set(this.cache);
      this.cache = n;
    }
    let c = this.cache[f];
    if (c === 0) {
      const name = simplifyFuncName(this.names()[f]);
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
  const symbolizer = opts.symbolizer;
  const frames = new FrameNaming(raw.meta.mappings, {
    names: opts.names,
    granularity: opts.granularity,
    symbolizer,
  });
  const index = frames.index;
  const { locations: locs, samples } = raw;
  const embedded = raw.embeddedSymbols;
  const flat = raw.flat === true;

  // Frame ids per location, for its use as leaf (0) and as caller (1): a range in `seqs`.
  const seqs = new U32Builder(Math.max(16, locs.count * 2));
  // Per slot k (2·loc for the leaf use, 2·loc + 1 as a caller): its one frame, or UNRESOLVED, or
  // SEVERAL_FRAMES (`one[k]`: a dense array, 8 bytes per location, that stays in cache for the
  // common one-frame locations), and the start of its frame ids in `seqs` (−1: not named yet) and
  // their count, side by side (`range[2k]`, `range[2k + 1]`).
  const one = new Int32Array(locs.count * 2).fill(UNRESOLVED);
  const range = new Int32Array(locs.count * 4).fill(-1);

  /** Names for an address from symbols (embedded, then the symbolizer), or null. */
  const symbolNames = (hi: number, lo: number): string[] | null => {
    if (embedded) {
      const names = embedded.get(hexOf(hi, lo));
      if (names && names.length > 0) return names;
    }
    if (symbolizer) {
      const names = symbolizer.lookup(hi, lo);
      if (names && names.length > 0) return names;
    }
    return null;
  };

  const lines = raw.lines;
  const chainRange = new Map<readonly string[], { start: number; mod: number }>();
  const resolve = (loc: number, caller: boolean): void => {
    const slot = loc * 2 + (caller ? 1 : 0);
    const begin = seqs.length;
    if (lines && lines.start[loc + 1] > lines.start[loc]) {
      // Frames the location names itself (pprof Lines), outermost first: symbols are not consulted.
      const mod = locs.hasAddr[loc] ? frames.moduleOf(index.find(locs.addrHi[loc], locs.addrLo[loc])) : -1;
      for (let k = lines.start[loc]; k < lines.start[loc + 1]; k++)
        seqs.push(frames.functionFrame(raw.strings[lines.name[k]], mod));
    } else if (!locs.hasAddr[loc]) {
      const n = locs.locName[loc];
      seqs.push(n >= 0 ? frames.functionFrame(raw.strings[n], -1) : frames.intern('[unknown]', -1));
    } else {
      let hi = locs.addrHi[loc];
      let lo = locs.addrLo[loc];
      if (caller ? raw.adjustCallers : raw.adjustLeaves === true) [hi, lo] = minusOne(hi, lo);
      const m = index.find(hi, lo);
      const mod = frames.moduleOf(m);
      const names = symbolNames(hi, lo);
      if (names) {
        // A symbolizer gives one array per symbol or inline chain: its frames are named once, and
        // every location it names shares their range.
        const known = chainRange.get(names);
        if (known !== undefined && known.mod === mod) {
          range[slot * 2] = known.start;
          range[slot * 2 + 1] = names.length;
          return;
        }
        for (const name of names) seqs.push(frames.functionFrame(name, mod));
        chainRange.set(names, { start: begin, mod });
      } else if (locs.locName[loc] >= 0) {
        seqs.push(frames.functionFrame(raw.strings[locs.locName[loc]], mod));
      } else {
        seqs.push(frames.addressFrame(hi, lo, m));
      }
    }
    range[slot * 2] = begin;
    range[slot * 2 + 1] = seqs.length - begin;
  };

  /** Flat (DCPI) location: [module, function (if symbolized), MODULE+0xOFFSET]. */
  const resolveFlat = (loc: number): void => {
    const slot = loc * 2;
    const begin = seqs.length;
    if (!locs.hasAddr[loc]) {
      const n = locs.locName[loc];
      seqs.push(n >= 0 ? frames.functionFrame(raw.strings[n], -1) : frames.intern('[unknown]', -1));
    } else {
      const hi = locs.addrHi[loc];
      const lo = locs.addrLo[loc];
      const m = index.find(hi, lo);
      const mod = frames.moduleOf(m);
      if (m >= 0) seqs.push(frames.intern(index.names[m], mod));
      const names = symbolNames(hi, lo);
      if (names) {
        for (const name of names) seqs.push(frames.functionFrame(name, mod));
      } else if (locs.locName[loc] >= 0) {
        seqs.push(frames.functionFrame(raw.strings[locs.locName[loc]], mod));
      }
      // The address level stays per address whatever the granularity: DCPI's shape.
      seqs.push(frames.exactAddressFrame(hi, lo, m));
    }
    range[slot * 2] = begin;
    range[slot * 2 + 1] = seqs.length - begin;
  };

  const { stackStart, stackLocs, weight } = samples;
  let total = 0;
  const dropped = opts.ignoreDropFrames ? { test: null } : DropTest.of(raw, () => frames.names());
  const dropTest = dropped.test;
  // Labels, per sample: whether it is kept, and its group-by root frame (null: none of either).
  const filtered = labelKeepMask(raw, opts.labelFilters);
  const keep = filtered.keep;
  const grouped =
    opts.groupBy === undefined
      ? null
      : groupFrames(raw, opts.groupBy, (name) => frames.intern(name, -1), keep);
  const group = grouped === null ? null : grouped.frame;
  const first = group === null ? 0 : 1;
  let droppedSamples = 0;
  let droppedWeight = 0;
  // The function table (functionTableOf's) as the stacks go by, while each is in cache: the
  // stacks' frames are read once more than this otherwise (~0.3 s for 50M frames). Kept only when
  // every weight is an integer, whose sums are exact in any order (a table summed by sample then
  // equals one summed by unique stack, to the bit).
  let table = new TableBuilder();

  /** Names a location slot (its range of frame ids in `seqs`) if it is not yet. */
  const resolveSlot = (loc: number, slot: number, caller: boolean): void => {
    if (range[slot * 2] >= 0) return;
    if (flat) resolveFlat(loc);
    else resolve(loc, caller);
    one[slot] = range[slot * 2 + 1] === 1 ? seqs.data[range[slot * 2]] : SEVERAL_FRAMES;
  };

  /**
   * Names every location slot the kept samples use, in address order: a symbolizer's lookups then
   * walk its tables (ELF symbols, DWARF functions and line rows) in order, each near the one before,
   * instead of one cache miss per step of every binary search (~1 µs a DWARF lookup in sample
   * order). Returns each slot's uses (2·loc as a leaf, 2·loc + 1 as a caller).
   */
  function resolveInAddressOrder(): Uint32Array {
    const uses = new Uint32Array(locs.count * 2);
    for (let s = 0; s < samples.count; s++) {
      const a = stackStart[s];
      const b = stackStart[s + 1];
      if (b <= a || (keep !== null && keep[s] === 0)) continue;
      uses[stackLocs[a] * 2]++;
      for (let p = a + 1; p < b; p++) uses[stackLocs[p] * 2 + 1]++;
    }
    const order: number[] = [];
    for (let loc = 0; loc < locs.count; loc++)
      if ((uses[loc * 2] !== 0 || uses[loc * 2 + 1] !== 0) && locs.hasAddr[loc]) order.push(loc);
    order.sort((x, y) => locs.addrHi[x] - locs.addrHi[y] || locs.addrLo[x] - locs.addrLo[y]);
    for (const loc of order) {
      if (uses[loc * 2 + 1] !== 0) resolveSlot(loc, loc * 2 + 1, true);
      if (uses[loc * 2] !== 0) resolveSlot(loc, loc * 2, false);
    }
    return uses;
  }

  // With names from symbols (a symbolizer, or those embedded in a report: frames then come in the
  // same order, so a report numbers them as the app did).
  const inAddressOrder = (symbolizer || embedded) && !flat && lines === undefined;
  const uses = inAddressOrder ? resolveInAddressOrder() : null;

  const sampleStacks = opts.sampleStacks ?? null;
  sampleStacks?.fill(-1);
  if (
    opts.consume &&
    sampleStacks === null &&
    !flat &&
    lines === undefined &&
    dropTest === null &&
    keep === null &&
    group === null
  ) {
    const folded = foldInPlace();
    if (folded !== null) return folded;
    table = new TableBuilder(); // it saw the stacks before the one that could not be folded so
  }

  /**
   * The fold over the raw stacks (FoldOptions.consume, fold-in-place.ts), when every slot the
   * stacks use has one frame of its own; null (the raw stacks as they were) when not.
   */
  function foldInPlace(): FoldedProfile | null {
    // Per frame, the location it is as a leaf, and as a caller.
    const locOf = { leaf: unclaimed(frames.count), caller: unclaimed(frames.count) };
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
      samples,
      {
        one,
        claim: (loc, slot, caller) => {
          resolveSlot(loc, slot, caller);
          return claim(slot);
        },
        locOfFrame: () => locOf,
        frameCount: () => frames.count,
      },
      table,
    );
    if (r === null) return null;
    const { total, sorted, ...stacks } = r;
    const folded = finishFold(stacks, total);
    rememberSortedStacks(folded.stacks, sorted);
    return folded;
  }

  // Stacks are written straight into the table's buffer, root first (a repeated one is left there
  // to be overwritten): `od` is that buffer, grown as the stacks so far predict (inlined frames make
  // stacks longer than their PCs: grown to the size predicted for all of them, not by doublings,
  // each a copy of everything so far). Invariant while a stack is written: room for one frame per
  // location still to come.
  const stacks = new StackTable(flat ? samples.count * 3 + 16 : samples.stackLocs.length + 16);
  const out = stacks.frames;
  let od = out.data;
  const room = (end: number, more: number, s: number): void => {
    if (end + more <= od.length) return;
    const n = new Uint32Array(Math.ceil((end / (s + 1)) * samples.count * 1.05) + more + 1024);
    n.set(od.subarray(0, end));
    out.data = od = n;
  };

  /**
   * Writes the frames of a location slot at `end` (naming it first if needed), with room left
   * for `after` more locations; returns the new end.
   */
  const append = (
    loc: number,
    slot: number,
    caller: boolean,
    end: number,
    after: number,
    s: number,
  ): number => {
    resolveSlot(loc, slot, caller);
    const rs = range[slot * 2];
    const rl = range[slot * 2 + 1];
    room(end, rl + after, s);
    od.set(seqs.data.subarray(rs, rs + rl), end);
    return end + rl;
  };

  // With the slots named already, the stacks' buffer is made the size they will take (inline
  // chains make them longer than their PCs), so that it never grows: a copy of everything so far,
  // and memory faulted in twice.
  if (uses !== null) {
    let kept = 0;
    for (let s = 0; s < samples.count; s++)
      if (stackStart[s + 1] > stackStart[s] && (keep === null || keep[s] !== 0)) kept++;
    let n = kept * first;
    for (let k = 0; k < uses.length; k++) if (uses[k] !== 0) n += uses[k] * Math.max(1, range[2 * k + 1]);
    if (n > od.length) out.data = od = new Uint32Array(n);
  }

  for (let s = 0; s < samples.count; s++) {
    const a = stackStart[s];
    const b = stackStart[s + 1];
    if (b <= a) continue;
    if (keep !== null && keep[s] === 0) {
      droppedSamples++;
      droppedWeight += weight[s];
      continue;
    }
    const base = out.length;
    let end = base;
    room(end, b - a + first, s);
    if (group !== null) od[end++] = group[s];
    let h: number;
    if (flat) {
      for (let p = a; p < b; p++) end = append(stackLocs[p], stackLocs[p] * 2, false, end, b - p - 1, s);
      h = fnvOf(od, base, end);
    } else {
      h = fnvOf(od, base, end); // the group-by frame, if any
      // Root first (leaf-first stacks walked backwards) by expandStack, which stops at a location
      // not named yet or when the buffer needs room: that one is named and the buffer grown here,
      // and it goes on from there.
      let top = b - 1;
      for (;;) {
        const e = expandStack(stackLocs, a, top, one, range, seqs.data, od, end, h);
        if (e >= 0) {
          end = e;
          h = expanded[0];
          break;
        }
        h = expanded[0];
        top = expanded[1];
        end = expanded[2];
        const loc = stackLocs[top];
        const slot = top > a ? loc * 2 + 1 : loc * 2;
        resolveSlot(loc, slot, top > a);
        room(end, range[slot * 2 + 1] + (top - a), s);
      }
    }
    if (dropTest !== null) {
      const cut = dropTest.cut(od, base + first, end);
      if (cut < end) {
        end = cut;
        h = fnvOf(od, base, end);
      }
    }
    const w = weight[s];
    table.add(od, base, end, w, s, frames.count);
    const id = stacks.addLast(end - base, w, h);
    if (sampleStacks !== null) sampleStacks[s] = id;
    total += w;
  }

  return finishFold(
    {
      count: stacks.count,
      start: stacks.start.finish(),
      frames: trimmed(stacks.frames.data, stacks.frames.length),
      weight: stacks.weight.finish(),
    },
    total,
  );

  /** The folded profile of these stacks: its metadata, frames and function table. */
  function finishFold(folded: FoldedProfile['stacks'], total: number): FoldedProfile {
    const meta = foldedMeta(raw, opts.fileName, total);
    if (dropped.warning !== undefined) meta.warnings.push({ message: dropped.warning });
    for (const message of filtered.warnings) meta.warnings.push({ message });
    if (grouped?.warning !== undefined) meta.warnings.push({ message: grouped.warning });
    if (keep !== null && opts.labelFilters) {
      meta.labelFilters = opts.labelFilters.map((f) =>
        'values' in f ? { ...f, values: f.values.slice() } : { ...f },
      );
      meta.labelDropped = { samples: droppedSamples, weight: droppedWeight };
    }
    if (opts.groupBy !== undefined) meta.groupBy = opts.groupBy;
    const profile: FoldedProfile = { meta, ...frames.finish(), stacks: folded };
    table.finish(profile);
    return profile;
  }
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
