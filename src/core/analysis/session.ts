// The one analysis seam: the inputs of a workspace (profile, baseline, binaries, debug files,
// sources, bundles) and a view in; what the views show out. The worker (src/worker) is a transport
// over it and the CLI (src/cli) calls it too, so both answer alike by construction.
//
// It keeps each stage's result (stages.ts says what each stage reads of the view): the parsed
// profiles (symbols dropped later re-fold without re-parsing), the symbolizers, the folded
// profiles and the shown analysis, and runs again only the stages a new view or new input needs.
// Names no format; pure core: runs in node and in a worker.

import type { FunctionListing, FunctionMatch } from '../disasm/disasm';
import { type Disassembler, loadDisassembler, type Syntax } from '../disasm/engine';
import { disasmListings } from '../disasm/listings';
import { previewUnread } from '../formats/detect';
import type { ChunkSource } from '../formats/gperftools-sample';
import type { DroppedFile } from '../formats/importer';
import { writePprof } from '../formats/pprof-write';
import { snapshotMismatch, writeSnapshot } from '../formats/snapshot';
import { comparisonMismatch, mergeSides } from '../model/diff';
import { type FlameChartBoxes, flameChartBoxes } from '../model/flamechart';
import { foldOtherWeights } from '../model/fold';
import { type LabelSummary, labelKeepMask, labelSummary } from '../model/labels';
import { matchSources, type SourceListing, sourceListing } from '../model/lines';
import { sampleCount, sampleTypeIndex, sampleTypesOf, withSampleType } from '../model/sample-types';
import { type SearchQuery, type SearchResult, searchProfile } from '../model/search';
import {
  difffoldedNormalize,
  foldedChunks,
  foldedPartsThrough,
  keptStacks,
  stacksThrough,
} from '../model/serialize';
import {
  buildTimeIndex,
  noTimeReason,
  sampleNear,
  stackWeightsIn,
  type TimeIndex,
  type TimeRange,
  type TrackBy,
  withStackWeights,
} from '../model/timeline';
import { applyTransformsTraced } from '../model/transforms';
import { sampledTreeShare } from '../model/tree-share';
import {
  type Analysis,
  analyze,
  analyzeDiff,
  baselineName,
  derive,
  diffSandwichAnalysis,
  type FoldSpec,
  fold,
  type Loaded,
  type ParseOptions,
  type Progress,
  previewAnalysis,
  resolvedProfile,
  type SandwichAnalysis,
  type Symbols,
  type SymbolsState,
  sandwichAnalysis,
  symbolize,
} from '../pipeline';
import { type Demangle, loadDemangler } from '../symbols/demangle';
import { isSeparateDebugFile, looksLikeElf } from '../symbols/elf';
import { type MappingSamples, samplesByModule } from '../symbols/modules';
import { type Placement, parseBase } from '../symbols/placement';
import { frameLabel, frameName } from '../text/frame-text';
import { timeUnitUs } from '../text/units';
import {
  type FoldedProfile,
  type InputNote,
  type Mapping,
  ProfileError,
  type RawProfile,
  type SampleType,
} from '../types';
import { DEFAULT_VIEW, type WorkerView, workerViewOf } from '../view/schema';
import { DERIVATIONS, type DerivationInput } from './derivations';
import { isSymbolFile, sortInputs } from './inputs';
import { readsDwarf, StageCache, type StageName } from './stages';

export type Slot = 'main' | 'base';

export interface SessionResult {
  /** The analysis of the view; null when the graph did not change (the page keeps its own). */
  analysis: Analysis | null;
  /** The sandwich of the view (null: none); absent when it did not change. */
  sandwich?: SandwichAnalysis | null;
  symbols: SymbolsState | null;
  /** True when a new profile replaced the previous one; false when the same one was re-derived. */
  newProfile: boolean;
  /**
   * With a new profile, the size of the file it was read from (as dropped, or as unpacked from a
   * bundle; a sampled file's whole size).
   */
  fileBytes?: number;
  /** The mode applied (a two-count folded file opens as a comparison whatever was asked). */
  mode: WorkerView['mode'];
  /**
   * The profile's label keys and their heaviest values, weighed by the view's sample type (for a
   * label picker): after every fold (a new profile, a new sample type…), absent otherwise.
   */
  labels?: LabelSummary[];
  /** With added files, the role each took (a profile, a binary, a source…). */
  inputs?: InputNote[];
  /**
   * The derived views (derivations.ts) that changed, by key: a result, or null when the view no
   * longer shows it. Absent keys did not change.
   */
  derived?: Record<string, unknown>;
}

/** What the host gives a session: the demangler, and the worker's ways with memory. */
export interface SessionHost {
  /** Loads the C++/Rust demangler (wasm) when names are to be demangled (default: Vite's way). */
  loadDemangler?: () => Promise<Demangle>;
  /** Frees a parsed file's bytes at once (the worker's: they are the largest allocation). */
  release?: (bytes: Uint8Array) => void;
  /** Loads the disassembler (wasm) for the Assembly tab and `disasm` (default: Vite's way). */
  loadDisassembler?: () => Promise<Disassembler>;
  /**
   * Asked, before a large new per-address profile is folded, for memory of `bytes` for its call
   * tree's node frames, made ready meanwhile on another thread; answered after the fold.
   */
  treeMemory?: (bytes: number) => (() => Promise<ArrayBuffer | null>) | null;
}

export interface AddOptions {
  slot?: Slot;
  progress?: Progress;
  /** The caller gives the files up: the profile's bytes are released once parsed. */
  consume?: boolean;
  /** Of a bundle holding several profiles, the one to open. */
  profile?: string;
  /**
   * A sample type the new profile lacks is an error (the CLI's `--sample-type`), rather than
   * replaced by the profile's default (a link's, made for another profile).
   */
  strictSampleType?: boolean;
  /** The new profile was pictured before it was read (previewUnread): its importer draws no other sampled picture. */
  previewed?: boolean;
}

/**
 * Whether a profile opened with `view` may ask for its tree's memory (askTreeMemory): only a view
 * of a frame per address, whose tree can have a node per stack frame.
 */
export function treeMemoryMayHelp(view: WorkerView): boolean {
  return view.granularity === 'addresses' || view.unnamedPerAddress === true;
}

/** How a preview of a new profile shown with `view` names its frames and, a two-count file, compares. */
function previewNaming(
  view: WorkerView,
): Pick<ParseOptions, 'granularity' | 'unnamedPerAddress' | 'names' | 'diffView'> {
  return {
    granularity: view.granularity,
    unnamedPerAddress: view.unnamedPerAddress === true,
    names: view.fullNames ? 'full' : 'short',
    // a two-count file opens as a comparison in the graph's mode (openProfile), so previewed
    ...((view.mode === 'graph' || view.mode === 'diff') && {
      diffView: { transforms: view.transforms, inverted: view.inverted, width: view.diffWidth },
    }),
  };
}

function noProfile(): ProfileError {
  return new ProfileError('no profile is open', 'unknown');
}

/** The samples of a profile with time stamps, as the fold kept them (see AnalysisSession.timed). */
interface Timed {
  /** Each parsed sample's folded stack (−1: left out by the fold). */
  sampleStacks: Int32Array;
  /** Each parsed sample's weight in the view's sample type. */
  weight: Float64Array;
  /** Why the profile has no time (null when it has), and its index by the tracks last asked for. */
  reason: string | null;
  index: TimeIndex | null;
  by: TrackBy | null;
}

/** The sample at a moment of a timeline track (the timeline's hover). */
export interface SampleAt {
  /** Its time (ns since the profile's first sample). */
  time: number;
  /** Its stack in the shown view (transformed), root first: each frame's label, and its name. */
  labels: string[];
  names: string[];
  /** The CPU it ran on, and its thread's command, when known. */
  cpu?: string;
  comm?: string;
  weight: number;
}

/** A flame chart of one track over a window, at a width in pixels (model/flamechart.ts). */
export interface FlameChartRequest {
  /** A timeline track, or ALL_TRACKS (every sample in one time order). */
  track: number;
  start: number;
  end: number;
  width: number;
}

/**
 * The boxes, their frames numbered among the reply's own (`frame[i]` indexes `names`): each
 * frame's name (its identity), label and module, whatever frame table the page holds.
 */
export interface FlameChartReply extends FlameChartBoxes {
  track: number;
  window: TimeRange;
  names: string[];
  labels: string[];
  modules: string[];
}

/** Stack frames from which a new profile's tree memory is made ready by the host (32 MB of it). */
const TREE_MEMORY_MIN_FRAMES = 8 << 20;
/**
 * The least share of its stacks' frames a sample of the stacks' tree has as nodes (sampledTreeShare)
 * for the tree's memory to be made ready: a node per frame.
 */
const TREE_MEMORY_MIN_SHARE = 0.5;

export class AnalysisSession {
  private loaded: Loaded | null = null;
  /** The baseline a comparison compares `loaded` with. */
  private loadedBase: Loaded | null = null;
  private symbolFiles: DroppedFile[] = [];
  /** Source files given (text that is no profile), by name, for the source panel. */
  private readonly sources = new Map<string, string>();
  private symbols: Symbols | null = null;
  /**
   * The symbols an importer's preview made for a new profile's sample (symbol files read, DWARF
   * opened: for large binaries most of the symbolize stage), for that profile's own symbolize
   * stage when it has the same files, options and mappings.
   */
  private previewSymbols: {
    files: readonly DroppedFile[];
    view: WorkerView;
    mappings: readonly Mapping[];
    symbols: Symbols | null;
  } | null = null;
  /** The symbols of the baseline (the same files, matched to its mappings). */
  private baseSymbols: Symbols | null = null;
  private demangle: Demangle | null = null;
  /** The folded (symbolized) profile every view derives from. Never transferred. */
  private base: FoldedProfile | null = null;
  private baseFolded: FoldedProfile | null = null;
  private foldMs = 0;
  /** The profile the graph shows now (transformed, maybe inverted; a comparison's merged one). */
  private current: FoldedProfile | null = null;
  /** The samples of a profile with time stamps, as the fold kept them; null for another profile. */
  private timedSamples: Timed | null = null;
  /**
   * The folded profile restricted to the view's time range (`base` without one); in a comparison
   * of two ranges, range B, and range A in `rangeBase`.
   */
  private ranged: FoldedProfile | null = null;
  private rangeBase: FoldedProfile | null = null;
  /** The transformed stacks of every sample, for the flame chart and the timeline's hover. */
  private chartStacks: { profile: FoldedProfile; stackOf: Int32Array } | null = null;
  /** The view the stages' results reflect. */
  private view: WorkerView = workerViewOf(DEFAULT_VIEW);
  private readonly stages = new StageCache();

  /**
   * Receives coarse first analyses of a large new profile, before the full one: maybe an
   * importer's preview (its function table pending), then the coarse tree of the folded profile.
   */
  onPreview: ((a: Analysis) => void) | null = null;

  constructor(private readonly host: SessionHost = {}) {}

  /**
   * Files given together: at most one profile, plus any ELF binaries, debug files, nm listings,
   * source files and bundles. A new profile is shown with `view` (slot `base`: it becomes the
   * baseline of a comparison); without a profile among them, the files add to the open profile
   * and its view.
   */
  async add(files: DroppedFile[], view: WorkerView, opts: AddOptions = {}): Promise<SessionResult> {
    const slot = opts.slot ?? 'main';
    if (slot === 'base' && !this.loaded)
      throw new ProfileError('open a profile first, then compare it with another', 'unknown');
    this.previewSymbols = null;
    // A preview folded with symbol files names C++ and Rust frames only once the demangler is in.
    const preview = slot === 'main' && this.onPreview !== null;
    if (preview && !view.mangled && !this.demangle && files.some((f) => isSymbolFile(f.bytes)))
      this.demangle = await (this.host.loadDemangler ?? loadDemangler)();
    const sorted = sortInputs(files, {
      profile: opts.profile,
      // With several files the profile is not known yet. The importer knows when its preview pays
      // at the view's granularity (the parse gets it), and whether it can fold a sample as the
      // profile will be folded (`foldSample`: symbolized by the files dropped with it); a preview
      // that cannot is not posted when symbol files would rename the frames (`withSymbols`), nor is
      // any when a bundle's objects would (they are unpacked after the parse).
      parse: (f, candidates, symbols, packed) => ({
        ...previewNaming(view),
        onProgress: opts.progress,
        onPreview: preview && !opts.previewed && candidates === 1 ? (this.onPreview ?? undefined) : undefined,
        ...(packed === 0 && { foldSample: (raw: RawProfile) => this.foldSample(raw, f.name, symbols, view) }),
        withSymbols: symbols.length + packed > 0,
        stream: f.stream,
      }),
      release: (f) => {
        if (!opts.consume) return;
        this.host.release?.(f.bytes);
        f.bytes = new Uint8Array(0);
        f.stream = undefined; // it holds them too
      },
    });
    const { profile } = sorted;
    if (!profile) this.explainNoProfile(sorted, slot);
    if (profile && slot === 'base') {
      this.loadedBase = profile.loaded;
      for (const r of sorted.roles) if (r.role === 'profile') r.role = 'baseline';
      this.view = view;
    } else if (profile) {
      this.openProfile(profile.loaded, view, opts.strictSampleType === true);
    }
    // Without a new profile, files add to the open one, whose view stays (`view` may be the one an
    // open still running asked for).
    for (const [name, text] of sorted.sources) this.sources.set(name, text);
    this.addSymbolFiles([...sorted.symbols, ...sorted.junk]);
    if (profile || sorted.symbols.length + sorted.junk.length > 0) this.stages.invalidate('symbols');
    const newProfile = profile !== null && slot === 'main';
    const memory = newProfile ? this.askTreeMemory(profile.loaded, sorted.symbols.length > 0) : null;
    const result = await this.run(this.view, opts.progress, { newProfile, memory });
    return {
      ...result,
      ...(newProfile ? { fileBytes: profile.bytes } : {}),
      inputs: sorted.roles,
    };
  }

  /**
   * A first picture of a large profile dropped alone, before its file is read (`src` reads its
   * bytes at any offset): windows of its records read and pictured (formats/detect.ts's
   * previewUnread) and posted through `onPreview`, as its importer's preview would be once the file
   * is read. True when posted: the file is then to be added with `previewed`.
   */
  async previewUnread(fileName: string, src: ChunkSource, view: WorkerView): Promise<boolean> {
    const post = this.onPreview;
    if (!post) return false;
    const naming = previewNaming(view);
    let a: Analysis | null;
    try {
      const p = await previewUnread(src, { ...naming, fileName });
      a = p && previewAnalysis(p, fileName, naming.diffView);
    } catch {
      return false; // only a picture: the open itself says what is wrong with the file
    }
    if (!a) return false;
    post(a);
    return true;
  }

  /** Why files with no profile among them cannot be added (throws), unless they add to one. */
  private explainNoProfile(sorted: ReturnType<typeof sortInputs>, slot: Slot): void {
    // The files are not named here: who gave them names them (the page's 'Could not open a, b:', the CLI's path).
    if (slot === 'base') {
      if (sorted.firstError && sorted.candidates === 1) throw sorted.firstError;
      throw new ProfileError('no profile among these files to compare with', 'unknown');
    }
    const adds = sorted.symbols.length > 0 || sorted.sources.size > 0;
    if (adds && this.loaded) return;
    if (sorted.firstError && sorted.candidates === 1) throw sorted.firstError;
    throw new ProfileError(
      `no profile among these files${
        sorted.symbols.length > 0 ? ': open the profile first, or drop it together with its binaries' : ''
      }`,
      'unknown',
    );
  }

  /** A new main profile: the baseline and symbol files go; the view is made to fit it. */
  private openProfile(loaded: Loaded, view: WorkerView, strictSampleType: boolean): void {
    this.loaded = loaded;
    this.loadedBase = null;
    this.baseFolded = null;
    this.symbolFiles = [];
    const { raw, fileName, parseMs } = loaded;
    if (raw.diffPair) {
      // Two counts per stack: the baseline is the first column, the comparison the second.
      this.loadedBase = { raw: withSampleType(raw, 0), fileName: baselineName(fileName), parseMs };
      if (view.mode === 'graph') view = { ...view, mode: 'diff' };
    }
    // A link's sample type that this profile lacks: its default instead.
    try {
      sampleTypeIndex(raw, view.sampleType);
    } catch (e) {
      if (strictSampleType) throw e;
      view = { ...view, sampleType: undefined };
    }
    this.view = view;
  }

  /**
   * A large new profile per address: its tree has about a node frame per stack frame, in memory
   * the host makes ready while the fold runs.
   */
  private askTreeMemory(loaded: Loaded, withSymbols: boolean): (() => Promise<ArrayBuffer | null>) | null {
    const raw = loaded.raw;
    const stackFrames = raw.samples.stackStart[raw.samples.count];
    if (withSymbols || raw.diffPair || stackFrames < TREE_MEMORY_MIN_FRAMES) return null;
    if (!treeMemoryMayHelp(this.view)) return null;
    // Stacks that share long prefixes make a tree of far fewer nodes than their frames (the 400 MB
    // heap profile: 442k of 36M): memory for a node per frame, made resident, would go unused.
    const { stackStart, stackLocs } = raw.samples;
    if (sampledTreeShare(stackStart, stackLocs, raw.samples.count) < TREE_MEMORY_MIN_SHARE) return null;
    return this.host.treeMemory?.((stackFrames + 1) * 4) ?? null;
  }

  /** The mapped objects of the open profile and of its baseline (what symbol files are for). */
  mappings(): Mapping[] | null {
    if (!this.loaded) return null;
    return [...this.loaded.raw.meta.mappings, ...(this.loadedBase?.raw.meta.mappings ?? [])];
  }

  /** Exchanges the profile and its baseline (the comparison becomes the baseline). */
  async swap(view: WorkerView, progress?: Progress): Promise<SessionResult> {
    if (!this.loaded || !this.loadedBase)
      throw new ProfileError('there is no baseline to swap with', 'unknown');
    [this.loaded, this.loadedBase] = [this.loadedBase, this.loaded];
    this.stages.invalidate('symbols');
    return this.run(view, progress);
  }

  /** Applies a view to the open profile, running again only the stages it changes. */
  async apply(view: WorkerView, progress?: Progress): Promise<SessionResult> {
    if (!this.loaded || !this.base) throw noProfile();
    return this.run(view, progress);
  }

  /** Runs the stages `view` needs; what did not run is absent from the result (or null). */
  private async run(
    view: WorkerView,
    progress?: Progress,
    opts: { newProfile?: boolean; memory?: (() => Promise<ArrayBuffer | null>) | null } = {},
  ): Promise<SessionResult> {
    this.view = view;
    const stale = new Set<StageName>(this.stages.stale(view));
    if (stale.has('symbols')) await this.symbolize(progress);
    if (stale.has('fold')) this.fold(progress);
    if (stale.has('range')) this.range();
    if (stale.has('graph')) this.chartStacks = null;
    const frameBuffer = opts.memory ? await opts.memory() : null;
    const analysis = stale.has('graph') ? this.graph(progress, frameBuffer) : null;
    const sandwich = stale.has('sandwich') ? this.sandwich() : undefined;
    const derived = this.derived(stale);
    for (const s of stale) this.stages.ran(s, view);
    return {
      analysis,
      ...(sandwich !== undefined && { sandwich }),
      ...(derived && { derived }),
      symbols: this.symbols?.state ?? null,
      newProfile: opts.newProfile ?? false,
      mode: view.mode === 'diff' && !this.comparing() ? 'graph' : view.mode,
      ...(stale.has('labels') && { labels: this.labels() }),
    };
  }

  /** The symbolizers of the profile and its baseline from the symbol files, with the view's names. */
  private async symbolize(progress?: Progress): Promise<void> {
    this.symbols = null;
    this.baseSymbols = null;
    const made = this.previewSymbols;
    this.previewSymbols = null;
    if (this.symbolFiles.length === 0) return;
    progress?.('symbols', 0);
    if (!this.view.mangled && !this.demangle)
      this.demangle = await (this.host.loadDemangler ?? loadDemangler)();
    const common = this.symbolizeOptions(this.view);
    const raw = this.loaded!.raw;
    this.symbols =
      made !== null && this.symbolizesAlike(made, raw.meta.mappings)
        ? made.symbols
        : symbolize(raw, this.symbolFiles, { ...common, placements: placementsOf(this.view) });
    // The same symbol files serve both sides: each mapping takes the file matching it.
    if (this.loadedBase) this.baseSymbols = symbolize(this.loadedBase.raw, this.symbolFiles, common);
  }

  /**
   * A profile read from part of a new profile's file (an importer's preview), folded as `fold` will
   * fold the whole one with `view`: symbolized by the files dropped with it, with the view's
   * granularity, names, labels and sample type (the profile's default when it has not that one).
   */
  private foldSample(
    raw: RawProfile,
    fileName: string,
    files: readonly DroppedFile[],
    view: WorkerView,
  ): FoldedProfile {
    const symbols = symbolize(raw, files, {
      ...this.symbolizeOptions(view),
      placements: placementsOf(view),
    });
    this.previewSymbols = { files, view, mappings: raw.meta.mappings, symbols };
    let sampleType = view.sampleType;
    try {
      sampleTypeIndex(raw, sampleType);
    } catch {
      sampleType = undefined;
    }
    return fold({ raw, fileName, parseMs: 0 }, { ...this.foldSpec(view), symbols, sampleType }).profile;
  }

  /**
   * Whether symbols a preview made serve the profile now symbolized: the same symbol files, the
   * same options of the view's, and mappings equal to those of the profile (a sample of a file has
   * all of its mappings).
   */
  private symbolizesAlike(
    made: NonNullable<AnalysisSession['previewSymbols']>,
    mappings: readonly Mapping[],
  ): boolean {
    const files = this.symbolFiles;
    if (made.files.length !== files.length || made.files.some((f, i) => f !== files[i])) return false;
    const [a, b] = [made.view, this.view];
    if (JSON.stringify(this.symbolizeOptions(a)) !== JSON.stringify(this.symbolizeOptions(b))) return false;
    if (JSON.stringify(a.placements ?? []) !== JSON.stringify(b.placements ?? [])) return false;
    const m = made.mappings;
    // every field of every mapping equal (a field added to Mapping is compared too)
    const same = (x: Mapping, y: Mapping) =>
      [...new Set([...Object.keys(x), ...Object.keys(y)])].every(
        (k) => x[k as keyof Mapping] === y[k as keyof Mapping],
      );
    return m.length === mappings.length && m.every((x, i) => same(x, mappings[i]));
  }

  /** How `view` has the symbol files name frames (the demangler, if it needs one, loaded). */
  private symbolizeOptions(view: WorkerView) {
    return {
      demangle: this.demangle ?? undefined,
      mangled: view.mangled,
      inlines: view.inlines,
      dwarf: readsDwarf(view),
      names: view.fullNames ? ('full' as const) : ('short' as const),
    };
  }

  /** What the view asks of a fold, but for the sample type (each side has its own). */
  private foldSpec(v: WorkerView = this.view): FoldSpec {
    return {
      labelFilters: v.labelFilters,
      groupBy: v.groupBy,
      keepDropFrames: v.keepDropFrames,
      granularity: v.granularity,
      names: v.fullNames ? 'full' : 'short',
      inlines: v.inlines,
      unnamedPerAddress: v.unnamedPerAddress === true,
    };
  }

  /** The folded profile (and baseline) with the view's value, labels, granularity and names. */
  private fold(progress?: Progress): void {
    progress?.('fold', 0);
    const v = this.view;
    const spec = this.foldSpec();
    const loaded = this.loaded!;
    // With time stamps, each sample's folded stack is kept: a time range reweighs the stacks.
    const reason = noTimeReason(loaded.raw);
    // A two-count file's baseline is its other column of the same samples: its weights are summed
    // onto the comparison's stacks (foldOtherWeights: equal to a second fold, 60–80 ms less at
    // 100 MB), which then merge as they are (mergeSides). Not when symbols name either side.
    const base = this.loadedBase;
    const sameStacks =
      base !== null &&
      loaded.raw.diffPair === true &&
      base.raw.diffPair === true &&
      !this.symbols &&
      !this.baseSymbols;
    const sampleStacks = reason === null || sameStacks ? new Int32Array(loaded.raw.samples.count) : undefined;
    const r = fold(loaded, {
      ...(sampleStacks && { sampleStacks }),
      ...spec,
      symbols: this.symbols,
      // The session owns the parsed profiles; a two-count file's two sides share their stacks.
      consume: !loaded.raw.diffPair,
      // Counted when asked (mappingSamples), after the first full analysis is shown.
      mappingSamplesLater: true,
      sampleType: v.sampleType,
    });
    this.base = r.profile;
    this.foldMs = r.foldMs;
    this.timedSamples =
      sampleStacks && reason === null
        ? { sampleStacks, weight: this.weighed().raw.samples.weight, reason, index: null, by: null }
        : null;
    this.baseFolded = null;
    if (base && sameStacks && sampleStacks) {
      const other = withSampleType(base.raw, sampleTypeIndex(base.raw, v.baseSampleType));
      this.baseFolded = foldOtherWeights(r.profile, other, sampleStacks);
      this.baseFolded.meta.fileName = base.fileName;
    } else if (base)
      this.baseFolded = fold(base, {
        ...spec,
        symbols: this.baseSymbols,
        consume: !base.raw.diffPair,
        sampleType: baseSampleType(v, r.profile.meta.sampleType, base.raw),
      }).profile;
  }

  /**
   * The samples of a profile with time stamps: each one's folded stack and weight, in time order per
   * track (the view's tracks, else by thread); null for a profile without time stamps.
   */
  private timed(by?: TrackBy): Timed | null {
    const t = this.timedSamples;
    if (!t) return null;
    const want = by ?? t.by ?? 'thread';
    if (t.by !== want) {
      t.index = buildTimeIndex(this.loaded!.raw, t.sampleStacks, t.weight, want);
      t.by = want;
    }
    return t;
  }

  /**
   * The folded profile restricted to the view's range (the whole one without a range, or for a
   * profile without time stamps: no sample is in any range, said by a warning), or the two ranges
   * a comparison of ranges compares.
   */
  private range(): void {
    const { range, compareRanges } = this.view;
    const base = this.base!;
    this.ranged = base;
    this.rangeBase = null;
    const t = this.timed(this.view.timeline?.tracks);
    if (!range && !compareRanges) return;
    const within = (r: TimeRange): FoldedProfile => {
      if (!t?.index) {
        const out = withStackWeights(base, new Float64Array(base.stacks.count), r);
        out.meta.warnings = [
          ...out.meta.warnings,
          { message: `no range of time: ${t?.reason ?? 'this profile has no time stamps'}` },
        ];
        return out;
      }
      const w = stackWeightsIn(t.index, t.sampleStacks, t.weight, base.stacks.count, r);
      return withStackWeights(base, w, r);
    };
    if (compareRanges && this.view.mode === 'diff') {
      this.ranged = within(compareRanges.b);
      this.rangeBase = within(compareRanges.a);
    } else if (range) this.ranged = within(range);
  }

  /** Whether the graph shows a comparison: of two profiles, or of two ranges of one. */
  private comparing(): boolean {
    return this.rangeBase !== null || this.baseFolded !== null;
  }

  /** The comparison's baseline: range A of a comparison of ranges, else the baseline profile. */
  private baselineShown(): FoldedProfile | null {
    return this.rangeBase ?? this.baseFolded;
  }

  /** The folded profile every view shows: the view's range of it (`base` without one). */
  private shownFold(): FoldedProfile {
    return this.ranged ?? this.base!;
  }

  /** transform → trees and tables: the comparison's, or the profile's (previewed when large). */
  private graph(progress: Progress | undefined, frameBuffer: ArrayBuffer | null): Analysis {
    progress?.('tree', 0);
    const timings = { parseMs: this.loaded!.parseMs, foldMs: this.foldMs };
    const baseline = this.baselineShown();
    const analysis =
      this.view.mode === 'diff' && baseline
        ? analyzeDiff(this.shownFold(), baseline, { ...this.view, width: this.view.diffWidth }, timings)
        : analyze(this.shownFold(), this.view, timings, this.onPreview ?? undefined, frameBuffer);
    const mismatch = analysis.diff && this.comparisonWarning();
    if (analysis.diff && mismatch) analysis.diff.mismatch = mismatch;
    this.current = analysis.profile;
    return analysis;
  }

  /** The sandwich of the view's function: the profile's, or merged from both sides'. */
  private sandwich(): SandwichAnalysis | null {
    const { mode, sandwich, transforms, diffWidth } = this.view;
    if (!sandwich) return null;
    if (mode === 'sandwich') return sandwichAnalysis(this.shownFold(), transforms, sandwich);
    const baseline = this.baselineShown();
    if (mode === 'diff' && baseline)
      return diffSandwichAnalysis(this.shownFold(), baseline, transforms, sandwich, diffWidth);
    return null;
  }

  /** The derived views whose stage is stale: each one's result, or null when not shown. */
  private derived(stale: ReadonlySet<StageName>): Record<string, unknown> | null {
    const due = DERIVATIONS.filter((d) => stale.has(`derived:${d.key}`));
    if (due.length === 0) return null;
    const out: Record<string, unknown> = {};
    let input: DerivationInput | null = null;
    for (const d of due) {
      if (d.reads(this.view) === null) {
        out[d.key] = null;
        continue;
      }
      input ??= this.derivationInput();
      out[d.key] = d.derive(input, this.view);
    }
    return out;
  }

  /** What derivations read, each part made when first read. */
  private derivationInput(): DerivationInput {
    const session = this;
    let table: FoldedProfile | undefined;
    let raw: Loaded['raw'] | undefined;
    return {
      get shown() {
        return session.current!;
      },
      get table() {
        table ??= derive(session.shownFold(), session.view).table;
        return table;
      },
      get raw() {
        raw ??= session.weighed().raw;
        return raw;
      },
      get time() {
        const t = session.timed(session.view.timeline?.tracks);
        const none = noTimeReason(session.loaded!.raw) ?? 'this profile has no time stamps';
        const us = timeUnitUs(session.weighed().unit);
        return t
          ? {
              index: t.index,
              reason: t.reason,
              weight: t.weight,
              ...(us !== undefined && { nsPerUnit: us * 1000 }),
            }
          : { index: null, reason: none, weight: new Float64Array(0) };
      },
    };
  }

  /** Every sample's stack in the shown view (transformed, never inverted), and that profile. */
  private shownStacks(t: Timed): { profile: FoldedProfile; stackOf: Int32Array } {
    if (this.chartStacks) return this.chartStacks;
    const base = this.base!;
    let made = { profile: base, stackOf: t.sampleStacks };
    if (this.view.transforms.length > 0) {
      const { profile, stackOf } = applyTransformsTraced(base, this.view.transforms);
      const of = new Int32Array(t.sampleStacks.length);
      for (let s = 0; s < of.length; s++) of[s] = t.sampleStacks[s] < 0 ? -1 : stackOf[t.sampleStacks[s]];
      made = { profile, stackOf: of };
    }
    this.chartStacks = made;
    return made;
  }

  /**
   * The sample of timeline track `track` (of the view's tracks) nearest to time `t` (ns) within
   * `tolerance` ns, with its stack as the view shows it; null when none is that near.
   */
  sampleAt(track: number, t: number, tolerance: number): SampleAt | null {
    if (!this.base) throw noProfile();
    const timed = this.timed(this.view.timeline?.tracks);
    if (!timed?.index) return null;
    const us = timeUnitUs(this.weighed().unit);
    const usual = timed.index.interval[track] ?? 0;
    const s = sampleNear(timed.index, track, t, tolerance, (x) =>
      us !== undefined ? timed.weight[x] * us * 1000 : usual,
    );
    if (s < 0) return null;
    const { profile, stackOf } = this.shownStacks(timed);
    const raw = this.loaded!.raw;
    const out: SampleAt = { time: raw.samples.time![s], labels: [], names: [], weight: timed.weight[s] };
    const st = stackOf[s];
    if (st >= 0)
      for (let k = profile.stacks.start[st]; k < profile.stacks.start[st + 1]; k++) {
        const f = profile.stacks.frames[k];
        out.labels.push(frameLabel(profile.frames, f));
        out.names.push(frameName(profile.frames, f));
      }
    const label = (key: string) => {
      const c = raw.labels?.find((l) => l.key === key);
      return c?.kind === 'string' && c.value[s] >= 0 ? raw.strings[c.value[s]] : undefined;
    };
    const cpu = label('cpu');
    const comm = label('comm');
    if (cpu !== undefined) out.cpu = cpu;
    if (comm !== undefined) out.comm = comm;
    return out;
  }

  /** The flame chart of a timeline track over a window (model/flamechart.ts), in the shown view's stacks. */
  flameChart(req: FlameChartRequest): FlameChartReply {
    if (!this.base) throw noProfile();
    const timed = this.timed(this.view.timeline?.tracks);
    if (!timed?.index) throw new ProfileError('this profile has no time stamps: no flame chart', 'unknown');
    const { profile, stackOf } = this.shownStacks(timed);
    const window = { start: req.start, end: req.end };
    const boxes = flameChartBoxes(timed.index, req.track, stackOf, profile.stacks, window, req.width);
    // the reply's own frames, numbered as first met
    const ids = new Map<number, number>();
    const names: string[] = [];
    const labels: string[] = [];
    const modules: string[] = [];
    for (let i = 0; i < boxes.count; i++) {
      const f = boxes.frame[i];
      let id = ids.get(f);
      if (id === undefined) {
        id = names.length;
        ids.set(f, id);
        names.push(frameName(profile.frames, f));
        labels.push(frameLabel(profile.frames, f));
        const m = profile.frames.module[f];
        modules.push(m >= 0 ? profile.modules[m] : '');
      }
      boxes.frame[i] = id;
    }
    return {
      ...boxes,
      track: req.track,
      window,
      names,
      labels,
      modules,
    };
  }

  /**
   * The profile's label keys and their heaviest values, weighed by the view's sample type (at
   * most `limit` values per key).
   */
  labels(limit?: number): LabelSummary[] {
    const raw = this.loaded!.raw;
    const typed = withSampleType(raw, sampleTypeIndex(raw, this.view.sampleType));
    return labelSummary(typed, limit === undefined ? {} : { limit });
  }

  /**
   * How many samples the view keeps of the open profile (model/sample-types.ts sampleCount: a
   * count of samples, whatever the sample type sums), its label filters applied.
   */
  sampleCount(): number {
    if (!this.loaded) throw noProfile();
    const raw = this.loaded.raw;
    return sampleCount(raw, sampleTypeIndex(raw, this.view.sampleType), this.keptByView(raw));
  }

  /** Which parsed samples the view keeps (its label filters and time range): 1 kept; null: all. */
  private keptByView(raw: RawProfile): Uint8Array | null {
    let keep = labelKeepMask(raw, this.view.labelFilters).keep;
    const range = this.view.range;
    if (range) {
      const time = raw.samples.time;
      keep ??= new Uint8Array(raw.samples.count).fill(1);
      for (let s = 0; s < raw.samples.count; s++)
        if (!time || !(time[s] >= range.start && time[s] <= range.end)) keep[s] = 0;
    }
    return keep;
  }

  /** The parsed profile shown (and its file name), for what reads it as it was parsed. */
  loadedProfile(): Loaded {
    if (!this.loaded) throw noProfile();
    return this.loaded;
  }

  /** The folded profile (symbolized, before transforms) the views derive from. */
  folded(): FoldedProfile {
    if (!this.base) throw noProfile();
    return this.base;
  }

  /**
   * In a comparison, why its sides' weights do not compare (model/diff.ts comparisonMismatch: a
   * CPU profile against a heap profile, nanoseconds against sample counts); null otherwise.
   */
  comparisonWarning(): string | null {
    // Two ranges of one profile count alike.
    if (!this.base || !this.baseFolded || this.view.mode !== 'diff' || this.rangeBase) return null;
    // A two-count folded file's sides (`baseline`, `comparison`) count alike.
    if (this.loaded?.raw.diffPair && this.loadedBase?.raw.diffPair) return null;
    return comparisonMismatch(this.base.meta.sampleType, this.baseFolded.meta.sampleType);
  }

  /**
   * Per mapped file, the samples in it (`meta.mappingSamples`), counted now from the folded profile
   * when its fold put them off (`meta.mappingSamplesPending`).
   */
  mappingSamples(): MappingSamples[] {
    if (!this.base) throw noProfile();
    // the view's time range: its own samples
    const base = this.ranged ?? this.base;
    if (base.meta.mappingSamplesPending) {
      const held = samplesByModule(base);
      if (held.length > 0) base.meta.mappingSamples = held;
      delete base.meta.mappingSamplesPending;
    }
    return base.meta.mappingSamples ?? [];
  }

  /** Search over the shown view's stacks: matched frames, samples through them, where to go. */
  search(query: SearchQuery): SearchResult {
    if (!this.current) throw noProfile();
    return searchProfile(this.current, query);
  }

  /**
   * `root;…;leaf COUNT` lines of the shown view (or of its stacks through a frame-id path), handed
   * to `emit` in parts of about a megabyte; a comparison's as difffolded.pl writes them, `BASE NEW`
   * (`normalize`: the baseline's counts scaled to the comparison's total, truncated as difffolded.pl -n).
   */
  writeFolded(
    path: readonly number[],
    emit: (text: string) => void,
    opts: { normalize?: boolean } = {},
  ): void {
    if (!this.current || !this.base) throw noProfile();
    const baseline = this.baselineShown();
    if (this.view.mode === 'diff' && baseline) {
      const merged = mergeSides(derive(this.shownFold(), this.view).graph, derive(baseline, this.view).graph);
      const keep = path.length > 0 ? keptStacks(merged.profile, path) : null;
      const p = keep ? stacksThrough(merged.profile, path, keep) : merged.profile;
      const pick = (w: Float64Array) => (keep ? Float64Array.from(keep, (s) => w[s]) : w);
      const comp = pick(merged.comp);
      const base = pick(merged.base);
      foldedChunks(p, [base, comp], emit, {
        adjust: opts.normalize ? difffoldedNormalize(base, comp) : undefined,
      });
      return;
    }
    for (const part of foldedPartsThrough(this.current, path)) emit(part);
  }

  /** The same, collected. */
  foldedParts(path: readonly number[]): string[] {
    const parts: string[] = [];
    this.writeFolded(path, (t) => parts.push(t));
    return parts;
  }

  /**
   * Where a function spends its samples, per source line and per address (the source panel), with
   * the text of the given source files its lines are in.
   */
  source(name: string): SourceListing & { texts: Record<string, string> } {
    if (!this.loaded) throw noProfile();
    const raw = this.shownWeighed();
    const listing = sourceListing(
      raw,
      this.symbols?.symbolizer,
      name,
      this.view.fullNames ? 'full' : 'short',
    );
    const files = [...new Set(listing.lines.map((l) => l.file).filter((f) => f !== ''))];
    const texts: Record<string, string> = {};
    for (const [file, given] of matchSources(files, [...this.sources.keys()]))
      texts[file] = this.sources.get(given)!;
    return { ...listing, texts };
  }

  /** The parsed profile weighed by the view's sample type, and that type's unit. */
  weighed(): { raw: Loaded['raw']; unit: string } {
    if (!this.loaded) throw noProfile();
    const raw = this.loaded.raw;
    const index = sampleTypeIndex(raw, this.view.sampleType);
    return { raw: withSampleType(raw, index), unit: raw.sampleTypes?.[index]?.unit ?? 'count' };
  }

  /**
   * The parsed profile weighed by the view's sample type, the samples the view leaves out (label
   * filters, time range) weighing nothing: what the source and disassembly listings count.
   */
  private shownWeighed(): Loaded['raw'] {
    if (!this.loaded) throw noProfile();
    const weighed = withSampleType(this.loaded.raw, sampleTypeIndex(this.loaded.raw, this.view.sampleType));
    const keep = this.keptByView(this.loaded.raw);
    if (!keep) return weighed;
    const weight = weighed.samples.weight.map((w, s) => (keep[s] ? w : 0));
    return { ...weighed, samples: { ...weighed.samples, weight } };
  }

  /**
   * The functions `match` picks in the binaries given (their own symbol tables), disassembled with
   * the view's samples on each instruction and source line (pprof -disasm, the Assembly tab).
   */
  async disassemble(match: FunctionMatch, syntax: Syntax = 'att'): Promise<FunctionListing[]> {
    const binaries = this.symbolFiles.filter((f) => looksLikeElf(f.bytes) && !isSeparateDebugFile(f.bytes));
    if (binaries.length === 0)
      throw new ProfileError(
        'disasm needs the binaries: --binary PATH (repeatable), or drop them',
        'unknown',
      );
    const engine = await (this.host.loadDisassembler ?? (() => loadDisassembler()))();
    const { mangled } = this.view;
    if (!mangled && !this.demangle) this.demangle = await (this.host.loadDemangler ?? loadDemangler)();
    return disasmListings(engine, {
      raw: this.shownWeighed(),
      binaries,
      match,
      syntax,
      demangle: mangled ? undefined : (this.demangle ?? undefined),
    });
  }

  /**
   * The shown profile as gzipped pprof profile.proto: symbolized and folded as shown (granularity,
   * names, label filters, group-by), transforms applied, never inverted (a comparison: its
   * comparison side), with every sample type and label of the parsed profile: its samples are
   * folded again, each to be followed to its stack.
   */
  proto(): Uint8Array {
    if (!this.loaded || !this.base) throw noProfile();
    const loaded = this.loaded;
    const raw = loaded.raw;
    const sampleType = sampleTypeIndex(raw, this.view.sampleType);
    const sampleStacks = new Int32Array(raw.samples.count);
    const folded = fold(loaded, {
      ...this.foldSpec(),
      symbols: this.symbols,
      sampleType: this.view.sampleType,
      sampleStacks,
    }).profile;
    const { profile, stackOf } = applyTransformsTraced(folded, this.view.transforms);
    // the view's range: only its samples (a sample without a time stamp is in none)
    const range = this.view.range;
    const time = raw.samples.time;
    for (let s = 0; s < sampleStacks.length; s++) {
      const out = range && !(time && time[s] >= range.start && time[s] <= range.end);
      if (out) sampleStacks[s] = -1;
      else if (sampleStacks[s] >= 0) sampleStacks[s] = stackOf[sampleStacks[s]];
    }
    return writePprof(profile, { source: { raw, stackOf: sampleStacks, sampleType } });
  }

  /**
   * The open profile, and in a comparison its baseline, with the names their symbols give (at the
   * view's granularity and names) written in: what an HTML report carries. Each keeps every
   * sample type and label; a two-count folded file's sides become two profiles.
   */
  snapshots(): { slot: Slot; name: string; bytes: Uint8Array }[] {
    if (!this.loaded) throw noProfile();
    const spec = {
      granularity: this.view.granularity,
      names: this.view.fullNames ? 'full' : 'short',
    } as const;
    // Each is read back before it is given out: a report that would not reopen is never offered.
    const write = (loaded: Loaded, symbols: Symbols | null) => {
      const resolved = resolvedProfile(loaded, { ...spec, symbols });
      const raw = resolved.diffPair ? { ...resolved, diffPair: undefined } : resolved;
      const bytes = writeSnapshot(raw);
      const wrong = snapshotMismatch(raw, bytes);
      if (wrong !== null)
        throw new ProfileError(
          `the report's copy of ${loaded.fileName} does not read back (${wrong}): no report made`,
          'unknown',
        );
      return bytes;
    };
    const out = [
      { slot: 'main' as Slot, name: this.loaded.fileName, bytes: write(this.loaded, this.symbols) },
    ];
    if (this.view.mode === 'diff' && this.loadedBase)
      out.push({
        slot: 'base',
        name: this.loadedBase.fileName,
        bytes: write(this.loadedBase, this.baseSymbols),
      });
    return out;
  }

  private addSymbolFiles(files: DroppedFile[]): void {
    for (const f of files) {
      // A file given again (same name) replaces the earlier one.
      this.symbolFiles = this.symbolFiles.filter((g) => g.name !== f.name);
      this.symbolFiles.push(f);
    }
  }
}

/**
 * The sample type a comparison's baseline sums: the view's own for it (a link's `bst`), else the
 * comparison's (`shown`, the type its fold summed) when the baseline has that type and unit, as
 * pprof's -sample_index picks one value of both profiles: choosing alloc_objects compares
 * allocated objects with allocated objects. A baseline without it sums its default, and a
 * two-count file's baseline its own column (`baseline`, whatever the comparison's).
 */
function baseSampleType(v: WorkerView, shown: SampleType, raw: RawProfile): string | undefined {
  if (v.baseSampleType !== undefined || raw.diffPair) return v.baseSampleType;
  const same = sampleTypesOf(raw).findIndex((t) => t.type === shown.type && t.unit === shown.unit);
  return same < 0 ? undefined : String(same);
}

/** The view's placed ELF files, with their load addresses read (unreadable ones left out). */
function placementsOf(view: WorkerView): Placement[] {
  return (view.placements ?? []).flatMap((p) => {
    const base = parseBase(p.base);
    return base === null ? [] : [{ file: p.file, base }];
  });
}
