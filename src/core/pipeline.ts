// The one pipeline from bytes to what the views show:
//
//   parse → symbolize → fold → transform (and invert) → call tree + function table
//
// Each stage is a function of the previous stage's output, so the worker session can keep an
// early result and re-run only the stages after it (symbols dropped later re-fold without
// re-parsing; a transform re-derives from the folded profile). The worker session, the CLI and
// the bench all run these functions; none of them names a format.

import { parseProfile } from './formats/detect';
import type { DroppedFile, ImporterPreview, ParseInProgress } from './formats/importer';
import {
  buildCallTree,
  buildCoarseTree,
  type CallTree,
  type FunctionTable,
  PREVIEW_FRACTION,
  PREVIEW_MIN_FRAMES,
  sortedStackOrder,
} from './model/calltree';
import { type DiffTotals, type DiffWidth, diffTree, functionsIn, mergeSides } from './model/diff';
import { foldProfile } from './model/fold';
import { stacksLent } from './model/fold-in-place';
import { functionsBySelf, functionTableOf } from './model/functions';
import type { FrameNames } from './model/naming';
import { withResolvedNames } from './model/resolve';
import { sampleTypeIndex, withSampleType } from './model/sample-types';
import { applyTransforms, type Transform } from './model/transforms';
import { invertProfile, sandwich } from './model/views';
import type { Demangle } from './symbols/demangle';
import type { ElfFile } from './symbols/elf';
import { withoutInlineLines, withoutInlines } from './symbols/inlines';
import { samplesByMapping } from './symbols/modules';
import { guessPlacement, type Placement, type PlacementHint, placedMappings } from './symbols/placement';
import {
  createSymbolizer,
  readSymbolFiles,
  type SymbolizeReport,
  withRecordedBuildIds,
} from './symbols/symbolize';
import type {
  FoldedMeta,
  FoldedProfile,
  Granularity,
  LabelFilter,
  Mapping,
  ProfileWarning,
  RawProfile,
  Symbolizer,
} from './types';

export interface Timings {
  parseMs: number;
  foldMs: number;
  treeMs: number;
}

/** What the views show of one profile: the graph's profile, its call tree, the function table. */
export interface Analysis {
  profile: FoldedProfile;
  tree: CallTree;
  functions: FunctionTable;
  timings: Timings;
  /** A preview from the importer has no function table yet (zeros); the table says it is coming. */
  functionsPending?: true;
  /** Such a preview drawn from one record in this many, weighed up (ImporterPreview.sampledEvery). */
  sampledEvery?: number;
  /**
   * In a comparison (diff mode): both sides' totals per chain of `tree` (whose own weights are the
   * chosen width), and both sides' function tables; `functions` is the comparison's. `mismatch`:
   * why the two sides' weights do not compare (a CPU profile against a heap profile), when they do not.
   */
  diff?: DiffTotals & { baseMeta: FoldedMeta; mismatch?: string };
}

export type Progress = (phase: string, fraction: number) => void;

const now = () => performance.now();

// ─── parse ──────────────────────────────────────────────────────────────────────────────────

export interface Loaded {
  raw: RawProfile;
  fileName: string;
  parseMs: number;
}

export interface ParseOptions {
  onProgress?: Progress;
  /** The parse begun while the bytes were read (DroppedFile.stream), to finish instead. */
  stream?: ParseInProgress;
  /** The fold's granularity (a preview names frames as the fold will); default 'functions'. */
  granularity?: Granularity;
  /** As FoldSpec.unnamedPerAddress. */
  unnamedPerAddress?: boolean;
  /** As FoldSpec.names (default 'short'): a preview shortens names as the fold will. */
  names?: FrameNames;
  /** A coarse first analysis, from an importer that can preview a large file before parsing it. */
  onPreview?: (a: Analysis) => void;
  /** As ParseProfileOptions.foldSample and withSymbols: how a preview folds what it read. */
  foldSample?: (raw: RawProfile) => FoldedProfile;
  withSymbols?: boolean;
  /**
   * How a file that opens as a comparison (two counts per stack) will be shown: its preview is
   * that comparison of the sample's two columns. Absent: such a file is not previewed (it will
   * not open as a comparison).
   */
  diffView?: ViewSpec & { width: DiffWidth };
}

/** The name of the baseline of a file that is itself a comparison (its first column). */
export const baselineName = (fileName: string): string => `${fileName} (baseline)`;

export function parse(bytes: Uint8Array, fileName: string, opts: ParseOptions = {}): Loaded {
  const t0 = now();
  const { onPreview, onProgress } = opts;
  const raw = parseProfile(bytes, {
    fileName,
    stream: opts.stream,
    granularity: opts.granularity ?? 'functions',
    unnamedPerAddress: opts.unnamedPerAddress ?? false,
    foldSample: opts.foldSample,
    withSymbols: opts.withSymbols,
    names: opts.names ?? 'short',
    onProgress: onProgress && ((f) => onProgress('parse', f)),
    onPreview:
      onPreview &&
      ((p) => {
        const a = previewAnalysis(p, fileName, opts.diffView);
        if (a) onPreview(a);
      }),
  });
  return { raw, fileName, parseMs: now() - t0 };
}

/**
 * The analysis an importer's preview of `fileName` is shown as: its coarse tree, the function table
 * pending; a two-count file's as the comparison it opens as (`diffView`; null without one: such a
 * file is not previewed when it will not open as a comparison).
 */
export function previewAnalysis(
  { profile, baseline, maxDepth, ms, sampledEvery }: ImporterPreview,
  fileName: string,
  diffView?: ParseOptions['diffView'],
): Analysis | null {
  const sampled = sampledEvery !== undefined && { sampledEvery };
  // the sample's counts are estimates: the function table waits for the file's (no rows until then)
  const pending = (p: FoldedProfile): FunctionTable => {
    const n = p.frames.count;
    return { count: n, self: new Float64Array(n), total: new Float64Array(n) };
  };
  const t1 = now();
  if (baseline) {
    if (!diffView) return null;
    baseline.meta.fileName = baselineName(fileName);
    // drawn as the comparison will be (the session's graph: analyzeDiff's of the two sides)
    const g = diffGraph(profile, baseline, diffView);
    const functions = pending(g.profile);
    return {
      profile: g.profile,
      tree: g.tree,
      functions,
      diff: {
        ...g.sides,
        compFunctions: functions,
        baseFunctions: pending(g.profile),
        baseMeta: baseline.meta,
      },
      functionsPending: true,
      ...sampled,
      timings: { parseMs: ms, foldMs: 0, treeMs: now() - t1 },
    };
  }
  const tree = buildCallTree(profile);
  tree.maxDepth = maxDepth;
  return {
    profile,
    tree,
    functions: pending(profile),
    functionsPending: true,
    ...sampled,
    timings: { parseMs: ms, foldMs: 0, treeMs: now() - t1 },
  };
}

// ─── symbolize ──────────────────────────────────────────────────────────────────────────────

/** Which symbol files are in use and what they matched: plain data, shown by the Symbols panel. */
export interface SymbolsState {
  files: string[];
  report: SymbolizeReport;
  /** Files that could not be used (not ELF/nm, malformed). */
  errors: { fileName: string; message: string }[];
  mangled: boolean;
  /**
   * A profile without mappings (no mapped-objects text): each dropped ELF file with where it would
   * go (a guessed load address), and the placements in use (the user's, or fixed files at their
   * link-time addresses). Absent when the profile has mappings.
   */
  placement?: { hints: PlacementHint[]; used: { file: string; base: string }[] };
}

export interface Symbols {
  symbolizer: Symbolizer;
  state: SymbolsState;
  /** Mappings the placed ELF files add to a profile that had none (the fold names frames by them). */
  placed?: Mapping[];
}

/**
 * A symbolizer for the profile's mappings from the dropped files; null without files. A profile
 * with no mappings gets them from `placements` (ELF files at the load addresses the user chose)
 * and from files linked at fixed addresses, which go where they were linked unless placed.
 */
export function symbolize(
  raw: RawProfile,
  files: readonly DroppedFile[],
  opts: {
    demangle?: Demangle;
    mangled: boolean;
    dwarf?: boolean;
    placements?: readonly Placement[];
    /** How the fold will show names (default full): short ones are read from mangled names. */
    names?: FrameNames;
    /** False: only the outermost function of each inline chain (pprof's -noinlines). */
    inlines?: boolean;
  },
): Symbols | null {
  if (files.length === 0) return null;
  const { sources, errors } = readSymbolFiles(files);
  let placement: SymbolsState['placement'];
  let placed: Mapping[] = [];
  if (raw.meta.mappings.length === 0 && raw.locations.hasAddr.includes(1)) {
    placement = { hints: [], used: [] };
    const bytesOf = new Map(files.map((f) => [f.name, f.bytes]));
    const elfs = sources.filter((s): s is ElfFile => s.kind === 'elf' && !s.isDebugFile);
    for (const elf of elfs) {
      const hint = guessPlacement(elf, bytesOf.get(elf.fileName)!, raw);
      placement.hints.push(hint);
      const chosen = opts.placements?.find((p) => p.file === elf.fileName);
      const base = chosen?.base ?? (hint.fixed ? 0n : null);
      if (base === null) continue;
      placement.used.push({ file: elf.fileName, base: `0x${base.toString(16)}` });
      placed = placed.concat(placedMappings(elf, base));
    }
  }
  const r = createSymbolizer(withRecordedBuildIds([...raw.meta.mappings, ...placed], files), sources, {
    demangle: opts.demangle,
    mangled: opts.mangled,
    dwarf: opts.dwarf,
    names: opts.names,
  });
  return {
    symbolizer: opts.inlines === false ? withoutInlines(r.symbolizer) : r.symbolizer,
    state: {
      files: files.map((f) => f.name),
      report: r.report,
      errors,
      mangled: opts.mangled,
      ...(placement && { placement }),
    },
    ...(placed.length > 0 && { placed }),
  };
}

/** The profile with the mappings placed files add (when any). */
function withPlaced(raw: RawProfile, symbols: Symbols | null | undefined): RawProfile {
  const placed = symbols?.placed;
  if (!placed) return raw;
  return { ...raw, meta: { ...raw.meta, mappings: [...raw.meta.mappings, ...placed] } };
}

// ─── fold ───────────────────────────────────────────────────────────────────────────────────

export interface FoldSpec {
  symbols?: Symbols | null;
  /** The sample type to weigh by (name, `type/unit` or index); the profile's default if absent. */
  sampleType?: string;
  /** Keep the frames the profile asks to drop (pprof drop_frames, heap allocator frames). */
  keepDropFrames?: boolean;
  /** Keep or drop samples by label (pprof's -tagfocus/-tagignore); applied in order. */
  labelFilters?: readonly LabelFilter[];
  /** A label key whose values become root frames (`key=value`). */
  groupBy?: string;
  /** What a frame is: a function (inlined ones their own), a source line, or an address. */
  granularity?: Granularity;
  /** C++/Rust names shortened as pprof shows them (default), or full. */
  names?: FrameNames;
  /** False: a profile's own inline frames are left out (pprof's -noinlines; symbolize's too). */
  inlines?: boolean;
  /**
   * Code no symbol names: one frame per address (`MODULE+0xOFFSET`) rather than one per module
   * (`[module]`, the default); always so at address granularity.
   */
  unnamedPerAddress?: boolean;
  /**
   * The caller gives up the parsed stacks' array (no other profile shares it, as a two-count
   * folded file's two sides do): the fold may write over it (FoldOptions.consume).
   */
  consume?: boolean;
  /**
   * When the fold takes the raw stacks over (`consume`), leave the per-file sample counts
   * (`meta.mappingSamples`) to be made later from the folded profile (`samplesByModule`), and say
   * so in `meta.mappingSamplesPending`: they are a pass over every stack, which the first full
   * analysis does not need.
   */
  mappingSamplesLater?: boolean;
  /** Filled with each sample's folded stack (FoldOptions.sampleStacks). */
  sampleStacks?: Int32Array;
}

export function fold(loaded: Loaded, spec: FoldSpec = {}): { profile: FoldedProfile; foldMs: number } {
  const t0 = now();
  const own = spec.inlines === false ? withoutInlineLines(loaded.raw) : loaded.raw;
  const typed = withSampleType(own, sampleTypeIndex(loaded.raw, spec.sampleType));
  const raw = withPlaced(typed, spec.symbols);
  // Counted before the fold, which may take the raw stacks over (they would be made again), or,
  // put off, after it when it did not.
  const early = spec.mappingSamplesLater ? null : samplesByMapping(raw);
  const profile = foldProfile(raw, {
    fileName: loaded.fileName,
    symbolizer: spec.symbols?.symbolizer,
    ignoreDropFrames: spec.keepDropFrames,
    labelFilters: spec.labelFilters,
    groupBy: spec.groupBy,
    names: spec.names ?? 'short',
    granularity: spec.granularity ?? 'functions',
    unnamedPerAddress: spec.unnamedPerAddress ?? false,
    // Only through the parsed profile's own samples object (another sample type's profile has a
    // samples object of its own over the same array: written over there, the parsed one's would
    // be wrong).
    consume: spec.consume === true && raw.samples === loaded.raw.samples,
    ...(spec.sampleStacks && { sampleStacks: spec.sampleStacks }),
  });
  if (spec.symbols) profile.meta.symbolized = spec.symbols.state.report.matched.map((m) => m.mappingPath);
  const held = early ?? (stacksLent(raw.samples) ? null : samplesByMapping(raw));
  if (held === null) profile.meta.mappingSamplesPending = true;
  else if (held.length > 0) profile.meta.mappingSamples = held;
  return { profile, foldMs: now() - t0 };
}

/**
 * The parsed profile with the names its symbols give written into it, as the fold with `spec` names
 * frames (granularity, short or full names): it folds to the same frames with no symbol file (an
 * HTML report's profile). Every sample type and label stays; the symbol files' names are listed in
 * the metadata.
 */
export function resolvedProfile(
  loaded: Loaded,
  spec: Pick<FoldSpec, 'symbols' | 'granularity' | 'names'> = {},
): RawProfile {
  const symbols = spec.symbols;
  if (!symbols) return loaded.raw;
  const out = withResolvedNames(
    loaded.raw,
    symbols.symbolizer,
    spec.granularity ?? 'functions',
    withPlaced(loaded.raw, symbols).meta.mappings,
  );
  const used = symbols.state.report.matched.map((m) => m.elfFile);
  if (used.length > 0)
    out.meta = { ...out.meta, extra: { ...out.meta.extra, 'Symbols from': [...new Set(used)].join(', ') } };
  return out;
}

// ─── transform, trees and tables ────────────────────────────────────────────────────────────

/** How the folded profile is shown: transforms applied in order, then maybe inverted. */
export interface ViewSpec {
  transforms: readonly Transform[];
  inverted: boolean;
}

/**
 * The profile the graph shows and the one the function table describes: the transformed profile
 * (inverted for the graph when asked; the table always counts the functions of the transformed one).
 */
export function derive(base: FoldedProfile, view: ViewSpec): { graph: FoldedProfile; table: FoldedProfile } {
  const table = applyTransforms(base, view.transforms);
  return { graph: view.inverted ? invertProfile(table) : table, table };
}

/**
 * The call tree of `graph` and the function table of `table` (the graph itself, or the profile an
 * inverted graph came from: inversion keeps frame ids, so one table serves both). With `preview`,
 * a large graph first yields a coarse tree (the nodes at least 1/4096 of the total: all a
 * full-width paint can draw), built from the same sorted stack order in tens of ms, while the
 * full tree of millions of nodes is still to come. The preview is given the very table the result
 * returns (no copy): a caller that transfers it with the preview must not send it again.
 */
export function treeAndFunctions(
  graph: FoldedProfile,
  opts: {
    table?: FoldedProfile;
    preview?: (tree: CallTree, functions: FunctionTable) => void;
    /** Memory for the full tree's node frames (buildCallTree's `frameBuffer`). */
    frameBuffer?: ArrayBuffer | null;
  } = {},
): { tree: CallTree; functions: FunctionTable } {
  const wantPreview = opts.preview && graph.stacks.frames.length >= PREVIEW_MIN_FRAMES;
  const functions = functionTableOf(opts.table ?? graph);
  // Sorted here, before the coarse tree goes out with it: the page would sort it otherwise.
  functions.bySelf = functionsBySelf(functions);
  const order = sortedStackOrder(graph);
  // The table itself, not a copy (the worker transfers it with the preview, and the result that
  // follows leaves it out: a 400 MB DCPI profile's is 175 MB).
  if (wantPreview)
    opts.preview!(buildCoarseTree(graph, order, graph.meta.totalSamples * PREVIEW_FRACTION), functions);
  const tree = buildCallTree(graph, order, undefined, opts.frameBuffer);
  return { tree, functions };
}

/**
 * The analysis of a view of a folded profile; `onPreview` gets a coarse one first when it is large.
 * `timings` are the earlier stages' (parse, fold); `frameBuffer`, memory for the tree's frames.
 */
export function analyze(
  base: FoldedProfile,
  view: ViewSpec,
  timings: Omit<Timings, 'treeMs'> = { parseMs: 0, foldMs: 0 },
  onPreview?: (a: Analysis) => void,
  frameBuffer?: ArrayBuffer | null,
): Analysis {
  const t0 = now();
  const { graph, table } = derive(base, view);
  const { tree, functions } = treeAndFunctions(graph, {
    table,
    frameBuffer,
    preview:
      onPreview &&
      ((coarse, fns) =>
        onPreview({
          profile: graph,
          tree: coarse,
          functions: fns,
          timings: { ...timings, treeMs: now() - t0 },
        })),
  });
  return { profile: graph, tree, functions, timings: { ...timings, treeMs: now() - t0 } };
}

/**
 * The comparison of two folded profiles under one view: both sides transformed (and inverted)
 * alike, merged by call path; the tree's widths are `width`'s. `profile` is the merged profile with
 * those weights (what search and export read).
 */
export function analyzeDiff(
  comp: FoldedProfile,
  base: FoldedProfile,
  view: ViewSpec & { width: DiffWidth },
  timings: Omit<Timings, 'treeMs'> = { parseMs: 0, foldMs: 0 },
): Analysis {
  const t0 = now();
  const g = diffGraph(comp, base, view);
  const compFunctions = functionsIn(g.merged, g.tables.comp);
  return {
    profile: g.profile,
    tree: g.tree,
    functions: compFunctions,
    diff: {
      ...g.sides,
      compFunctions,
      baseFunctions: functionsIn(g.merged, g.tables.base),
      baseMeta: base.meta,
    },
    timings: { ...timings, treeMs: now() - t0 },
  };
}

/**
 * The graph of a comparison (analyzeDiff's, without its function tables): the merged profile
 * weighed by `view.width` (`profile`; `merged`, with the sum of both sides), its tree and each
 * side's totals, and each side's profile its function table is of.
 */
function diffGraph(comp: FoldedProfile, base: FoldedProfile, view: ViewSpec & { width: DiffWidth }) {
  const c = derive(comp, view);
  const b = derive(base, view);
  const merged = mergeSides(c.graph, b.graph);
  const { tree, sides } = diffTree(merged, view.width);
  const p = merged.profile;
  const weight =
    view.width === 'comparison' ? merged.comp : view.width === 'baseline' ? merged.base : p.stacks.weight;
  let whole = 0;
  for (let s = 0; s < weight.length; s++) whole += weight[s];
  const profile: FoldedProfile = {
    ...p,
    meta: { ...comp.meta, totalSamples: whole },
    stacks: { ...p.stacks, weight },
  };
  return { profile, merged: p, tree, sides, tables: { comp: c.table, base: b.table } };
}

export interface SandwichAnalysis {
  name: string;
  callers: { profile: FoldedProfile; tree: CallTree };
  callees: { profile: FoldedProfile; tree: CallTree };
  /** Samples with the function as the leaf, and anywhere on the stack (each once). */
  self: number;
  total: number;
}

/** A comparison's sandwich: each half merged from both sides' halves, with both sides' totals. */
export interface DiffSandwich extends SandwichAnalysis {
  callers: SandwichAnalysis['callers'] & { diff: Pick<DiffTotals, 'comp' | 'base'> };
  callees: SandwichAnalysis['callees'] & { diff: Pick<DiffTotals, 'comp' | 'base'> };
}

/** The sandwich of a function in a comparison: both sides' sandwiches, merged half by half. */
export function diffSandwichAnalysis(
  comp: FoldedProfile,
  base: FoldedProfile,
  transforms: readonly Transform[],
  name: string,
  width: DiffWidth,
): DiffSandwich {
  const c = sandwich(applyTransforms(comp, transforms), name, { compact: true });
  const b = sandwich(applyTransforms(base, transforms), name, { compact: true });
  const half = (x: FoldedProfile, y: FoldedProfile) => {
    const merged = mergeSides(x, y);
    const { tree, sides } = diffTree(merged, width);
    return { profile: merged.profile, tree, diff: sides };
  };
  return {
    name,
    callers: half(c.callers, b.callers),
    callees: half(c.callees, b.callees),
    self: c.self,
    total: c.total,
  };
}

/** Callers and callees of a function, over the transformed (never inverted) profile. */
export function sandwichAnalysis(
  base: FoldedProfile,
  transforms: readonly Transform[],
  name: string,
): SandwichAnalysis {
  const s = sandwich(applyTransforms(base, transforms), name);
  return {
    name,
    callers: { profile: s.callers, tree: buildCallTree(s.callers) },
    callees: { profile: s.callees, tree: buildCallTree(s.callees) },
    self: s.self,
    total: s.total,
  };
}

// ─── the whole pipeline at once (CLI, bench, tests) ─────────────────────────────────────────

export interface RunOptions {
  /** Said of the file before parsing (a bundle's), listed before the parser's own. */
  warnings?: ProfileWarning[];
  /** ELF files, debug files and nm listings to symbolize with. */
  symbolFiles?: readonly DroppedFile[];
  /** Loads the demangler, when there are symbol files and names are to be demangled. */
  loadDemangler?: () => Promise<Demangle>;
  mangled?: boolean;
  sampleType?: string;
  keepDropFrames?: boolean;
  labelFilters?: readonly LabelFilter[];
  groupBy?: string;
  /**
   * Read DWARF from the binaries (inlined functions as frames, file:line); default true. Off, names
   * come from the symbol tables alone, as pprof's do.
   */
  dwarf?: boolean;
  granularity?: Granularity;
  names?: FrameNames;
  unnamedPerAddress?: boolean;
  /** ELF files placed at load addresses, for a profile without mappings. */
  placements?: readonly Placement[];
  view?: ViewSpec;
  onProgress?: Progress;
}

export interface RunResult {
  loaded: Loaded;
  symbols: Symbols | null;
  /** The folded (symbolized) profile, before transforms. */
  base: FoldedProfile;
  analysis: Analysis;
}

export async function runPipeline(
  bytes: Uint8Array,
  fileName: string,
  opts: RunOptions = {},
): Promise<RunResult> {
  const loaded = parse(bytes, fileName, {
    onProgress: opts.onProgress,
    granularity: opts.granularity,
    unnamedPerAddress: opts.unnamedPerAddress,
  });
  if (opts.warnings) loaded.raw.warnings.unshift(...opts.warnings);
  const mangled = opts.mangled ?? false;
  const files = opts.symbolFiles ?? [];
  const demangle =
    files.length > 0 && !mangled && opts.loadDemangler ? await opts.loadDemangler() : undefined;
  const symbols = symbolize(loaded.raw, files, {
    demangle,
    mangled,
    dwarf: opts.dwarf,
    placements: opts.placements,
    names: opts.names ?? 'short',
  });
  const { profile: base, foldMs } = fold(loaded, {
    symbols,
    sampleType: opts.sampleType,
    keepDropFrames: opts.keepDropFrames,
    granularity: opts.granularity,
    labelFilters: opts.labelFilters,
    groupBy: opts.groupBy,
    names: opts.names,
    unnamedPerAddress: opts.unnamedPerAddress,
  });
  const analysis = analyze(base, opts.view ?? { transforms: [], inverted: false }, {
    parseMs: loaded.parseMs,
    foldMs,
  });
  return { loaded, symbols, base, analysis };
}

/** Parse, fold and analyze without symbols, synchronously: for tests and small tools. */
export function analyzeBytes(
  bytes: Uint8Array,
  opts: { fileName: string; names?: FrameNames; granularity?: Granularity; unnamedPerAddress?: boolean },
): Analysis {
  const loaded = parse(bytes, opts.fileName, opts);
  const { profile, foldMs } = fold(loaded, opts);
  return analyze(profile, { transforms: [], inverted: false }, { parseMs: loaded.parseMs, foldMs });
}
