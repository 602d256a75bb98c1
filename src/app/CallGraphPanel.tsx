// pprof's call graph of the view (the Graph view `pprof -http` opens on): the worker derives the
// graph and its DOT text as pprof does (core/analysis/derivations.ts), Graphviz lays it out in a
// worker of its own (callgraph/layoutClient.ts), and the SVG is shown here with pan (drag) and
// zoom (wheel). A click selects a node's function (the table and the flame graph follow); a
// double-click focuses on it. Controls: pprof's node count and node and edge fractions.

import { useEffect, useRef, useState } from 'react';
import { LayoutCancelled, layoutDot, warmLayout } from '../callgraph/layoutClient';
import { CALL_GRAPH_SETTINGS, type CallGraphSettings } from '../core/view/schema';
import { useStore } from './store';
import { addTransform, changeView } from './view';

export function CallGraphPanel() {
  const graph = useStore((s) => s.derived.callGraph);
  const settings = useStore((s) => s.view.callGraph);
  const status = useStore((s) => s.status);
  const selectFrame = useStore((s) => s.selectFrame);
  const [svg, setSvg] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [laying, setLaying] = useState(false);

  // Graphviz loads while the worker derives the graph.
  useEffect(warmLayout, []);

  useEffect(() => {
    setSvg(null);
    setError(null);
    if (!graph) return;
    let live = true;
    setLaying(true);
    layoutDot(graph.dot).then(
      (r) => {
        if (!live) return;
        setSvg(r.svg);
        setLaying(false);
      },
      (e: Error) => {
        if (!live || e instanceof LayoutCancelled) return;
        setError(e.message);
        setLaying(false);
      },
    );
    return () => {
      live = false;
    };
  }, [graph]);

  const nodeFrame = (target: EventTarget | null): number | null => {
    const g = (target as Element | null)?.closest?.('g.node');
    const m = g ? /^node(\d+)$/.exec(g.id) : null;
    if (!m || !graph) return null;
    const k = Number(m[1]) - 1;
    return k >= 0 && k < graph.frames.length ? graph.frames[k] : null;
  };
  const nodeName = (target: EventTarget | null): string | null => {
    const g = (target as Element | null)?.closest?.('g.node');
    const m = g ? /^node(\d+)$/.exec(g.id) : null;
    return m && graph ? (graph.names[Number(m[1]) - 1] ?? null) : null;
  };

  return (
    <section className="callgraph" aria-label="Call graph" data-testid="call-graph">
      <CallGraphControls settings={settings} />
      {graph && (
        <p className="muted callgraph-note">
          {graph.names.length} of {graph.nodes} nodes shown
          {graph.droppedNodes > 0 && ` (${graph.droppedNodes} below the node fraction left out)`} · click a
          node to select it, double-click to focus on it; drag to pan, wheel to zoom
        </p>
      )}
      {error ? (
        <p role="alert" className="callgraph-error">
          {error}
        </p>
      ) : !svg ? (
        <p className="muted">{!graph || status === 'loading' || laying ? 'laying out the graph…' : ''}</p>
      ) : (
        <PanZoom
          svg={svg}
          onClick={(t) => {
            const f = nodeFrame(t);
            if (f !== null) selectFrame(f);
          }}
          onDoubleClick={(t) => {
            const name = nodeName(t);
            if (name !== null && name !== '<unknown>') void addTransform({ kind: 'focus-function', name });
          }}
        />
      )}
    </section>
  );
}

function CallGraphControls({ settings }: { settings: CallGraphSettings }) {
  const set = (patch: Partial<CallGraphSettings>) =>
    void changeView({ callGraph: { ...settings, ...patch } });
  return (
    <fieldset className="callgraph-controls">
      <legend className="visually-hidden">Call graph pruning</legend>
      <Setting
        label="Nodes"
        name="Node count"
        max={10000}
        step={10}
        value={settings.nodeCount}
        valid={(n) => Number.isInteger(n)}
        onChange={(nodeCount) => set({ nodeCount })}
      />
      <Setting
        label="Node fraction"
        name="Node fraction"
        max={1}
        step={0.001}
        value={settings.nodeFraction}
        onChange={(nodeFraction) => set({ nodeFraction })}
      />
      <Setting
        label="Edge fraction"
        name="Edge fraction"
        max={1}
        step={0.001}
        value={settings.edgeFraction}
        onChange={(edgeFraction) => set({ edgeFraction })}
      />
      <button type="button" onClick={() => set(CALL_GRAPH_SETTINGS)}>
        pprof's defaults
      </button>
    </fieldset>
  );
}

/** One pruning setting: a number from 0 to `max`; what is out of range or not `valid` is ignored. */
function Setting(props: {
  label: string;
  name: string;
  max: number;
  step: number;
  value: number;
  valid?: (n: number) => boolean;
  onChange: (n: number) => void;
}) {
  const { label, name, max, step, value, valid, onChange } = props;
  return (
    <label>
      {label}{' '}
      <input
        type="number"
        min={0}
        max={max}
        step={step}
        value={value}
        aria-label={name}
        onChange={(e) => {
          const n = Number(e.target.value);
          if (n >= 0 && n <= max && (valid?.(n) ?? true)) onChange(n);
        }}
      />
    </label>
  );
}

/**
 * An SVG laid out by Graphviz, shown with pan and zoom. It is parsed as SVG (never as HTML) and
 * anything that could run is removed before it is shown: scripts, foreign objects, event handler
 * attributes and links out (the names in it come from the profile).
 */
function PanZoom({
  svg,
  onClick,
  onDoubleClick,
}: {
  svg: string;
  onClick: (t: EventTarget | null) => void;
  onDoubleClick: (t: EventTarget | null) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ x: 0, y: 0, k: 1 });
  const drag = useRef<{ x: number; y: number; moved: boolean } | null>(null);
  // A new graph is shown whole: scaled down to fit the area (never up), centred.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const shown = safeSvg(svg);
    el.replaceChildren(shown);
    const w = Number.parseFloat(shown.getAttribute('width') ?? '') || el.clientWidth;
    const h = Number.parseFloat(shown.getAttribute('height') ?? '') || el.clientHeight;
    // Graphviz gives points; at 96 dpi a point is 4/3 px.
    const pw = (w * 4) / 3;
    const ph = (h * 4) / 3;
    const k = Math.min(1, el.clientWidth / pw, el.clientHeight / ph) || 1;
    setView({ x: Math.max(0, (el.clientWidth - pw * k) / 2), y: 0, k });
  }, [svg]);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const r = el.getBoundingClientRect();
      const px = e.clientX - r.left;
      const py = e.clientY - r.top;
      setView((v) => {
        const k = Math.min(8, Math.max(0.1, v.k * Math.exp(-e.deltaY / 500)));
        return { k, x: px - ((px - v.x) * k) / v.k, y: py - ((py - v.y) * k) / v.k };
      });
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, []);
  const svgEl = () => box.current?.querySelector('svg');
  useEffect(() => {
    const s = svgEl();
    if (s) {
      s.style.transform = `translate(${view.x}px, ${view.y}px) scale(${view.k})`;
      s.style.transformOrigin = '0 0';
    }
  });
  return (
    <div
      ref={box}
      className="callgraph-svg"
      data-testid="call-graph-svg"
      onMouseDown={(e) => {
        drag.current = { x: e.clientX, y: e.clientY, moved: false };
      }}
      onMouseMove={(e) => {
        const d = drag.current;
        if (!d || e.buttons !== 1) return;
        const dx = e.clientX - d.x;
        const dy = e.clientY - d.y;
        if (Math.abs(dx) + Math.abs(dy) > 2) d.moved = true;
        d.x = e.clientX;
        d.y = e.clientY;
        setView((v) => ({ ...v, x: v.x + dx, y: v.y + dy }));
      }}
      onMouseUp={(e) => {
        const moved = drag.current?.moved ?? false;
        drag.current = null;
        if (!moved) onClick(e.target);
      }}
      onDoubleClick={(e) => onDoubleClick(e.target)}
    />
  );
}

/** The SVG text as an element with nothing in it that runs or leaves the page. */
function safeSvg(text: string): Element {
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const root = doc.documentElement;
  if (root.nodeName !== 'svg') {
    const p = document.createElement('p');
    p.textContent = 'The layout could not be read.';
    return p;
  }
  for (const el of [...root.querySelectorAll('script, foreignObject, iframe, a')]) {
    if (el.nodeName === 'a') el.replaceWith(...el.childNodes);
    else el.remove();
  }
  for (const el of [root, ...root.querySelectorAll('*')])
    for (const a of [...el.attributes])
      if (/^on/i.test(a.name) || /href$/i.test(a.name)) el.removeAttribute(a.name);
  return document.importNode(root, true);
}
