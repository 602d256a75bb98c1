// The timeline above the graph (profiles with time stamps): the breadcrumb of committed ranges,
// the selection and what to do with it (zoom into it, set it as A or B, compare B with A), tracks
// by thread or process, and the tracks themselves (timeline/Timeline.tsx). A profile without time
// stamps says so in its place.

import { useCallback, useMemo, useState } from 'react';
import { describeRange, type TimeRange } from '../core/model/timeline';
import { timeUnitUs } from '../core/text/units';
import { comparesRanges, type TrackBy } from '../core/view/schema';
import { formatNs } from '../timeline/geometry';
import { Timeline } from '../timeline/Timeline';
import { useStore } from './store';
import {
  changeTime,
  compareRanges,
  markRange,
  sampleAtTime,
  selectRange,
  zoomOutTo,
  zoomToSelection,
} from './view';

export function TimelinePanel() {
  const data = useStore((s) => s.derived.timeline);
  const time = useStore((s) => s.view.time);
  const comparing = useStore((s) => comparesRanges(s.view));
  const unit = useStore((s) => s.analysis?.profile.meta.sampleType.unit);
  const dark = useStore((s) => s.theme === 'dark');
  const [open, setOpen] = useState(true);
  const sampleAt = useCallback((k: number, t: number, tol: number) => sampleAtTime(k, t, tol), []);
  const marks = useMemo(
    () => [
      ...(time.a ? [{ label: 'A', range: time.a }] : []),
      ...(time.b ? [{ label: 'B', range: time.b }] : []),
    ],
    [time.a, time.b],
  );
  if (!data) return null;
  if (data.none !== undefined)
    return (
      <div className="timeline-none" data-testid="timeline-none">
        Timeline: {data.none}.
      </div>
    );
  const whole: TimeRange = { start: data.first, end: data.last };
  const sel = time.selection ?? null;
  const us = unit === undefined ? undefined : timeUnitUs(unit);
  const range = (r: TimeRange) =>
    `${describeRange({ start: r.start - data.first, end: r.end - data.first })}`;
  return (
    <section className="timeline" aria-label="Timeline" data-testid="timeline">
      <div className="timeline-bar">
        <button type="button" className="tl-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? '▾' : '▸'} Timeline
        </button>
        <nav className="tl-crumbs" aria-label="Committed ranges" data-testid="timeline-crumbs">
          <button
            type="button"
            aria-current={time.zoom.length === 0 ? 'true' : undefined}
            onClick={() => void zoomOutTo(0)}
          >
            Full profile ({formatNs(data.last - data.first)})
          </button>
          {time.zoom.map((r, i) => (
            <span key={`${r.start}-${r.end}`}>
              {' › '}
              <button
                type="button"
                aria-current={i === time.zoom.length - 1 ? 'true' : undefined}
                onClick={() => void zoomOutTo(i + 1)}
              >
                {formatNs(r.end - r.start)}
              </button>
            </span>
          ))}
        </nav>
        <span className="tl-selection" data-testid="timeline-selection">
          {sel
            ? `Selected ${range(sel)} (${formatNs(sel.end - sel.start)})`
            : 'Drag over the tracks to select a range'}
        </span>
        <button
          type="button"
          className="tl-zoom"
          title="Zoom into the selection"
          aria-label="Zoom into the selection"
          disabled={!sel}
          onClick={() => void zoomToSelection()}
        >
          <svg width="13" height="13" viewBox="0 0 16 16" aria-hidden="true">
            <circle cx="6.5" cy="6.5" r="4.8" fill="none" stroke="currentColor" strokeWidth="1.8" />
            <path d="M10 10l4.5 4.5M4.3 6.5h4.4M6.5 4.3v4.4" stroke="currentColor" strokeWidth="1.8" />
          </svg>{' '}
          Zoom
        </button>
        <span className="tl-compare">
          <button
            type="button"
            onClick={() => void markRange('a', whole)}
            title="The range of A in a comparison (the baseline)"
          >
            Set as A
          </button>
          <button
            type="button"
            onClick={() => void markRange('b', whole)}
            title="The range of B (compared with A)"
          >
            Set as B
          </button>
          <button
            type="button"
            disabled={!time.a || !time.b || comparing}
            onClick={() => void compareRanges()}
            title={
              time.a && time.b ? `B ${range(time.b)} compared with A ${range(time.a)}` : 'Set A and B first'
            }
          >
            Compare A → B
          </button>
        </span>
        <label className="tl-tracks">
          Tracks{' '}
          <select
            value={time.tracks}
            onChange={(e) => void changeTime({ tracks: e.currentTarget.value as TrackBy })}
          >
            <option value="thread">per thread</option>
            <option value="process">per process</option>
          </select>
        </label>
      </div>
      {open && (
        <Timeline
          data={data}
          weightNs={us === undefined ? undefined : us * 1000}
          selection={sel}
          marks={marks}
          onSelect={(r) => void selectRange(r)}
          sampleAt={sampleAt}
          dark={dark}
        />
      )}
    </section>
  );
}
