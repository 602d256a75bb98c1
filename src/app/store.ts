// Application state (zustand): the loaded analysis and the view state. Every O(samples) step
// runs in the worker; this store only sends requests and keeps the answers.

import { create } from 'zustand';
import { type CallTree, firstChildOf, nextSiblingOf, pathToNode } from '../core/model/calltree';
import type { Transform } from '../core/model/transforms';
import type { ChildOrder, Orientation } from '../flamegraph/layout';
import type { ColorMode } from '../flamegraph/paint';
import type { SearchQuery } from '../flamegraph/search';
import { CancelledError, ProfileWorkerClient, WorkerFailure } from '../worker/client';
import type { FileBuffer, PageAnalysis, PageSandwich, WorkerResult } from '../worker/protocol';
import type { SymbolsState } from '../worker/session';

export type SortKey = 'name' | 'module' | 'self' | 'total';
export type ThemeName = 'light' | 'dark';
export type ViewMode = 'graph' | 'sandwich';

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
  analysis: PageAnalysis | null;
  symbols: SymbolsState | null;
  fileSize: number;
  error: LoadError | null;

  // View state of the main graph.
  focusNode: number;
  selectedNode: number | null;
  orientation: Orientation;
  childOrder: ChildOrder;
  colorMode: ColorMode;
  theme: ThemeName;
  /** True once the user chose a theme: then the system preference no longer applies. */
  themeChosen: boolean;
  search: SearchQuery;

  // Function table and the views derived from it.
  sort: { key: SortKey; desc: boolean };
  /** The function selected in the table (frame id), highlighted in the graph. */
  selectedFrame: number | null;
  transforms: Transform[];
  inverted: boolean;
  mode: ViewMode;
  sandwich: PageSandwich | null;

  /** Set when a new profile arrives; the flame graph clears it after painting it once. */
  firstPaintPending: boolean;
  /** Counts profiles opened (not re-derived views of one). */
  profileSerial: number;
  /** True while `analysis` is the coarse first tree of a large profile still being built. */
  preview: boolean;

  openFiles: (files: File[]) => Promise<void>;
  openBuffers: (files: FileBuffer[]) => Promise<void>;
  setMangled: (mangled: boolean) => Promise<void>;
  setFocus: (node: number) => void;
  selectNode: (node: number | null) => void;
  selectFrame: (frame: number | null) => void;
  sortBy: (key: SortKey) => void;
  set: (patch: Partial<Pick<AppState, 'orientation' | 'childOrder' | 'colorMode' | 'search'>>) => void;
  setTheme: (t: ThemeName, chosen?: boolean) => void;
  addTransform: (t: Transform) => Promise<void>;
  removeTransform: (index: number) => Promise<void>;
  setInverted: (inverted: boolean) => Promise<void>;
  /** Replaces transforms and inversion at once (opening a link). */
  setViewSpec: (transforms: Transform[], inverted: boolean) => Promise<void>;
  showSandwich: (frame: number | null) => Promise<void>;
  /** Folded text of the shown view (through the zoomed frame, if any), from the worker. */
  foldedText: () => Promise<string>;
  /** Samples of the shown view that pass through a matching frame (1 per frame id), from the worker. */
  searchSamples: (match: Uint8Array) => Promise<number>;
  dismissError: () => void;
  paintedFirstFrame: () => void;
}

const client = new ProfileWorkerClient();

/** Starts the worker before the first file arrives. */
export function warmUpWorker(): void {
  client.warmUp();
}

/** The node reached by following frame ids from the root (the deepest one found). */
function nodeByFrames(tree: CallTree, frames: readonly number[]): number {
  let v = 0;
  for (const f of frames) {
    let c = firstChildOf(tree, v);
    while (c !== -1 && tree.frame[c] !== f) c = nextSiblingOf(tree, c);
    if (c === -1) break;
    v = c;
  }
  return v;
}

/**
 * The ids in `to` of frames of `from` (-1 where `to` has none). Frames are the same function when
 * their names and modules agree; a raw preview numbers them differently from what follows it.
 */
function framesIn(to: PageAnalysis, from: PageAnalysis, frames: readonly number[]): number[] {
  if (to.profile.frames === from.profile.frames) return [...frames];
  const key = (p: PageAnalysis['profile'], f: number) =>
    `${p.modules[p.frames.module[f]] ?? ''}\0${p.frames.name[f]}`;
  const names = new Set(frames.map((f) => from.profile.frames.name[f]));
  const ids = new Map<string, number>();
  to.profile.frames.name.forEach((name, f) => {
    if (names.has(name)) ids.set(key(to.profile, f), f);
  });
  return frames.map((f) => ids.get(key(from.profile, f)) ?? -1);
}

/** The zoom made on a preview, found again (by frame names) in the analysis that replaces it. */
function carriedFocus(prev: AppState, next: PageAnalysis): number {
  if (!prev.preview || !prev.analysis || prev.focusNode <= 0) return 0;
  const path = pathToNode(prev.analysis.tree, prev.focusNode);
  return nodeByFrames(next.tree, framesIn(next, prev.analysis, path));
}

/** Called when the user opens a local file (the URL state forgets its profile link). */
let onLocalFile: (() => void) | null = null;
export function setLocalFileHook(f: () => void): void {
  onLocalFile = f;
}

const prefersDark = (): boolean =>
  typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;

export const useStore = create<AppState>()((set, get) => {
  const progress = (phase: string, fraction: number) => set({ progress: { phase, fraction } });

  /** Runs a worker job; applies its result, or shows its error and keeps what was showing. */
  const run = async (
    what: string,
    job: () => Promise<WorkerResult>,
    sizes?: Map<string, number>,
  ): Promise<boolean> => {
    try {
      const r = await job();
      if (r.newProfile) performance.mark('flamelens:ready');
      // A zoom made on the preview carries over to the full tree (new node ids, maybe new frame ids).
      const prev = get();
      const keepFocus = carriedFocus(prev, r.analysis);
      set({
        preview: false,
        status: 'ready',
        analysis: r.analysis,
        symbols: r.symbols,
        ...(r.newProfile
          ? {
              fileSize: sizes?.get(r.analysis.profile.meta.fileName) ?? 0,
              selectedFrame: null,
              transforms: [],
              inverted: false,
              mode: 'graph',
              sandwich: null,
              profileSerial: get().profileSerial + 1,
            }
          : {}),
        loadingName: null,
        progress: null,
        focusNode: keepFocus,
        selectedNode: null,
        firstPaintPending: !prev.preview,
      });
      return true;
    } catch (e) {
      if (e instanceof CancelledError) return false; // another job took over
      const f = e instanceof WorkerFailure ? e : new WorkerFailure((e as Error).message);
      // Keep whatever profile was showing: a bad file never blanks the page.
      set({
        status: get().analysis ? 'ready' : 'idle',
        loadingName: null,
        progress: null,
        error: { fileName: what, message: f.message, offset: f.offset, line: f.line },
      });
      return false;
    }
  };

  /** Re-derives the view after a transform or inversion change (and the sandwich, if shown). */
  const applyView = async () => {
    const { transforms, inverted } = get();
    set({ status: 'loading', loadingName: 'view', progress: { phase: 'view', fraction: 0 } });
    const ok = await run('view', () => client.setView({ transforms, inverted }, progress));
    if (ok && get().mode === 'sandwich' && get().sandwich) await loadSandwich(get().sandwich!.name);
  };

  const loadSandwich = async (name: string) => {
    try {
      set({ sandwich: await client.sandwich(name), mode: 'sandwich' });
    } catch (e) {
      if (e instanceof CancelledError) return;
      set({ error: { fileName: 'sandwich', message: (e as Error).message } });
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
    selectedNode: null,
    orientation: 'flame',
    childOrder: 'weight',
    colorMode: 'module',
    theme: prefersDark() ? 'dark' : 'light',
    themeChosen: false,
    search: { text: '', regex: true },
    sort: { key: 'self', desc: true },
    selectedFrame: null,
    transforms: [],
    inverted: false,
    mode: 'graph',
    sandwich: null,
    firstPaintPending: false,
    profileSerial: 0,
    preview: false,

    openFiles: async (files) => {
      if (files.length === 0) return;
      onLocalFile?.();
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
      // Sizes before the buffers are transferred; the worker says which file was the profile.
      const sizes = new Map(files.map((f) => [f.name, f.buffer.byteLength]));
      const names = files.map((f) => f.name).join(', ');
      set({ status: 'loading', loadingName: names, progress: { phase: 'parse', fraction: 0 }, error: null });
      // A raw preview may come first, then the coarse tree: that keeps the zoom made on the first
      // and leaves the first-paint mark to the first.
      let previews = 0;
      const onPreview = (analysis: PageAnalysis) => {
        const later = previews++ > 0;
        set({
          analysis,
          fileSize: sizes.get(analysis.profile.meta.fileName) ?? 0,
          symbols: null,
          preview: true,
          focusNode: later ? carriedFocus(get(), analysis) : 0,
          selectedNode: null,
          selectedFrame: null,
          transforms: [],
          inverted: false,
          mode: 'graph',
          sandwich: null,
          firstPaintPending: later ? get().firstPaintPending : true,
          progress: { phase: 'call tree', fraction: 0.9 },
        });
      };
      await run(names, () => client.drop(files, progress, onPreview), sizes);
    },

    setMangled: async (mangled) => {
      const symbols = get().symbols;
      // The checkbox follows the click at once; the names follow when the worker answers.
      set({
        status: 'loading',
        loadingName: 'symbols',
        progress: { phase: 'symbols', fraction: 0 },
        symbols: symbols ? { ...symbols, mangled } : symbols,
      });
      await run('symbols', () => client.setMangled(mangled, progress));
    },

    setFocus: (node) => set({ focusNode: node }),
    selectNode: (node) => set({ selectedNode: node }),
    selectFrame: (frame) => set({ selectedFrame: frame }),
    sortBy: (key) => {
      const s = get().sort;
      set({
        sort: s.key === key ? { key, desc: !s.desc } : { key, desc: key !== 'name' && key !== 'module' },
      });
    },
    set: (patch) => set(patch),
    setTheme: (theme, chosen = true) => set({ theme, themeChosen: get().themeChosen || chosen }),

    addTransform: async (t) => {
      set({ transforms: [...get().transforms, t], selectedFrame: null });
      await applyView();
    },
    removeTransform: async (index) => {
      set({ transforms: get().transforms.filter((_, i) => i !== index), selectedFrame: null });
      await applyView();
    },
    setInverted: async (inverted) => {
      set({ inverted });
      await applyView();
    },
    setViewSpec: async (transforms, inverted) => {
      set({ transforms, inverted });
      await applyView();
    },
    showSandwich: async (frame) => {
      const a = get().analysis;
      if (frame === null || !a) {
        set({ mode: 'graph' });
        return;
      }
      set({ selectedFrame: frame });
      await loadSandwich(a.profile.frames.name[frame]);
    },

    foldedText: () => {
      const { analysis, focusNode } = get();
      const path =
        analysis && focusNode > 0 && focusNode < analysis.tree.count
          ? pathToNode(analysis.tree, focusNode)
          : [];
      return client.foldedText(path);
    },
    searchSamples: (match) => client.searchSamples(match),
    dismissError: () => set({ error: null }),
    paintedFirstFrame: () => {
      if (!get().firstPaintPending) return;
      performance.mark('flamelens:first-paint');
      set({ firstPaintPending: false });
    },
  };
});
