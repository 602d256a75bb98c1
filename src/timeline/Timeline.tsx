// The timeline: a track per thread (or process) with its name, its activity over time drawn on a
// canvas in the colour of the CPU it ran on; hover shows the stack at that moment (asked of the
// worker through `sampleAt`, one question at a time); drag selects a range, a click clears it.

import { useEffect, useRef, useState } from 'react';
import type { SampleAt } from '../core/analysis/session';
import type { TimeRange } from '../core/model/timeline';
import { formatCounted } from '../core/text/units';
import { sizedContext } from '../flamegraph/useGraphPaint';
import { cpuColor, formatNs, nsPerPixel, spanOf, type TimeAxis, timeAt } from './geometry';
import { AXIS, activity, paintTimeline, ROW, type TimelineData } from './paintTimeline';
import { TimeTip } from './TimeTip';
import { useSize } from './useSize';

export interface TimelineProps {
  data: TimelineData;
  /** ns per unit of weight when weights are a time (a bucket's height: its busy share). */
  weightNs?: number;
  selection: TimeRange | null;
  /** Ranges marked on the axis (A and B, to compare). */
  marks: { label: string; range: TimeRange }[];
  onSelect: (r: TimeRange | null) => void;
  /** The sample of a track nearest to a time, within a tolerance (ns). */
  sampleAt: (track: number, time: number, tolerance: number) => Promise<SampleAt | null>;
  dark: boolean;
}

/** Pixels a drag must cover to select (less is a click). */
const DRAG_PX = 3;
/** How near the pointer a sample must be to be shown, in pixels. */
const HOVER_PX = 4;

type Hover = { x: number; y: number; clientX: number; clientY: number; track: number };

export function Timeline(props: TimelineProps) {
  const { data, selection, dark } = props;
  const boxRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const { width } = useSize(boxRef);
  const [drag, setDrag] = useState<{ x0: number; x1: number } | null>(null);
  const [hover, setHover] = useState<Hover | null>(null);
  const [sample, setSample] = useState<{ at: Hover; sample: SampleAt } | null>(null);
  const asking = useHoverQuestions(props.sampleAt, setSample);
  const axis: TimeAxis = { start: data.start, end: data.end, width };
  const height = AXIS + data.tracks.length * ROW;
  const heightsRef = useRef<{ data: TimelineData; weightNs?: number; h: Float32Array } | null>(null);
  if (heightsRef.current?.data !== data || heightsRef.current.weightNs !== props.weightNs)
    heightsRef.current = { data, weightNs: props.weightNs, h: activity(data, props.weightNs) };
  const heights = heightsRef.current.h;
  const bounds = { start: data.start, end: data.end };
  const shownSel = drag ? spanOf(timeAt(axis, drag.x0), timeAt(axis, drag.x1), bounds) : selection;

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas || width === 0) return;
    const id = requestAnimationFrame(() => {
      const ctx = sizedContext(canvas, width, height);
      if (!ctx) return;
      paintTimeline(
        ctx,
        {
          data,
          width,
          weightNs: props.weightNs,
          dark,
          selection: shownSel,
          marks: props.marks,
          hoverX: hover && !drag ? hover.x : null,
        },
        heights,
      );
      canvas.dataset.painted = String(data.tracks.length);
    });
    return () => cancelAnimationFrame(id);
  }, [data, width, height, heights, dark, shownSel, props.marks, props.weightNs, hover, drag]);

  const local = (e: React.MouseEvent) => {
    const r = canvasRef.current!.getBoundingClientRect();
    return { x: Math.min(width, Math.max(0, e.clientX - r.left)), y: e.clientY - r.top };
  };
  const onMouseMove = (e: React.MouseEvent) => {
    const { x, y } = local(e);
    if (drag && e.buttons === 1) {
      setDrag({ ...drag, x1: x });
      return;
    }
    const track = Math.floor((y - AXIS) / ROW);
    if (track < 0 || track >= data.tracks.length) {
      setHover(null);
      setSample(null);
      return;
    }
    const at = { x, y, clientX: e.clientX, clientY: e.clientY, track };
    setHover(at);
    asking(at, timeAt(axis, x), HOVER_PX * nsPerPixel(axis));
  };
  const onMouseDown = (e: React.MouseEvent) => {
    if (e.button !== 0) return;
    const { x } = local(e);
    setDrag({ x0: x, x1: x });
    setSample(null);
  };
  const onMouseUp = () => {
    if (!drag) return;
    setDrag(null);
    if (Math.abs(drag.x1 - drag.x0) < DRAG_PX) props.onSelect(null);
    else props.onSelect(spanOf(timeAt(axis, drag.x0), timeAt(axis, drag.x1), bounds));
  };
  const shown = sample && hover && sample.at.track === hover.track ? sample.sample : null;
  const track = hover ? data.tracks[hover.track] : null;
  return (
    <div className="timeline-body">
      <ul className="timeline-names" style={{ paddingTop: AXIS }} aria-label="Tracks">
        {data.tracks.map((t) => (
          <li key={`${t.pid}/${t.tid}`} style={{ height: ROW }} title={trackTitle(t)}>
            <span className="tl-name">{t.name}</span> <span className="tl-id">{t.tid ?? t.pid ?? ''}</span>
          </li>
        ))}
      </ul>
      <div className="timeline-canvas-box" ref={boxRef}>
        <canvas
          ref={canvasRef}
          className="timeline-canvas"
          data-testid="timeline-canvas"
          role="img"
          aria-label={`Timeline of ${data.tracks.length} tracks over ${formatNs(data.end - data.start)}; drag to select a range`}
          style={{ height }}
          onMouseMove={onMouseMove}
          onMouseDown={onMouseDown}
          onMouseUp={onMouseUp}
          onMouseLeave={() => {
            setHover(null);
            setSample(null);
            if (drag) onMouseUp();
          }}
        />
      </div>
      {hover && track && !drag && (
        <TimeTip
          x={hover.clientX}
          y={hover.clientY}
          title={`${track.name} ${track.tid ?? track.pid ?? ''}`}
          testId="timeline-tooltip"
          lines={
            shown
              ? [
                  `at ${formatNs(shown.time - data.first)}${shown.cpu !== undefined ? `, CPU ${shown.cpu}` : ''}`,
                  ...(shown.comm && shown.comm !== track.name ? [`command ${shown.comm}`] : []),
                ]
              : [`at ${formatNs(timeAt(axis, hover.x) - data.first)}: no sample here`]
          }
          stack={shown ? shown.labels : undefined}
        />
      )}
      {data.cpus.length > 1 && (
        <div className="timeline-legend" role="note" aria-label="CPUs">
          {data.cpus.map((c, i) => (
            <span key={c}>
              <i style={{ background: cpuColor(i, data.cpus.length, dark) }} /> CPU {c}
            </span>
          ))}
        </div>
      )}
    </div>
  );
}

function trackTitle(t: TimelineData['tracks'][number]): string {
  const ids = [t.pid !== undefined ? `pid ${t.pid}` : '', t.tid !== undefined ? `tid ${t.tid}` : '']
    .filter(Boolean)
    .join(', ');
  return `${t.name}${ids ? ` (${ids})` : ''}: ${formatCounted(t.samples, 'sample')}`;
}

/**
 * Asks `sampleAt` for the sample under the pointer, one question at a time: the latest pointer
 * place waits for the answer in flight, and the places in between are never asked.
 */
function useHoverQuestions(
  sampleAt: TimelineProps['sampleAt'],
  onAnswer: (a: { at: Hover; sample: SampleAt } | null) => void,
): (at: Hover, time: number, tolerance: number) => void {
  const busy = useRef(false);
  const next = useRef<{ at: Hover; time: number; tolerance: number } | null>(null);
  const ask = (q: { at: Hover; time: number; tolerance: number }) => {
    busy.current = true;
    sampleAt(q.at.track, q.time, q.tolerance)
      .then((s) => onAnswer(s ? { at: q.at, sample: s } : null))
      .catch(() => onAnswer(null))
      .finally(() => {
        busy.current = false;
        const n = next.current;
        next.current = null;
        if (n) ask(n);
      });
  };
  return (at, time, tolerance) => {
    if (busy.current) next.current = { at, time, tolerance };
    else ask({ at, time, tolerance });
  };
}
