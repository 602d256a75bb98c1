// The canvas flame graph: the canvas is the size of the viewport; the graph scrolls vertically.

import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { formatCount, formatPercent, formatTime } from '../app/format';
import { useStore } from '../app/store';
import type { Analysis } from '../core/pipeline';
import {
  type FlameLayout,
  type FrameRect,
  hitTest,
  layoutFlameGraph,
  MERGED,
  type Orientation,
  rowAt,
} from './layout';
import { DARK, LIGHT, paintFlameGraph } from './paint';

const ROW_HEIGHT = 18;
const FONT = '12px "DejaVu Sans Mono", Menlo, Consolas, monospace';

export function FlameGraph({ analysis }: { analysis: Analysis }) {
  const focusNode = useStore((s) => s.focusNode);
  const hoverNode = useStore((s) => s.hoverNode);
  const selectedFrame = useStore((s) => s.selectedFrame);
  const themeName = useStore((s) => s.theme);
  const setFocus = useStore((s) => s.setFocus);
  const setHover = useStore((s) => s.setHover);
  const paintedFirstFrame = useStore((s) => s.paintedFirstFrame);

  const scrollRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  const [scrollTop, setScrollTop] = useState(0);
  const [pointer, setPointer] = useState<{ x: number; y: number; rect: FrameRect } | null>(null);
  const orientation: Orientation = 'flame';
  const { tree, profile } = analysis;

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setSize({ width: el.clientWidth, height: el.clientHeight }));
    ro.observe(el);
    setSize({ width: el.clientWidth, height: el.clientHeight });
    return () => ro.disconnect();
  }, []);

  const layout: FlameLayout | null = useMemo(
    () => (size.width > 0 ? layoutFlameGraph(tree, { focus: focusNode, width: size.width }) : null),
    [tree, focusNode, size.width],
  );
  const graphHeight = Math.max((layout?.rowCount ?? 0) * ROW_HEIGHT, size.height);

  // Scroll to the root end when a new graph or zoom arrives (flame: root at the bottom).
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && layout) el.scrollTop = orientation === 'flame' ? el.scrollHeight : 0;
  }, [layout]);

  const label = useCallback((node: number) => profile.frames.name[tree.frame[node]] ?? '', [profile, tree]);
  const moduleOf = useCallback(
    (node: number) => profile.modules[profile.frames.module[tree.frame[node]]] ?? '',
    [profile, tree],
  );

  // Paint in requestAnimationFrame, only when an input changed.
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
      const charWidth = ctx.measureText('M').width || 7;
      const total = tree.total[0] || 1;
      paintFlameGraph(ctx, w, {
        layout,
        label,
        moduleOf,
        heat: (node) => tree.self[node] / total,
        colorMode: 'module',
        orientation,
        theme: themeName === 'dark' ? DARK : LIGHT,
        rowHeight: ROW_HEIGHT,
        graphHeight,
        scrollTop,
        viewHeight: h,
        hover: hoverNode,
        selected: null,
        highlight: selectedFrame === null ? null : (node) => tree.frame[node] === selectedFrame,
        font: FONT,
        charWidth,
      });
      canvas.dataset.painted = String(layout.rects.length);
      paintedFirstFrame();
    });
    return () => cancelAnimationFrame(id);
  }, [
    layout,
    size,
    scrollTop,
    hoverNode,
    selectedFrame,
    themeName,
    graphHeight,
    label,
    moduleOf,
    tree,
    paintedFirstFrame,
  ]);

  const pick = (ev: React.MouseEvent): FrameRect | null => {
    if (!layout || !scrollRef.current) return null;
    const box = scrollRef.current.getBoundingClientRect();
    const x = ev.clientX - box.left;
    const y = ev.clientY - box.top + scrollRef.current.scrollTop;
    return hitTest(layout, rowAt(y, ROW_HEIGHT, orientation, graphHeight), x);
  };

  const onMove = (ev: React.MouseEvent) => {
    const r = pick(ev);
    setHover(r && r.node !== MERGED ? r.node : null);
    setPointer(r ? { x: ev.clientX, y: ev.clientY, rect: r } : null);
  };

  const onClick = (ev: React.MouseEvent) => {
    const r = pick(ev);
    if (r && r.node !== MERGED) setFocus(r.node === focusNode ? tree.parent[r.node] : r.node);
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !(e.target instanceof HTMLInputElement)) setFocus(0);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [setFocus]);

  const focusName = focusNode > 0 ? label(focusNode) : null;
  return (
    <section className="flamegraph" aria-label="Flame graph">
      <div className="fg-bar">
        <span className="fg-title">Flame graph</span>
        {focusName !== null && (
          <>
            <span className="fg-zoom" data-testid="zoomed-frame">
              zoomed to <strong>{focusName}</strong>
            </span>
            <button type="button" onClick={() => setFocus(0)}>
              Reset zoom
            </button>
          </>
        )}
        <span className="fg-hint">click a frame to zoom · Esc resets</span>
      </div>
      <div
        className="fg-scroll"
        ref={scrollRef}
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        onMouseMove={onMove}
        onMouseLeave={() => {
          setHover(null);
          setPointer(null);
        }}
        onClick={onClick}
        onKeyDown={(e) => {
          if ((e.key === 'Enter' || e.key === ' ') && hoverNode !== null) setFocus(hoverNode);
          else if (e.key === '0') setFocus(0);
        }}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable graph must be reachable by keyboard
        tabIndex={0}
      >
        <div style={{ height: graphHeight, position: 'relative' }}>
          <canvas
            ref={canvasRef}
            className="fg-canvas"
            role="img"
            aria-label={`Flame graph of ${profile.meta.fileName}: ${formatCount(tree.total[0])} samples`}
            style={{ top: scrollTop }}
          />
        </div>
        {pointer && (
          <Tooltip analysis={analysis} rect={pointer.rect} x={pointer.x} y={pointer.y} focus={focusNode} />
        )}
      </div>
    </section>
  );
}

/** Places a fixed-position box near the pointer, flipped to stay inside the window. */
function tooltipStyle(x: number, y: number): React.CSSProperties {
  const W = 380;
  const H = 110;
  const left = x + 14 + W > window.innerWidth ? Math.max(0, x - 14 - W) : x + 14;
  const top = y + 16 + H > window.innerHeight ? Math.max(0, y - 12 - H) : y + 16;
  return { left, top };
}

function Tooltip(props: { analysis: Analysis; rect: FrameRect; x: number; y: number; focus: number }) {
  const { analysis, rect, x, y, focus } = props;
  const { tree, profile } = analysis;
  const whole = tree.total[0];
  const period = profile.meta.periodUs;
  const style = tooltipStyle(x, y);
  if (rect.node === MERGED) {
    return (
      <div className="tooltip" role="tooltip" style={style}>
        <div className="tt-name">{rect.mergedCount} frames too narrow to draw</div>
        <div>
          {formatCount(rect.value)} samples ({formatPercent(rect.value, whole)})
        </div>
      </div>
    );
  }
  const node = rect.node;
  const frame = tree.frame[node];
  const mod = profile.modules[profile.frames.module[frame]] ?? '';
  const self = tree.self[node];
  const total = tree.total[node];
  return (
    <div className="tooltip" role="tooltip" style={style} data-testid="tooltip">
      <div className="tt-name">{profile.frames.name[frame]}</div>
      {mod && <div className="tt-module">{mod}</div>}
      <table>
        <tbody>
          <tr>
            <th>Total</th>
            <td>
              {formatCount(total)} samples · {formatPercent(total, whole)}
              {focus > 0 && ` · ${formatPercent(total, tree.total[focus])} of zoomed`}
              {period > 0 && ` · ${formatTime(total * period)}`}
            </td>
          </tr>
          <tr>
            <th>Self</th>
            <td>
              {formatCount(self)} samples · {formatPercent(self, whole)}
              {period > 0 && ` · ${formatTime(self * period)}`}
            </td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}
