// Opening what is shown, and changing what is open: files dropped or chosen, a folder, a link, a
// workspace kept in this browser (a reload, Recent profiles), a comparison's baseline, a swap.
// The lifecycle of an open is lifecycle.ts's (pure); this module carries out its steps and
// effects with the worker (worker.ts) and keeps the workspace shown (core/view/workspace.ts) in
// this browser (workspaceStore.ts), so that a reload opens exactly what was shown.

import { looksLikeElf } from '../core/symbols/elf';
import type { MappingSamples } from '../core/symbols/modules';
import type { FoldedMeta, InputNote } from '../core/types';
import {
  DEFAULT_VIEW,
  encodeView,
  mergeViews,
  type ProfileSource,
  sourceUrl,
  type ViewState,
  workerViewOf,
} from '../core/view/schema';
import { restorePlan, swappedInputs, type WorkspaceInput, withInputs } from '../core/view/workspace';
import type { FileBuffer, PageAnalysis } from '../worker/protocol';
import { sizeOf } from '../worker/protocol';
import { carriedNode } from './carry';
import { type FolderFile, filesOfEntries, folderBuffers } from './folders';
import {
  begunSince,
  INITIAL,
  isCurrent,
  type Lifecycle,
  type LifecycleEffect,
  type LifecycleEvent,
  reopening,
  transition,
} from './lifecycle';
import { fetchProfile, profileNameFromUrl } from './profileUrl';
import { useStore } from './store';
import { recall, remember } from './symbolStore';
import {
  asComparison,
  client,
  get,
  namedPlaces,
  progress,
  runJob,
  set,
  WorkerFailure,
  withPreviewChoices,
} from './worker';
import { contentOf, keepWorkspace, loadWorkspace, newWorkspaceId } from './workspaceStore';

// ─── the lifecycle ──────────────────────────────────────────────────────────────────────────

let life: Lifecycle = INITIAL;

/** Moves the lifecycle on and carries out what the transition asks. */
function dispatch(e: LifecycleEvent): void {
  const t = transition(life, e);
  life = t.state;
  for (const fx of t.effects) void perform(fx);
}

/** Begins an open (superseding the one in progress); its ticket. */
function begin(reopen = false): number {
  dispatch({ type: 'begin', reopen });
  return life.serial;
}

async function perform(fx: LifecycleEffect): Promise<void> {
  if (fx.kind === 'reopen') await reopenShown(fx.view ?? get().view);
  else if (fx.kind === 'start-page') showStartPage();
  else await finish(fx.id);
}

// ─── the workspace shown ────────────────────────────────────────────────────────────────────

/** An input of the workspace shown, with its bytes when they are local. */
interface LiveInput extends WorkspaceInput {
  blob?: Blob;
}

/** A file given to an open or added to what is shown: its bytes (local) or its URL (a link's). */
interface Given {
  name: string;
  size: number;
  blob?: Blob;
  url?: string;
  folder?: string;
}

/**
 * The workspace shown: the id it is kept under (once kept), its inputs with their bytes, and why
 * this browser did not keep it (said once).
 */
let shown: { id: string | null; inputs: LiveInput[]; unkept?: string } | null = null;

/** What each open gave (by ticket), and what the worker made of it, for when it is shown. */
const given = new Map<number, { files: Given[]; notes: InputNote[]; newProfile: boolean }>();

const givenOfFiles = (files: readonly File[]): Given[] =>
  files.map((f) => ({ name: f.name, size: f.size, blob: f }));
const givenOfFolder = (files: readonly FolderFile[]): Given[] =>
  files.map((f) => ({ name: f.path, size: f.file.size, blob: f.file, folder: f.folder }));

/** The inputs after `files` were given and the worker said what each is. */
function liveInputs(
  before: readonly LiveInput[],
  files: readonly Given[],
  notes: readonly InputNote[],
): LiveInput[] {
  const blobs = new Map(files.filter((f) => f.blob).map((f) => [f.name, f.blob!]));
  const next = withInputs(
    before,
    files.map(({ blob: _b, ...rest }) => rest),
    notes,
  );
  return next.map((i) => {
    const old = before.find((b) => b.name === i.name && b.content === i.content && b.blob);
    return {
      ...i,
      ...(blobs.has(i.name) ? { blob: blobs.get(i.name) } : old?.blob ? { blob: old.blob } : {}),
    };
  });
}

/**
 * Keeps the workspace shown in this browser (its local inputs' bytes once), and names it in the
 * view (`#ws=ID`). A workspace of links only is not kept: its link opens it again. An HTML report
 * keeps nothing.
 */
function keepShown(): Promise<void> {
  // One after another: each keeps the workspace as it is when its turn comes (the last, the latest).
  keeping = keeping.then(keepShownNow, keepShownNow);
  return keeping;
}
let keeping: Promise<void> = Promise.resolve();

async function keepShownNow(): Promise<void> {
  const s = shown;
  if (!s || get().report || !s.inputs.some((i) => i.blob)) return;
  const blobs = new Map<string, Blob>();
  for (const i of s.inputs) {
    if (!i.blob) continue;
    i.content ??= await contentOf(i.blob);
    blobs.set(i.content, i.blob);
  }
  const id = s.id ?? newWorkspaceId();
  const view = { ...get().view, workspace: id };
  const inputs = s.inputs.map(({ blob: _b, ...rest }) => rest);
  const why = await keepWorkspace({ id, inputs, view: encodeView(view), when: Date.now() }, blobs);
  if (shown !== s) return; // another workspace is shown now
  if (why !== null) {
    // Said once per workspace; the link names no workspace this browser does not have.
    if (s.unkept !== why) set({ notice: `Not kept in this browser: ${why}. A reload will not reopen it.` });
    s.unkept = why;
    return;
  }
  s.unkept = undefined;
  s.id = id;
  if (get().view.workspace !== id) set({ view: { ...get().view, workspace: id } });
}

/** The open `id` is shown: what it gave becomes (or joins) the workspace; remembered; kept. */
async function finish(id: number): Promise<void> {
  const g = given.get(id);
  given.delete(id);
  if (!g) return;
  if (g.newProfile) shown = { id: null, inputs: liveInputs([], g.files, g.notes) };
  else if (shown) shown.inputs = liveInputs(shown.inputs, g.files, g.notes);
  await rememberSymbolFiles(g.files, g.notes);
  if (g.files.some((f) => f.blob && !f.folder)) await symbolizeFromRemembered();
  await keepShown();
}

/** The symbol files among what was given are remembered for later profiles (symbolStore.ts). */
async function rememberSymbolFiles(files: readonly Given[], notes: readonly InputNote[]): Promise<void> {
  const roleOf = new Map(notes.map((n) => [n.name, n.role]));
  const symbols = files.flatMap((f) => {
    const role = roleOf.get(f.name);
    return f.blob && (role === 'binary' || role === 'debug' || role === 'symbols')
      ? [{ name: f.name, blob: f.blob, kind: role }]
      : [];
  });
  if (symbols.length === 0) return;
  const why = await remember(symbols);
  set({
    rememberedVersion: get().rememberedVersion + 1,
    ...(why !== null && { notice: `Symbol files not remembered for later profiles: ${why}.` }),
  });
}

// ─── opening ────────────────────────────────────────────────────────────────────────────────

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
    inlines: v.inlines,
    granularity: v.granularity,
    keepDropFrames: v.keepDropFrames,
    theme: v.theme,
  };
}

/**
 * Sends the files of open `id` to the worker; a new profile among them is shown with `view` (a
 * link's, a workspace's), else with a fresh view naming the local file. The lifecycle hears of
 * its first picture and of how it ended. True when it was shown.
 */
async function openInWorker(
  id: number,
  buffers: FileBuffer[],
  files: Given[],
  view?: ViewState,
  forOpen: boolean | Promise<boolean> = false,
): Promise<boolean> {
  dispatch({ type: 'sent', id });
  // Sizes before the buffers are transferred; the worker says which file was the profile.
  const sizes = new Map(buffers.map((f) => [f.name, sizeOf(f)]));
  const names = buffers.map((f) => f.name).join(', ');
  set({
    status: 'loading',
    loadingName: names,
    loadingBytes: buffers.reduce((t, f) => t + sizeOf(f), 0),
    // Files the worker reads itself (not bytes in hand) are read first: the opening frame waits
    // for the read's end (App).
    progress: { phase: buffers.some((f) => f.data instanceof Blob) ? 'read' : 'parse', fraction: 0 },
    // A reopen of what is shown keeps the error of the open whose failure asked for it: it says why
    // that file is not the one shown.
    ...(!reopening(life) && { error: null }),
  });
  const asked = view ?? freshView(undefined);
  // A raw preview may come first, then the coarse tree: that keeps the zoom made on the first and
  // leaves the first-paint mark to the first.
  let previews = 0;
  const onPreview = (analysis: PageAnalysis) => {
    if (!isCurrent(life, id)) return;
    const later = previews++ > 0;
    const prev = get();
    dispatch({ type: 'picture', id, view: prev.view });
    // a later picture keeps what was changed while the one before was shown (as the full tree does)
    const chosen = later ? withPreviewChoices(asked, prev.view) : asked;
    const shown = later && prev.previewView ? mergeViews(prev.previewView, chosen, prev.view) : chosen;
    // a file that is itself a comparison is pictured as one (its preview is the comparison's)
    const comparison = analysis.diff ? asComparison(shown, 'diff', analysis.diff.baseMeta.fileName) : null;
    set({
      analysis,
      fileSize: sizes.get(analysis.profile.meta.fileName) ?? 0,
      symbols: null,
      preview: true,
      focusNode: later && prev.analysis ? carriedNode(prev.analysis, prev.focusNode, analysis) : 0,
      selectedNode: null,
      selectedFrame: null,
      view: comparison ?? shown,
      // the first picture's view: what is changed after it is the user's (kept by later pictures
      // and by the full tree)
      previewView: later ? prev.previewView : (comparison ?? shown),
      sandwich: null,
      firstPaintPending: later ? prev.firstPaintPending : true,
      progress: { phase: 'call tree', fraction: 0.9 },
    });
  };
  const outcome = await runJob(
    names,
    asked,
    () => client.drop(buffers, workerViewOf(asked), progress, onPreview, forOpen),
    { sizes, forNewProfile: true },
  );
  if (!outcome.ok) {
    if (!outcome.cancelled) dispatch({ type: 'failed', id, crashed: outcome.failure.crashed });
    return false;
  }
  const r = outcome.result;
  // A new local file is named in the view once the worker has said which file it was (never in
  // the URL). Only the name is set: the rest of the view is what the answer made of it (a search
  // typed on the first picture, a two-count file's comparison).
  if (r.newProfile && get().view.profiles.main.source?.kind !== 'url') {
    const v = get().view;
    const name = r.analysis?.profile.meta.fileName ?? names;
    const main = { ...(view ? v.profiles.main : {}), source: { kind: 'file' as const, name } };
    set({ view: { ...v, ...(!view && { workspace: undefined }), profiles: { ...v.profiles, main } } });
  }
  given.set(id, { files, notes: r.inputs ?? [], newProfile: r.newProfile });
  dispatch({ type: 'opened', id });
  return true;
}

/** Local files chosen or dropped: a profile and/or binaries, and the files of dropped folders. */
export async function openFiles(files: File[], inFolder: readonly FolderFile[] = []): Promise<void> {
  if (files.length === 0 && inFolder.length === 0) return;
  performance.mark('flamelens:file-received');
  // The worker reads the files itself: the page never holds their bytes.
  const buffers = [...files.map((f) => ({ name: f.name, data: f as Blob })), ...folderBuffers(inFolder)];
  const all = [...givenOfFiles(files), ...givenOfFolder(inFolder)];
  // Only a drop that surely holds a profile (a loose file that is no ELF file) stops an open still
  // running or makes a restore give up. Binaries, and a folder's files (listed, not read: "Add a
  // folder…" while a large profile opens), are for the profile being opened or shown.
  if (!life.shown && !life.opening) {
    // Nothing to stop or to add to: the worker starts at once, while the files are sniffed (a
    // slice read each, 5–30 ms before the worker could begin its read). Whether they were only
    // binaries matters to a drop made while this one runs, which leaves binaries be.
    await openInWorker(begin(), buffers, all, undefined, files.length === 0 || symbolFilesOnly(files));
    return;
  }
  const forOpen = files.length === 0 || (await symbolFilesOnly(files));
  if (!forOpen) {
    await openInWorker(begin(), buffers, all, undefined, false);
    return;
  }
  await addFiles(buffers, all);
}

/**
 * Files for the profile shown (or being opened): symbol files, a folder's files, sources. The
 * view stays; the files join the workspace.
 */
async function addFiles(buffers: FileBuffer[], files: Given[]): Promise<void> {
  const names = buffers.map((f) => f.name).join(', ');
  set({ status: 'loading', loadingName: names, progress: { phase: 'parse', fraction: 0 }, error: null });
  const view = get().view;
  const outcome = await runJob(names, view, () =>
    client.drop(buffers, workerViewOf(view), progress, undefined, true),
  );
  if (!outcome.ok) {
    if (!outcome.cancelled) dispatch({ type: 'job-failed', crashed: outcome.failure.crashed });
    return;
  }
  const notes = outcome.result.inputs ?? [];
  if (shown) shown.inputs = liveInputs(shown.inputs, files, notes);
  await rememberSymbolFiles(files, notes);
  if (files.some((f) => !f.folder)) await symbolizeFromRemembered();
  await keepShown();
}

/**
 * Entries of a drop that holds folders: lists the folders' files (shown as loading: a large tree
 * takes a while), none read, then opens them with the loose files.
 */
export async function openEntries(entries: readonly FileSystemEntry[]): Promise<void> {
  const names = entries.map((e) => e.name).join(', ');
  // Another open meanwhile makes the listing moot; whether this one opens a profile, openFiles says.
  const since = life.serial;
  set({ status: 'loading', loadingName: `${names} (listing files)`, progress: null, error: null });
  let listed: Awaited<ReturnType<typeof filesOfEntries>>;
  try {
    listed = await filesOfEntries(entries);
  } catch (e) {
    if (begunSince(life, since)) return;
    set({
      status: get().analysis ? 'ready' : 'idle',
      loadingName: null,
      error: {
        fileName: names,
        message: `the folder could not be listed (${(e as Error).message})`,
      },
    });
    return;
  }
  if (begunSince(life, since)) return;
  await openFiles(listed.loose, listed.inFolder);
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
 * Opens a workspace kept in this browser (a reload, a `#ws=` link, Recent profiles) with `view`:
 * its profile with every supporting file, then its baseline if it is a comparison. Gives up when
 * another open begins while it reads. A workspace no longer kept is said, or its link opened.
 */
export async function openWorkspace(id: string, view: ViewState): Promise<void> {
  const ticket = begin();
  set({
    status: 'loading',
    loadingName: 'the profile kept in this browser',
    progress: { phase: 'read', fraction: 0 },
  });
  const got = await loadWorkspace(id);
  if (!isCurrent(life, ticket)) return;
  if (!got) {
    dispatch({ type: 'failed', id: ticket, crashed: false });
    if (sourceUrl(view.profiles.main)) return openLink({ ...view, workspace: undefined });
    set({
      notice: 'The profile this page showed is no longer kept in this browser: open it again.',
      status: get().analysis ? 'ready' : 'idle',
      progress: null,
      loadingName: null,
    });
    return;
  }
  const inputs: LiveInput[] = got.workspace.inputs.map((i) => ({
    ...i,
    ...(i.content !== undefined && got.blobs.has(i.content) && { blob: got.blobs.get(i.content) }),
  }));
  const withId = { ...view, workspace: id };
  if (await openInputs(ticket, inputs, withId)) {
    if (shown) shown.id = id;
    if (got.lost.length > 0)
      set({
        notice: `Some files of this workspace are no longer kept in this browser: ${got.lost.join(', ')}.`,
      });
  }
}

/** Opens the shown workspace again in a new worker (after a crash, a cancel), with `view`. */
async function reopenShown(view: ViewState): Promise<void> {
  const why = lostWhy;
  lostWhy = null;
  if (!shown || reopening(life)) return;
  const s = shown;
  const ok = await openInputs(begin(true), s.inputs, view);
  if (shown) shown.id ??= s.id;
  if (ok && why !== null) set({ notice: `${capitalized(why)}: the profile was opened again.` });
}

/**
 * Opens `inputs` for open `ticket` (a workspace's, kept or shown): the profile with its supporting
 * files, then the baseline when the view compares. Links' inputs are fetched again.
 */
async function openInputs(ticket: number, inputs: readonly LiveInput[], view: ViewState): Promise<boolean> {
  const plan = restorePlan(inputs);
  const fetched = async (i: LiveInput): Promise<FileBuffer> =>
    i.blob ? { name: i.name, data: i.blob } : { name: i.name, data: (await fetchProfile(i.url!)).data };
  let buffers: FileBuffer[];
  try {
    buffers = await Promise.all(plan.main.filter((i) => i.blob || i.url).map(fetched));
  } catch (e) {
    if (!isCurrent(life, ticket)) return false;
    dispatch({ type: 'failed', id: ticket, crashed: false });
    set({
      status: get().analysis ? 'ready' : 'idle',
      progress: null,
      loadingName: null,
      error: { fileName: 'workspace', message: (e as Error).message },
    });
    return false;
  }
  if (!isCurrent(life, ticket)) return false;
  const files: Given[] = plan.main.map((i) => ({
    name: i.name,
    size: i.size,
    blob: i.blob,
    url: i.url,
    folder: i.folder,
  }));
  const comparing = plan.base !== null && view.mode === 'diff';
  const mainView = comparing ? { ...view, mode: 'graph' as const, sandwich: undefined } : view;
  if (!(await openInWorker(ticket, buffers, files, mainView))) return false;
  if (!comparing || !plan.base || begunSince(life, ticket)) return true;
  const base = plan.base;
  const baseBuffer = await fetched(base).catch(() => null);
  if (baseBuffer === null || begunSince(life, ticket)) return true;
  const slot = view.profiles.base ?? {};
  const named = slot.source ? slot : { ...slot, source: { kind: 'file' as const, name: base.name } };
  const compared = { ...view, profiles: { ...get().view.profiles, base: named } };
  await compareBuffers([baseBuffer], compared, [
    { name: base.name, size: base.size, blob: base.blob, url: base.url },
  ]);
  const a = get().analysis;
  if (a) set(namedPlaces(a, view));
  return true;
}

/**
 * Opens what a link names: the profile at its URL with the binaries it lists, then its baseline if
 * any (a comparison), with the link's view. A workspace kept under the link's `ws=` (binaries
 * added to a linked profile) opens instead when this browser has it. The bundled examples open as
 * links too, so a reload opens them again.
 */
export async function openLink(initial: ViewState): Promise<void> {
  if (initial.workspace) return openWorkspace(initial.workspace, initial);
  const mainUrl = sourceUrl(initial.profiles.main) ?? '';
  const urls = [mainUrl, ...(initial.profiles.main.binaries ?? [])];
  const baseUrl = sourceUrl(initial.profiles.base);
  const ticket = begin();
  const gone = () => !isCurrent(life, ticket);
  const progressOf = (name: string) => (fraction: number) => {
    if (!gone()) set({ status: 'loading', loadingName: name, progress: { phase: 'download', fraction } });
  };
  progressOf(profileNameFromUrl(mainUrl))(0);
  let buffers: FileBuffer[];
  try {
    buffers = await Promise.all(urls.map((u) => fetchProfile(u, progressOf(profileNameFromUrl(u)))));
  } catch (e) {
    if (gone()) return;
    dispatch({ type: 'failed', id: ticket, crashed: false });
    set({
      status: get().analysis ? 'ready' : 'idle',
      progress: null,
      loadingName: null,
      error: { fileName: profileNameFromUrl(mainUrl), message: e instanceof Error ? e.message : String(e) },
    });
    return;
  }
  if (gone()) return;
  performance.mark('flamelens:file-received');
  const files: Given[] = buffers.map((b, k) => ({ name: b.name, size: 0, url: urls[k] }));
  const mainView = baseUrl ? { ...initial, mode: 'graph' as const } : initial;
  if (!(await openInWorker(ticket, buffers, files, mainView)) || !baseUrl || begunSince(life, ticket)) return;
  try {
    const base = await fetchProfile(baseUrl, progressOf(profileNameFromUrl(baseUrl)));
    if (begunSince(life, ticket)) return;
    await compareBuffers([base], initial, [{ name: base.name, size: 0, url: baseUrl }]);
    const a = get().analysis;
    if (a) set(namedPlaces(a, initial));
  } catch (e) {
    set({ error: { fileName: baseUrl, message: e instanceof Error ? e.message : String(e) } });
  }
}

/**
 * Opens the profiles an HTML report carries (Blobs, so a crash can open them again), as a link
 * opens its own: the profile, then its baseline.
 */
export async function openBlobs(
  main: { name: string; blob: Blob },
  base: { name: string; blob: Blob } | null,
  view: ViewState,
): Promise<boolean> {
  const inputs: LiveInput[] = [{ role: 'profile', name: main.name, size: main.blob.size, blob: main.blob }];
  if (base) inputs.push({ role: 'baseline', name: base.name, size: base.blob.size, blob: base.blob });
  return openInputs(begin(), inputs, view);
}

/** Nothing is shown any more (a first profile's open ended without it): the start page. */
function showStartPage(): void {
  shown = null;
  // (The first picture cleared its symbols, sandwich and selection already; a zoom made on it goes.)
  set({
    status: 'idle',
    progress: null,
    loadingName: null,
    analysis: null,
    preview: false,
    focusNode: 0,
    view: { ...get().view, workspace: undefined, profiles: { main: {} }, zoom: [] },
  });
}

/** Stops what runs (an open, a view); what was shown before stays, or comes back, or the start page. */
export function cancelJob(): void {
  const worker = client.busy;
  if (!worker && !life.opening) return;
  if (worker) client.cancel();
  set({ status: get().analysis ? 'ready' : 'idle', progress: null, loadingName: null });
  dispatch({ type: 'cancel', worker });
}

// ─── what is open changes ───────────────────────────────────────────────────────────────────

/**
 * Files with a profile to compare the open one with: it becomes the baseline (`base` slot) and the
 * view switches to the comparison. `view`: a link's or a workspace's; else the current view in
 * diff mode. A bad file shows its error and keeps the open profile.
 */
export async function compareBuffers(
  files: FileBuffer[],
  view?: ViewState,
  inputs?: Given[],
): Promise<boolean> {
  const names = files.map((f) => f.name).join(', ');
  const cur = get().view;
  const name = files.length === 1 ? files[0].name : names;
  const next: ViewState = view ?? {
    ...cur,
    mode: 'diff',
    sandwich: undefined,
    profiles: { ...cur.profiles, base: { source: { kind: 'file', name } } },
  };
  const givenFiles: Given[] =
    inputs ??
    files.map((f) => ({ name: f.name, size: sizeOf(f), ...(f.data instanceof Blob && { blob: f.data }) }));
  set({ status: 'loading', loadingName: names, progress: { phase: 'parse', fraction: 0 }, error: null });
  const outcome = await runJob(names, next, () => client.compare(files, workerViewOf(next), progress));
  if (!outcome.ok) {
    if (!outcome.cancelled) dispatch({ type: 'job-failed', crashed: outcome.failure.crashed });
    return false;
  }
  if (shown) shown.inputs = liveInputs(shown.inputs, givenFiles, outcome.result.inputs ?? []);
  // Benchmarks time a comparison to the first paint of its differential graph.
  if (get().firstPaintPending) {
    const stop = useStore.subscribe((st) => {
      if (st.firstPaintPending) return;
      stop();
      if (st.analysis?.diff) performance.mark('flamelens:diff-painted');
    });
  }
  await keepShown();
  return true;
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
  const outcome = await runJob('swap', next, () => client.swap(workerViewOf(next), progress));
  if (!outcome.ok) {
    if (get().view === next) set({ view: v });
    if (!outcome.cancelled) dispatch({ type: 'job-failed', crashed: outcome.failure.crashed });
    return false;
  }
  if (shown) shown.inputs = swappedInputs(shown.inputs);
  await keepShown();
  return true;
}

/** A job on the shown profile failed: with the worker, the profile is opened again in a new one. */
export function jobFailed(crashed: boolean): void {
  dispatch({ type: 'job-failed', crashed });
}

/**
 * A question about the shown profile, asked of the worker (a search, the source, an export): if
 * the worker went with it (crashed, or hung and was replaced), the page says why and opens the
 * profile again in a new one, after `unask` took back from the view what would ask it again; the
 * question fails as it did.
 */
export async function ask<T>(question: () => Promise<T>, unask?: () => void): Promise<T> {
  try {
    return await question();
  } catch (e) {
    if (e instanceof WorkerFailure && e.crashed) {
      unask?.();
      workerLost(e.message);
    }
    throw e;
  }
}

/** Why the worker went with the profile it held, to say once the profile is opened again. */
let lostWhy: string | null = null;

/** The worker went with the profile it held (`why`): said, and the profile opened again. */
function workerLost(why: string): void {
  if (!get().analysis) return;
  lostWhy = why;
  set({ notice: `${capitalized(why)}: the profile is opened again…` });
  jobFailed(true);
}
client.onLost = workerLost;

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Keeps the workspace's view (the link it names) up to date once the view on screen settles. */
export function keepView(): void {
  void keepShown();
}

// ─── remembered symbol files ────────────────────────────────────────────────────────────────

/** Per mapped file, the samples in it: counted by the worker when the fold put that off. */
export function mappingSamplesOf(meta: FoldedMeta): Promise<MappingSamples[]> {
  return meta.mappingSamplesPending
    ? ask(() => client.mappingSamples())
    : Promise.resolve(meta.mappingSamples ?? []);
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
  const since = life.serial;
  const same = () => !begunSince(life, since) && get().analysis?.profile.meta === meta;
  // Asked of the worker for a large profile.
  const counted = await mappingSamplesOf(meta).catch(() => null);
  if (counted === null || !same()) return;
  const held = new Set(counted.map((m) => m.path));
  const wanted = meta.mappings.filter((m) => held.has(m.path) && !symbolized.has(m.path));
  if (wanted.length === 0) return;
  const files = await recall(wanted, new Set());
  if (files.length === 0 || !same()) return;
  const view = get().view;
  const buffers = files.map((f) => ({ name: f.name, data: f as Blob }));
  const outcome = await runJob(buffers.map((b) => b.name).join(', '), view, () =>
    client.drop(buffers, workerViewOf(view), progress, undefined, true),
  );
  if (!outcome.ok) return;
  if (shown) shown.inputs = liveInputs(shown.inputs, givenOfFiles(files), outcome.result.inputs ?? []);
  set({ remembered: files.map((f) => f.name) });
}
