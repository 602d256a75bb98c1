// The page's one worker client, and what an answer that carries a view does to the store. Every
// request to the worker goes through this module (open.ts opens, view.ts changes the view and
// asks questions). The client queues requests; a drop that surely holds a profile abandons an
// earlier drop still running (client.ts).

import { nodeByNames, pathToNode } from '../core/model/calltree';
import { findFrame } from '../core/model/frames';
import { frameName } from '../core/text/frame-text';
import { mergeViews, type ViewState } from '../core/view/schema';
import { CancelledError, ProfileWorkerClient, WorkerFailure } from '../worker/client';
import type { PageAnalysis, ViewResult } from '../worker/protocol';
import { carriedNode } from './carry';
import { type AppState, type Derived, useStore } from './store';

export const client = new ProfileWorkerClient();
export { CancelledError, WorkerFailure };

export const get = () => useStore.getState();
export const set = (patch: Partial<AppState>) => useStore.setState(patch);
export const progress = (phase: string, fraction: number) => set({ progress: { phase, fraction } });

/** Starts the worker before the first file arrives. */
export function warmUpWorker(): void {
  client.warmUp();
}

/** The zoomed node and the selected function that a view's names point at in an analysis. */
export function namedPlaces(
  a: PageAnalysis,
  view: ViewState,
): { focusNode: number; selectedFrame: number | null; notice?: string } {
  const name = (f: number) => frameName(a.profile.frames, f);
  const fn = view.fn ? findFrame(a.profile.frames, view.fn) : -1;
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
 * `view` with what the user chose on a new profile's first picture while it was being built, from
 * `shown`: the search typed, the orientation, the theme. Choices the worker makes (inverted,
 * transforms…) follow with their own jobs, queued behind the open.
 */
export function withPreviewChoices(view: ViewState, shown: ViewState): ViewState {
  return { ...view, search: shown.search, orientation: shown.orientation, theme: shown.theme };
}

/**
 * The view of a file that is itself a comparison (two counts per stack), in `mode` (diff), its
 * baseline named `baseName` (the file's first column): as it opens, and as its preview is shown.
 */
export function asComparison(
  view: ViewState,
  mode: ViewState['mode'],
  baseName: string | undefined,
): ViewState {
  return {
    ...view,
    mode,
    profiles: { ...view.profiles, base: { source: { kind: 'file', name: baseName ?? '' } } },
  };
}

/** How a job ended: its answer, or why not (cancelled by a newer job, or a failure). */
export type JobOutcome =
  | { ok: true; result: ViewResult }
  | { ok: false; cancelled: true }
  | { ok: false; cancelled: false; failure: WorkerFailure };

/**
 * Runs a worker job that answers with a view and applies its answer: `view` is the view the job
 * asked for (it becomes the store's, merged with what changed meanwhile). A failure is shown as
 * an error for `what`, and what was showing stays; what it means for the open in progress is the
 * caller's (open.ts's lifecycle).
 */
export async function runJob(
  what: string,
  view: ViewState,
  job: () => Promise<ViewResult>,
  opts: {
    /** The sizes of the files given, by name (a new profile's size when the worker does not say). */
    sizes?: Map<string, number>;
    /** `view` is for a new profile only: files that hold none leave the view on screen as it is. */
    forNewProfile?: boolean;
  } = {},
): Promise<JobOutcome> {
  const shown = get().view;
  let r: ViewResult;
  try {
    r = await job();
  } catch (e) {
    if (e instanceof CancelledError) return { ok: false, cancelled: true };
    const failure = e instanceof WorkerFailure ? e : new WorkerFailure((e as Error).message);
    set({
      status: get().analysis ? 'ready' : 'idle',
      loadingName: null,
      progress: null,
      error: { fileName: what, message: failure.message, offset: failure.offset, line: failure.line },
    });
    return { ok: false, cancelled: false, failure };
  }
  applyResult(r, !r.newProfile && opts.forNewProfile ? get().view : view, shown, opts.sizes);
  return { ok: true, result: r };
}

/** A job's answer into the store (see runJob). */
function applyResult(r: ViewResult, asked: ViewState, shown: ViewState, sizes?: Map<string, number>): void {
  if (r.newProfile) performance.mark('flamelens:ready');
  let view = asked;
  // A file that is itself a comparison (two counts per stack) opens as one.
  if (r.mode !== view.mode) view = asComparison(view, r.mode, r.analysis?.diff?.baseMeta.fileName);
  // A view chosen while this job ran (symbols being added, say) stays: its controls followed the
  // click at once, and its own job, queued behind this one, answers next. What this job changed
  // and nothing else did meanwhile is its own (a comparison's mode, while the open before it
  // named its workspace).
  if (!r.newProfile) view = mergeViews(shown, view, get().view);
  const prev = get();
  // A new profile pictured first: what was changed since its picture was shown stays (a tab, the
  // inversion, whose own job answers next), as mergeViews keeps it for a view's job.
  if (r.newProfile && prev.preview) {
    view = withPreviewChoices(view, prev.view);
    if (prev.previewView) view = mergeViews(prev.previewView, view, prev.view);
  }
  const patch: Partial<AppState> = {
    status: 'ready',
    symbols: r.symbols,
    // What a dropped folder gave, until another profile opens.
    ...(r.folder ? { folder: r.folder } : r.newProfile ? { folder: null } : {}),
    ...(r.newProfile ? { remembered: null } : {}),
    view,
    ...(r.sandwich !== undefined && { sandwich: r.sandwich }),
    ...((r.derived || r.newProfile) && {
      derived: { ...(r.newProfile ? {} : prev.derived), ...(r.derived as Derived | undefined) },
    }),
    ...(r.labels ? { labels: r.labels } : {}),
    loadingName: null,
    progress: null,
  };
  if (r.analysis) {
    const a = r.analysis;
    patch.analysis = a;
    patch.preview = false;
    patch.previewView = null;
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
}
