// Changing the view of what is open, and asking the worker about it (search, exports, the source
// panel). The parts of the view the worker derives from go to it as one request; the rest applies
// at once. Opening and changing what is open is open.ts's.

import { pathToNode } from '../core/model/calltree';
import { findFrame } from '../core/model/frames';
import type { Transform } from '../core/model/transforms';
import { findZoom, zoomMessage, zoomSteps } from '../core/model/zoom-across';
import { frameName } from '../core/text/frame-text';
import { type TimeRange, type TimeView, type ViewState, workerViewOf } from '../core/view/schema';
import type {
  FlameChartReply,
  FlameChartRequest,
  FunctionListing,
  SampleAt,
  SnapshotFile,
  SourceReply,
} from '../worker/protocol';
import { ask, jobFailed } from './open';
import { client, get, progress, runJob, set } from './worker';

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
  // The selected function, by name: selected again in the new analysis when it is there with
  // samples (inverted, another transform), not when it is gone (hidden, other frames).
  const was = get();
  const selected =
    was.analysis && was.selectedFrame !== null
      ? { frames: was.analysis.profile.frames, frame: was.selectedFrame }
      : null;
  set({
    status: 'loading',
    loadingName: 'view',
    progress: { phase: 'view', fraction: 0 },
    // The controls follow the click at once; the graph follows when the worker answers.
    view,
    ...(onlySandwich ? {} : { selectedFrame: null }),
  });
  // Another granularity keeps the zoom at the nearest frame it has (the new tree is another).
  const shown = get();
  const zoomed =
    view.granularity !== before.granularity && shown.analysis && shown.focusNode > 0
      ? zoomSteps(shown.analysis.tree, shown.analysis.profile.frames, shown.focusNode)
      : null;
  const outcome = await runJob('view', view, () => client.apply(workerViewOf(view), progress));
  if (outcome.ok) {
    const a = get().analysis;
    if (selected && !onlySandwich && a && get().selectedFrame === null) {
      const f =
        a.profile.frames === selected.frames
          ? selected.frame
          : findFrame(a.profile.frames, frameName(selected.frames, selected.frame));
      if (f >= 0 && f < a.functions.count && a.functions.total[f] > 0) set({ selectedFrame: f });
    }
    if (zoomed && a && a !== shown.analysis) {
      const found = findZoom(zoomed, a.tree, a.profile.frames);
      set({
        focusNode: found.node,
        notice: zoomMessage(zoomed, found, a.profile.frames, a.tree, get().view.granularity),
      });
    }
    return true;
  }
  if (get().view === view) set({ view: before });
  if (!outcome.cancelled) jobFailed(outcome.failure.crashed);
  return false;
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
  await changeView({ mode: comparing ? 'diff' : 'sandwich', sandwich: frameName(a.profile.frames, frame) });
}

/** The sandwich of a function named `name` (from any graph: the main one, a sandwich half). */
export async function showSandwichOf(name: string): Promise<void> {
  const a = get().analysis;
  const frame = a ? findFrame(a.profile.frames, name) : -1;
  set({ selectedFrame: frame >= 0 ? frame : null });
  await changeView({ mode: get().view.mode === 'diff' ? 'diff' : 'sandwich', sandwich: name });
}

// ─── time ───────────────────────────────────────────────────────────────────────────────────

/** Changes the view's time part (TimeView), `drop`ping the fields named. */
export function changeTime(patch: Partial<TimeView>, drop: readonly ('selection' | 'a' | 'b')[] = []) {
  const time: TimeView = { ...get().view.time, ...patch };
  for (const k of drop) delete time[k];
  return changeView({ time });
}

/** Selects a range in the timeline (every view shows its samples), or clears the selection (null). */
export const selectRange = (r: TimeRange | null) =>
  r ? changeTime({ selection: r }) : changeTime({}, ['selection']);

/** Commits the selection: the timeline zooms into it, and it joins the breadcrumb. */
export function zoomToSelection() {
  const t = get().view.time;
  return t.selection ? changeTime({ zoom: [...t.zoom, t.selection] }, ['selection']) : Promise.resolve(false);
}

/** Back to the breadcrumb's `depth`th range (0: the whole profile). */
export const zoomOutTo = (depth: number) =>
  changeTime({ zoom: get().view.time.zoom.slice(0, depth) }, ['selection']);

/** Marks the range shown (the selection, else the timeline's window) as A or B, to compare. */
export function markRange(which: 'a' | 'b', whole: TimeRange) {
  const t = get().view.time;
  const r = t.selection ?? t.zoom[t.zoom.length - 1] ?? whole;
  return changeTime({ [which]: r });
}

/** Compares range B with range A (A the baseline): the differential flame graph. */
export const compareRanges = () => changeView({ mode: 'diff', sandwich: undefined });

/** Exchanges ranges A and B. */
export function swapRanges() {
  const { a, b } = get().view.time;
  return a && b ? changeTime({ a: b, b: a }) : Promise.resolve(false);
}

/** The sample of a timeline track nearest to a time (ns) within a tolerance, from the worker. */
export function sampleAtTime(track: number, time: number, tolerance: number): Promise<SampleAt | null> {
  return client.sampleAt(track, time, tolerance);
}

/** A track's flame chart over a window at a width, from the worker. */
export function flameChartOf(request: FlameChartRequest): Promise<FlameChartReply> {
  return client.flameChart(request);
}

/** Folded text of the shown view (through the zoomed frame, if any), from the worker. */
export function foldedText(): Promise<string[]> {
  const { analysis, focusNode } = get();
  const path =
    analysis && focusNode > 0 && focusNode < analysis.tree.count ? pathToNode(analysis.tree, focusNode) : [];
  return ask(() => client.foldedText(path));
}

/** Where a function spends its samples, per line and per address, from the worker. */
export function sourceOf(name: string): Promise<SourceReply> {
  return ask(() => client.source(name));
}

/** A function's instructions with their samples (the Assembly tab), from the worker. */
export function disassemblyOf(name: string, syntax: 'att' | 'intel' = 'att'): Promise<FunctionListing[]> {
  const report = get().report;
  if (report) {
    // A report holds no binary: the disassembly it carries (its heaviest functions, AT&T).
    const got = report.disassembly.get(name);
    if (got) return Promise.resolve(got);
    return Promise.reject(
      new Error(
        report.disassembly.size > 0
          ? `This report carries the disassembly of its ${report.disassembly.size} heaviest functions; ${name} is not one of them: open the profile with its binaries in Flamelens.`
          : 'This report holds no disassembly (it was made without the binaries): open the profile with its binaries in Flamelens.',
      ),
    );
  }
  return ask(() => client.disassembly(name, syntax));
}

/** The shown profile as gzipped pprof profile.proto, from the worker. */
export function protoBytes(): Promise<Uint8Array> {
  return ask(() => client.proto());
}

/** The open profile(s) with their symbols' names written in (an HTML report's), from the worker. */
export function snapshotFiles(): Promise<SnapshotFile[]> {
  return ask(() => client.snapshots());
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
    // One that takes the worker with it is not asked again of the profile reopened.
    const unask = () => set({ view: { ...get().view, search: { ...query, text: '' } } });
    const reply = await ask(() => client.search(query), unask);
    if (get().analysis === analysis && get().view.search === query)
      set({ searchResult: { analysis, query, reply } });
  } catch {
    // A search that fails is not shown (ask() said why when the worker went).
  }
}
