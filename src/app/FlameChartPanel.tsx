// The Flame chart tab: one track's stacks in time order (or every sample's: all tracks) (timeline/FlameChart.tsx), its window zoomed
// and panned on the page, its boxes made by the worker for that window at the canvas's width (one
// question at a time: the latest window waits for the answer in flight). Clicking a box selects its
// function, as the flame graph and the table do (the store's selected frame).

import { useCallback, useEffect, useRef, useState } from 'react';
import { ALL_TRACKS } from '../core/model/flamechart';
import { findFrame } from '../core/model/frames';
import type { TimeRange } from '../core/model/timeline';
import { frameName } from '../core/text/frame-text';
import { shownRange } from '../core/view/schema';
import { FlameChart } from '../timeline/FlameChart';
import { formatNs, zoomWindow } from '../timeline/geometry';
import type { FlameChartData } from '../timeline/paintFlameChart';
import type { FlameChartRequest } from '../worker/protocol';
import { useStore } from './store';
import { flameChartOf } from './view';

export function FlameChartPanel() {
  const data = useStore((s) => s.derived.timeline);
  const analysis = useStore((s) => s.analysis);
  const time = useStore((s) => s.view.time);
  const selectedFrame = useStore((s) => s.selectedFrame);
  const selectFrame = useStore((s) => s.selectFrame);
  const dark = useStore((s) => s.theme === 'dark');
  const timed = data && data.none === undefined ? data : null;
  // the heaviest track first
  const heaviest = timed
    ? timed.tracks.reduce((b, t, k) => (t.weight > timed.tracks[b].weight ? k : b), 0)
    : 0;
  const [track, setTrack] = useState(heaviest);
  const whole: TimeRange = timed ? { start: timed.first, end: timed.last } : { start: 0, end: 0 };
  const shown = shownRange(time) ?? whole;
  const [win, setWin] = useState<TimeRange>(shown);
  const [width, setWidth] = useState(0);
  // a new profile, tracks or range shown: the window is the range shown, the track the heaviest
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when what is shown changes
  useEffect(() => setTrack(heaviest), [timed?.tracks]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the range shown changes
  useEffect(() => setWin(shown), [shown.start, shown.end]);
  const request =
    timed && width > 0 ? { track, start: win.start, end: win.end, width: Math.round(width) } : null;
  const chart = useChartBoxes(request, [analysis, timed]);
  const onWidth = useCallback((w: number) => setWidth(w), []);
  // Asked of the worker (or the profile still opening): the panel keeps its room meanwhile.
  if (!data)
    return (
      <section className="flamechart" aria-label="Flame chart">
        <p className="flamechart-none" data-testid="flamechart-waiting">
          Putting the samples in time order…
        </p>
      </section>
    );
  if (!timed)
    return (
      <section className="flamechart" aria-label="Flame chart">
        <p className="flamechart-none" data-testid="flamechart-none">
          The flame chart draws stacks in time order: {data.none}.
        </p>
      </section>
    );
  const selected =
    analysis && selectedFrame !== null ? (frameName(analysis.profile.frames, selectedFrame) ?? null) : null;
  const onSelect = (name: string) => {
    const id = analysis ? findFrame(analysis.profile.frames, name) : -1;
    selectFrame(id >= 0 ? id : null);
  };
  const zoom = (factor: number) => setWin(zoomWindow(win, factor, 0.5, whole));
  const t = timed.tracks[track];
  return (
    <section className="flamechart" aria-label="Flame chart" data-testid="flamechart">
      <div className="fg-bar">
        <span className="fg-title">Flame chart</span>
        <label>
          Track{' '}
          <select
            value={track}
            onChange={(e) => setTrack(Number(e.currentTarget.value))}
            data-testid="flamechart-track"
          >
            <option value={ALL_TRACKS}>all tracks</option>
            {timed.tracks.map((x, k) => (
              <option key={`${x.pid}/${x.tid}/${x.name}`} value={k}>
                {x.name} {x.tid ?? x.pid ?? ''}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => zoom(2)} aria-label="Zoom in">
          +
        </button>
        <button type="button" onClick={() => zoom(0.5)} aria-label="Zoom out">
          −
        </button>
        <button type="button" onClick={() => setWin(shown)} aria-label="Show the whole range">
          Fit
        </button>
        <span className="fg-hint" data-testid="flamechart-window">
          {formatNs(win.start - timed.first)} – {formatNs(win.end - timed.first)} (
          {formatNs(win.end - win.start)}) · wheel zooms, drag pans
        </span>
      </div>
      <FlameChart
        chart={chart}
        window={win}
        bounds={whole}
        origin={timed.first}
        onWindow={setWin}
        onWidth={onWidth}
        selected={selected}
        onSelect={onSelect}
        dark={dark}
        title={`Flame chart of ${t ? `${t.name} ${t.tid ?? t.pid ?? ''}` : 'all tracks'}`}
      />
    </section>
  );
}

/**
 * The worker's boxes for the latest request, one question at a time; asked again when `version`
 * (the analysis shown, the timeline) changes. Boxes of another track are dropped at once.
 */
function useChartBoxes(req: FlameChartRequest | null, version: unknown[]): FlameChartData | null {
  const [chart, setChart] = useState<FlameChartData | null>(null);
  const busy = useRef(false);
  const next = useRef<FlameChartRequest | null>(null);
  const ask = useRef<(r: FlameChartRequest) => void>(() => {});
  ask.current = (r: FlameChartRequest) => {
    busy.current = true;
    flameChartOf(r)
      .then((c) => setChart(c))
      .catch(() => setChart(null))
      .finally(() => {
        busy.current = false;
        const n = next.current;
        next.current = null;
        if (n) ask.current(n);
      });
  };
  const track = req?.track;
  // biome-ignore lint/correctness/useExhaustiveDependencies: another track or analysis: its own boxes
  useEffect(() => setChart(null), [track, ...version]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: asked when the request's fields change
  useEffect(() => {
    if (!req) return;
    if (busy.current) next.current = req;
    else ask.current(req);
  }, [req?.track, req?.start, req?.end, req?.width, ...version]);
  return chart;
}
