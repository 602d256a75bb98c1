// The handle between the main view (the graph) and the function table: drag it, or focus it and
// use the arrow keys, to give one more of the height; a double click gives the default back. The
// split is the view's (`split=` in the link, kept with the workspace); while dragging it is only
// the container's style, written into the view when the drag ends.

import { useRef } from 'react';
import { clampSplit, SPLIT_MAX, SPLIT_MIN } from '../core/view/schema';
import { useStore } from './store';

/** How far an arrow key moves the split. */
const STEP = 0.05;

/** The container's style for a split: the table's share of the height (CSS `--lower`); default: none. */
export function splitStyle(split: number | undefined): React.CSSProperties | undefined {
  return split === undefined ? undefined : ({ '--lower': `${(1 - split) * 100}%` } as React.CSSProperties);
}

export function Splitter() {
  const split = useStore((s) => s.view.split);
  const setSplit = (v: number | undefined) => useStore.getState().setLocalView({ split: v });
  const drag = useRef<{ top: number; height: number; split: number } | null>(null);
  const ref = useRef<HTMLDivElement>(null);

  /** The split the handle's container shows now (dragged, chosen, or the default's). */
  const current = (): number => {
    const box = ref.current?.parentElement?.getBoundingClientRect();
    const handle = ref.current?.getBoundingClientRect();
    if (split !== undefined || !box || !handle || box.height <= 0) return split ?? 0.5;
    return (handle.top - box.top) / box.height;
  };

  const onPointerDown = (e: React.PointerEvent<HTMLDivElement>) => {
    const box = ref.current?.parentElement?.getBoundingClientRect();
    if (!box || e.button !== 0) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = { top: box.top, height: box.height, split: current() };
  };
  const onPointerMove = (e: React.PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d || d.height <= 0) return;
    d.split = clampSplit((e.clientY - d.top) / d.height);
    const style = splitStyle(d.split) as Record<string, string>;
    ref.current?.parentElement?.style.setProperty('--lower', style['--lower']);
  };
  const onPointerUp = () => {
    const d = drag.current;
    drag.current = null;
    if (d) setSplit(d.split);
  };
  const onKeyDown = (e: React.KeyboardEvent) => {
    const by = e.key === 'ArrowUp' ? -STEP : e.key === 'ArrowDown' ? STEP : 0;
    if (by !== 0) setSplit(clampSplit(current() + by));
    else if (e.key === 'Home') setSplit(SPLIT_MIN);
    else if (e.key === 'End') setSplit(SPLIT_MAX);
    else return;
    e.preventDefault();
  };
  const shown = Math.round((split ?? current()) * 100);
  return (
    // biome-ignore lint/a11y/useSemanticElements: a focusable separator (a window splitter) has no element of its own
    <div
      ref={ref}
      className="splitter"
      role="separator"
      aria-orientation="horizontal"
      aria-label="Resize the graph and the function table"
      aria-valuemin={SPLIT_MIN * 100}
      aria-valuemax={SPLIT_MAX * 100}
      aria-valuenow={shown}
      title="Drag to give the graph or the table more room; double-click for the default"
      tabIndex={0}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
      onDoubleClick={() => {
        ref.current?.parentElement?.style.removeProperty('--lower');
        setSplit(undefined);
      }}
      onKeyDown={onKeyDown}
    />
  );
}
