// What the worker remembers between messages: the parsed profile (so that symbols dropped later
// re-fold it without re-parsing), the symbol files, the folded profile and the view applied to
// it. It runs the core pipeline's stages and re-runs only those a change needs. It names no
// format. Pure core calls only: testable in node.

import { expandBundles } from '../core/bundle/bundle';
import { writePprof } from '../core/formats/pprof-write';
import { sampleTypeIndex, sampleTypesOf, withSampleType } from '../core/formats/sample-types';
import { writeSnapshot } from '../core/formats/snapshot';
import { mergeSides } from '../core/model/diff';
import { type LabelSummary, labelSummary } from '../core/model/labels';
import { matchSources, sourceListing } from '../core/model/lines';
import { type SearchResult, searchProfile } from '../core/model/search';
import {
  type Analysis,
  analyze,
  analyzeDiff,
  derive,
  diffSandwichAnalysis,
  fold,
  type Loaded,
  type Progress,
  parse,
  resolvedProfile,
  type SandwichAnalysis,
  type Symbols,
  type SymbolsState,
  sandwichAnalysis,
  symbolize,
} from '../core/pipeline';
import { type Demangle, loadDemangler } from '../core/symbols/demangle';
import { looksLikeElf } from '../core/symbols/elf';
import { type MappingSamples, samplesByModule } from '../core/symbols/modules';
import { looksLikeNm } from '../core/symbols/nm';
import { type Placement, parseBase } from '../core/symbols/placement';
import type { DroppedFile } from '../core/symbols/symbolize';
import { type FoldedProfile, type Mapping, ProfileError } from '../core/types';
import { DEFAULT_VIEW, type SearchQuery, type WorkerView, workerViewOf } from '../core/view/schema';
import { foldedPartsThrough } from '../export/folded';
import { faultedBuffer, faultedWithin } from './prefault';
import type { SnapshotFile, SourceReply } from './protocol';
import { release } from './release';

export interface SessionResult {
  /** The analysis of the view; null when only the sandwich changed. */
  analysis: Analysis | null;
  sandwich: SandwichAnalysis | null;
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
}

const isSymbolFile = (b: Uint8Array) => looksLikeElf(b) || looksLikeNm(b);

/** The text of a dropped file that could be source code (UTF-8, no NUL, under 4 MB), else null. */
function sourceText(bytes: Uint8Array): string | null {
  if (bytes.length === 0 || bytes.length > 4 << 20 || bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

const sameTransforms = (a: WorkerView, b: WorkerView) =>
  a.transforms.length === b.transforms.length &&
  JSON.stringify(a.transforms) === JSON.stringify(b.transforms);

const sameLabels = (a: WorkerView, b: WorkerView) =>
  a.groupBy === b.groupBy && JSON.stringify(a.labelFilters) === JSON.stringify(b.labelFilters);

function noProfile(): ProfileError {
  return new ProfileError('no profile is open', 'unknown');
}

export type Slot = 'main' | 'base';

export class WorkerSession {
  private loaded: Loaded | null = null;
  /** The baseline a diff compares `loaded` with. */
  private loadedBase: Loaded | null = null;
  private baseFolded: FoldedProfile | null = null;
  private symbolFiles: DroppedFile[] = [];
  /** Source files the user dropped (text that is no profile), by name, for the source panel. */
  private sources = new Map<string, string>();
  private symbols: Symbols | null = null;
  /** The symbols of the baseline (the same files, matched to its mappings). */
  private baseSymbols: Symbols | null = null;
  private demangle: Demangle | null = null;
  /** The folded (symbolized) profile every view derives from. Never transferred. */
  private base: FoldedProfile | null = null;
  private foldMs = 0;
  /** The profile the page shows now (transformed, maybe inverted). */
  private current: FoldedProfile | null = null;
  /** The view `base` and `current` reflect. */
  private view: WorkerView = workerViewOf(DEFAULT_VIEW);

  /**
   * Receives coarse first analyses of a large new profile, before the full one: maybe an
   * importer's preview (its function table pending), then the coarse tree of the folded profile.
   */
  onPreview: ((a: Analysis) => void) | null = null;

  constructor(private readonly loadDemangle: () => Promise<Demangle> = () => loadDemangler()) {}

  /**
   * Files dropped together: at most one profile, plus any ELF binaries, debug files and nm
   * listings. A new profile is shown with `view`; without a profile among them, the symbol files
   * apply to the current profile and its view. `consume`: the caller gives the files up, and the
   * profile's bytes are released once parsed.
   */
  async drop(
    files: DroppedFile[],
    view: WorkerView,
    progress?: Progress,
    slot: Slot = 'main',
    opts: { consume?: boolean } = {},
  ): Promise<SessionResult> {
    if (slot === 'base' && !this.loaded)
      throw new ProfileError('open a profile first, then compare it with another', 'unknown');
    // A bundle (zip or tar.gz) is its profile and the objects it packed.
    files = expandBundles(files);
    const symbols = files.filter((f) => isSymbolFile(f.bytes));
    const others = files.filter((f) => !isSymbolFile(f.bytes));
    // Among the other files, the one that parses is the profile; the rest are unusable files.
    let profile: { file: DroppedFile; loaded: Loaded; bytes: number } | null = null;
    let firstError: unknown = null;
    const unusable: DroppedFile[] = [];
    // Symbols would rename the frames, and with several files the profile is not known yet. The
    // importer knows when its preview pays at the view's granularity (the parse gets it).
    const onPreview =
      slot === 'main' && others.length === 1 && symbols.length === 0
        ? (this.onPreview ?? undefined)
        : undefined;
    for (const f of others) {
      try {
        const loaded = parse(f.bytes, f.name, {
          onProgress: progress,
          onPreview,
          granularity: view.granularity,
          stream: f.stream,
        });
        if (profile) {
          throw new ProfileError(
            `drop one profile at a time (got ${profile.file.name} and ${f.name}); binaries and libraries may ` +
              'come with it. To compare two profiles, open one, then drop the other on "Compare with…"',
            'unknown',
          );
        }
        if (f.warnings) loaded.raw.warnings.unshift(...f.warnings);
        profile = { file: f, loaded, bytes: f.size ?? f.bytes.length };
        // The parsed columns are the only copy: with `consume` (the worker owns the files), the
        // file's bytes go now, before the fold and the tree need their memory.
        if (opts.consume) {
          release(f.bytes);
          f.bytes = new Uint8Array(0);
          f.stream = undefined; // it holds them too
        }
      } catch (e) {
        if (e instanceof ProfileError && e.message.startsWith('drop one profile')) throw e;
        firstError ??= e;
        unusable.push(f);
      }
    }
    if (slot === 'base' && !profile) {
      if (firstError && others.length === 1) throw firstError;
      throw new ProfileError(
        `${files.map((f) => f.name).join(', ')}: no profile among these files to compare with`,
        'unknown',
      );
    }
    if (!profile && (symbols.length === 0 || !this.loaded)) {
      if (firstError && others.length === 1) throw firstError;
      throw new ProfileError(
        `${files.map((f) => f.name).join(', ')}: no profile among these files${
          symbols.length > 0 ? ': open the profile first, or drop it together with its binaries' : ''
        }`,
        'unknown',
      );
    }
    if (profile && slot === 'base') {
      this.loadedBase = profile.loaded;
      this.view = view;
    } else if (profile) {
      this.loaded = profile.loaded;
      this.loadedBase = null;
      this.baseFolded = null;
      this.symbolFiles = [];
      const { raw, fileName, parseMs } = profile.loaded;
      if (raw.diffPair) {
        // Two counts per stack: the baseline is the first column, the comparison the second.
        this.loadedBase = { raw: withSampleType(raw, 0), fileName: `${fileName} (baseline)`, parseMs };
        if (view.mode === 'graph') view = { ...view, mode: 'diff' };
      }
      // A link's sample type that this profile lacks: its default instead.
      const types = sampleTypesOf(profile.loaded.raw);
      const known = types.some(
        (t) => t.type === view.sampleType || `${t.type}/${t.unit}` === view.sampleType,
      );
      this.view = known || view.sampleType === undefined ? view : { ...view, sampleType: undefined };
    }
    // Text files that are no profile are source files (for the source panel); other unusable
    // files go to the symbolizer too, which reports each by name.
    const junk: DroppedFile[] = [];
    for (const f of unusable) {
      const text = sourceText(f.bytes);
      if (text === null) junk.push(f);
      else this.sources.set(f.name, text);
    }
    this.addSymbolFiles([...symbols, ...junk]);
    // A new large profile per address: its tree has about a node frame per stack frame, in memory
    // a helper makes ready while the fold runs (worker/prefault.ts).
    const raw = profile?.loaded.raw;
    const stackFrames = raw ? raw.samples.stackStart[raw.samples.count] : 0;
    const large =
      raw !== undefined &&
      slot === 'main' &&
      symbols.length === 0 &&
      !raw.diffPair &&
      stackFrames >= PREFAULT_MIN_FRAMES &&
      this.view.granularity === 'addresses';
    const faulted = large ? faultedBuffer((stackFrames + 1) * 4) : null;
    await this.refold(progress);
    const frameBuffer = faulted ? await faultedWithin(faulted, 10) : null;
    const newProfile = profile !== null && slot === 'main';
    return {
      ...this.derive(progress, true, newProfile, frameBuffer),
      ...(newProfile ? { fileBytes: profile!.bytes } : {}),
      labels: this.labelSummary(),
    };
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
    this.view = view;
    await this.refold(progress);
    return { ...this.derive(progress, true, false), labels: this.labelSummary() };
  }

  /** Applies a view to the open profile, re-running only the stages it changes. */
  async apply(view: WorkerView, progress?: Progress): Promise<SessionResult> {
    if (!this.loaded || !this.base) throw noProfile();
    const before = this.view;
    this.view = view;
    const refold =
      view.mangled !== before.mangled ||
      view.sampleType !== before.sampleType ||
      view.baseSampleType !== before.baseSampleType ||
      view.keepDropFrames !== before.keepDropFrames ||
      view.granularity !== before.granularity ||
      view.fullNames !== before.fullNames ||
      JSON.stringify(view.placements) !== JSON.stringify(before.placements) ||
      !sameLabels(view, before);
    if (refold) await this.refold(progress);
    const diffChanged =
      (view.mode === 'diff') !== (before.mode === 'diff') ||
      (view.mode === 'diff' && view.diffWidth !== before.diffWidth);
    const graphChanged =
      refold || diffChanged || view.inverted !== before.inverted || !sameTransforms(view, before);
    const result = this.derive(progress, graphChanged, false);
    return refold ? { ...result, labels: this.labelSummary() } : result;
  }

  /**
   * Per mapped file, the samples in it (`meta.mappingSamples`), counted now from the folded profile
   * when its fold put them off (`meta.mappingSamplesPending`).
   */
  mappingSamples(): MappingSamples[] {
    const base = this.base;
    if (!base) throw noProfile();
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

  /** `root;…;leaf COUNT` lines of the shown view, or of its stacks through a frame-id path. */
  foldedText(path: readonly number[]): string {
    return this.foldedParts(path).join('');
  }

  /** The same text in parts of about a megabyte (it can be more than one string holds). */
  foldedParts(path: readonly number[]): string[] {
    if (!this.current) throw noProfile();
    if (this.view.mode === 'diff' && this.baseFolded && this.base) {
      // Both sides' counts per stack, as difffolded.pl writes them.
      const merged = mergeSides(derive(this.base, this.view).graph, derive(this.baseFolded, this.view).graph);
      return foldedPartsThrough(merged.profile, path, [merged.base, merged.comp]);
    }
    return foldedPartsThrough(this.current, path);
  }

  /**
   * Where a function spends its samples, per source line and per address (the source panel), with
   * the text of the dropped source files its lines are in.
   */
  source(name: string): SourceReply {
    if (!this.loaded) throw noProfile();
    const raw = withSampleType(this.loaded.raw, sampleTypeIndex(this.loaded.raw, this.view.sampleType));
    const listing = sourceListing(
      raw,
      this.symbols?.symbolizer,
      name,
      this.view.fullNames ? 'full' : 'short',
    );
    const files = [...new Set(listing.lines.map((l) => l.file).filter((f) => f !== ''))];
    const matched = matchSources(files, [...this.sources.keys()]);
    const texts: Record<string, string> = {};
    for (const [file, given] of matched) texts[file] = this.sources.get(given)!;
    return { ...listing, texts };
  }

  /**
   * The shown profile as gzipped pprof profile.proto: symbolized as shown, transforms applied,
   * never inverted (a comparison: its comparison side).
   */
  proto(): Uint8Array {
    if (!this.base) throw noProfile();
    return writePprof(derive(this.base, this.view).table);
  }

  /**
   * The open profile, and in a comparison its baseline, with the names their symbols give (at the
   * view's granularity and names) written in, as snapshot files: what an HTML report carries. Each
   * keeps every sample type and label; a two-count folded file's sides become two profiles.
   */
  snapshots(): SnapshotFile[] {
    if (!this.loaded) throw noProfile();
    const spec = {
      granularity: this.view.granularity,
      names: this.view.fullNames ? 'full' : 'short',
    } as const;
    const write = (loaded: Loaded, symbols: Symbols | null) => {
      const raw = resolvedProfile(loaded, { ...spec, symbols });
      return writeSnapshot(raw.diffPair ? { ...raw, diffPair: undefined } : raw);
    };
    const out: SnapshotFile[] = [
      { slot: 'main', name: this.loaded.fileName, bytes: write(this.loaded, this.symbols) },
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
      // A file dropped again (same name) replaces the earlier one.
      this.symbolFiles = this.symbolFiles.filter((g) => g.name !== f.name);
      this.symbolFiles.push(f);
    }
  }

  private labelSummary(): LabelSummary[] {
    const raw = this.loaded!.raw;
    return labelSummary(withSampleType(raw, sampleTypeIndex(raw, this.view.sampleType)));
  }

  /** symbolize → fold, with the view's names and sample type. */
  private async refold(progress?: Progress): Promise<void> {
    const loaded = this.loaded!;
    const { mangled } = this.view;
    const names = this.view.fullNames ? 'full' : 'short';
    this.symbols = null;
    if (this.symbolFiles.length > 0) {
      progress?.('symbols', 0);
      if (!mangled && !this.demangle) this.demangle = await this.loadDemangle();
      this.symbols = symbolize(loaded.raw, this.symbolFiles, {
        demangle: this.demangle ?? undefined,
        mangled,
        placements: placementsOf(this.view),
        names,
      });
    }
    progress?.('fold', 0);
    const { sampleType, labelFilters, groupBy, keepDropFrames, granularity } = this.view;
    const r = fold(loaded, {
      symbols: this.symbols,
      // The session owns the parsed profiles; a two-count file's two sides share their stacks.
      consume: !loaded.raw.diffPair,
      // Counted when the page asks (mappingSamples), after the first full analysis is shown.
      mappingSamplesLater: true,
      sampleType,
      labelFilters,
      groupBy,
      keepDropFrames,
      granularity,
      names,
    });
    this.base = r.profile;
    this.foldMs = r.foldMs;
    this.baseFolded = null;
    if (this.loadedBase) {
      // The same symbol files serve both sides: each mapping takes the file matching it.
      const raw = this.loadedBase.raw;
      this.baseSymbols =
        this.symbolFiles.length > 0
          ? symbolize(raw, this.symbolFiles, { demangle: this.demangle ?? undefined, mangled, names })
          : null;
      this.baseFolded = fold(this.loadedBase, {
        symbols: this.baseSymbols,
        consume: !raw.diffPair,
        sampleType: this.view.baseSampleType,
        labelFilters,
        groupBy,
        keepDropFrames,
        granularity,
        names,
      }).profile;
    }
  }

  /** transform → trees and tables (when the graph changed), and the sandwich in sandwich mode. */
  private derive(
    progress: Progress | undefined,
    graphChanged: boolean,
    newProfile: boolean,
    frameBuffer: ArrayBuffer | null = null,
  ): SessionResult {
    const base = this.base!;
    let analysis: Analysis | null = null;
    if (graphChanged) {
      progress?.('tree', 0);
      const timings = { parseMs: this.loaded!.parseMs, foldMs: this.foldMs };
      analysis =
        this.view.mode === 'diff' && this.baseFolded
          ? analyzeDiff(base, this.baseFolded, { ...this.view, width: this.view.diffWidth }, timings)
          : analyze(base, this.view, timings, this.onPreview ?? undefined, frameBuffer);
      this.current = analysis.profile;
    }
    const { mode, sandwich, transforms, diffWidth } = this.view;
    const comparing = mode === 'diff' && this.baseFolded !== null;
    return {
      analysis,
      sandwich: !sandwich
        ? null
        : mode === 'sandwich'
          ? sandwichAnalysis(base, transforms, sandwich)
          : comparing
            ? diffSandwichAnalysis(base, this.baseFolded!, transforms, sandwich, diffWidth)
            : null,
      symbols: this.symbols?.state ?? null,
      newProfile,
      mode: mode === 'diff' && !this.baseFolded ? 'graph' : mode,
    };
  }
}

/** The view's placed ELF files, with their load addresses read (unreadable ones left out). */
function placementsOf(view: WorkerView): Placement[] {
  return (view.placements ?? []).flatMap((p) => {
    const base = parseBase(p.base);
    return base === null ? [] : [{ file: p.file, base }];
  });
}

/** Stack frames from which a new profile's tree memory is made ready by a helper (32 MB of it). */
const PREFAULT_MIN_FRAMES = 8 << 20;
