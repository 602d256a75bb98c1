// What the worker remembers between messages: the parsed profile (so that symbols dropped later
// re-fold it without re-parsing), the symbol files, and the view options. Pure core calls only:
// testable in node.

import { type Analysis, analyzeRaw, parseBytes } from '../core/pipeline';
import { type Demangle, loadDemangler } from '../core/symbols/demangle';
import { looksLikeElf } from '../core/symbols/elf';
import { looksLikeNm } from '../core/symbols/nm';
import { type DroppedFile, type SymbolizeReport, symbolizerFromFiles } from '../core/symbols/symbolize';
import { ProfileError, type RawProfile } from '../core/types';

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

const isSymbolFile = (b: Uint8Array) => looksLikeElf(b) || looksLikeNm(b);

export class WorkerSession {
  private raw: RawProfile | null = null;
  private fileName = '';
  private parseMs = 0;
  private symbolFiles: DroppedFile[] = [];
  private mangled = false;
  private demangle: Demangle | null = null;

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
    for (const f of others) {
      try {
        const { raw, parseMs } = parseBytes(f.bytes, { fileName: f.name, onProgress: progress });
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

  private addSymbolFiles(files: DroppedFile[]): void {
    for (const f of files) {
      // A file dropped again (same name) replaces the earlier one.
      this.symbolFiles = this.symbolFiles.filter((g) => g.name !== f.name);
      this.symbolFiles.push(f);
    }
  }

  private async fold(progress?: Progress): Promise<Omit<SessionResult, 'newProfile'>> {
    const raw = this.raw!;
    const opts = { fileName: this.fileName, onProgress: progress, parseMs: this.parseMs };
    if (this.symbolFiles.length === 0) return { analysis: analyzeRaw(raw, opts), symbols: null };
    progress?.('symbols', 0);
    if (!this.mangled && !this.demangle) this.demangle = await this.loadDemangle();
    const { symbolizer, report, errors } = symbolizerFromFiles(raw.meta.mappings, this.symbolFiles, {
      demangle: this.demangle ?? undefined,
      mangled: this.mangled,
    });
    const analysis = analyzeRaw(raw, { ...opts, symbolizer });
    analysis.profile.meta.symbolized = report.matched.map((m) => m.mappingPath);
    return {
      analysis,
      symbols: { files: this.symbolFiles.map((f) => f.name), report, errors, mangled: this.mangled },
    };
  }
}
