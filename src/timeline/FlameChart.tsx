// The flame chart: a track's stacks in time order (boxes from the worker, made for the window at
// this width), root at the top. The wheel zooms around the pointer (Shift or a horizontal wheel
// pans), a drag pans, a click selects the box's function, hover says what a box is. Until the
// worker answers for a new window, the boxes it has are drawn at the new window's scale, so zoom
// and pan follow the pointer at once.

import { type RefObject, useEffect, useRef, useState } from 'react';
import type { TimeRange } from '../core/model/timeline';
import { basename } from '../core/text/names';
import { sizedContext } from '../flamegraph/useGraphPaint';
import { formatNs, panWindow, type TimeAxis, zoomWindow } from './geometry';
import { boxAt, CHART_AXIS, CHART_ROW, type FlameChartData, paintFlameChart } from './paintFlameChart';
import { TimeTip } from './TimeTip';
import { useSize } from './useSize';

export interface FlameChartProps {
  chart: FlameChartData | null;
  /** The window shown, the whole track's span (the bounds of zoom and pan), the profile's first sample. */
  window: TimeRange;
  bounds: TimeRange;
  origin: number;
  onWindow: (w: TimeRange) => void;
  /** The canvas's width changed (the boxes are made for it). */
  onWidth: (width: number) => void;
  selected: string | null;
  onSelect: (name: string) => void;
  dark: boolean;
  title: string;
}

export function FlameChart(props: FlameChartProps) {
  const { chart, window: w, bounds, dark } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const size = useSize(scrollRef);
  const [hover, setHover] = useState<{ i: number; x: number; y: number } | null>(null);
  const drag = useRef<{ x: number; y: number; top: number; w: TimeRange; moved: boolean } | null>(null);
  const axis: TimeAxis = { start: w.start, end: w.end, width: size.width };
  const height = Math.max(size.height, CHART_AXIS + (chart?.depthCount ?? 0) * CHART_ROW + 4);
  const { onWidth, onWindow } = props;
  useEffect(() => {
    if (size.width > 0) onWidth(size.width);
  }, [size.width, onWidth]);
  useWheel(scrollRef, w, bounds, onWindow);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas || size.width === 0 || !chart) return;
    const id = requestAnimationFrame(() => {
      const ctx = sizedContext(canvas, size.width, height);
      if (!ctx) return;
      paintFlameChart(ctx, {
        chart,
        axis: { start: w.start, end: w.end, width: size.width },
        origin: props.origin,
        height,
        dark,
        selected: props.selected,
        hover: hover?.i ?? null,
      });
      canvas.dataset.painted = String(chart.count);
      canvas.dataset.window = `${Math.round(w.start)}-${Math.round(w.end)}`;
      // the window the boxes were made for (the worker's answer may be for an earlier one)
      canvas.dataset.boxes = `${Math.round(chart.window.start)}-${Math.round(chart.window.end)}`;
    });
    return () => cancelAnimationFrame(id);
  }, [chart, w, size.width, height, dark, props.selected, props.origin, hover]);

  const at = (e: React.MouseEvent) => {
    const r = canvasRef.current!.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };
  const handlers = {
    onMouseDown(e: React.MouseEvent) {
      if (e.button !== 0) return;
      drag.current = { x: e.clientX, y: e.clientY, top: scrollRef.current?.scrollTop ?? 0, w, moved: false };
    },
    onMouseUp() {
      setTimeout(() => (drag.current = null), 0);
    },
    onMouseMove(e: React.MouseEvent) {
      const d = drag.current;
      if (d && e.buttons === 1) {
        const dx = e.clientX - d.x;
        const dy = e.clientY - d.y;
        if (Math.abs(dx) + Math.abs(dy) > 3) d.moved = true;
        if (d.moved) {
          onWindow(panWindow(d.w, -dx / Math.max(1, size.width), bounds));
          if (scrollRef.current) scrollRef.current.scrollTop = d.top - dy;
          setHover(null);
          return;
        }
      }
      if (!chart) return;
      const p = at(e);
      const i = boxAt(chart, axis, p.x, p.y);
      setHover(i >= 0 ? { i, x: e.clientX, y: e.clientY } : null);
    },
    onMouseLeave() {
      setHover(null);
    },
    onClick(e: React.MouseEvent) {
      if (drag.current?.moved || !chart) return;
      const p = at(e);
      const i = boxAt(chart, axis, p.x, p.y);
      if (i >= 0) props.onSelect(chart.names[chart.frame[i]]);
    },
  };
  const h = hover && chart && hover.i < chart.count ? hover.i : -1;
  return (
    <div className="flamechart-scroll" ref={scrollRef} {...handlers}>
      <canvas
        ref={canvasRef}
        className="flamechart-canvas"
        data-testid="flamechart-canvas"
        role="img"
        aria-label={`${props.title} from ${formatNs(w.start - props.origin)} to ${formatNs(w.end - props.origin)}: wheel zooms, drag pans, click selects a function`}
        style={{ height }}
      />
      {h >= 0 && chart && (
        <TimeTip
          x={hover!.x}
          y={hover!.y}
          title={chart.labels[chart.frame[h]]}
          testId="flamechart-tooltip"
          lines={[
            `${formatNs(chart.end[h] - chart.start[h])} from ${formatNs(chart.start[h] - props.origin)}`,
            ...(chart.modules[chart.frame[h]] ? [basename(chart.modules[chart.frame[h]])] : []),
          ]}
        />
      )}
    </div>
  );
}

/** The wheel zooms around the pointer; horizontal or with Shift it pans. Non-passive: the page must not scroll. */
function useWheel(
  ref: RefObject<HTMLDivElement | null>,
  w: TimeRange,
  bounds: TimeRange,
  onWindow: (w: TimeRange) => void,
): void {
  const latest = useRef({ w, bounds, onWindow });
  latest.current = { w, bounds, onWindow };
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      const { w, bounds, onWindow } = latest.current;
      const box = el.getBoundingClientRect();
      const horizontal = e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY);
      if (!horizontal && e.deltaY === 0) return;
      e.preventDefault();
      if (horizontal) {
        const d = e.shiftKey ? e.deltaY : e.deltaX;
        onWindow(panWindow(w, d / Math.max(1, box.width), bounds));
      } else {
        const at = Math.min(1, Math.max(0, (e.clientX - box.left) / Math.max(1, box.width)));
        onWindow(zoomWindow(w, Math.exp(-e.deltaY * (e.ctrlKey ? 0.01 : 0.002)), at, bounds));
      }
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [ref]);
}
