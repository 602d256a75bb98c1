// The open lifecycle, transition by transition, and each race the page has met (named after the
// commit that mended it) as a case: what the page must do, decided by the pure transition.

import { describe, expect, it } from 'vitest';
import { DEFAULT_VIEW, type ViewState } from '../core/view/schema';
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

/** Runs events from `s`; the state after them and every effect asked on the way. */
function run(s: Lifecycle, ...events: LifecycleEvent[]): { state: Lifecycle; effects: LifecycleEffect[] } {
  const effects: LifecycleEffect[] = [];
  for (const e of events) {
    const t = transition(s, e);
    s = t.state;
    effects.push(...t.effects);
  }
  return { state: s, effects };
}

const view = (mark: string): ViewState => ({ ...DEFAULT_VIEW, search: { text: mark, regex: false } });
/** A profile shown (opened by open 1). */
const SHOWN: Lifecycle = run(
  INITIAL,
  { type: 'begin' },
  { type: 'sent', id: 1 },
  { type: 'opened', id: 1 },
).state;

describe('the open lifecycle, each transition', () => {
  it('begin: a new ticket, reading; it supersedes the open in progress', () => {
    const a = transition(INITIAL, { type: 'begin' });
    expect(a.state).toEqual({
      serial: 1,
      shown: false,
      opening: { id: 1, stage: 'reading', viewBefore: null, reopen: false },
    });
    expect(a.effects).toEqual([]);
    const b = transition(a.state, { type: 'begin' });
    expect(isCurrent(b.state, 1)).toBe(false);
    expect(isCurrent(b.state, 2)).toBe(true);
    expect(begunSince(b.state, 1)).toBe(true);
  });

  it('sent: reading → worker, for the current open only', () => {
    const s = run(INITIAL, { type: 'begin' }, { type: 'sent', id: 1 }).state;
    expect(s.opening?.stage).toBe('worker');
    expect(transition(s, { type: 'sent', id: 7 }).state).toBe(s);
  });

  it('picture: worker → picture, keeping the view on screen before the first one', () => {
    const s = run(
      SHOWN,
      { type: 'begin' },
      { type: 'sent', id: 2 },
      { type: 'picture', id: 2, view: view('before') },
      { type: 'picture', id: 2, view: view('first picture') },
    ).state;
    expect(s.opening).toEqual({ id: 2, stage: 'picture', viewBefore: view('before'), reopen: false });
  });

  it('opened: shown, and the open is finished (kept, remembered); a reopen needs no finishing', () => {
    const a = run(INITIAL, { type: 'begin' }, { type: 'sent', id: 1 }, { type: 'opened', id: 1 });
    expect(a.state).toEqual({ serial: 1, opening: null, shown: true });
    expect(a.effects).toEqual([{ kind: 'finish', id: 1 }]);
    const r = run(SHOWN, { type: 'begin', reopen: true }, { type: 'sent', id: 2 }, { type: 'opened', id: 2 });
    expect(r.effects).toEqual([]);
    expect(r.state.opening).toBeNull();
  });

  it('failed before a picture: what was shown stays (reopened only when the worker went with it)', () => {
    const error = run(
      SHOWN,
      { type: 'begin' },
      { type: 'sent', id: 2 },
      { type: 'failed', id: 2, crashed: false },
    );
    expect(error.effects).toEqual([]);
    expect(error.state).toEqual({ ...SHOWN, serial: 2 });
    const crash = run(
      SHOWN,
      { type: 'begin' },
      { type: 'sent', id: 2 },
      { type: 'failed', id: 2, crashed: true },
    );
    expect(crash.effects).toEqual([{ kind: 'reopen', view: null }]);
    // Nothing shown: nothing to reopen.
    const first = run(
      INITIAL,
      { type: 'begin' },
      { type: 'sent', id: 1 },
      { type: 'failed', id: 1, crashed: true },
    );
    expect(first.effects).toEqual([]);
    expect(first.state.shown).toBe(false);
  });

  it('failed while reading (a download, this browser’s store): nothing in the worker changed', () => {
    const r = run(SHOWN, { type: 'begin' }, { type: 'failed', id: 2, crashed: false });
    expect(r.effects).toEqual([]);
    expect(r.state.opening).toBeNull();
  });

  it('cancel: of an open, as a failure; of a job on the shown profile, a reopen', () => {
    const reading = run(SHOWN, { type: 'begin' }, { type: 'cancel', worker: false });
    expect(reading.effects).toEqual([]);
    expect(reading.state.opening).toBeNull();
    const job = run(SHOWN, { type: 'cancel', worker: true });
    expect(job.effects).toEqual([{ kind: 'reopen', view: null }]);
    expect(run(INITIAL, { type: 'cancel', worker: false }).effects).toEqual([]);
  });

  it('job-failed: a crash reopens what is shown, once (not while a reopen runs)', () => {
    expect(run(SHOWN, { type: 'job-failed', crashed: false }).effects).toEqual([]);
    expect(run(SHOWN, { type: 'job-failed', crashed: true }).effects).toEqual([
      { kind: 'reopen', view: null },
    ]);
    const during = run(SHOWN, { type: 'begin', reopen: true });
    expect(reopening(during.state)).toBe(true);
    expect(transition(during.state, { type: 'job-failed', crashed: true }).effects).toEqual([]);
  });

  it('a reopen that fails is not tried again', () => {
    const r = run(
      SHOWN,
      { type: 'begin', reopen: true },
      { type: 'sent', id: 2 },
      { type: 'failed', id: 2, crashed: true },
    );
    expect(r.effects).toEqual([]);
    expect(r.state.opening).toBeNull();
  });

  it('events of a superseded open are ignored', () => {
    const s = run(SHOWN, { type: 'begin' }, { type: 'sent', id: 2 }, { type: 'begin' }).state;
    for (const e of [
      { type: 'picture', id: 2, view: view('x') },
      { type: 'opened', id: 2 },
      { type: 'failed', id: 2, crashed: true },
    ] as LifecycleEvent[])
      expect(transition(s, e)).toEqual({ state: s, effects: [] });
  });
});

describe('races met before, as transitions', () => {
  it('ee4b71c: a file dropped while the page restores the last profile is the one shown', () => {
    // The restore (open 1) reads this browser's store; the drop (open 2) begins meanwhile.
    const s = run(INITIAL, { type: 'begin' }, { type: 'begin' }, { type: 'sent', id: 2 }).state;
    // The restore's read ends: it is no longer current and gives up (isCurrent false); its late
    // events change nothing.
    expect(isCurrent(s, 1)).toBe(false);
    expect(transition(s, { type: 'sent', id: 1 }).state).toBe(s);
    const done = run(s, { type: 'opened', id: 2 });
    expect(done.effects).toEqual([{ kind: 'finish', id: 2 }]);
  });

  it('76eb686: Cancel while a first profile is being built goes back to the start page', () => {
    const r = run(
      INITIAL,
      { type: 'begin' },
      { type: 'sent', id: 1 },
      { type: 'picture', id: 1, view: view('start') },
      { type: 'cancel', worker: true },
    );
    expect(r.effects).toEqual([{ kind: 'start-page' }]);
    expect(r.state).toEqual({ serial: 1, opening: null, shown: false });
  });

  it('059dd22: an open that fails after its first picture takes the picture with it', () => {
    const crash = run(
      SHOWN,
      { type: 'begin' },
      { type: 'sent', id: 2 },
      { type: 'picture', id: 2, view: view('before') },
      { type: 'failed', id: 2, crashed: true },
    );
    expect(crash.effects).toEqual([{ kind: 'reopen', view: view('before') }]);
    const first = run(
      INITIAL,
      { type: 'begin' },
      { type: 'sent', id: 1 },
      { type: 'picture', id: 1, view: view('start') },
      { type: 'failed', id: 1, crashed: false },
    );
    expect(first.effects).toEqual([{ kind: 'start-page' }]);
  });

  it('c2a4d27: Cancel brings the profile shown before back with its own view, not the cancelled open’s', () => {
    const r = run(
      SHOWN,
      { type: 'begin' },
      { type: 'sent', id: 2 },
      { type: 'picture', id: 2, view: view('the profile before') },
      { type: 'picture', id: 2, view: view('the coarse tree') },
      { type: 'cancel', worker: true },
    );
    expect(r.effects).toEqual([{ kind: 'reopen', view: view('the profile before') }]);
  });

  it('1c22038: a worker that crashes during a view job: the profile on screen is opened again', () => {
    expect(run(SHOWN, { type: 'job-failed', crashed: true }).effects).toEqual([
      { kind: 'reopen', view: null },
    ]);
  });

  it('5f4c1ff / 87da3c3: binaries or a folder dropped while a profile opens are for it (no new open)', () => {
    // Files for the open are a job, not a begin: the open in progress stays current.
    const s = run(SHOWN, { type: 'begin' }, { type: 'sent', id: 2 }).state;
    expect(isCurrent(s, 2)).toBe(true);
    // If that job fails without a crash, the open goes on.
    const t = transition(s, { type: 'job-failed', crashed: false });
    expect(t.state).toBe(s);
    expect(t.effects).toEqual([]);
  });

  it('edeac1f: remembered symbols asked for after an open give up when another open begins', () => {
    // The question is asked since open 1; a drop (open 2) begins before the answer.
    const since = SHOWN.serial;
    const s = run(SHOWN, { type: 'begin' }).state;
    expect(begunSince(s, since)).toBe(true);
    expect(begunSince(SHOWN, since)).toBe(false);
  });

  it('76af12c: a large profile’s first picture, then its full tree: one finish, the picture’s view kept by the page', () => {
    const r = run(
      SHOWN,
      { type: 'begin' },
      { type: 'sent', id: 2 },
      { type: 'picture', id: 2, view: view('before') },
      { type: 'opened', id: 2 },
    );
    expect(r.effects).toEqual([{ kind: 'finish', id: 2 }]);
    expect(r.state.opening).toBeNull();
  });

  it('a file that fails, dropped while another open shows its first picture, takes that picture away too', () => {
    // The first open's picture stays on screen while the drop that superseded it is read: when
    // that drop fails (an empty file) or is cancelled, the picture must not stay, half-built and
    // never finished (its worker abandoned): the start page, or the profile shown before.
    const picture = (id: number, mark: string): LifecycleEvent[] => [
      { type: 'begin' },
      { type: 'sent', id },
      { type: 'picture', id, view: view(mark) },
    ];
    const first = run(INITIAL, ...picture(1, 'start'), { type: 'begin' }, { type: 'sent', id: 2 });
    expect(run(first.state, { type: 'failed', id: 2, crashed: false }).effects).toEqual([
      { kind: 'start-page' },
    ]);
    expect(run(first.state, { type: 'cancel', worker: true }).effects).toEqual([{ kind: 'start-page' }]);
    // A third drop superseding the second (still reading) inherits the picture too.
    expect(run(first.state, { type: 'begin' }, { type: 'failed', id: 3, crashed: false }).effects).toEqual([
      { kind: 'start-page' },
    ]);
    const over = run(SHOWN, ...picture(2, 'before'), { type: 'begin' }, { type: 'sent', id: 3 });
    expect(run(over.state, { type: 'failed', id: 3, crashed: false }).effects).toEqual([
      { kind: 'reopen', view: view('before') },
    ]);
    // Its own picture, later, keeps the view before the first one; shown, it is finished.
    const own = run(over.state, { type: 'picture', id: 3, view: view('the first picture') });
    expect(own.state.opening?.viewBefore).toEqual(view('before'));
    expect(run(own.state, { type: 'opened', id: 3 }).effects).toEqual([{ kind: 'finish', id: 3 }]);
  });

  it('ffb5360: a link to a workspace no longer kept: the read fails, nothing was shown, nothing to undo', () => {
    const r = run(INITIAL, { type: 'begin' }, { type: 'failed', id: 1, crashed: false });
    expect(r.effects).toEqual([]);
    expect(r.state).toEqual({ serial: 1, opening: null, shown: false });
  });
});
