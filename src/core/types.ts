// The data contract of the core: what importers produce (RawProfile), what folding produces
// (FoldedProfile), and how problems are reported (ProfileWarning, ProfileError).
// Pure TypeScript: no DOM, no React. Columnar (typed arrays), never an object per sample.

export type FormatId =
  | 'gperftools'
  | 'folded'
  | 'dcpi'
  | 'pprof-raw'
  | 'pprof'
  | 'heap'
  | 'perf-script'
  /** Linux `perf record` output (formats/perfdata.ts). */
  | 'perf-data'
  | 'folded-diff'
  /** A Flamelens snapshot (formats/snapshot.ts): a parsed profile of any format, as it was. */
  | 'snapshot';
export type ByteOrder = 'little' | 'big';

/**
 * What a frame is (pprof's -functions, -lines, -addresses): a function (inlined ones their own
 * frames), a function at a source line, or an address. The view's (`#gran=`) and the fold's.
 */
export type Granularity = 'functions' | 'lines' | 'addresses';

/** A problem that did not stop parsing. `offset` is a byte offset into the file, `line` 1-based. */
export interface ProfileWarning {
  message: string;
  offset?: number;
  line?: number;
}

/** A problem that stopped parsing with nothing usable. The message is for users. */
export class ProfileError extends Error {
  readonly format: FormatId | 'unknown';
  readonly offset?: number;
  readonly line?: number;
  constructor(message: string, format: FormatId | 'unknown', where: { offset?: number; line?: number } = {}) {
    super(message);
    this.name = 'ProfileError';
    this.format = format;
    if (where.offset !== undefined) this.offset = where.offset;
    if (where.line !== undefined) this.line = where.line;
  }
  /** The message with its location, as shown in the UI and printed by the CLI. */
  describe(): string {
    if (this.line !== undefined && this.offset !== undefined)
      return `${this.message} (at line ${this.line}, byte ${this.offset})`;
    if (this.offset !== undefined) return `${this.message} (at byte ${this.offset})`;
    if (this.line !== undefined) return `${this.message} (at line ${this.line})`;
    return this.message;
  }
}

/** An executable mapping from the profile's mapped-objects text. Addresses are exact (bigint). */
export interface Mapping {
  start: bigint;
  end: bigint;
  offset: bigint;
  path: string;
  buildId?: string;
  /**
   * The addresses in this range are the image's own link-time virtual addresses (DCPI:
   * tstart + offset), not run-time addresses of a file mapped at `start` (gperftools): symbols
   * are looked up at the address itself.
   */
  linkTimeAddresses?: boolean;
  /**
   * A symbol file described this mapping when the profile's names were written in (an HTML
   * report's profile, model/resolve.ts): its code no symbol names is outside the symbols
   * (Unnamed.OutsideSymbols), as the symbolizer said, though the report has no symbol file.
   */
  symbolFile?: boolean;
}

/**
 * A growable table of unique 64-bit addresses, stored as two uint32 halves.
 * Ids are dense, in first-seen order. Addresses never pass through a JS number above 2^53.
 */
export interface AddressTable {
  count: number;
  hi: Uint32Array; // length >= count
  lo: Uint32Array;
}

/**
 * What an importer returns: samples as stacks of locations, leaf first (as the files store them).
 *
 * A location is either an address (gperftools, pprof-raw, dcpi) or a name (folded text), or
 * both (pprof-raw carries names for addresses in its symbol section).
 */
export interface RawProfile {
  format: FormatId;
  meta: RawMeta;
  /** Unique locations. `locName[i]` is -1 when the location has no name of its own. */
  locations: {
    count: number;
    addrHi: Uint32Array;
    addrLo: Uint32Array;
    /** 1 where the location has an address, 0 for name-only locations. */
    hasAddr: Uint8Array;
    /** Index into `strings`, or -1. */
    locName: Int32Array;
  };
  strings: string[];
  /** Stack i is `stackLocs[stackStart[i] .. stackStart[i+1])`, leaf first. */
  samples: {
    count: number;
    stackStart: Uint32Array; // length count + 1
    stackLocs: Uint32Array;
    /** The value the fold sums by default: `values[defaultSampleType]` when there are several. */
    weight: Float64Array;
    /** One column per entry of `sampleTypes`, when the format has more than one value per sample. */
    values?: Float64Array[];
    /**
     * When each sample was taken, where the format records it (perf.data): nanoseconds since the
     * earliest sample of the profile (so 0 for it), exact for recordings shorter than 104 days
     * (2^53 ns); NaN for a sample without a time stamp. Samples are in the file's order, which
     * need not be time order (perf writes each CPU's buffer in turn).
     */
    time?: Float64Array;
  };
  /** What each value column is; absent means one column of sample counts (SAMPLES_COUNT). */
  sampleTypes?: SampleType[];
  /** The index into `sampleTypes` shown by default (pprof's default_sample_type, else the last). */
  defaultSampleType?: number;
  /**
   * Value columns 0 and 1 are a baseline and a comparison of the same stacks (difffolded.pl's
   * two-count folded text): the profile opens as a comparison of the two.
   */
  diffPair?: boolean;
  /**
   * Per-sample labels (pprof `Label`s; `perf script`'s comm/pid/tid), one column per key: a string
   * label holds an index into `strings` per sample (-1 where the sample lacks it), a numeric one a
   * number (NaN where absent) and maybe its unit.
   */
  labels?: SampleLabel[];
  /** Frames locations name themselves, with file and line; absent when no location does. */
  lines?: LocationLines;
  /**
   * True when caller addresses are return addresses that must be looked up at PC − 1
   * (gperftools). False where the writer already adjusted them (pprof --raw) or for text formats.
   */
  adjustCallers: boolean;
  /**
   * True when the leaf's address is a return address too, looked up at PC − 1 as the callers'
   * (gperftools heap profiles: every frame is a call's return address, the leaf the call to the
   * allocator; pprof's legacy heap reader subtracts 1 from every address). Absent or false: the
   * leaf is a sampled PC, looked up as it is.
   */
  adjustLeaves?: boolean;
  /** Symbols an input carried itself (pprof --raw `--- symbol`): address (hex, no 0x) → names, outermost first. */
  embeddedSymbols?: Map<string, string[]>;
  /**
   * The same addresses' frames with their files and lines (`Symbolizer.lookupFrames`'s answers): an
   * HTML report's profile at line granularity (model/resolve.ts), so it folds to the same frames.
   */
  embeddedLines?: Map<string, SymbolFrame[]>;
  /** How far each address is into its innermost symbol (`offsetInSymbol`): a report at address granularity. */
  embeddedOffsets?: Map<string, number>;
  /** Frames that are flat, i.e. samples have no call chain (DCPI). */
  flat?: boolean;
  warnings: ProfileWarning[];
}

/**
 * A named kind of value a sample carries, as pprof's ValueType: `samples`/`count`,
 * `cpu`/`nanoseconds`, `inuse_space`/`bytes`, `alloc_objects`/`count`, `cycles`/`events`…
 */
export interface SampleType {
  type: string;
  unit: string;
}

/** The sample type of a profile that only counts samples (gperftools CPU, DCPI, folded). */
export const SAMPLES_COUNT: SampleType = { type: 'samples', unit: 'count' };

/**
 * Frames a location names itself (pprof `Line`s, `pprof --raw` inline chains): location i's frames
 * are `frame[start[i] .. start[i+1])`, outermost (the real function) first, innermost inlined last.
 * `name` and `file` index `RawProfile.strings` (`file` -1 when unknown); `line` 0 when unknown.
 */
export interface LocationLines {
  start: Uint32Array; // length locations.count + 1
  name: Int32Array;
  file: Int32Array;
  line: Uint32Array;
}

export type SampleLabel =
  | { key: string; kind: 'string'; value: Int32Array }
  | { key: string; kind: 'number'; value: Float64Array; unit?: string };

/**
 * Keeps (`focus`) or drops (`ignore`) the samples whose label `key` matches: one of `values`
 * (exact), or a number in [min, max] (inclusive; an absent bound is open). A sample without the
 * key fails a focus and passes an ignore, as pprof's -tagfocus/-tagignore (docs/labels.md).
 */
export type LabelFilter = LabelValuesFilter | LabelRangeFilter;
export interface LabelValuesFilter {
  key: string;
  op: 'focus' | 'ignore';
  values: string[];
}
export interface LabelRangeFilter {
  key: string;
  op: 'focus' | 'ignore';
  min?: number;
  max?: number;
}

export interface RawMeta {
  wordSize?: 32 | 64;
  byteOrder?: ByteOrder;
  /**
   * Microseconds per unit of `samples.weight`; 0 when unknown (counts only, no time units). For
   * sample counts this is the sampling period. pprof: a count column with a time period gives the
   * period (cpu/nanoseconds 10000000 → 10000); a column in a time unit gives that unit (0.001 for
   * cpu/nanoseconds), so total × periodUs is time either way (`period` keeps the real one).
   */
  periodUs: number;
  mappings: Mapping[];
  /** Format-specific header lines to show as they are (DCPI header, build=…). */
  headerLines?: { key: string; value: string; known: boolean }[];
  /** Extra key/value facts shown in the metadata panel. */
  extra?: Record<string, string>;
  /**
   * pprof's drop_frames / keep_frames: regular expressions over whole function names (anchored
   * `^(…)$`). As pprof's `Profile.Prune`: walking a stack from the root, past the first frame that
   * does not match, the first frame that matches dropFrames and not keepFrames is dropped with
   * everything below it (towards the leaf). Heap profiles' allocator frames use this too.
   */
  dropFrames?: string;
  keepFrames?: string;
  /** Sampling period as pprof states it (value and type), for formats that have one. */
  period?: { value: number; type: SampleType };
  /** Profile duration and start, in nanoseconds, where the format records them. */
  durationNs?: number;
  timeNs?: number;
  comments?: string[];
}

/**
 * Unique root-first stacks of frame ids with summed weights, a frame table and metadata.
 * This is what the worker transfers to the page.
 */
export interface FoldedProfile {
  meta: FoldedMeta;
  frames: FrameTable;
  modules: string[];
  stacks: {
    count: number;
    start: Uint32Array; // length count + 1
    frames: Uint32Array; // root first
    weight: Float64Array;
  };
}

/**
 * The frames of a FoldedProfile, columnar: per frame its name (its identity), module, kind and the
 * fields the kind has. Views draw labels, tooltips and cells from the kind and the fields
 * (text/frame-text.ts), never by taking the name apart; model/frames.ts builds and copies tables.
 */
export interface FrameTable {
  count: number;
  /**
   * The frame's name as stored: null for an address frame of unnamed code whose name is made when
   * asked (`moduleNames`). Read names through text/frame-text.ts `frameName`, never here: the name,
   * e.g. `main`, `main /src/a.c:12` (a line), `main+0x1c` (an address in a function),
   * `libc.so.6+0x2724a`, `[libc.so.6]`, `0x7fff12345`, is the frame's identity and display name;
   * zoom paths, links, transforms, search and a comparison's merge go by it. It ends at the last
   * frame that stores a name: the frames past it store none (`ownNames` pads it).
   */
  ownName: (string | null)[];
  /**
   * Per module, its file's base name, when some frame's `ownName` is null: such a frame (an Address
   * frame) is named `moduleNames[module]+0xOFFSET` from its addrHi/addrLo, `0x…` outside every
   * module. A DCPI profile's millions of address frames cost no string each (~90 bytes a frame in
   * the worker, another copy in the page) until one is shown.
   */
  moduleNames?: string[];
  /** Index into `modules`, or -1 when unknown. */
  module: Int32Array;
  /**
   * With short names (FoldOptions.names 'short'): the first full (demangled) name seen of each
   * frame's function where the short name cut something, for the tooltip; undefined where nothing
   * was cut and for frames with no function. Absent with full names, and when nothing was cut.
   */
  fullName?: (string | undefined)[];
  /** What each frame is (FrameKind). */
  kind: Uint8Array;
  // The fields. A column whose every value is its default is left out (a table of functions has no
  // line, file or address): read them through text/frame-text.ts, or with the default.
  /** Why a frame of unnamed code has no name (Unnamed); Unnamed.Named (0, the default) for the others. */
  unnamed?: Uint8Array;
  /**
   * The function a Line or Address frame is in: an index into `strings`, -1 (the default) for none
   * (unnamed code). A Function or Inlined frame's function is its name (-1 here).
   */
  func?: Int32Array;
  /** A Line frame's source file (the path as DWARF or the profile spells it): index into `strings`; -1. */
  file?: Int32Array;
  /** A Line frame's source line; 0 for other frames. */
  line?: Uint32Array;
  /**
   * An Address frame's address, as uint32 halves: the offset in its module's file (address − start +
   * file offset of its mapping), or the address itself outside every mapping (module −1). Of the
   * addresses one `function+0xOFFSET` frame stands for (overloads that short names merge), the first.
   * 0 for other kinds.
   */
  addrHi?: Uint32Array;
  addrLo?: Uint32Array;
  /** Function and file names the `func` and `file` columns index (interned). */
  strings: string[];
}

/** Metadata as plain data (bigints rendered as hex strings) so it survives postMessage and JSON. */
export interface FoldedMeta {
  fileName: string;
  format: FormatId;
  wordSize?: 32 | 64;
  byteOrder?: ByteOrder;
  periodUs: number;
  totalSamples: number;
  /** totalSamples × periodUs, or undefined when the period is unknown. */
  samplingTimeUs?: number;
  /** The samples are those of this time range only (ns since the profile's first sample). */
  timeRange?: { start: number; end: number };
  mappings: MappingInfo[];
  warnings: ProfileWarning[];
  headerLines?: { key: string; value: string; known: boolean }[];
  extra?: Record<string, string>;
  /** How many mappings were symbolized, by path. */
  symbolized?: string[];
  /** Per mapped file, the weight of the samples in it (self: leaf there; total: any frame there; of: every sample counted). */
  mappingSamples?: { path: string; self: number; total: number; of: number }[];
  /** `mappingSamples` are not counted yet: the worker counts them when asked (WorkerSession.mappingSamples). */
  mappingSamplesPending?: true;
  /** What the weights are (the sample type chosen), and every sample type the profile has. */
  sampleType: SampleType;
  sampleTypes: SampleType[];
  /** pprof's period, duration, start time and comments, where the format has them. */
  period?: { value: number; type: SampleType };
  durationNs?: number;
  timeNs?: number;
  comments?: string[];
  dropFrames?: string;
  keepFrames?: string;
  /** The label filters applied by the fold, in order; absent when none. */
  labelFilters?: LabelFilter[];
  /** The label key whose values are the root frames (`key=value`); absent when not grouped. */
  groupBy?: string;
  /** What the label filters left out: samples and their weight (of the chosen sample type). */
  labelDropped?: { samples: number; weight: number };
}

export interface MappingInfo {
  start: string; // lowercase hex with 0x
  end: string;
  offset: string;
  path: string;
  buildId?: string;
}

/**
 * Resolves an address (already PC − 1 adjusted for callers) to function names, outermost (the
 * real function) first and innermost inlined last; null when it knows nothing of the address.
 */
export interface Symbolizer {
  /**
   * The function names at an address, outermost first (an inline chain with DWARF). The array may
   * be shared by the addresses of one symbol or one inline chain: callers may cache by it and must
   * not modify it. So may `lookupFrames`'s.
   */
  lookup(hi: number, lo: number): string[] | null;
  /**
   * The same frames with source positions where DWARF gives them (as `addr2line -f -i`): frame
   * k's file:line is the call site, inside it, of frame k + 1; the innermost frame's comes from
   * the line table. Names as `lookup` returns them. Absent when the symbolizer has no DWARF.
   */
  lookupFrames?(hi: number, lo: number): SymbolFrame[] | null;
  /**
   * How far the address is into the symbol that holds it (for `function+0xOFFSET` frames at address
   * granularity); null when no symbol holds it.
   */
  offsetInSymbol?(hi: number, lo: number): number | null;
  /**
   * Whether the address lies in a mapping that a symbol file describes (so a null `lookup` means
   * no symbol covers it, not that there are no symbols). Absent: unknown, taken as false.
   */
  hasSymbolFile?(hi: number, lo: number): boolean;
  /**
   * The full (demangled) name of a short name this symbolizer gave (it shortens mangled C++ names
   * without demangling them, with short names); undefined for any other name.
   */
  fullName?(name: string): string | undefined;
}

/** One frame of an inline chain: a function name and, when known, its file and line. */
export interface SymbolFrame {
  name: string;
  /** The path as DWARF spells it (comp dir + dir + file). */
  file?: string;
  line?: number;
}

/**
 * What a frame of a FoldedProfile is (`frames.kind`), as the granularity (pprof's -functions,
 * -lines, -addresses) and the symbols name it.
 */
export const FrameKind = {
  /** A function, or any name a profile gave (folded text's frames, a label's `key=value` root). */
  Function: 0,
  /** A function inlined into its caller (an inner frame of an inline chain: DWARF, pprof Lines). */
  Inlined: 1,
  /** A function at a source line (`function file:line`, line granularity): func, file and line. */
  Line: 2,
  /**
   * One address: in a function (`function+0xOFFSET`, address granularity: func set) or in unnamed
   * code (`libfoo.so+0x1a2b`, `0x…`: func −1, `unnamed` says why); addrHi/addrLo hold it.
   */
  Address: 3,
  /** A module as one frame: its unnamed code (`[libfoo.so]`, `unnamed` says why), or a flat profile's image. */
  Module: 4,
} as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

/**
 * Why a frame stands for unnamed code (`frames.unnamed`): in a module no symbol file describes
 * (`[libfoo.so]`, `libfoo.so+0x…`), in a module whose symbol file has no symbol covering it
 * (pprof's `[python3.11]` for code between symbols, PLT stubs, stripped static functions), or
 * outside every mapping (`0x…`). `Named` (0) for every other frame.
 */
export const Unnamed = {
  Named: 0,
  NoSymbolFile: 1,
  OutsideSymbols: 2,
  NoModule: 3,
} as const;
export type Unnamed = (typeof Unnamed)[keyof typeof Unnamed];

/**
 * What an input of a workspace is. `profile` and `baseline` are the two sides of what is shown
 * (a comparison has both); `binary` (an executable or shared library), `debug` (a separate debug
 * file) and `symbols` (an nm listing) name its frames; `source` is the text of a source file;
 * `bundle` is a `flamelens bundle` archive (a profile with its objects); `folder` a dropped
 * folder's listing, of which only the files chosen for the profile are read.
 */
export type InputRole =
  | 'profile'
  | 'baseline'
  | 'binary'
  | 'debug'
  | 'symbols'
  | 'source'
  | 'bundle'
  | 'folder';

/** The role each given file took (files that could not be used are not listed). */
export interface InputNote {
  name: string;
  role: InputRole;
}
