// The page's side of the work: every request to the worker, and what its answer does to the store.
// Policy: a new drop abandons a drop still running (the client terminates the worker) only when it
// surely holds a profile (a loose file that is no ELF file); other requests queue behind each
// other; a failed job shows its error and keeps what was showing, so a bad file never blanks the
// page; an open that reads its files first gives up when another began meanwhile (beginOpen).

import { nodeByNames, pathToNode } from '../core/model/calltree';
import type { Transform } from '../core/model/transforms';
import { looksLikeElf } from '../core/symbols/elf';
import type { MappingSamples } from '../core/symbols/modules';
import type { FoldedMeta } from '../core/types';
import {
  DEFAULT_VIEW,
  mergeViews,
  type ProfileSource,
  type ViewState,
  workerViewOf,
} from '../core/view/schema';
import { CancelledError, ProfileWorkerClient, WorkerFailure } from '../worker/client';
import {
  type FileBuffer,
  type PageAnalysis,
  type SnapshotFile,
  type SourceReply,
  sizeOf,
  type ViewResult,
} from '../worker/protocol';
import { carriedNode } from './carry';
import { type FolderFile, filesOfEntries, folderBuffers } from './folders';
import { keepRecent, loadRecent, recentId } from './recent';
import { type AppState, useStore } from './store';
import { recall, remember } from './symbolStore';

const client = new ProfileWorkerClient();

/**
 * Opens the shown profile again (with the view on screen) in a new worker: after the worker
 * crashed or a job was cancelled, since the worker's state went with it. Set once a profile is
 * shown; local files are re-read from their File objects, links fetched again.
 */
let reopenShown: ((view: ViewState) => Promise<void>) | null = null;
let reopening = false;

async function reopen(view: ViewState = get().view): Promise<void> {
  if (!reopenShown || reopening || !get().analysis) return;
  reopening = true;
  try {
    await reopenShown({ ...view });
  } finally {
    reopening = false;
  }
}

/**
 * The view on screen before a new profile's first picture replaced it: the one the profile shown
 * before comes back with when that open does not finish (dropFirstPicture).
 */
let viewBeforePicture: ViewState | null = null;

/** Stops the running job (a parse, a view); the profile shown before stays, in a new worker. */
export function cancelJob(): void {
  if (!client.busy) return;
  client.cancel();
  set({ status: get().analysis ? 'ready' : 'idle', progress: null, loadingName: null });
  if (get().preview) dropFirstPicture();
  else void reopen();
}

/**
 * The first picture of a new profile whose open did not finish (cancelled, failed) goes with it:
 * the profile shown before comes back (reopen), or, with none, the start page, rather than a
 * picture whose table is never built over a worker without its profile.
 */
function dropFirstPicture(): void {
  if (reopenShown) {
    void reopen(viewBeforePicture ?? get().view);
    return;
  }
  // (The first picture cleared its symbols, sandwich and selection already; a zoom made on it goes.)
  set({
    status: 'idle',
    progress: null,
    loadingName: null,
    analysis: null,
    preview: false,
    focusNode: 0,
    view: { ...get().view, profiles: { main: {} }, zoom: [] },
  });
}

/** Starts the worker before the first file arrives. */
export function warmUpWorker(): void {
  client.warmUp();
}

const get = () => useStore.getState();
const set = (patch: Partial<AppState>) => useStore.setState(patch);
const progress = (phase: string, fraction: number) => set({ progress: { phase, fraction } });

/** The zoomed node and the selected function that a view's names point at in an analysis. */
export function namedPlaces(
  a: PageAnalysis,
  view: ViewState,
): { focusNode: number; selectedFrame: number | null; notice?: string } {
  const name = (f: number) => a.profile.frames.name[f];
  const fn = view.fn ? a.profile.frames.name.indexOf(view.fn) : -1;
  const focusNode = view.zoom.length > 0 ? nodeByNames(a.tree, view.zoom, name) : 0;
  const out: { focusNode: number; selectedFrame: number | null; notice?: string } = {
    focusNode,
    selectedFrame: fn >= 0 ? fn : null,
  };
  // A zoom path the profile does not have (other symbols, other names): the nearest ancestor, said.
  const reached = focusNode > 0 ? pathToNode(a.tree, focusNode).length : 0;
  if (reached < view.zoom.length) {
    const kept = view.zoom.slice(0, reached).join(' › ') || 'the whole profile';
    out.notice = `The view's zoom (${view.zoom.join(' › ')}) is not in this profile: showing ${kept}.`;
  }
  return out;
}

/**
 * Runs a worker job that answers with a view; applies its result, or shows its error and keeps
 * what was showing. `view` is the view the job asked for (it becomes the store's on success).
 */
async function run(
  what: string,
  view: ViewState,
  job: () => Promise<ViewResult>,
  sizes?: Map<string, number>,
): Promise<boolean> {
  const shown = get().view;
  try {
    const r = await job();
    if (r.newProfile) performance.mark('flamelens:ready');
    if (r.mode !== view.mode) {
      // A file that is itself a comparison (two counts per stack) opens as one.
      const baseName = r.analysis?.diff?.baseMeta.fileName;
      view = {
        ...view,
        mode: r.mode,
        profiles: { ...view.profiles, base: { source: { kind: 'file', name: baseName ?? '' } } },
      };
    }
    // A view chosen while this job ran (symbols being added, say) stays: its controls followed
    // the click at once, and its own job, queued behind this one, answers next. Putting this
    // job's view back would undo the click until then. What this job changed and nothing else
    // did meanwhile is its own (a comparison's mode, while the open before it named its file).
    if (!r.newProfile) view = mergeViews(shown, view, get().view);
    const prev = get();
    if (r.newProfile && prev.preview) view = withPreviewChoices(view, prev.view);
    const patch: Partial<AppState> = {
      status: 'ready',
      symbols: r.symbols,
      // What a dropped folder gave, until another profile opens.
      ...(r.folder ? { folder: r.folder } : r.newProfile ? { folder: null } : {}),
      ...(r.newProfile ? { remembered: null } : {}),
      view,
      ...(r.sandwich !== undefined && { sandwich: r.sandwich }),
      ...(r.labels ? { labels: r.labels } : {}),
      loadingName: null,
      progress: null,
    };
    if (r.analysis) {
      const a = r.analysis;
      patch.analysis = a;
      patch.preview = false;
      patch.selectedNode = null;
      // A zoom made on a preview carries over to the full tree (new node ids, maybe new frame ids);
      // a new profile opened from a link goes where the link's names say.
      patch.focusNode = prev.preview && prev.analysis ? carriedNode(prev.analysis, prev.focusNode, a) : 0;
      patch.firstPaintPending = !prev.preview;
      if (r.newProfile) {
        const named = namedPlaces(a, view);
        if (!prev.preview || patch.focusNode === 0) patch.focusNode = named.focusNode;
        patch.selectedFrame = named.selectedFrame;
        patch.notice = named.notice ?? null;
        patch.fileSize = r.fileBytes ?? sizes?.get(a.profile.meta.fileName) ?? 0;
        patch.profileSerial = prev.profileSerial + 1;
      }
    }
    set(patch);
    return true;
  } catch (e) {
    if (e instanceof CancelledError) return false; // another job took over
    const f = e instanceof WorkerFailure ? e : new WorkerFailure((e as Error).message);
    set({
      status: get().analysis ? 'ready' : 'idle',
      loadingName: null,
      progress: null,
      error: { fileName: what, message: f.message, offset: f.offset, line: f.line },
    });
    // A new profile's first picture goes with its open; after a crash the worker restarts empty:
    // the profile on screen is opened again in it.
    if (get().preview) dropFirstPicture();
    else if (f.crashed) void reopen();
    return false;
  }
}

/**
 * `view` with what the user chose on a new profile's first picture while it was being built, from
 * `shown`: the search typed, the orientation, the theme. Choices the worker makes (inverted,
 * transforms…) follow with their own jobs, queued behind the open.
 */
function withPreviewChoices(view: ViewState, shown: ViewState): ViewState {
  return { ...view, search: shown.search, orientation: shown.orientation, theme: shown.theme };
}

/** The view a new profile opens with: the default, keeping the user's presentation choices. */
function freshView(source: ProfileSource | undefined): ViewState {
  const v = get().view;
  return {
    ...DEFAULT_VIEW,
    profiles: { main: source ? { source } : {} },
    orientation: v.orientation,
    search: v.search,
    mangled: v.mangled,
    fullNames: v.fullNames,
    granularity: v.granularity,
    keepDropFrames: v.keepDropFrames,
    theme: v.theme,
  };
}

/** Opens begun (beginOpen). */
let opens = 0;

/**
 * Begins to open what the user asked for (files, a folder, a link, a kept profile): the returned
 * check is false once another open has begun. An open that reads its files first (from IndexedDB,
 * a download, a folder's listing) gives up then: a file dropped while the page restores the last
 * profile is what the user wants to see, and the restore must not replace it (nor the remembered
 * binaries of the profile before it).
 */
export function beginOpen(): () => boolean {
  const mine = ++opens;
  return () => opens === mine;
}

/** A check that is false once an open begins after this call (beginOpen). */
function sinceOpen(): () => boolean {
  const mine = opens;
  return () => opens === mine;
}

/**
 * Local files chosen or dropped: a profile and/or binaries, and the files of dropped or picked
 * folders (the worker reads only those that symbolize the profile).
 */
export async function openFiles(files: File[], inFolder: readonly FolderFile[] = []): Promise<void> {
  if (files.length === 0 && inFolder.length === 0) return;
  performance.mark('flamelens:file-received');
  // The worker reads the files itself: the page never holds their bytes.
  const buffers = [...files.map((f) => ({ name: f.name, data: f })), ...folderBuffers(inFolder)];
  // Only a drop that surely holds a profile (a loose file that is no ELF file) stops an open still
  // running or makes a restore give up. Binaries, and a folder's files (listed, not read: "Add a
  // folder…" while a large profile opens), are for the profile being opened or shown.
  const forOpen = files.length === 0 || (await symbolFilesOnly(files));
  if (!forOpen) beginOpen();
  if (!(await openBuffers(buffers, undefined, forOpen))) return;
  // The symbol files among them (and those a folder gave) are remembered for later profiles.
  const profile = get().analysis?.profile.meta.fileName;
  const taken = new Set(get().folder?.read ?? []);
  await remember([
    ...files.filter((f) => f.name !== profile).map((f) => ({ name: f.name, blob: f as Blob })),
    ...inFolder.filter((f) => taken.has(f.path)).map((f) => ({ name: f.path, blob: f.file as Blob })),
  ]);
  if (files.length > 0) await symbolizeFromRemembered();
  // A folder is not kept (it may be gigabytes); the files it gave are in the Symbols panel.
  if (inFolder.length > 0 && files.length === 0) return;
  reopenShown = (view) => readAndOpen(files, view);
  await keepShown(files);
}

/**
 * Symbolizes the open profile's mapped files that hold samples and have no symbols yet from the
 * files this browser remembers (symbolStore.ts), as if they were dropped; says which in the store.
 */
async function symbolizeFromRemembered(): Promise<void> {
  const s = get();
  const meta = s.analysis?.profile.meta;
  if (!meta || s.report || s.preview) return;
  const symbolized = new Set(meta.symbolized ?? []);
  // Another profile or view since (a drop cancels the worker's answer): nothing to add to.
  const current = sinceOpen();
  const same = () => current() && get().analysis?.profile.meta === meta;
  // Asked of the worker for a large profile.
  const counted = await mappingSamplesOf(meta).catch(() => null);
  if (counted === null || !same()) return;
  const held = new Set(counted.map((m) => m.path));
  const wanted = meta.mappings.filter((m) => held.has(m.path) && !symbolized.has(m.path));
  if (wanted.length === 0) return;
  const files = await recall(wanted, new Set());
  if (files.length === 0 || !same()) return;
  if (
    await openBuffers(
      files.map((f) => ({ name: f.name, data: f })),
      undefined,
      true,
    )
  )
    set({ remembered: files.map((f) => f.name) });
}

/**
 * Entries of a drop that holds folders: lists the folders' files (shown as loading: a large tree
 * takes a while), none read, then opens them with the loose files.
 */
export async function openEntries(entries: readonly FileSystemEntry[]): Promise<void> {
  const names = entries.map((e) => e.name).join(', ');
  // Another open meanwhile makes the listing moot; whether this one opens a profile, openFiles says.
  const current = sinceOpen();
  set({ status: 'loading', loadingName: `${names} (listing files)`, progress: null, error: null });
  let listed: Awaited<ReturnType<typeof filesOfEntries>>;
  try {
    listed = await filesOfEntries(entries);
    if (!current()) return;
  } catch (e) {
    if (!current()) return;
    set({
      status: get().analysis ? 'ready' : 'idle',
      loadingName: null,
      error: {
        fileName: names,
        message: `${names}: the folder could not be listed (${(e as Error).message})`,
      },
    });
    return;
  }
  await openFiles(listed.loose, listed.inFolder);
}

/**
 * Keeps the files just opened in this browser (a new profile: a new entry; binaries dropped for the
 * open one: added to its entry), and names the entry in the view (`#local=ID` in the URL).
 */
async function keepShown(files: File[]): Promise<void> {
  const source = get().view.profiles.main.source;
  if (source?.kind !== 'file') return;
  const profileFile = files.find((f) => f.name === source.name);
  const id = source.id ?? (profileFile ? recentId(profileFile) : undefined);
  if (!id) return;
  const kept = await keepRecent(
    id,
    source.name,
    files.map((f) => ({ name: f.name, blob: f })),
  );
  if (!kept || source.id === kept) return;
  const v = get().view;
  if (v.profiles.main.source === source)
    set({
      view: {
        ...v,
        profiles: { ...v.profiles, main: { ...v.profiles.main, source: { ...source, id: kept } } },
      },
    });
}

/**
 * Opens a profile kept in this browser (a reload, a `#local=` link), with `view`; gives up when
 * another open begins while it reads it (beginOpen).
 */
export async function openKept(id: string, view: ViewState): Promise<void> {
  const current = beginOpen();
  set({
    status: 'loading',
    loadingName: 'the profile kept in this browser',
    progress: { phase: 'read', fraction: 0 },
  });
  const entry = await loadRecent(id);
  if (!current()) return;
  if (!entry) {
    set({
      notice: 'The profile this page showed is no longer kept in this browser: open it again.',
      status: get().analysis ? 'ready' : 'idle',
      progress: null,
      loadingName: null,
    });
    return;
  }
  const files = entry.files.map((f) => new File([f.blob], f.name));
  const ok = await openBuffers(
    files.map((f) => ({ name: f.name, data: f })),
    {
      ...view,
      profiles: { ...view.profiles, main: { source: { kind: 'file', name: entry.name, id } } },
    },
  );
  if (ok) {
    reopenShown = (v) => readAndOpen(files, v);
    await symbolizeFromRemembered();
  }
}

async function readAndOpen(files: File[], view: ViewState): Promise<void> {
  await openBuffers(
    files.map((f) => ({ name: f.name, data: f })),
    view,
  );
}

/** How to open the shown profile again (a link's fetch, the example's), once it is shown. */
export function setReopen(f: (view: ViewState) => Promise<void>): void {
  reopenShown = f;
}

/**
 * Whether every file is an ELF file (a binary or a debug file): symbols, no profile among them. A
 * file that cannot be read says no: the worker reads it and names it in its error.
 */
async function symbolFilesOnly(files: readonly Blob[]): Promise<boolean> {
  try {
    for (const f of files) if (!looksLikeElf(new Uint8Array(await f.slice(0, 4).arrayBuffer()))) return false;
  } catch {
    return false;
  }
  return files.length > 0;
}

/**
 * Files in memory (read from disk, fetched from a link). A new profile among them is shown with
 * `view` (a link's), else with a fresh view naming the local file. Files without a profile add
 * symbols to the open one and keep its view; `forOpen` says they are for the profile being opened
 * (symbol files, a folder's files), which stop no open still running (client.drop's).
 */
export async function openBuffers(files: FileBuffer[], view?: ViewState, forOpen = false): Promise<boolean> {
  // Sizes before the buffers are transferred; the worker says which file was the profile.
  const sizes = new Map(files.map((f) => [f.name, sizeOf(f)]));
  const names = files.map((f) => f.name).join(', ');
  const loadingBytes = files.reduce((t, f) => t + sizeOf(f), 0);
  set({
    status: 'loading',
    loadingName: names,
    loadingBytes,
    progress: { phase: 'parse', fraction: 0 },
    error: null,
  });
  const local = freshView(undefined);
  const asked = view ?? local;
  // A raw preview may come first, then the coarse tree: that keeps the zoom made on the first and
  // leaves the first-paint mark to the first.
  let previews = 0;
  const onPreview = (analysis: PageAnalysis) => {
    const later = previews++ > 0;
    const prev = get();
    if (!later) viewBeforePicture = prev.view;
    set({
      analysis,
      fileSize: sizes.get(analysis.profile.meta.fileName) ?? 0,
      symbols: null,
      preview: true,
      focusNode: later && prev.analysis ? carriedNode(prev.analysis, prev.focusNode, analysis) : 0,
      selectedNode: null,
      selectedFrame: null,
      view: later ? withPreviewChoices(asked, prev.view) : asked,
      sandwich: null,
      firstPaintPending: later ? prev.firstPaintPending : true,
      progress: { phase: 'call tree', fraction: 0.9 },
    });
  };
  // The worker keeps the open profile's view when no new profile is among the files; a new local
  // file is named in the view once the worker has said which file it was (never in the URL). Only
  // the name is set: the rest of the view is what run() made of it (a search typed on the first
  // picture, a two-count file's comparison).
  let named: string | null = null;
  const ok = await run(
    names,
    asked,
    async () => {
      const r = await client.drop(files, workerViewOf(asked), progress, onPreview, forOpen);
      if (r.newProfile && !view) named = r.analysis?.profile.meta.fileName ?? names;
      return r;
    },
    sizes,
  );
  if (ok && named !== null) {
    const v = get().view;
    set({ view: { ...v, profiles: { ...v.profiles, main: { source: { kind: 'file', name: named } } } } });
  }
  return ok;
}

/**
 * Changes the view. Parts the worker derives from (transforms, inversion, mode and sandwich,
 * names, sample type) are sent to it as one request; the rest applies at once.
 */
export async function changeView(patch: Partial<ViewState>): Promise<boolean> {
  const before = get().view;
  const view = { ...before, ...patch };
  const w = JSON.stringify(workerViewOf(view));
  if (!get().analysis || w === JSON.stringify(workerViewOf(before))) {
    set({ view });
    return true;
  }
  const graphOnly = ['mode', 'sandwich'];
  const onlySandwich = Object.keys(patch).every((k) => graphOnly.includes(k));
  set({
    status: 'loading',
    loadingName: 'view',
    progress: { phase: 'view', fraction: 0 },
    // The controls follow the click at once; the graph follows when the worker answers.
    view,
    ...(onlySandwich ? {} : { selectedFrame: null }),
  });
  const ok = await run('view', view, () => client.apply(workerViewOf(view), progress));
  if (!ok && get().view === view) set({ view: before });
  return ok;
}

/**
 * Files with a profile to compare the open one with: it becomes the baseline (`base` slot) and the
 * view switches to the diff. `view`: a link's (its baseURL); else the current view in diff mode.
 * A bad file shows its error and keeps the open profile.
 */
export async function compareBuffers(files: FileBuffer[], view?: ViewState): Promise<boolean> {
  const names = files.map((f) => f.name).join(', ');
  const cur = get().view;
  const name = files.length === 1 ? files[0].name : names;
  const next: ViewState = view ?? {
    ...cur,
    mode: 'diff',
    sandwich: undefined,
    profiles: { ...cur.profiles, base: { source: { kind: 'file', name } } },
  };
  set({ status: 'loading', loadingName: names, progress: { phase: 'parse', fraction: 0 }, error: null });
  const ok = await run(names, next, () => client.compare(files, workerViewOf(next), progress));
  // Benchmarks time a comparison to the first paint of its differential graph.
  if (ok && get().firstPaintPending) {
    const stop = useStore.subscribe((s) => {
      if (s.firstPaintPending) return;
      stop();
      if (s.analysis?.diff) performance.mark('flamelens:diff-painted');
    });
  }
  return ok;
}

export async function compareFiles(files: File[]): Promise<boolean> {
  if (files.length === 0) return false;
  performance.mark('flamelens:compare-received');
  return compareBuffers(files.map((f) => ({ name: f.name, data: f })));
}

/** The comparison becomes the baseline and the baseline the comparison. */
export async function swapSides(): Promise<boolean> {
  const v = get().view;
  if (!v.profiles.base) return false;
  const next: ViewState = { ...v, profiles: { main: v.profiles.base, base: v.profiles.main } };
  set({ status: 'loading', loadingName: 'swap', progress: { phase: 'view', fraction: 0 }, view: next });
  const ok = await run('swap', next, () => client.swap(workerViewOf(next), progress));
  if (!ok && get().view === next) set({ view: v });
  return ok;
}

export const addTransform = (t: Transform) => changeView({ transforms: [...get().view.transforms, t] });
export const removeTransform = (index: number) =>
  changeView({ transforms: get().view.transforms.filter((_, i) => i !== index) });
export const setInverted = (inverted: boolean) => changeView({ inverted });
export const setMangled = (mangled: boolean) => changeView({ mangled });
/** Places an ELF file at a load address in a profile without mappings (null: unplaces it). */
export const setPlacement = (file: string, base: string | null) => {
  const v = get().view;
  const others = (v.profiles.main.placements ?? []).filter((p) => p.file !== file);
  const placements = base === null ? others : [...others, { file, base }];
  return changeView({
    profiles: {
      ...v.profiles,
      main: { ...v.profiles.main, placements: placements.length ? placements : undefined },
    },
  });
};
export const setSampleType = (sampleType: string) => {
  const v = get().view;
  return changeView({ profiles: { ...v.profiles, main: { ...v.profiles.main, sampleType } } });
};

/** The sandwich of a function (frame id of the shown analysis), or back to the graph (null). */
export async function showSandwich(frame: number | null): Promise<void> {
  const a = get().analysis;
  // A comparison keeps its mode: its sandwich merges both sides'.
  const comparing = get().view.mode === 'diff';
  if (frame === null || !a) {
    await changeView(comparing ? { sandwich: undefined } : { mode: 'graph', sandwich: undefined });
    return;
  }
  set({ selectedFrame: frame });
  await changeView({ mode: comparing ? 'diff' : 'sandwich', sandwich: a.profile.frames.name[frame] });
}

/** The sandwich of a function named `name` (from any graph: the main one, a sandwich half). */
export async function showSandwichOf(name: string): Promise<void> {
  const a = get().analysis;
  const frame = a ? a.profile.frames.name.indexOf(name) : -1;
  set({ selectedFrame: frame >= 0 ? frame : null });
  await changeView({ mode: get().view.mode === 'diff' ? 'diff' : 'sandwich', sandwich: name });
}

/** Folded text of the shown view (through the zoomed frame, if any), from the worker. */
export function foldedText(): Promise<string[]> {
  const { analysis, focusNode } = get();
  const path =
    analysis && focusNode > 0 && focusNode < analysis.tree.count ? pathToNode(analysis.tree, focusNode) : [];
  return client.foldedText(path);
}

/** Per mapped file, the samples in it: counted by the worker when the fold put that off. */
export function mappingSamplesOf(meta: FoldedMeta): Promise<MappingSamples[]> {
  return meta.mappingSamplesPending ? client.mappingSamples() : Promise.resolve(meta.mappingSamples ?? []);
}

/** Where a function spends its samples, per line and per address, from the worker. */
export function sourceOf(name: string): Promise<SourceReply> {
  return client.source(name);
}

/** The shown profile as gzipped pprof profile.proto, from the worker. */
export function protoBytes(): Promise<Uint8Array> {
  return client.proto();
}

/** The open profile(s) with their symbols' names written in (an HTML report's), from the worker. */
export function snapshotFiles(): Promise<SnapshotFile[]> {
  return client.snapshots();
}

/** Runs the view's search in the worker over the shown analysis and keeps its answer. */
export async function runSearch(): Promise<void> {
  const { analysis, view } = get();
  if (!analysis || !view.search.text) {
    if (get().searchResult) set({ searchResult: null });
    return;
  }
  const query = view.search;
  try {
    const reply = await client.search(query);
    if (get().analysis === analysis && get().view.search === query)
      set({ searchResult: { analysis, query, reply } });
  } catch {
    // A search that fails (worker replaced) is simply not shown; the next one runs again.
  }
}
