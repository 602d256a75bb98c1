// The flame graph from the keyboard: arrows move the selection over the bars drawn, Enter zooms to
// it, + and − zoom around it, 0 and Escape reset, the context-menu key opens its menu. A selection
// that is not drawn at this zoom (from the table, a search) zooms to it.

import { type RefObject, useEffect } from 'react';
import type { CallTree } from '../core/model/calltree';
import { type FlameLayout, type Orientation, rowTop } from './layout';
import { FULL, firstDrawn, moveForKey, moveSelection, zoomViewport } from './navigation';
import { type GraphView, ROW_HEIGHT } from './useGraphView';

export interface KeyProps {
  tree: CallTree;
  orientation: Orientation;
  selected: number | null;
  onSelect: (node: number | null) => void;
  onFocus: (node: number) => void;
  onContextMenu?: (node: number, clientX: number, clientY: number) => void;
}

export function useGraphKeys(scrollRef: RefObject<HTMLDivElement | null>, view: GraphView, props: KeyProps) {
  const { tree, selected, onSelect, onFocus } = props;
  const { layout, setViewport } = view;

  useEffect(() => {
    if (selected === null || !layout || selected >= tree.count) return;
    if (!layout.rects.some((r) => r.node === selected)) onFocus(selected);
  }, [selected, layout, tree, onFocus]);

  return (e: React.KeyboardEvent) => {
    if (!layout) return;
    const move = moveForKey(e.key, props.orientation);
    if (move) {
      e.preventDefault();
      const start = selected !== null && selected < tree.count ? selected : firstDrawn(layout);
      if (start === null) return;
      onSelect(selected === null ? start : moveSelection(tree, layout, start, move));
      return;
    }
    if (e.key === 'Enter' && selected !== null) {
      e.preventDefault();
      onFocus(selected);
    } else if (e.key === '+' || e.key === '=') {
      setViewport((v) => zoomViewport(v, 1.5, selectedCenter(layout, selected)));
    } else if (e.key === '-' || e.key === '_') {
      setViewport((v) => zoomViewport(v, 1 / 1.5, selectedCenter(layout, selected)));
    } else if (e.key === '0' || e.key === 'Escape') {
      setViewport(FULL);
      onFocus(0);
      if (e.key === 'Escape') onSelect(null);
    } else if ((e.key === 'ContextMenu' || (e.shiftKey && e.key === 'F10')) && selected !== null) {
      e.preventDefault();
      const el = scrollRef.current!;
      const { x, y } = menuAnchor(layout, selected, {
        orientation: props.orientation,
        graphHeight: view.graphHeight,
        scrollTop: el.scrollTop,
        width: el.clientWidth,
        height: el.clientHeight,
      });
      const box = el.getBoundingClientRect();
      props.onContextMenu?.(selected, box.left + x, box.top + y);
    }
  };
}

/**
 * Where the keyboard's context menu opens, in the graph box's pixels: under the part of the
 * selected bar that is on screen (zoomed in, a bar starts far left of the box, and its row may be
 * scrolled away), kept inside the box.
 */
export function menuAnchor(
  layout: FlameLayout,
  selected: number,
  box: { orientation: Orientation; graphHeight: number; scrollTop: number; width: number; height: number },
): { x: number; y: number } {
  const r = layout.rects.find((x) => x.node === selected);
  if (!r) return { x: 10, y: 20 };
  const clamp = (v: number, max: number) => Math.min(Math.max(v, 0), Math.max(0, max));
  const left = clamp(r.x, box.width);
  const top = rowTop(r.depth, ROW_HEIGHT, box.orientation, box.graphHeight) - box.scrollTop;
  return { x: clamp(left + 10, box.width - 10), y: clamp(top + ROW_HEIGHT, box.height - 10) };
}

/** Where the selected bar's middle is across the graph (0..1); the middle without one. */
function selectedCenter(layout: FlameLayout, selected: number | null): number {
  const r = selected === null ? undefined : layout.rects.find((x) => x.node === selected);
  if (!r) return 0.5;
  return Math.min(1, Math.max(0, (r.x + r.w / 2) / Math.max(1, layout.width)));
}
