// The frames of a profile as the fold names them (FrameNaming): interned by (name, module), each
// with its kind and fields (types.ts FrameTable), modules numbered by mapping path in MappingIndex
// order. foldProfile and the gperftools raw preview (gperftools-preview.ts) both name frames
// through this, so a preview shows exactly the names and modules the fold will.

import { StringInterner } from '../address.ts';
import { isKernelMapping } from '../symbols/kallsyms.ts';
import { MappingIndex, OFFSET } from '../symbols/modules.ts';
import { basename, shortFunctionName } from '../text/names.ts';
import {
  FrameKind,
  type FrameTable,
  type Granularity,
  type Mapping,
  type Symbolizer,
  Unnamed,
} from '../types.ts';
import { FrameRows } from './frames.ts';

/**
 * How function names are shown: `short` as pprof and the Firefox Profiler show C++/Rust names
 * (shortFunctionName: no template arguments, parameters or return type; frames whose short names
 * are equal merge, as in pprof), or `full` as the demangler (or the profile) gives them.
 */
export type FrameNames = 'short' | 'full';

export interface FrameNamingOptions {
  /** Default 'full' (the core API's compatibility; the pipeline and the CLI default to 'short'). */
  names?: FrameNames;
  /**
   * What a frame is, as pprof's -functions / -lines / -addresses: a function (inlined ones their
   * own), a function at a source line (`function file:line`), or an address (`function+0xOFFSET`).
   * Default 'functions'.
   */
  granularity?: Granularity;
  /**
   * Code no symbol names: one frame per address (`MODULE+0xOFFSET`) rather than one per module
   * (`[MODULE]`, as pprof names it). Always so at address granularity; outside every mapping it is
   * `0x…` either way. Default: per address when no granularity is given (the core API's
   * compatibility), else per module (the pipeline's and the CLI's default).
   */
  unnamedPerAddress?: boolean;
  /** Tells unnamed code in a module with a symbol file from code in one without (frames.unnamed). */
  symbolizer?: Symbolizer;
}

/** Whether code no symbol names is one frame per address at these options (else one per module). */
export function perAddress(opts: Pick<FrameNamingOptions, 'granularity' | 'unnamedPerAddress'>): boolean {
  return opts.granularity === 'addresses' || (opts.unnamedPerAddress ?? opts.granularity === undefined);
}

/** A name FrameNaming.exactAddressFrame could give: `MODULE+0xOFFSET` or `0x…`. */
const ADDRESS_NAME = /(^|\+)0x[0-9a-f]+$/;

/**
 * Frame ids by a key below 2^53 (an address frame's offset): open addressing over typed arrays. A
 * DCPI profile's fold looks up millions of addresses, each its own frame: a Map of them cost
 * ~0.6 µs an address and tens of bytes of garbage-collected heap each.
 */
export class IdsByKey {
  private keys: Float64Array;
  private values: Int32Array;
  private n = 0;
  /** The last key `get` looked up and its slot: `set` of that key probes no further (a cache miss). */
  private lastKey = -1;
  private lastSlot = -1;

  constructor(capacity = 1024) {
    this.keys = new Float64Array(capacity);
    this.values = new Int32Array(capacity).fill(-1);
  }

  /** The slot of `key`: where it is, or the empty slot where it would go. */
  private slot(key: number): number {
    const mask = this.values.length - 1;
    // murmur3's finalizer of the low half, the high half mixed in
    let h = (key >>> 0) ^ Math.imul((key / 4294967296) >>> 0, 0x9e3779b1);
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    let i = (h ^ (h >>> 16)) & mask;
    while (this.values[i] !== -1 && this.keys[i] !== key) i = (i + 1) & mask;
    return i;
  }

  /** The id kept for `key`, or −1. */
  get(key: number): number {
    this.lastKey = key;
    this.lastSlot = this.slot(key);
    return this.values[this.lastSlot];
  }

  /** Keeps `id` (≥ 0) for `key`. */
  set(key: number, id: number): void {
    const i = key === this.lastKey ? this.lastSlot : this.slot(key);
    this.lastKey = -1;
    if (this.values[i] === -1) this.n++;
    this.keys[i] = key;
    this.values[i] = id;
    if (this.n * 2 > this.values.length) this.grow();
  }

  /** The ids kept, in no order. */
  *ids(): Generator<number> {
    for (const id of this.values) if (id !== -1) yield id;
  }

  private grow(): void {
    const { keys, values } = this;
    this.keys = new Float64Array(keys.length * 2);
    this.values = new Int32Array(values.length * 2).fill(-1);
    for (let i = 0; i < values.length; i++) {
      if (values[i] === -1) continue;
      const j = this.slot(keys[i]);
      this.keys[j] = keys[i];
      this.values[j] = values[i];
    }
  }
}

/** The frames of a profile, named and interned as the fold names them. */
export class FrameNaming {
  readonly index: MappingIndex;
  readonly granularity: Granularity;
  private readonly modules = new StringInterner();
  private readonly mappingModule: number[];
  private readonly rows: FrameRows;
  /** Per module (+1), name → frame id. */
  private readonly ids: Map<string, number>[] = [];
  /** Per module (+1), an address frame's offset in the module's file (outside all: its address) → id. */
  private readonly idsByOffset: IdsByKey[] = [];
  /** Whether address frames are in `ids` too (once a name was interned that one could have). */
  private addressesByName = false;
  /** Whether newAddressFrame made frames that are in no `idsByOffset` table. */
  private unkeptAddresses = false;
  /** Per mapping, its moduleFrame once made. */
  private readonly moduleFrames: number[] = [];
  /** Full name → short name, with short names. */
  private readonly shortOf: Map<string, string> | null;
  private readonly perModule: boolean;
  private readonly symbolizer: Symbolizer | undefined;

  constructor(mappings: readonly Mapping[], opts: FrameNamingOptions = {}) {
    this.index = new MappingIndex(mappings);
    this.mappingModule = this.index.mappings.map((m) => this.modules.intern(m.path));
    const short = opts.names === 'short';
    this.shortOf = short ? new Map() : null;
    // An address frame of unnamed code is named from its module's base name when asked (frames.ts).
    const moduleNames = this.modules.strings.map(basename);
    this.rows = new FrameRows({ fullNames: short, capacity: 1024, moduleNames });
    this.granularity = opts.granularity ?? 'functions';
    this.perModule = !perAddress(opts);
    this.symbolizer = opts.symbolizer;
  }

  get count(): number {
    return this.rows.count;
  }

  /** The name of frame f (interned so far). */
  name(f: number): string {
    return this.rows.rowName(f);
  }

  /** Frame f's function (its name, or the function a Line or Address frame is in), else its name. */
  functionName(f: number): string {
    const fn = this.rows.funcOf(f);
    return fn >= 0 ? this.rows.string(fn) : this.rows.rowName(f);
  }

  /** The module of mapping `m` (MappingIndex.find's answer): -1 outside every mapping. */
  moduleOf(m: number): number {
    return m < 0 ? -1 : this.mappingModule[m];
  }

  /** The frame named exactly `name` in `module` (made, of kind `kind`, if there is none). */
  intern(name: string, module: number, kind: FrameKind = FrameKind.Function, full?: string): number {
    // A name an address frame could have: address frames must be found by their names from now on.
    if (!this.addressesByName && ADDRESS_NAME.test(name)) this.nameAddresses();
    const known = this.found(name, module);
    if (known === undefined)
      return this.keep(name, module, this.rows.add(name, module, kind, Unnamed.Named, -1, -1, 0, 0, 0, full));
    // Inlined somewhere, a function of its own elsewhere: one frame, a function.
    if (kind === FrameKind.Function && this.rows.kindOf(known) === FrameKind.Inlined)
      this.rows.setKind(known, FrameKind.Function);
    return known;
  }

  /** The frame named `name` in `module`, if there is one. */
  private found(name: string, module: number): number | undefined {
    return this.ids[module + 1]?.get(name);
  }

  /** Frame `id`, just made, is the one named `name` in `module`. */
  private keep(name: string, module: number, id: number): number {
    (this.ids[module + 1] ??= new Map()).set(name, id);
    return id;
  }

  /**
   * Puts the address frames made so far (by offset) in the maps by name, where every later one
   * goes too: a frame of another kind may have the same name (a report's profile names addresses).
   */
  private nameAddresses(): void {
    this.addressesByName = true;
    const byName = (id: number) => {
      const module = this.rows.moduleOf(id);
      (this.ids[module + 1] ??= new Map()).set(this.rows.rowName(id), id);
    };
    for (const byOffset of this.idsByOffset) for (const id of byOffset?.ids() ?? []) byName(id);
    // newAddressFrame's, in no table by offset: every address frame that stores no name (those
    // in the tables again: set to the same id)
    if (this.unkeptAddresses)
      for (let id = 0; id < this.rows.count; id++)
        if (this.rows.kindOf(id) === FrameKind.Address && !this.rows.named(id)) byName(id);
  }

  /** A function's name as frames show it: shortened with short names. */
  shown(name: string): string {
    const shortOf = this.shortOf;
    if (shortOf === null) return name;
    let s = shortOf.get(name);
    if (s === undefined) {
      s = shortFunctionName(name);
      shortOf.set(name, s);
    }
    return s;
  }

  /** The frame of a function name (from symbols or the profile): a function, or one inlined into its caller. */
  functionFrame(name: string, module: number, kind: FrameKind = FrameKind.Function): number {
    // A function named by the empty string has no name, as pprof shows it (and as every writer
    // can write it back: profile.proto has no empty name).
    if (name === '') return this.intern('[unknown]', module, kind, '[unknown]');
    return this.intern(this.shown(name), module, kind, name);
  }

  /** The frame of a function at a source line: `function file:line`. */
  lineFrame(fn: string, file: string, line: number, module: number): number {
    const shown = this.shown(fn);
    const name = `${shown} ${file}:${line}`;
    const known = this.found(name, module);
    if (known !== undefined) return known;
    const [func, at] = [this.rows.intern(shown), this.rows.intern(file)];
    return this.keep(
      name,
      module,
      this.rows.add(name, module, FrameKind.Line, Unnamed.Named, func, at, line, 0, 0, fn),
    );
  }

  /** The frame of an address `offset` bytes into the function `fn`: `function+0xOFFSET`. */
  addressInFunction(fn: string, offset: number, hi: number, lo: number, m: number): number {
    const shown = this.shown(fn);
    const name = `${shown}+0x${offset.toString(16)}`;
    if (!this.addressesByName) this.nameAddresses(); // the name is one an address frame could have
    const module = this.moduleOf(m);
    const known = this.found(name, module);
    if (known !== undefined) return known;
    const func = this.rows.intern(shown);
    this.index.offsetIn(m, hi, lo);
    const id = this.rows.add(
      name,
      module,
      FrameKind.Address,
      Unnamed.Named,
      func,
      -1,
      0,
      OFFSET[0],
      OFFSET[1],
      fn,
    );
    return this.keep(name, module, id);
  }

  /**
   * The frame of an address that has no symbol, as looked up (callers' return addresses already
   * moved to PC − 1), in the mapping `m` that holds it: `MODULE+0xOFFSET` per address, or
   * `[MODULE]` per module (FrameNamingOptions.unnamedPerAddress); `0x…` outside all.
   */
  addressFrame(hi: number, lo: number, m = this.index.find(hi, lo)): number {
    if (!this.perModule || m < 0) return this.exactAddressFrame(hi, lo, m);
    // `[module]`, as pprof names it (`[[vdso]]` too); the kernel's code `[kernel.kallsyms]`, as perf does
    const base = this.index.names[m];
    const name = base.startsWith('[') && isKernelMapping(this.index.mappings[m]) ? base : `[${base}]`;
    const module = this.moduleOf(m);
    const known = this.found(name, module);
    if (known !== undefined) return known;
    return this.keep(
      name,
      module,
      this.rows.add(name, module, FrameKind.Module, this.unnamedKind(hi, lo, m)),
    );
  }

  /** `MODULE+0xOFFSET` (or `0x…`) whatever the granularity: DCPI's address frames. */
  exactAddressFrame(hi: number, lo: number, m = this.index.find(hi, lo)): number {
    const module = this.moduleOf(m);
    // Found by the offset in the module's file (by the address outside all): within a module the
    // name is a function of it, so it is never made here, nor hashed, nor stored (a DCPI profile of
    // 400 MB has 8.75M address frames: ~90 bytes a name in the worker, and a copy in the page).
    const key = this.addressesByName ? -1 : this.index.offsetKey(m, hi, lo);
    const byOffset = key < 0 ? null : (this.idsByOffset[module + 1] ??= new IdsByKey());
    // By name: made once, for the lookup.
    const named = byOffset === null ? this.index.nameIn(m, hi, lo) : null;
    const known = named === null ? byOffset!.get(key) : (this.found(named, module) ?? -1);
    if (known >= 0) return known;
    const why = this.unnamedKind(hi, lo, m);
    this.index.offsetIn(m, hi, lo);
    // Found by its offset, the frame stores no name: it is named from the module and offset
    // when asked (frames.ts frameName), as nameIn names it.
    const id = this.rows.add(named, module, FrameKind.Address, why, -1, -1, 0, OFFSET[0], OFFSET[1]);
    if (named === null) {
      byOffset!.set(key, id);
      return id;
    }
    return this.keep(named, module, id);
  }

  /**
   * exactAddressFrame of an address no frame was made for (a flat profile's, whose addresses are
   * distinct): made without a lookup, and kept in no table by offset (a 400 MB DCPI profile's 8.75M
   * would take a table of 2^25 slots, 400 MB); `unkeptAddresses` says nameAddresses must find them.
   */
  newAddressFrame(hi: number, lo: number, m = this.index.find(hi, lo)): number {
    const key = this.addressesByName ? -1 : this.index.offsetKey(m, hi, lo);
    if (key < 0) return this.exactAddressFrame(hi, lo, m);
    const why = this.unnamedKind(hi, lo, m);
    this.index.offsetIn(m, hi, lo);
    this.unkeptAddresses = true;
    return this.rows.add(null, this.moduleOf(m), FrameKind.Address, why, -1, -1, 0, OFFSET[0], OFFSET[1]);
  }

  /** Room for `n` frames in all, made at once (a flat profile's: about one per address). */
  reserve(n: number): void {
    this.rows.reserve(n);
  }

  /** A flat (DCPI) profile's image level: the mapping's file as one frame. */
  moduleFrame(m: number): number {
    // asked once per address (8.75M at 400 MB): interned once per mapping
    let f = this.moduleFrames[m];
    if (f === undefined)
      this.moduleFrames[m] = f = this.intern(this.index.names[m], this.moduleOf(m), FrameKind.Module);
    return f;
  }

  private unnamedKind(hi: number, lo: number, m: number): Unnamed {
    if (m < 0) return Unnamed.NoModule;
    const described = this.symbolizer?.hasSymbolFile?.(hi, lo) ?? this.index.mappings[m].symbolFile === true;
    return described ? Unnamed.OutsideSymbols : Unnamed.NoSymbolFile;
  }

  /** The frame table and module list of a FoldedProfile. */
  finish(): { frames: FrameTable; modules: string[] } {
    const full = this.rows.fullNames;
    const fullOf = this.symbolizer?.fullName?.bind(this.symbolizer);
    if (full !== null) {
      // Each frame's function's full name where the short one cut something: names the symbolizer
      // shortened itself (from the mangled name) demangled now, once per frame with a function.
      for (let f = 0; f < this.rows.count; f++) {
        const k = this.rows.kindOf(f);
        const func = this.rows.funcOf(f);
        if (k !== FrameKind.Function && k !== FrameKind.Inlined && func < 0) continue;
        const fn = func >= 0 ? this.rows.string(func) : this.rows.rowName(f);
        const given = full[f] ?? fn;
        const real = fullOf?.(given) ?? given;
        full[f] = real === fn ? undefined : real;
      }
    }
    return { frames: this.rows.finish(), modules: this.modules.strings };
  }
}
