// A canvas flame graph of one call tree. The canvas is the size of the viewport; the graph scrolls
// vertically. Used for the main graph and for both halves of the sandwich view.

import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { type CallTree, chainOf, parentOf, selfOf, totalOf } from '../core/model/calltree';
import type { DiffTotals } from '../core/model/diff';
import { visibleText } from '../core/text/escape';
import {
  formatCount,
  formatDelta,
  formatPercent,
  formatTime,
  formatValue,
  type ValueKind,
} from '../core/text/format';
import { basename, shortName } from '../core/text/names';
import { type FoldedProfile, FrameKind } from '../core/types';
import { type DiffScale, diffColor, diffScale } from './diffColor';
import {
  type ChildOrder,
  type FlameLayout,
  type FrameRect,
  hitTest,
  layoutFlameGraph,
  MERGED,
  mergedLabel,
  type Orientation,
  rowAt,
} from './layout';
import {
  FULL,
  firstDrawn,
  fitViewport,
  moveForKey,
  moveSelection,
  panViewport,
  type Viewport,
  zoomViewport,
} from './navigation';
import { type ColorMode, DARK, frameColor, LIGHT, labelText, paintFlameGraph } from './paint';

export const ROW_HEIGHT = 18;
/** Bars narrower than this many CSS pixels merge: thinner ones carry no readable information and
 * a deep zoom of a wide profile would otherwise lay out 30k+ of them per frame. */
const MIN_BAR = 2;
const FONT = '12px "DejaVu Sans Mono", Menlo, Consolas, monospace';

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
  const { graph, orientation, focus, onFocus, selected, onSelect, highlight, colorMode, dark, order } = props;
  const { tree, profile } = graph;
  const scrollRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState<Viewport>(FULL);
  const [hover, setHover] = useState<number | null>(null);
  const [pointer, setPointer] = useState<{ x: number; y: number; rect: FrameRect } | null>(null);
  const drag = useRef<{ x: number; y: number; top: number; v: Viewport; moved: boolean } | null>(null);

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setSize({ width: el.clientWidth, height: el.clientHeight }));
    ro.observe(el);
    setSize({ width: el.clientWidth, height: el.clientHeight });
    return () => ro.disconnect();
  }, []);

  // A new tree or zoom target starts unzoomed horizontally.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when these change
  useEffect(() => setViewport(FULL), [tree, focus]);

  // Names as shown: controls and bidi overrides as escapes (one name cannot read as another).
  const nameOf = useCallback(
    (node: number) => visibleText(profile.frames.name[tree.frame[node]] ?? ''),
    [profile, tree],
  );
  const moduleOf = useCallback(
    (node: number) => profile.modules[profile.frames.module[tree.frame[node]]] ?? '',
    [profile, tree],
  );

  // The graph is as tall as the deepest stack; only rows that can be on screen are laid out
  // (a 100 MB profile has 250 rows and 12M nodes), in steps of 16 rows so scrolling rarely
  // needs a new layout.
  const graphHeight = Math.max(tree.maxDepth * ROW_HEIGHT, size.height);
  /** Rows of a deep graph out of view on the leaf side: a cue says so. */
  const hiddenRows =
    size.height > 0
      ? Math.floor(
          (orientation === 'flame' ? scrollTop : Math.max(0, graphHeight - scrollTop - size.height)) /
            ROW_HEIGHT,
        )
      : 0;
  const deepestVisibleRow =
    orientation === 'flame'
      ? Math.ceil((graphHeight - scrollTop) / ROW_HEIGHT)
      : Math.ceil((scrollTop + size.height) / ROW_HEIGHT);
  const maxRows = Math.ceil((deepestVisibleRow + 4) / 16) * 16;
  const layout: FlameLayout | null = useMemo(
    () =>
      size.width > 0
        ? layoutFlameGraph(tree, {
            focus,
            width: size.width,
            viewport,
            order,
            nameOf,
            maxRows,
            minWidth: MIN_BAR,
          })
        : null,
    [tree, focus, size.width, viewport, order, nameOf, maxRows],
  );

  // A new graph or zoom shows the root end (flame: bottom; icicle: top).
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll only when the tree, zoom or orientation change
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el) el.scrollTop = orientation === 'flame' ? el.scrollHeight : 0;
  }, [tree, focus, orientation]);

  // A selection (keyboard, search) that is not drawn at this zoom: zoom to it.
  useEffect(() => {
    if (selected === null || !layout || selected >= tree.count) return;
    if (!layout.rects.some((r) => r.node === selected)) onFocus(selected);
  }, [selected, layout, tree, onFocus]);

  const heat = props.heat;
  const diff = props.diff;
  const scale = useMemo(() => (diff ? diffScale(tree, diff.totals, diff.normalized) : null), [diff, tree]);
  /** A path only in one side: `+ name` (comparison only) or `− name` (baseline only). */
  const labelOf = useCallback(
    (node: number) => {
      const label = labelText(nameOf(node));
      if (!diff) return label;
      const c = chainOf(tree, node);
      if (diff.totals.base.total[c] === 0) return `+ ${label}`;
      if (diff.totals.comp.total[c] === 0) return `− ${label}`;
      return label;
    },
    [diff, tree, nameOf],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: a fresh cache whenever colours change
  const colorCache = useMemo(() => new Map<number, string>(), [colorMode, dark, profile, heat, scale]);
  const colorOf = useCallback(
    (node: number) => {
      if (scale) {
        const c = chainOf(tree, node);
        let col = colorCache.get(c);
        if (col === undefined) {
          col = diffColor(scale.delta(node), scale.maxAbs, dark ? DARK : LIGHT);
          colorCache.set(c, col);
        }
        return col;
      }
      const f = tree.frame[node];
      let c = colorCache.get(f);
      if (c === undefined) {
        c = frameColor(
          colorMode,
          profile.frames.name[f],
          moduleOf(node),
          heat ? heat(f) : 0,
          dark ? DARK : LIGHT,
        );
        colorCache.set(f, c);
      }
      return c;
    },
    [colorCache, colorMode, profile, tree, moduleOf, heat, dark, scale],
  );

  // Paint in requestAnimationFrame, only when an input changed.
  const onPainted = props.onPainted;
  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas || !layout || size.width === 0) return;
    const id = requestAnimationFrame(() => {
      const dpr = window.devicePixelRatio || 1;
      const w = size.width;
      const h = size.height;
      if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
        canvas.width = Math.round(w * dpr);
        canvas.height = Math.round(h * dpr);
        canvas.style.width = `${w}px`;
        canvas.style.height = `${h}px`;
      }
      const ctx = canvas.getContext('2d');
      if (!ctx) return;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.font = FONT;
      paintFlameGraph(ctx, w, {
        layout,
        label: labelOf,
        color: colorOf,
        orientation,
        theme: dark ? DARK : LIGHT,
        rowHeight: ROW_HEIGHT,
        graphHeight,
        scrollTop,
        viewHeight: h,
        hover,
        selected,
        highlight: highlight ? (node) => highlight[tree.frame[node]] === 1 : null,
        font: FONT,
        charWidth: ctx.measureText('M').width || 7,
      });
      canvas.dataset.painted = String(layout.rects.length);
      // One reusable mark: benchmarks time an input event to the paint that follows it.
      performance.clearMarks('flamelens:paint');
      performance.mark('flamelens:paint');
      onPainted?.();
    });
    return () => cancelAnimationFrame(id);
  }, [
    layout,
    size,
    scrollTop,
    hover,
    selected,
    highlight,
    dark,
    graphHeight,
    labelOf,
    colorOf,
    tree,
    orientation,
    onPainted,
  ]);

  const pick = (clientX: number, clientY: number): FrameRect | null => {
    const el = scrollRef.current;
    if (!layout || !el) return null;
    const box = el.getBoundingClientRect();
    const x = clientX - box.left;
    const y = clientY - box.top + el.scrollTop;
    return hitTest(layout, rowAt(y, ROW_HEIGHT, orientation, graphHeight), x);
  };

  const onMouseMove = (ev: React.MouseEvent) => {
    const d = drag.current;
    if (d && ev.buttons === 1) {
      const dx = ev.clientX - d.x;
      const dy = ev.clientY - d.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) d.moved = true;
      if (d.moved) {
        setViewport(panViewport(d.v, -dx / Math.max(1, size.width)));
        if (scrollRef.current) scrollRef.current.scrollTop = d.top - dy;
        setPointer(null);
        return;
      }
    }
    const r = pick(ev.clientX, ev.clientY);
    setHover(r && r.node !== MERGED ? r.node : null);
    setPointer(r ? { x: ev.clientX, y: ev.clientY, rect: r } : null);
  };

  const onClick = (ev: React.MouseEvent) => {
    if (drag.current?.moved) return;
    const r = pick(ev.clientX, ev.clientY);
    if (!r || r.node === MERGED) return;
    onSelect(r.node);
    onFocus(r.node === focus ? Math.max(0, parentOf(tree, r.node)) : r.node);
  };

  const onDoubleClick = (ev: React.MouseEvent) => {
    const r = pick(ev.clientX, ev.clientY);
    if (!r || r.node === MERGED || r.ancestor) return;
    const v = fitViewport(tree, focus, r.node);
    if (v) setViewport(v);
  };

  // Wheel zooms around the cursor; horizontal wheel / shift+wheel pans (or, on a graph taller than
  // its view, shift+wheel scrolls it). Non-passive, to prevent the page from scrolling.
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
  }, []);

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (!layout) return;
    const move = moveForKey(e.key, orientation);
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
    } else if (e.key === '0') {
      setViewport(FULL);
      onFocus(0);
    } else if (e.key === 'Escape') {
      setViewport(FULL);
      onFocus(0);
      onSelect(null);
    } else if ((e.key === 'ContextMenu' || (e.shiftKey && e.key === 'F10')) && selected !== null) {
      e.preventDefault();
      const r = layout.rects.find((x) => x.node === selected);
      const box = scrollRef.current!.getBoundingClientRect();
      props.onContextMenu?.(selected, box.left + (r ? r.x + 10 : 10), box.top + 20);
    }
  };

  const crumbs = useMemo(() => {
    const out: number[] = [];
    for (let v = focus; v > 0; v = parentOf(tree, v)) out.push(v);
    return out.reverse();
  }, [tree, focus]);

  const total = totalOf(tree, 0);
  const sel = selected !== null && selected < tree.count ? selected : null;
  const announce =
    sel === null
      ? ''
      : `Selected ${nameOf(sel)}: ${formatCount(totalOf(tree, sel))} samples, ${formatPercent(totalOf(tree, sel), total)}`;
  return (
    <section className="flamegraph" aria-label={props.title} data-testid={props.testId}>
      <div className="fg-bar">
        <span className="fg-title">{props.title}</span>
        <nav className="breadcrumbs" aria-label="Zoom path">
          <button type="button" onClick={() => onFocus(0)} aria-current={focus === 0 ? 'true' : undefined}>
            all
          </button>
          {crumbs.map((n) => (
            <span key={n}>
              {' › '}
              <button
                type="button"
                onClick={() => onFocus(n)}
                aria-current={n === focus ? 'true' : undefined}
                title={nameOf(n)}
              >
                {shortName(nameOf(n), 32)}
              </button>
            </span>
          ))}
        </nav>
        {focus > 0 && (
          <button type="button" className="reset" onClick={() => onFocus(0)} data-testid="reset-zoom">
            Reset
          </button>
        )}
        {props.children}
      </div>
      <div
        className="fg-scroll"
        ref={scrollRef}
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        onMouseDown={(e) => {
          if (e.button !== 0) return;
          drag.current = {
            x: e.clientX,
            y: e.clientY,
            top: scrollRef.current!.scrollTop,
            v: viewport,
            moved: false,
          };
        }}
        onMouseUp={() => setTimeout(() => (drag.current = null), 0)}
        onMouseMove={onMouseMove}
        onMouseLeave={() => {
          setHover(null);
          setPointer(null);
        }}
        onClick={onClick}
        onDoubleClick={onDoubleClick}
        onContextMenu={(e) => {
          const r = pick(e.clientX, e.clientY);
          if (!r || r.node === MERGED || !props.onContextMenu) return;
          e.preventDefault();
          onSelect(r.node);
          props.onContextMenu(r.node, e.clientX, e.clientY);
        }}
        onKeyDown={onKeyDown}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the graph is navigable with the arrow keys
        tabIndex={0}
      >
        <div className="fg-content" style={{ height: graphHeight }}>
          <canvas
            ref={canvasRef}
            className="fg-canvas"
            role="img"
            aria-label={`${props.title} of ${profile.meta.fileName}: ${formatValue(total, { ...valueKind(profile.meta), periodUs: 0 })}. Arrow keys select frames, Enter zooms.`}
            // The box follows the size in the same render (the paint sets the backing store later):
            // a box measured between a resize and the next paint is where the graph is drawn.
            style={{ top: scrollTop, width: size.width, height: size.height }}
          />
        </div>
        {hiddenRows > 0 && (
          <div
            className={`fg-more ${orientation === 'flame' ? 'top' : 'bottom'}`}
            style={orientation === 'flame' ? { top: scrollTop } : { top: scrollTop + size.height - 22 }}
            data-testid="more-rows"
          >
            {orientation === 'flame' ? '▲' : '▼'} {hiddenRows} more rows (scroll, or Shift+wheel)
          </div>
        )}
        {pointer && (
          <Tooltip
            graph={graph}
            rect={pointer.rect}
            x={pointer.x}
            y={pointer.y}
            focus={focus}
            diff={diff && scale ? { ...diff, scale } : undefined}
          />
        )}
      </div>
      <div className="visually-hidden" role="status" aria-live="polite" data-testid="selection-status">
        {announce}
      </div>
    </section>
  );
}

function selectedCenter(layout: FlameLayout, selected: number | null): number {
  const r = selected === null ? undefined : layout.rects.find((x) => x.node === selected);
  if (!r) return 0.5;
  return Math.min(1, Math.max(0, (r.x + r.w / 2) / Math.max(1, layout.width)));
}

/** Places a fixed-position box of the measured size near the pointer, inside the window. */
function tooltipStyle(x: number, y: number, w: number, h: number): React.CSSProperties {
  const left = x + 14 + w > window.innerWidth ? Math.max(0, x - 14 - w) : x + 14;
  const top = y + 16 + h > window.innerHeight ? Math.max(0, y - 12 - h) : y + 16;
  return { left, top };
}

/** The tooltip's own size, measured after each render (it varies with the name and the rows). */
function useBoxSize(ref: React.RefObject<HTMLDivElement | null>): { w: number; h: number } {
  const [size, setSize] = useState({ w: 380, h: 130 });
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && (el.offsetWidth !== size.w || el.offsetHeight !== size.h))
      setSize({ w: el.offsetWidth, h: el.offsetHeight });
  });
  return size;
}

/** The unit of a graph's weights, for formatting: its sample type, and time per unit of a count. */
export function valueKind(meta: Pick<FoldedProfile['meta'], 'sampleType' | 'periodUs'>): ValueKind {
  return { sampleType: meta.sampleType, periodUs: meta.periodUs };
}

function Tooltip(props: {
  graph: { profile: Pick<FoldedProfile, 'frames' | 'modules' | 'meta'>; tree: CallTree };
  rect: FrameRect;
  x: number;
  y: number;
  focus: number;
  diff?: { totals: Pick<DiffTotals, 'comp' | 'base'>; normalized: boolean; scale: DiffScale };
}) {
  const { graph, rect, x, y, focus, diff } = props;
  const { tree, profile } = graph;
  const whole = totalOf(tree, 0);
  const kind = valueKind(profile.meta);
  // The unit alone (no time suffix); time follows the percentages, as before.
  const amount = (v: number) => formatValue(v, { ...kind, periodUs: 0 });
  const period = kind.sampleType.unit === 'count' ? kind.periodUs : 0;
  const ref = useRef<HTMLDivElement>(null);
  const box = useBoxSize(ref);
  const style = tooltipStyle(x, y, box.w, box.h);
  if (rect.node === MERGED) {
    return (
      <div ref={ref} className="tooltip" role="tooltip" style={style} data-testid="tooltip">
        <div className="tt-name">{mergedLabel(rect)}</div>
        <div>
          {amount(rect.value)} ({formatPercent(rect.value, whole)})
        </div>
      </div>
    );
  }
  const node = rect.node;
  const frame = tree.frame[node];
  const mod = profile.modules[profile.frames.module[frame]] ?? '';
  const self = selfOf(tree, node);
  const total = totalOf(tree, node);
  return (
    <div ref={ref} className="tooltip" role="tooltip" style={style} data-testid="tooltip">
      <div
        className="tt-name"
        title={visibleText(profile.frames.fullName?.[frame] ?? profile.frames.name[frame])}
      >
        {visibleText(profile.frames.name[frame])}
      </div>
      {profile.frames.fullName && profile.frames.fullName[frame] !== profile.frames.name[frame] && (
        <div className="tt-full" data-testid="tt-full">
          {visibleText(profile.frames.fullName[frame])}
        </div>
      )}
      {profile.frames.kind?.[frame] === FrameKind.OutsideSymbols && (
        <div className="tt-hint">No symbol covers these addresses: drop the binary's debug file.</div>
      )}
      {profile.frames.kind?.[frame] === FrameKind.NoSymbolFile && (
        <div className="tt-hint">No binary for this module: drop it to see function names.</div>
      )}
      {mod && (
        <div className="tt-module" title={mod}>
          {basename(mod)}
        </div>
      )}
      {diff ? (
        <DiffRows node={node} tree={tree} diff={diff} kind={kind} />
      ) : (
        <table>
          <tbody>
            <tr>
              <th>Total</th>
              <td>
                {amount(total)} · {formatPercent(total, whole)}
                {focus > 0 && ` · ${formatPercent(total, totalOf(tree, focus))} of zoomed`}
                {period > 0 && ` · ${formatTime(total * period)}`}
              </td>
            </tr>
            <tr>
              <th>Self</th>
              <td>
                {amount(self)} · {formatPercent(self, whole)}
                {period > 0 && ` · ${formatTime(self * period)}`}
              </td>
            </tr>
          </tbody>
        </table>
      )}
    </div>
  );
}

/** Baseline, comparison and the change of a path, as samples (or the unit) and as time. */
function DiffRows(props: {
  node: number;
  tree: CallTree;
  diff: { totals: Pick<DiffTotals, 'comp' | 'base'>; normalized: boolean; scale: DiffScale };
  kind: ValueKind;
}) {
  const { node, tree, diff, kind } = props;
  const c = chainOf(tree, node);
  const { comp, base } = diff.totals;
  const b = base.total[c];
  const n = comp.total[c];
  const share = (v: number, whole: number) => formatPercent(v, whole);
  const pct = b > 0 ? `${n >= b ? '+' : '−'}${Math.abs(((n - b) / b) * 100).toFixed(1)} %` : 'new';
  const deltaShare = diff.scale.delta(node);
  return (
    <table>
      <tbody>
        <tr>
          <th>Baseline</th>
          <td>
            {formatValue(b, kind)} · {share(b, base.whole)}
          </td>
        </tr>
        <tr>
          <th>Comparison</th>
          <td>
            {formatValue(n, kind)} · {share(n, comp.whole)}
          </td>
        </tr>
        <tr>
          <th>Δ</th>
          <td data-testid="tt-delta">
            {formatDelta(n - b, kind)} · {pct}
            {diff.normalized &&
              ` · share ${deltaShare >= 0 ? '+' : '−'}${(Math.abs(deltaShare) * 100).toFixed(2)} pts`}
          </td>
        </tr>
        {b === 0 && (
          <tr>
            <th />
            <td>only in the comparison</td>
          </tr>
        )}
        {n === 0 && (
          <tr>
            <th />
            <td>only in the baseline</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
