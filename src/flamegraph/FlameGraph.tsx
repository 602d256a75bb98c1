// A canvas flame graph of one call tree. The canvas is the size of the viewport; the graph scrolls
// vertically. Used for the main graph and for both halves of the sandwich view. Its rooms: the
// view and layout (useGraphView), painting (useGraphPaint), the pointer (useGraphPointer), the
// keyboard (useGraphKeys), the header (GraphHeader) and the tooltip (Tooltip).

import { useRef } from 'react';
import { type CallTree, totalOf } from '../core/model/calltree';
import type { DiffTotals } from '../core/model/diff';
import { formatPercent, formatWeight, weightUnit } from '../core/text/units';
import type { FoldedProfile } from '../core/types';
import { GraphHeader } from './GraphHeader';
import type { ChildOrder, Orientation } from './layout';
import type { ColorMode } from './paint';
import { Tooltip } from './Tooltip';
import { useGraphKeys } from './useGraphKeys';
import { useGraphPaint } from './useGraphPaint';
import { useGraphPointer } from './useGraphPointer';
import { useGraphView } from './useGraphView';

export interface FlameGraphProps {
  graph: { profile: Pick<FoldedProfile, 'frames' | 'modules' | 'meta'>; tree: CallTree };
  /** Heading and accessible name, e.g. "Flame graph", "Callers of f". */
  title: string;
  orientation: Orientation;
  order: ChildOrder;
  colorMode: ColorMode;
  dark: boolean;
  focus: number;
  onFocus: (node: number) => void;
  selected: number | null;
  onSelect: (node: number | null) => void;
  /** 1 per frame id to highlight (search, table selection); the rest is dimmed. */
  highlight: Uint8Array | null;
  /** 0..1 per frame id for the heat colouring. */
  heat?: (frame: number) => number;
  onPainted?: () => void;
  onContextMenu?: (node: number, clientX: number, clientY: number) => void;
  /**
   * A comparison: the tree's chains carry both sides' totals; bars are coloured by the change and
   * the tooltip shows both sides. Paths only in one side are marked in their labels.
   */
  diff?: { totals: Pick<DiffTotals, 'comp' | 'base'>; normalized: boolean };
  /** Extra controls in the graph's header bar. */
  children?: React.ReactNode;
  testId?: string;
}

export function FlameGraph(props: FlameGraphProps) {
  const { graph, orientation, focus, onFocus, selected, onSelect, order } = props;
  const { tree, profile } = graph;
  const scrollRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const view = useGraphView(scrollRef, graph, { focus, orientation, order });
  const { size, scrollTop, graphHeight, hiddenRows } = view;
  const events = {
    tree,
    orientation,
    focus,
    selected,
    onFocus,
    onSelect,
    onContextMenu: props.onContextMenu,
  };
  const { hover, pointer, handlers } = useGraphPointer(scrollRef, view, events);
  const scale = useGraphPaint(canvasRef, view, hover, props);
  const onKeyDown = useGraphKeys(scrollRef, view, events);
  const unit = weightUnit(profile.meta);
  const total = totalOf(tree, 0);
  const sel = selected !== null && selected < tree.count ? selected : null;
  const flame = orientation === 'flame';
  return (
    <section className="flamegraph" aria-label={props.title} data-testid={props.testId}>
      <GraphHeader title={props.title} tree={tree} focus={focus} onFocus={onFocus} nameOf={view.nameOf}>
        {props.children}
      </GraphHeader>
      <div
        className="fg-scroll"
        ref={scrollRef}
        onScroll={(e) => view.setScrollTop(e.currentTarget.scrollTop)}
        {...handlers}
        onKeyDown={onKeyDown}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the graph is navigable with the arrow keys
        tabIndex={0}
      >
        <div className="fg-content" style={{ height: graphHeight }}>
          <canvas
            ref={canvasRef}
            className="fg-canvas"
            role="img"
            aria-label={`${props.title} of ${profile.meta.fileName}: ${formatWeight(total, unit)}. Arrow keys select frames, Enter zooms.`}
            // The box follows the size in the same render (the paint sets the backing store later):
            // a box measured between a resize and the next paint is where the graph is drawn.
            style={{ top: scrollTop, width: size.width, height: size.height }}
          />
        </div>
        {hiddenRows > 0 && (
          <div
            className={`fg-more ${flame ? 'top' : 'bottom'}`}
            style={{ top: flame ? scrollTop : scrollTop + size.height - 22 }}
            data-testid="more-rows"
          >
            {flame ? '▲' : '▼'} {hiddenRows} more rows (scroll, or Shift+wheel)
          </div>
        )}
        {pointer && (
          <Tooltip
            graph={graph}
            rect={pointer.rect}
            x={pointer.x}
            y={pointer.y}
            focus={focus}
            diff={props.diff && scale ? { ...props.diff, scale } : undefined}
          />
        )}
      </div>
      <div className="visually-hidden" role="status" aria-live="polite" data-testid="selection-status">
        {sel === null
          ? ''
          : `Selected ${view.nameOf(sel)}: ${formatWeight(totalOf(tree, sel), unit)}, ${formatPercent(totalOf(tree, sel), total)}`}
      </div>
    </section>
  );
}
