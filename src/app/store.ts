// Application state (zustand): the loaded analysis and the view state.

import { create } from 'zustand';
import type { Analysis } from '../core/pipeline';
import { CancelledError, ProfileWorkerClient, WorkerFailure } from '../worker/client';

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
  fileSize: number;
  error: LoadError | null;
  focusNode: number;
  hoverNode: number | null;
  selectedFrame: number | null;
  sort: { key: SortKey; desc: boolean };
  theme: ThemeName;
  /** Set when a new profile arrives; the flame graph clears it after painting it once. */
  firstPaintPending: boolean;

  openFile: (file: File) => Promise<void>;
  openBuffer: (name: string, buffer: ArrayBuffer) => Promise<void>;
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

export const useStore = create<AppState>()((set, get) => ({
  status: 'idle',
  loadingName: null,
  progress: null,
  analysis: null,
  fileSize: 0,
  error: null,
  focusNode: 0,
  hoverNode: null,
  selectedFrame: null,
  sort: { key: 'self', desc: true },
  theme: prefersDark() ? 'dark' : 'light',
  firstPaintPending: false,

  openFile: async (file) => {
    performance.mark('flamelens:file-received');
    set({ status: 'loading', loadingName: file.name, progress: { phase: 'read', fraction: 0 }, error: null });
    let buffer: ArrayBuffer;
    try {
      buffer = await file.arrayBuffer();
    } catch (e) {
      set({
        status: get().analysis ? 'ready' : 'idle',
        progress: null,
        error: { fileName: file.name, message: `could not read the file: ${(e as Error).message}` },
      });
      return;
    }
    await get().openBuffer(file.name, buffer);
  },

  openBuffer: async (name, buffer) => {
    const size = buffer.byteLength;
    set({ status: 'loading', loadingName: name, progress: { phase: 'parse', fraction: 0 }, error: null });
    try {
      const analysis = await client.open(name, buffer, (phase, fraction) =>
        set({ progress: { phase, fraction } }),
      );
      set({
        status: 'ready',
        analysis,
        fileSize: size,
        loadingName: null,
        progress: null,
        focusNode: 0,
        hoverNode: null,
        selectedFrame: null,
        firstPaintPending: true,
      });
    } catch (e) {
      if (e instanceof CancelledError) return; // another file took over
      const f = e instanceof WorkerFailure ? e : new WorkerFailure((e as Error).message);
      // Keep whatever profile was showing: a bad file never blanks the page.
      set({
        status: get().analysis ? 'ready' : 'idle',
        loadingName: null,
        progress: null,
        error: { fileName: name, message: f.message, offset: f.offset, line: f.line },
      });
    }
  },

  setFocus: (node) => set({ focusNode: node }),
  setHover: (node) => {
    if (get().hoverNode !== node) set({ hoverNode: node });
  },
  selectFrame: (frame) => set({ selectedFrame: frame }),
  sortBy: (key) => {
    const s = get().sort;
    set({ sort: s.key === key ? { key, desc: !s.desc } : { key, desc: key !== 'name' && key !== 'module' } });
  },
  setTheme: (theme) => set({ theme }),
  dismissError: () => set({ error: null }),
  paintedFirstFrame: () => {
    if (!get().firstPaintPending) return;
    performance.mark('flamelens:first-paint');
    set({ firstPaintPending: false });
  },
}));
