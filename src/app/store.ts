// Application state (zustand): the loaded analysis and the view state.

import { create } from 'zustand';
import type { Analysis } from '../core/pipeline';
import { CancelledError, ProfileWorkerClient, WorkerFailure } from '../worker/client';
import type { FileBuffer, WorkerResult } from '../worker/protocol';
import type { SymbolsState } from '../worker/session';

export type SortKey = 'name' | 'module' | 'self' | 'total';
export type ThemeName = 'light' | 'dark';

export interface LoadError {
  fileName: string;
  message: string;
  offset?: number;
  line?: number;
}

export interface AppState {
  status: 'idle' | 'loading' | 'ready';
  loadingName: string | null;
  progress: { phase: string; fraction: number } | null;
  analysis: Analysis | null;
  symbols: SymbolsState | null;
  fileSize: number;
  error: LoadError | null;
  focusNode: number;
  hoverNode: number | null;
  selectedFrame: number | null;
  sort: { key: SortKey; desc: boolean };
  theme: ThemeName;
  /** Set when a new profile arrives; the flame graph clears it after painting it once. */
  firstPaintPending: boolean;

  /** Files dropped or chosen together: a profile and/or binaries and symbol listings. */
  openFiles: (files: File[]) => Promise<void>;
  openBuffers: (files: FileBuffer[]) => Promise<void>;
  setMangled: (mangled: boolean) => Promise<void>;
  setFocus: (node: number) => void;
  setHover: (node: number | null) => void;
  selectFrame: (frame: number | null) => void;
  sortBy: (key: SortKey) => void;
  setTheme: (t: ThemeName) => void;
  dismissError: () => void;
  paintedFirstFrame: () => void;
}

const client = new ProfileWorkerClient();

const prefersDark = (): boolean =>
  typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;

export const useStore = create<AppState>()((set, get) => {
  /** Runs a worker job; applies its result, or shows its error and keeps what was showing. */
  const run = async (what: string, job: () => Promise<WorkerResult>, size?: number) => {
    try {
      const r = await job();
      set({
        status: 'ready',
        analysis: r.analysis,
        symbols: r.symbols,
        ...(r.newProfile ? { fileSize: size ?? 0, selectedFrame: null } : {}),
        loadingName: null,
        progress: null,
        focusNode: 0,
        hoverNode: null,
        firstPaintPending: true,
      });
    } catch (e) {
      if (e instanceof CancelledError) return; // another job took over
      const f = e instanceof WorkerFailure ? e : new WorkerFailure((e as Error).message);
      // Keep whatever profile was showing: a bad file never blanks the page.
      set({
        status: get().analysis ? 'ready' : 'idle',
        loadingName: null,
        progress: null,
        error: { fileName: what, message: f.message, offset: f.offset, line: f.line },
      });
    }
  };
  return {
    status: 'idle',
    loadingName: null,
    progress: null,
    analysis: null,
    symbols: null,
    fileSize: 0,
    error: null,
    focusNode: 0,
    hoverNode: null,
    selectedFrame: null,
    sort: { key: 'self', desc: true },
    theme: prefersDark() ? 'dark' : 'light',
    firstPaintPending: false,

    openFiles: async (files) => {
      if (files.length === 0) return;
      performance.mark('flamelens:file-received');
      const names = files.map((f) => f.name).join(', ');
      set({ status: 'loading', loadingName: names, progress: { phase: 'read', fraction: 0 }, error: null });
      let buffers: FileBuffer[];
      try {
        buffers = await Promise.all(
          files.map(async (f) => ({ name: f.name, buffer: await f.arrayBuffer() })),
        );
      } catch (e) {
        set({
          status: get().analysis ? 'ready' : 'idle',
          progress: null,
          error: { fileName: names, message: `could not read the file: ${(e as Error).message}` },
        });
        return;
      }
      await get().openBuffers(buffers);
    },

    openBuffers: async (files) => {
      const size = files.reduce((n, f) => n + f.buffer.byteLength, 0);
      const names = files.map((f) => f.name).join(', ');
      set({ status: 'loading', loadingName: names, progress: { phase: 'parse', fraction: 0 }, error: null });
      await run(
        names,
        () => client.drop(files, (phase, fraction) => set({ progress: { phase, fraction } })),
        size,
      );
    },

    setMangled: async (mangled) => {
      set({ status: 'loading', loadingName: 'symbols', progress: { phase: 'symbols', fraction: 0 } });
      await run('symbols', () => client.setMangled(mangled));
    },

    setFocus: (node) => set({ focusNode: node }),
    setHover: (node) => {
      if (get().hoverNode !== node) set({ hoverNode: node });
    },
    selectFrame: (frame) => set({ selectedFrame: frame }),
    sortBy: (key) => {
      const s = get().sort;
      set({
        sort: s.key === key ? { key, desc: !s.desc } : { key, desc: key !== 'name' && key !== 'module' },
      });
    },
    setTheme: (theme) => set({ theme }),
    dismissError: () => set({ error: null }),
    paintedFirstFrame: () => {
      if (!get().firstPaintPending) return;
      performance.mark('flamelens:first-paint');
      set({ firstPaintPending: false });
    },
  };
});
