// The flame graph's view of its tree: the viewport's size, the vertical scroll, the horizontal
// zoom (viewport), and the layout of the rows that can be on screen.

import { type RefObject, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { type CallTree, deepestUnder } from '../core/model/calltree';
import { frameName } from '../core/text/frame-text';
import type { FoldedProfile } from '../core/types';
import { type ChildOrder, type FlameLayout, layoutFlameGraph, type Orientation } from './layout';
import { FULL, type Viewport } from './navigation';

export const ROW_HEIGHT = 18;
/** Bars narrower than this many CSS pixels merge: thinner ones carry no readable information and
 * a deep zoom of a wide profile would otherwise lay out 30k+ of them per frame. */
const MIN_BAR = 2;

export interface GraphView {
  size: { width: number; height: number };
  scrollTop: number;
  setScrollTop: (top: number) => void;
  viewport: Viewport;
  setViewport: React.Dispatch<React.SetStateAction<Viewport>>;
  /** The whole graph's height in CSS px (at least the viewport's). */
  graphHeight: number;
  /** Rows of a deep graph out of view on the leaf side (a cue says so). */
  hiddenRows: number;
  layout: FlameLayout | null;
  /** A node's frame's name. */
  nameOf: (node: number) => string;
}

export function useGraphView(
  scrollRef: RefObject<HTMLDivElement | null>,
  graph: { profile: Pick<FoldedProfile, 'frames'>; tree: CallTree },
  opts: { focus: number; orientation: Orientation; order: ChildOrder },
): GraphView {
  const { tree, profile } = graph;
  const { focus, orientation, order } = opts;
  const size = useViewportSize(scrollRef);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState<Viewport>(FULL);
  // A new tree or zoom target starts unzoomed horizontally.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when these change
  useEffect(() => setViewport(FULL), [tree, focus]);
  const nameOf = useCallback(
    (node: number) => frameName(profile.frames, tree.frame[node]) ?? '',
    [profile, tree],
  );

  // The graph is as tall as the deepest stack through the zoomed frame (zoomed, the rest are not
  // drawn: a graph as tall as the whole tree scrolled over empty rows, and its cue counted them);
  // only rows that can be on screen are laid out (a 100 MB profile has 250 rows and 12M nodes),
  // in steps of 16 rows so scrolling rarely needs a new layout.
  const rows = useMemo(() => deepestUnder(tree, focus), [tree, focus]);
  const graphHeight = Math.max(rows * ROW_HEIGHT, size.height);
  const flame = orientation === 'flame';
  const leafSide = flame ? scrollTop : Math.max(0, graphHeight - scrollTop - size.height);
  const hiddenRows = size.height > 0 ? Math.floor(leafSide / ROW_HEIGHT) : 0;
  const deepestVisibleRow = flame
    ? Math.ceil((graphHeight - scrollTop) / ROW_HEIGHT)
    : Math.ceil((scrollTop + size.height) / ROW_HEIGHT);
  const maxRows = Math.ceil((deepestVisibleRow + 4) / 16) * 16;
  const width = size.width;
  const layout = useMemo(
    () =>
      width > 0
        ? layoutFlameGraph(tree, { focus, width, viewport, order, nameOf, maxRows, minWidth: MIN_BAR })
        : null,
    [tree, focus, width, viewport, order, nameOf, maxRows],
  );

  // A new graph or zoom shows the root end (flame: bottom; icicle: top). The bottom is the new
  // graph's, not the box's scrollHeight: the canvas, still placed at the old scroll, extends that
  // (a deep graph replaced by a shallow one stayed scrolled off its canvas, stepping back a frame
  // per scroll event). The scroll state follows at once, not at the scroll event a frame later.
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll only when the tree, zoom or orientation change
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    el.scrollTop = orientation === 'flame' ? Math.max(0, graphHeight - el.clientHeight) : 0;
    bottomGap.current = 0;
    setScrollTop(el.scrollTop);
  }, [tree, focus, orientation]);

  // A flame graph hangs from its root row at the bottom: a box made shorter or taller (the window
  // resized, the splitter dragged) keeps the rows at its bottom where they were, the same distance
  // from the graph's bottom, as an icicle keeps its top. Without it the root rows went out of view
  // below, with no cue, when the window got shorter.
  const bottomGap = useRef(0);
  const heightRef = useRef(graphHeight);
  heightRef.current = graphHeight;
  const onScrolled = useCallback(
    (top: number) => {
      const el = scrollRef.current;
      if (el) bottomGap.current = Math.max(0, heightRef.current - top - el.clientHeight);
      setScrollTop(top);
    },
    [scrollRef],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: only when the box's height changes
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el || orientation !== 'flame' || size.height === 0) return;
    el.scrollTop = Math.max(0, graphHeight - el.clientHeight - bottomGap.current);
    setScrollTop(el.scrollTop);
  }, [size.height]);

  return {
    size,
    scrollTop,
    setScrollTop: onScrolled,
    viewport,
    setViewport,
    graphHeight,
    hiddenRows,
    layout,
    nameOf,
  };
}

/** The element's client size, followed as it changes. */
function useViewportSize(ref: RefObject<HTMLDivElement | null>): { width: number; height: number } {
  const [size, setSize] = useState({ width: 0, height: 0 });
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setSize({ width: el.clientWidth, height: el.clientHeight }));
    ro.observe(el);
    setSize({ width: el.clientWidth, height: el.clientHeight });
    return () => ro.disconnect();
  }, [ref]);
  return size;
}
