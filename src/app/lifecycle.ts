// The lifecycle of opening what is shown, as one pure transition function (a typed reducer):
// an open is begun, reads its files (from this browser's store, a download, a folder's listing),
// sends them to the worker, maybe shows a first picture, and is shown, fails or is cancelled; a
// newer open supersedes it. What each outcome does to what was shown before is decided here, as
// effects the page carries out (actions.ts): open the shown workspace again (the worker lost it),
// go back to the start page, or finish the open (keep the workspace, remember symbol files).
//
//   begin ──► reading ──sent──► worker ──picture──► picture ──opened──► (shown)
//     │          └─────────────────┴────────┬──────────┴──failed / cancel──► reopen | start page
//     └── a newer begin supersedes: the older open's later events are ignored

import type { ViewState } from '../core/view/schema';

export interface Opening {
  /** Its ticket: events of an open that is no longer the current one are ignored. */
  id: number;
  /**
   * `reading`: the page reads its files; `worker`: the worker opens them; `picture`: its first
   * (coarse) picture is shown while the full analysis is built.
   */
  stage: 'reading' | 'worker' | 'picture';
  /**
   * The view on screen before its first picture replaced it (what the profile before comes back
   * with); not null once a picture of no shown profile is on screen: its own, or that of an open
   * it superseded (which stays on screen until this one's own picture replaces it).
   */
  viewBefore: ViewState | null;
  /** It opens the shown workspace again (after a crash or a cancel), not something new. */
  reopen: boolean;
}

export interface Lifecycle {
  /** Opens begun so far (the last one's ticket). */
  serial: number;
  /** The open in progress, if any. */
  opening: Opening | null;
  /** A profile is shown (the worker has it, or will once a reopen ends). */
  shown: boolean;
}

export const INITIAL: Lifecycle = { serial: 0, opening: null, shown: false };

export type LifecycleEvent =
  /** A new open (it supersedes the open in progress); `reopen`: the shown workspace again. */
  | { type: 'begin'; reopen?: boolean }
  /** Its files went to the worker. */
  | { type: 'sent'; id: number }
  /** Its first picture is shown; `view` is the view that was on screen before it. */
  | { type: 'picture'; id: number; view: ViewState }
  /** Its analysis is shown. */
  | { type: 'opened'; id: number }
  /** It failed: an error (what was shown stays), or the worker crashed (and lost it). */
  | { type: 'failed'; id: number; crashed: boolean }
  /** The user cancels what runs; `worker`: a worker job was running (the worker is replaced). */
  | { type: 'cancel'; worker: boolean }
  /** A job on the shown profile (a view, symbols, a comparison) failed; `crashed`: with the worker. */
  | { type: 'job-failed'; crashed: boolean };

export type LifecycleEffect =
  /** Open the shown workspace again in a new worker, with `view` (null: the view on screen). */
  | { kind: 'reopen'; view: ViewState | null }
  /** Nothing is shown any more: the start page. */
  | { kind: 'start-page' }
  /** The open `id` is shown: keep its workspace, remember its symbol files, add remembered ones. */
  | { kind: 'finish'; id: number };

export interface Transition {
  state: Lifecycle;
  effects: LifecycleEffect[];
}

const stay = (state: Lifecycle): Transition => ({ state, effects: [] });

/** Whether `id` is the open in progress (not superseded, not ended). */
export const isCurrent = (s: Lifecycle, id: number): boolean => s.opening?.id === id;

/** Whether an open has begun since the one with ticket `serial` (a later one supersedes it). */
export const begunSince = (s: Lifecycle, serial: number): boolean => s.serial !== serial;

/** A reopen of the shown workspace is running: a second one would only race it. */
export const reopening = (s: Lifecycle): boolean => s.opening?.reopen === true;

export function transition(s: Lifecycle, e: LifecycleEvent): Transition {
  switch (e.type) {
    case 'begin': {
      const id = s.serial + 1;
      // A superseded open's picture stays on screen: this open ends as if it were its own.
      const viewBefore = s.opening?.viewBefore ?? null;
      return stay({
        ...s,
        serial: id,
        opening: { id, stage: 'reading', viewBefore, reopen: e.reopen === true },
      });
    }
    case 'sent':
      if (!isCurrent(s, e.id) || s.opening!.stage !== 'reading') return stay(s);
      return stay({ ...s, opening: { ...s.opening!, stage: 'worker' } });
    case 'picture': {
      if (!isCurrent(s, e.id)) return stay(s);
      const o = s.opening!;
      return stay({ ...s, opening: { ...o, stage: 'picture', viewBefore: o.viewBefore ?? e.view } });
    }
    case 'opened': {
      if (!isCurrent(s, e.id)) return stay(s);
      const reopen = s.opening!.reopen;
      return {
        state: { ...s, opening: null, shown: true },
        effects: reopen ? [] : [{ kind: 'finish', id: e.id }],
      };
    }
    case 'failed':
      if (!isCurrent(s, e.id)) return stay(s);
      return ended(s, s.opening!, e.crashed);
    case 'cancel':
      if (s.opening) return ended(s, s.opening, e.worker);
      // A job on the shown profile: the worker that ran it is gone, and the profile with it.
      return e.worker && s.shown ? { state: s, effects: [{ kind: 'reopen', view: null }] } : stay(s);
    case 'job-failed':
      return e.crashed && s.shown && !reopening(s)
        ? { state: s, effects: [{ kind: 'reopen', view: null }] }
        : stay(s);
  }
}

/**
 * An open that ends without being shown (failed, cancelled). Its first picture goes with it (or a
 * superseded open's, still on screen): the profile shown before comes back with its own view, or
 * the start page. Without a picture, what was shown stays; if the worker went (a crash, a
 * cancelled worker job), it is opened again. A reopen that fails is not tried again.
 */
function ended(s: Lifecycle, o: Opening, workerGone: boolean): Transition {
  const state = { ...s, opening: null };
  if (o.reopen) return stay(state);
  if (o.viewBefore !== null)
    return s.shown
      ? { state, effects: [{ kind: 'reopen', view: o.viewBefore }] }
      : { state, effects: [{ kind: 'start-page' }] };
  if (workerGone && o.stage !== 'reading' && s.shown)
    return { state, effects: [{ kind: 'reopen', view: null }] };
  return stay(state);
}
