// What the worker remembers between messages: the parsed profile (so that symbols dropped later
// re-fold it without re-parsing), the symbol files, and the view options. Pure core calls only:
// testable in node.

import { internGperftools, looksLikeGperftools, scanGperftools } from '../core/formats/gperftools';
import { buildCallTree, type CallTree, PREVIEW_MIN_FRAMES } from '../core/model/calltree';
import { foldProfile } from '../core/model/fold';
import { gperftoolsPreview } from '../core/model/gperftools-preview';
import { applyTransforms, type Transform } from '../core/model/transforms';
import { invertProfile, sandwich } from '../core/model/views';
import { type Analysis, parseBytes, treeAndFunctions } from '../core/pipeline';
import { type Demangle, loadDemangler } from '../core/symbols/demangle';
import { looksLikeElf } from '../core/symbols/elf';
import { looksLikeNm } from '../core/symbols/nm';
import { type DroppedFile, type SymbolizeReport, symbolizerFromFiles } from '../core/symbols/symbolize';
import { type FoldedProfile, ProfileError, type RawProfile } from '../core/types';
import { foldedTextThrough } from '../export/folded';
import type { FunctionsPending } from './protocol';

export interface SymbolsState {
  /** Names of the symbol files in use. */
  files: string[];
  report: SymbolizeReport;
  /** Files that could not be used (not ELF/nm, malformed). */
  errors: { fileName: string; message: string }[];
  mangled: boolean;
}

export interface SessionResult {
  analysis: Analysis;
  symbols: SymbolsState | null;
  /** True when a new profile replaced the previous one; false when the same one was re-symbolized. */
  newProfile: boolean;
}

export type Progress = (phase: string, fraction: number) => void;

/** How the folded profile is shown: transforms applied in order, then maybe inverted. */
export interface ViewSpec {
  transforms: Transform[];
  inverted: boolean;
}

export interface SandwichResult {
  name: string;
  callers: { profile: FoldedProfile; tree: CallTree };
  callees: { profile: FoldedProfile; tree: CallTree };
  self: number;
  total: number;
}

const isSymbolFile = (b: Uint8Array) => looksLikeElf(b) || looksLikeNm(b);

const now = () => performance.now();

export class WorkerSession {
  private raw: RawProfile | null = null;
  private fileName = '';
  private parseMs = 0;
  private symbolFiles: DroppedFile[] = [];
  private mangled = false;
  private demangle: Demangle | null = null;
  /** The folded (symbolized) profile every view derives from. Never transferred. */
  private base: FoldedProfile | null = null;
  /** The profile the page shows now (transformed, maybe inverted). */
  private current: FoldedProfile | null = null;
  private baseMs = { parseMs: 0, foldMs: 0 };
  private view: ViewSpec = { transforms: [], inverted: false };

  /**
   * Receives coarse first analyses of a large new profile, before the full one: maybe a raw
   * preview (from the record headers, its function table pending), then the coarse tree of the
   * folded profile.
   */
  onPreview: ((a: Analysis & FunctionsPending) => void) | null = null;

  constructor(private readonly loadDemangle: () => Promise<Demangle> = () => loadDemangler()) {}

  /**
   * Files dropped together: at most one profile, plus any ELF binaries, debug files and nm
   * listings. Without a profile among them, the symbol files apply to the current profile.
   */
  async drop(files: DroppedFile[], progress?: Progress): Promise<SessionResult> {
    const symbols = files.filter((f) => isSymbolFile(f.bytes));
    const others = files.filter((f) => !isSymbolFile(f.bytes));
    // Among the other files, the one that parses is the profile; the rest are unusable files.
    let profile: { file: DroppedFile; raw: RawProfile; parseMs: number } | null = null;
    let firstError: unknown = null;
    const unusable: DroppedFile[] = [];
    // Symbols would rename the frames, and with several files the profile is not known yet.
    const rawPreview = others.length === 1 && symbols.length === 0 && this.onPreview !== null;
    for (const f of others) {
      try {
        const { raw, parseMs } = rawPreview
          ? this.parseWithRawPreview(f, progress)
          : parseBytes(f.bytes, { fileName: f.name, onProgress: progress });
        if (profile) {
          throw new ProfileError(
            `drop one profile at a time (got ${profile.file.name} and ${f.name}); binaries and libraries may come with it`,
            'unknown',
          );
        }
        profile = { file: f, raw, parseMs };
      } catch (e) {
        if (e instanceof ProfileError && e.message.startsWith('drop one profile')) throw e;
        firstError ??= e;
        unusable.push(f);
      }
    }
    if (!profile && (symbols.length === 0 || !this.raw)) {
      if (firstError && others.length === 1) throw firstError;
      throw new ProfileError(
        `${files.map((f) => f.name).join(', ')}: no profile among these files${
          symbols.length > 0 ? ': open the profile first, or drop it together with its binaries' : ''
        }`,
        'unknown',
      );
    }
    if (profile) {
      this.raw = profile.raw;
      this.fileName = profile.file.name;
      this.parseMs = profile.parseMs;
      this.symbolFiles = [];
      this.view = { transforms: [], inverted: false };
    }
    // Unusable files go to the symbolizer too, which reports each by name.
    this.addSymbolFiles([...symbols, ...unusable]);
    return { ...(await this.fold(progress)), newProfile: profile !== null };
  }

  /** Shows names as stored in the binaries (mangled) or demangled. */
  async setMangled(mangled: boolean, progress?: Progress): Promise<SessionResult> {
    if (!this.raw) throw new ProfileError('no profile is open', 'unknown');
    this.mangled = mangled;
    return { ...(await this.fold(progress)), newProfile: false };
  }

  /** Applies transforms and inversion to the open profile. */
  setView(view: ViewSpec, progress?: Progress): SessionResult {
    if (!this.base) throw new ProfileError('no profile is open', 'unknown');
    this.view = view;
    return { analysis: this.analyze(progress), symbols: this.symbolsState, newProfile: false };
  }

  /** Callers and callees of a function, over the transformed (not inverted) profile. */
  sandwich(name: string): SandwichResult {
    if (!this.base) throw new ProfileError('no profile is open', 'unknown');
    const s = sandwich(applyTransforms(this.base, this.view.transforms), name);
    return {
      name,
      callers: { profile: s.callers, tree: buildCallTree(s.callers) },
      callees: { profile: s.callees, tree: buildCallTree(s.callees) },
      self: s.self,
      total: s.total,
    };
  }

  private symbolsState: SymbolsState | null = null;

  /** Samples of the shown view with at least one matching frame on their stack, each counted once. */
  searchSamples(match: Uint8Array): number {
    const p = this.current;
    if (!p) throw new ProfileError('no profile is open', 'unknown');
    const { start, frames, weight } = p.stacks;
    let samples = 0;
    for (let s = 0; s < p.stacks.count; s++) {
      for (let i = start[s]; i < start[s + 1]; i++) {
        if (match[frames[i]] === 1) {
          samples += weight[s];
          break;
        }
      }
    }
    return samples;
  }

  /** `root;…;leaf COUNT` lines of the shown view, or of its stacks through a frame-id path. */
  foldedText(path: readonly number[]): string {
    if (!this.current) throw new ProfileError('no profile is open', 'unknown');
    return foldedTextThrough(this.current, path);
  }

  private analyze(progress?: Progress, preview?: (a: Analysis) => void): Analysis {
    const t0 = performance.now();
    progress?.('tree', 0);
    const shown = applyTransforms(this.base!, this.view.transforms);
    const graph = this.view.inverted ? invertProfile(shown) : shown;
    this.current = graph;
    // The table always describes functions of the (transformed) profile, also when inverted.
    const { tree, functions } = treeAndFunctions(graph, {
      table: shown,
      preview:
        preview &&
        ((coarse, fns) =>
          preview({
            profile: graph,
            tree: coarse,
            functions: fns,
            timings: { ...this.baseMs, treeMs: performance.now() - t0 },
          })),
    });
    return {
      profile: graph,
      tree,
      functions,
      timings: { ...this.baseMs, treeMs: performance.now() - t0 },
    };
  }

  /**
   * Parses a file as parseBytes does; a large gperftools profile is scanned first, previewed from
   * the scan (posted through onPreview) and then parsed from the same scan.
   */
  private parseWithRawPreview(f: DroppedFile, progress?: Progress): { raw: RawProfile; parseMs: number } {
    // parseProfile would choose the gperftools importer for these bytes too (it is tried first).
    if (!looksLikeGperftools(f.bytes)) return parseBytes(f.bytes, { fileName: f.name, onProgress: progress });
    const t0 = now();
    const scan = scanGperftools(f.bytes);
    const scanMs = now() - t0;
    if (scan.totalPcs >= PREVIEW_MIN_FRAMES) {
      try {
        const t1 = now();
        const profile = gperftoolsPreview(scan, { fileName: f.name });
        const t2 = now();
        const tree = buildCallTree(profile);
        // The height of the full graph from the start, as the coarse tree has it: the deepest stack
        // (one frame per PC).
        tree.maxDepth = scan.maxPcs;
        const n = profile.frames.count;
        this.onPreview!({
          profile,
          tree,
          functions: { count: n, self: new Float64Array(n), total: new Float64Array(n) },
          functionsPending: true,
          timings: { parseMs: scanMs, foldMs: t2 - t1, treeMs: now() - t2 },
        });
      } catch {
        // Only a preview: the parse below reports what is wrong with the file.
      }
    }
    const t3 = now();
    const raw = internGperftools(scan, { onProgress: (x) => progress?.('parse', x) });
    return { raw, parseMs: scanMs + now() - t3 };
  }

  private addSymbolFiles(files: DroppedFile[]): void {
    for (const f of files) {
      // A file dropped again (same name) replaces the earlier one.
      this.symbolFiles = this.symbolFiles.filter((g) => g.name !== f.name);
      this.symbolFiles.push(f);
    }
  }

  private async fold(progress?: Progress): Promise<Omit<SessionResult, 'newProfile'>> {
    const raw = this.raw!;
    let symbolizer: Parameters<typeof foldProfile>[1]['symbolizer'];
    this.symbolsState = null;
    if (this.symbolFiles.length > 0) {
      progress?.('symbols', 0);
      if (!this.mangled && !this.demangle) this.demangle = await this.loadDemangle();
      const r = symbolizerFromFiles(raw.meta.mappings, this.symbolFiles, {
        demangle: this.demangle ?? undefined,
        mangled: this.mangled,
      });
      symbolizer = r.symbolizer;
      this.symbolsState = {
        files: this.symbolFiles.map((f) => f.name),
        report: r.report,
        errors: r.errors,
        mangled: this.mangled,
      };
    }
    progress?.('fold', 0);
    const t0 = performance.now();
    this.base = foldProfile(raw, { fileName: this.fileName, symbolizer });
    if (this.symbolsState)
      this.base.meta.symbolized = this.symbolsState.report.matched.map((m) => m.mappingPath);
    this.baseMs = { parseMs: this.parseMs, foldMs: performance.now() - t0 };
    return { analysis: this.analyze(progress, this.onPreview ?? undefined), symbols: this.symbolsState };
  }
}
