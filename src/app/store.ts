// Application state (zustand): what the worker answered, and the view. `view` is the view schema
// (core/view/schema.ts) that the URL hash serializes; the zoomed node and the selections are its
// names resolved against the tree on screen. Talking to the worker is worker.ts's; this file only
// holds state and the setters that need no worker (open.ts and view.ts talk to it).

import { create } from 'zustand';
import type { CallGraphResult, TimelineResult } from '../core/analysis/derivations';
import type { LabelSummary } from '../core/model/labels';
import { DEFAULT_VIEW, type ThemeName, type ViewState } from '../core/view/schema';
import type { ChildOrder } from '../flamegraph/layout';
import type { ColorMode } from '../flamegraph/paint';
import type {
  FolderNote,
  FunctionListing,
  PageAnalysis,
  PageSandwich,
  SearchReply,
  SymbolsState,
} from '../worker/protocol';

/** The derived views' results the page holds (each null or absent when not shown). */
export interface Derived {
  callGraph?: CallGraphResult | null;
  timeline?: TimelineResult | null;
}

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
  /** The size of the files being opened (for "12 MB of 100 MB"), 0 when not reading files. */
  loadingBytes: number;
  analysis: PageAnalysis | null;
  symbols: SymbolsState | null;
  /** What the last dropped folder gave (worker/folder.ts), or null. */
  folder: FolderNote | null;
  /** Symbol files taken from this browser's remembered ones for the open profile, or null. */
  remembered: string[] | null;
  /** Counts changes to the remembered symbol files (their list is read again on a change). */
  rememberedVersion: number;
  fileSize: number;
  error: LoadError | null;
  /** Something worth saying that is no error (a link's zoom not found; a kept profile gone). */
  notice: string | null;

  /** What is shown, as the URL says it (zoom and selection are kept as node/frame ids below). */
  view: ViewState;
  /** The sandwich of `view.sandwich` while `view.mode` is `sandwich`. */
  sandwich: PageSandwich | null;
  /** The derived views the worker sent (core/analysis/derivations.ts), by key: the call graph… */
  derived: Derived;
  /** The profile's label keys and their heaviest values (pprof labels, perf's comm/pid/tid). */
  labels: LabelSummary[];
  /** The worker's answer to `view.search` over the shown analysis. */
  searchResult: { analysis: PageAnalysis; query: ViewState['search']; reply: SearchReply } | null;

  focusNode: number;
  selectedNode: number | null;
  /** The function selected in the table (frame id), highlighted in the graph. */
  selectedFrame: number | null;
  childOrder: ChildOrder;
  colorMode: ColorMode;
  /** The theme in effect: the user's choice (view.theme), else the system's. */
  theme: ThemeName;

  /** Set when a new profile arrives; the flame graph clears it after painting it once. */
  firstPaintPending: boolean;
  /** Counts profiles opened (not re-derived views of one). */
  profileSerial: number;
  /** True while `analysis` is the coarse first tree of a large profile still being built. */
  preview: boolean;
  /**
   * The view that first tree was shown with: what the user changed since (a tab, the inversion, a
   * search) stays when the full tree comes (worker.ts applyResult).
   */
  previewView: ViewState | null;
  /**
   * This page is an HTML report (export/report.ts): what it shows, when it was made, and the
   * disassembly it carries by function name (it holds no binary).
   */
  report: { title: string; created: string; disassembly: ReadonlyMap<string, FunctionListing[]> } | null;

  setFocus: (node: number) => void;
  selectFrame: (frame: number | null) => void;
  /**
   * A node picked in a view (a bar clicked, a call tree row): it and its frame are selected, so
   * the table's row and the source panel follow.
   */
  pickNode: (node: number | null) => void;
  set: (patch: Partial<Pick<AppState, 'childOrder' | 'colorMode'>>) => void;
  /** Changes the parts of the view the worker does not derive from (orientation, search). */
  setLocalView: (patch: Partial<Pick<ViewState, 'orientation' | 'search' | 'sourceTab' | 'split'>>) => void;
  setTheme: (t: ThemeName, chosen?: boolean) => void;
  dismissError: () => void;
  paintedFirstFrame: () => void;
}

const prefersDark = (): boolean =>
  typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;

export const useStore = create<AppState>()((set, get) => ({
  status: 'idle',
  loadingName: null,
  progress: null,
  loadingBytes: 0,
  analysis: null,
  symbols: null,
  folder: null,
  remembered: null,
  rememberedVersion: 0,
  fileSize: 0,
  error: null,
  notice: null,
  view: DEFAULT_VIEW,
  sandwich: null,
  derived: {},
  labels: [],
  searchResult: null,
  focusNode: 0,
  selectedNode: null,
  selectedFrame: null,
  childOrder: 'weight',
  colorMode: 'module',
  theme: prefersDark() ? 'dark' : 'light',
  firstPaintPending: false,
  profileSerial: 0,
  preview: false,
  previewView: null,
  report: null,

  setFocus: (node) => set({ focusNode: node }),
  selectFrame: (frame) => set({ selectedFrame: frame }),
  pickNode: (node) => {
    const a = get().analysis;
    const f = node === null || !a ? -1 : a.tree.frame[node];
    set(
      a && f >= 0 && f < a.profile.frames.count
        ? { selectedNode: node, selectedFrame: f }
        : { selectedNode: node },
    );
  },
  set: (patch) => set(patch),
  setLocalView: (patch) => set({ view: { ...get().view, ...patch } }),
  setTheme: (theme, chosen = true) => set({ theme, view: chosen ? { ...get().view, theme } : get().view }),
  dismissError: () => set({ error: null, notice: null }),
  paintedFirstFrame: () => {
    if (!get().firstPaintPending) return;
    performance.mark('flamelens:first-paint');
    set({ firstPaintPending: false });
  },
}));
