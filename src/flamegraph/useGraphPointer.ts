// The flame graph under the pointer: hover (and the tooltip's place), drag to pan and scroll,
// click to select and zoom to a frame (again: to its parent), double-click to fit a frame's width,
// the context menu, and the wheel (zoom around the pointer; horizontal or Shift: pan).

import { type RefObject, useEffect, useRef, useState } from 'react';
import { type CallTree, parentOf } from '../core/model/calltree';
import { type FrameRect, hitTest, MERGED, type Orientation, rowAt } from './layout';
import { fitViewport, panViewport, type Viewport, zoomViewport } from './navigation';
import { type GraphView, ROW_HEIGHT } from './useGraphView';

export interface PointerProps {
  tree: CallTree;
  orientation: Orientation;
  focus: number;
  onFocus: (node: number) => void;
  onSelect: (node: number | null) => void;
  onContextMenu?: (node: number, clientX: number, clientY: number) => void;
}

/** The pointer's place and the bar under it, for the tooltip. */
export type Pointed = { x: number; y: number; rect: FrameRect } | null;

export function useGraphPointer(
  scrollRef: RefObject<HTMLDivElement | null>,
  view: GraphView,
  props: PointerProps,
) {
  const { tree, focus, onFocus, onSelect } = props;
  const { layout, setViewport } = view;
  const [hover, setHover] = useState<number | null>(null);
  const [pointer, setPointer] = useState<Pointed>(null);
  const drag = useRef<{ x: number; y: number; top: number; v: Viewport; moved: boolean } | null>(null);
  /** Where the pointer last was over the graph (client coordinates), null once it left. */
  const at = useRef<{ x: number; y: number } | null>(null);
  useWheelZoom(scrollRef, setViewport);

  const pick = (clientX: number, clientY: number): FrameRect | null => {
    const el = scrollRef.current;
    if (!layout || !el) return null;
    const box = el.getBoundingClientRect();
    const row = rowAt(clientY - box.top + el.scrollTop, ROW_HEIGHT, props.orientation, view.graphHeight);
    return hitTest(layout, row, clientX - box.left);
  };
  /** Hover and tooltip for the bar under (x, y), none over nothing. */
  const point = (x: number, y: number) => {
    const r = pick(x, y);
    setHover(r && r.node !== MERGED ? r.node : null);
    setPointer(r ? { x, y, rect: r } : null);
  };
  // A new layout under a pointer that has not moved (another profile, a view, a wheel zoom, a
  // resize): the bar under it now, not the one it was over (a node id of the old tree).
  // biome-ignore lint/correctness/useExhaustiveDependencies: point reads this render's layout
  useEffect(() => {
    if (at.current && !drag.current?.moved) point(at.current.x, at.current.y);
  }, [layout]);

  /** The frame under the pointer (not a merged bar), or null. */
  const frameAt = (ev: React.MouseEvent) => {
    const r = pick(ev.clientX, ev.clientY);
    return r && r.node !== MERGED ? r : null;
  };

  const handlers = {
    onMouseDown(e: React.MouseEvent) {
      if (e.button !== 0) return;
      const top = scrollRef.current?.scrollTop ?? 0;
      drag.current = { x: e.clientX, y: e.clientY, top, v: view.viewport, moved: false };
    },
    onMouseUp: () => setTimeout(() => (drag.current = null), 0),
    onMouseMove(ev: React.MouseEvent) {
      const d = drag.current;
      if (d && ev.buttons === 1) {
        const dx = ev.clientX - d.x;
        const dy = ev.clientY - d.y;
        if (Math.abs(dx) + Math.abs(dy) > 3) d.moved = true;
        if (d.moved) {
          setViewport(panViewport(d.v, -dx / Math.max(1, view.size.width)));
          if (scrollRef.current) scrollRef.current.scrollTop = d.top - dy;
          setPointer(null);
          return;
        }
      }
      at.current = { x: ev.clientX, y: ev.clientY };
      point(ev.clientX, ev.clientY);
    },
    onMouseLeave() {
      at.current = null;
      setHover(null);
      setPointer(null);
    },
    onClick(ev: React.MouseEvent) {
      const r = drag.current?.moved ? null : frameAt(ev);
      if (!r) return;
      onSelect(r.node);
      onFocus(r.node === focus ? Math.max(0, parentOf(tree, r.node)) : r.node);
    },
    onDoubleClick(ev: React.MouseEvent) {
      const r = frameAt(ev);
      const v = r && !r.ancestor ? fitViewport(tree, focus, r.node) : null;
      if (v) setViewport(v);
    },
    onContextMenu(e: React.MouseEvent) {
      const r = frameAt(e);
      if (!r || !props.onContextMenu) return;
      e.preventDefault();
      onSelect(r.node);
      props.onContextMenu(r.node, e.clientX, e.clientY);
    },
  };
  return { hover, pointer, handlers };
}

/**
 * Wheel zooms around the cursor; horizontal wheel / shift+wheel pans (or, on a graph taller than
 * its view, shift+wheel scrolls it). Non-passive, to prevent the page from scrolling.
 */
function useWheelZoom(
  scrollRef: RefObject<HTMLDivElement | null>,
  setViewport: React.Dispatch<React.SetStateAction<Viewport>>,
): void {
  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const box = el.getBoundingClientRect();
      const at = Math.min(1, Math.max(0, (e.clientX - box.left) / Math.max(1, box.width)));
      // Shift+wheel scrolls a graph taller than its view (deep stacks) vertically, else pans.
      if (e.shiftKey && el.scrollHeight > el.clientHeight + 1 && Math.abs(e.deltaY) >= Math.abs(e.deltaX)) {
        el.scrollTop += e.deltaY;
        return;
      }
      const horizontal = e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY);
      if (horizontal) {
        const d = e.shiftKey ? e.deltaY : e.deltaX;
        setViewport((v) => panViewport(v, d / Math.max(1, box.width)));
      } else {
        setViewport((v) => zoomViewport(v, Math.exp(-e.deltaY * (e.ctrlKey ? 0.01 : 0.002)), at));
      }
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [scrollRef, setViewport]);
}
