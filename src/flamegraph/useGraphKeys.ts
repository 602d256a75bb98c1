// The flame graph from the keyboard: arrows move the selection over the bars drawn, Enter zooms to
// it, + and − zoom around it, 0 and Escape reset, the context-menu key opens its menu. A selection
// that is not drawn at this zoom (from the table, a search) zooms to it.

import { type RefObject, useEffect } from 'react';
import type { CallTree } from '../core/model/calltree';
import type { FlameLayout, Orientation } from './layout';
import { FULL, firstDrawn, moveForKey, moveSelection, zoomViewport } from './navigation';
import type { GraphView } from './useGraphView';

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
      const r = layout.rects.find((x) => x.node === selected);
      const box = scrollRef.current!.getBoundingClientRect();
      props.onContextMenu?.(selected, box.left + (r ? r.x + 10 : 10), box.top + 20);
    }
  };
}

/** Where the selected bar's middle is across the graph (0..1); the middle without one. */
function selectedCenter(layout: FlameLayout, selected: number | null): number {
  const r = selected === null ? undefined : layout.rects.find((x) => x.node === selected);
  if (!r) return 0.5;
  return Math.min(1, Math.max(0, (r.x + r.w / 2) / Math.max(1, layout.width)));
}
