// What the worker remembers between messages: the parsed profile (so that symbols dropped later
// re-fold it without re-parsing), the symbol files, the folded profile and the view applied to
// it. It runs the core pipeline's stages and re-runs only those a change needs. It names no
// format. Pure core calls only: testable in node.

import { sampleTypesOf } from '../core/formats/sample-types';
import type { FrameGranularity } from '../core/model/fold';
import { type SearchResult, searchProfile } from '../core/model/search';
import {
  type Analysis,
  analyze,
  fold,
  type Loaded,
  type Progress,
  parse,
  type SandwichAnalysis,
  type Symbols,
  type SymbolsState,
  sandwichAnalysis,
  symbolize,
} from '../core/pipeline';
import { type Demangle, loadDemangler } from '../core/symbols/demangle';
import { looksLikeElf } from '../core/symbols/elf';
import { looksLikeNm } from '../core/symbols/nm';
import type { DroppedFile } from '../core/symbols/symbolize';
import { type FoldedProfile, ProfileError } from '../core/types';
import { DEFAULT_VIEW, type SearchQuery, type WorkerView, workerViewOf } from '../core/view/schema';
import { foldedTextThrough } from '../export/folded';

export interface SessionResult {
  /** The analysis of the view; null when only the sandwich changed. */
  analysis: Analysis | null;
  sandwich: SandwichAnalysis | null;
  symbols: SymbolsState | null;
  /** True when a new profile replaced the previous one; false when the same one was re-derived. */
  newProfile: boolean;
}

const isSymbolFile = (b: Uint8Array) => looksLikeElf(b) || looksLikeNm(b);

const sameTransforms = (a: WorkerView, b: WorkerView) =>
  a.transforms.length === b.transforms.length &&
  JSON.stringify(a.transforms) === JSON.stringify(b.transforms);

function noProfile(): ProfileError {
  return new ProfileError('no profile is open', 'unknown');
}

export class WorkerSession {
  private loaded: Loaded | null = null;
  private symbolFiles: DroppedFile[] = [];
  private symbols: Symbols | null = null;
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
   * apply to the current profile and its view.
   */
  async drop(files: DroppedFile[], view: WorkerView, progress?: Progress): Promise<SessionResult> {
    const symbols = files.filter((f) => isSymbolFile(f.bytes));
    const others = files.filter((f) => !isSymbolFile(f.bytes));
    // Among the other files, the one that parses is the profile; the rest are unusable files.
    let profile: { file: DroppedFile; loaded: Loaded } | null = null;
    let firstError: unknown = null;
    const unusable: DroppedFile[] = [];
    // Symbols would rename the frames, and with several files the profile is not known yet.
    const onPreview = others.length === 1 && symbols.length === 0 ? (this.onPreview ?? undefined) : undefined;
    for (const f of others) {
      try {
        const loaded = parse(f.bytes, f.name, {
          onProgress: progress,
          onPreview,
          granularity: foldGranularity(view),
        });
        if (profile) {
          throw new ProfileError(
            `drop one profile at a time (got ${profile.file.name} and ${f.name}); binaries and libraries may come with it`,
            'unknown',
          );
        }
        profile = { file: f, loaded };
      } catch (e) {
        if (e instanceof ProfileError && e.message.startsWith('drop one profile')) throw e;
        firstError ??= e;
        unusable.push(f);
      }
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
    if (profile) {
      this.loaded = profile.loaded;
      this.symbolFiles = [];
      // A link's sample type that this profile lacks: its default instead.
      const types = sampleTypesOf(profile.loaded.raw);
      const known = types.some(
        (t) => t.type === view.sampleType || `${t.type}/${t.unit}` === view.sampleType,
      );
      this.view = known || view.sampleType === undefined ? view : { ...view, sampleType: undefined };
    }
    // Unusable files go to the symbolizer too, which reports each by name.
    this.addSymbolFiles([...symbols, ...unusable]);
    await this.refold(progress);
    return this.derive(progress, true, profile !== null);
  }

  /** Applies a view to the open profile, re-running only the stages it changes. */
  async apply(view: WorkerView, progress?: Progress): Promise<SessionResult> {
    if (!this.loaded || !this.base) throw noProfile();
    const before = this.view;
    this.view = view;
    const refold =
      view.mangled !== before.mangled ||
      view.sampleType !== before.sampleType ||
      foldGranularity(view) !== foldGranularity(before);
    if (refold) await this.refold(progress);
    const graphChanged = refold || view.inverted !== before.inverted || !sameTransforms(view, before);
    return this.derive(progress, graphChanged, false);
  }

  /** Search over the shown view's stacks: matched frames, samples through them, where to go. */
  search(query: SearchQuery): SearchResult {
    if (!this.current) throw noProfile();
    return searchProfile(this.current, query);
  }

  /** `root;…;leaf COUNT` lines of the shown view, or of its stacks through a frame-id path. */
  foldedText(path: readonly number[]): string {
    if (!this.current) throw noProfile();
    return foldedTextThrough(this.current, path);
  }

  private addSymbolFiles(files: DroppedFile[]): void {
    for (const f of files) {
      // A file dropped again (same name) replaces the earlier one.
      this.symbolFiles = this.symbolFiles.filter((g) => g.name !== f.name);
      this.symbolFiles.push(f);
    }
  }

  /** symbolize → fold, with the view's names and sample type. */
  private async refold(progress?: Progress): Promise<void> {
    const loaded = this.loaded!;
    const { mangled } = this.view;
    this.symbols = null;
    if (this.symbolFiles.length > 0) {
      progress?.('symbols', 0);
      if (!mangled && !this.demangle) this.demangle = await this.loadDemangle();
      this.symbols = symbolize(loaded.raw, this.symbolFiles, {
        demangle: this.demangle ?? undefined,
        mangled,
      });
    }
    progress?.('fold', 0);
    const r = fold(loaded, {
      symbols: this.symbols,
      sampleType: this.view.sampleType,
      granularity: foldGranularity(this.view),
    });
    this.base = r.profile;
    this.foldMs = r.foldMs;
  }

  /** transform → trees and tables (when the graph changed), and the sandwich in sandwich mode. */
  private derive(progress: Progress | undefined, graphChanged: boolean, newProfile: boolean): SessionResult {
    const base = this.base!;
    let analysis: Analysis | null = null;
    if (graphChanged) {
      progress?.('tree', 0);
      const timings = { parseMs: this.loaded!.parseMs, foldMs: this.foldMs };
      analysis = analyze(base, this.view, timings, this.onPreview ?? undefined);
      this.current = analysis.profile;
    }
    const { mode, sandwich } = this.view;
    return {
      analysis,
      sandwich:
        mode === 'sandwich' && sandwich ? sandwichAnalysis(base, this.view.transforms, sandwich) : null,
      symbols: this.symbols?.state ?? null,
      newProfile,
    };
  }
}

/** The fold's granularity for a view: per address only when the view asks for addresses. */
function foldGranularity(view: WorkerView): FrameGranularity {
  return view.granularity === 'addresses' ? 'addresses' : 'functions';
}
