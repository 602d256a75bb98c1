// The profile on screen: graph toolbar, transform chips, the flame graph (or the sandwich view),
// the function table, and a context menu shared by graph frames and table rows.

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { parentOf, totalOf } from '../core/model/calltree';
import { describeTransform, type Transform } from '../core/model/transforms';
import { formatCount, formatPercent } from '../core/text/format';
import { basename, shortName } from '../core/text/names';
import { FlameGraph } from '../flamegraph/FlameGraph';
import type { Orientation } from '../flamegraph/layout';
import { compileQuery, matchFrames, searchTree } from '../flamegraph/search';
import { FunctionTable } from '../table/FunctionTable';
import type { PageAnalysis as Analysis, PageGraph } from '../worker/protocol';
import { useStore } from './store';

export function ProfileView({ analysis, side }: { analysis: Analysis; side: React.ReactNode }) {
  const mode = useStore((s) => s.mode);
  const [menu, setMenu] = useState<MenuTarget | null>(null);
  const openMenu = useCallback((t: MenuTarget) => setMenu(t), []);
  const search = useSearch(analysis);
  return (
    <main className="profile">
      <GraphToolbar analysis={analysis} result={search} />
      <TransformChips />
      {mode === 'sandwich' ? (
        <SandwichView />
      ) : (
        <MainGraph analysis={analysis} search={search} onMenu={openMenu} />
      )}
      <div className="lower">
        <FunctionTable analysis={analysis} onMenu={(frame, x, y) => openMenu({ frame, node: null, x, y })} />
        {side}
      </div>
      {menu && <ContextMenu target={menu} analysis={analysis} onClose={() => setMenu(null)} />}
    </main>
  );
}

export interface SearchState {
  error: string | null;
  /** 1 per frame id whose name matches. */
  match: Uint8Array | null;
  /** Samples through a match, each once (counted in the worker); null while counting. */
  samples: number | null;
  /** Matching nodes with no matching ancestor, heaviest first: walked on demand (Enter). */
  tops: () => number[];
}

/**
 * What the search matches: frames here (O(functions)); the sample count in the worker, which has
 * the stacks (O(samples) stays off the main thread); the matched nodes only when Enter asks.
 */
function useSearch(analysis: Analysis): SearchState | null {
  const search = useStore((s) => s.search);
  const countInWorker = useStore((s) => s.searchSamples);
  const base = useMemo(() => {
    const m = compileQuery(search);
    if (!m) return null;
    if (!m.ok) return { error: m.error, match: null };
    return { error: null, match: matchFrames(analysis.profile.frames.name, m.test) };
  }, [analysis, search]);
  const [counted, setCounted] = useState<{ match: Uint8Array; samples: number } | null>(null);
  useEffect(() => {
    const match = base?.match;
    if (!match) return;
    let live = true;
    const timer = setTimeout(() => {
      countInWorker(match).then(
        (samples) => live && setCounted({ match, samples }),
        () => {},
      );
    }, 80);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [base, countInWorker]);
  const tops = useMemo(() => {
    let cached: number[] | null = null;
    return () => {
      if (!base?.match) return [];
      cached ??= searchTree(analysis.tree, base.match).tops;
      return cached;
    };
  }, [base, analysis]);
  if (!base) return null;
  const samples = base.match ? (counted?.match === base.match ? counted.samples : null) : 0;
  return { error: base.error, match: base.match, samples, tops };
}

function MainGraph({
  analysis,
  search: result,
  onMenu,
}: {
  analysis: Analysis;
  search: SearchState | null;
  onMenu: (t: MenuTarget) => void;
}) {
  const s = useStore();
  const highlight = useMemo(() => {
    if (result?.match) return result.match;
    if (s.selectedFrame === null) return null;
    const h = new Uint8Array(analysis.profile.frames.count);
    if (s.selectedFrame < h.length) h[s.selectedFrame] = 1;
    return h;
  }, [result, s.selectedFrame, analysis]);
  const heat = useHeat(analysis);
  return (
    <FlameGraph
      graph={analysis}
      title={
        s.inverted ? 'Inverted flame graph' : s.orientation === 'icicle' ? 'Icicle graph' : 'Flame graph'
      }
      orientation={s.orientation}
      order={s.childOrder}
      colorMode={s.colorMode}
      dark={s.theme === 'dark'}
      focus={s.focusNode}
      onFocus={s.setFocus}
      selected={s.selectedNode}
      onSelect={s.selectNode}
      highlight={highlight}
      heat={heat}
      onPainted={s.paintedFirstFrame}
      onContextMenu={(node, x, y) => onMenu({ frame: analysis.tree.frame[node], node, x, y })}
      testId="main-graph"
    />
  );
}

function useHeat(analysis: Analysis) {
  return useMemo(() => {
    const self = analysis.functions.self;
    let max = 0;
    for (let i = 0; i < self.length; i++) if (self[i] > max) max = self[i];
    return (frame: number) => (max > 0 ? Math.sqrt((self[frame] ?? 0) / max) : 0);
  }, [analysis]);
}

function GraphToolbar({ analysis, result }: { analysis: Analysis; result: SearchState | null }) {
  const s = useStore();
  const input = useRef<HTMLInputElement>(null);
  const [cursor, setCursor] = useState(-1);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new query restarts the cycle
  useEffect(() => setCursor(-1), [result]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'f') {
        e.preventDefault();
        input.current?.focus();
        input.current?.select();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const step = (dir: 1 | -1) => {
    const tops = result?.tops() ?? [];
    if (tops.length === 0) return;
    const next = (cursor + dir + tops.length) % tops.length;
    setCursor(next);
    s.selectNode(tops[next]);
  };

  const whole = totalOf(analysis.tree, 0);
  return (
    <div className="graph-toolbar" role="toolbar" aria-label="Graph options">
      <fieldset className="seg">
        <legend className="visually-hidden">Orientation</legend>
        {(['flame', 'icicle'] as const).map((o) => (
          <label key={o} className={s.orientation === o ? 'on' : undefined}>
            <input
              type="radio"
              name="orientation"
              checked={s.orientation === o}
              onChange={() => s.set({ orientation: o })}
            />
            {o === 'flame' ? 'Flame' : 'Icicle'}
          </label>
        ))}
      </fieldset>
      <label className="check">
        <input
          type="checkbox"
          checked={s.inverted}
          onChange={(e) => void s.setInverted(e.currentTarget.checked)}
        />{' '}
        Inverted
      </label>
      <label>
        Order{' '}
        <select
          value={s.childOrder}
          onChange={(e) => s.set({ childOrder: e.currentTarget.value as 'weight' | 'name' })}
        >
          <option value="weight">by weight</option>
          <option value="name">by name</option>
        </select>
      </label>
      <label>
        Colour{' '}
        <select
          value={s.colorMode}
          onChange={(e) => s.set({ colorMode: e.currentTarget.value as 'module' | 'name' | 'heat' })}
        >
          <option value="module">by module</option>
          <option value="name">by name</option>
          <option value="heat">by self (heat)</option>
        </select>
      </label>
      {s.mode === 'sandwich' && (
        <button type="button" onClick={() => void s.showSandwich(null)}>
          Back to flame graph
        </button>
      )}
      <span className="spacer" />
      <div className="search">
        <input
          ref={input}
          type="search"
          placeholder="Search functions (Ctrl+F)"
          aria-label="Search functions"
          value={s.search.text}
          onChange={(e) => s.set({ search: { ...s.search, text: e.currentTarget.value } })}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              step(e.shiftKey ? -1 : 1);
            } else if (e.key === 'Escape') {
              s.set({ search: { ...s.search, text: '' } });
            }
          }}
          aria-invalid={result?.error ? true : undefined}
        />
        <label className="check" title="Treat the search as a regular expression">
          <input
            type="checkbox"
            checked={s.search.regex}
            onChange={(e) => s.set({ search: { ...s.search, regex: e.currentTarget.checked } })}
          />{' '}
          .*
        </label>
        <output className="search-count" aria-live="polite" data-testid="search-count">
          {result?.error
            ? `bad pattern: ${result.error}`
            : result
              ? result.samples === null
                ? 'matching…'
                : `matched: ${formatCount(result.samples)} samples (${formatPercent(result.samples, whole)})${
                    cursor >= 0 ? ` · ${cursor + 1}/${result.tops().length}` : ''
                  }`
              : ''}
        </output>
      </div>
    </div>
  );
}

function TransformChips() {
  const transforms = useStore((s) => s.transforms);
  const remove = useStore((s) => s.removeTransform);
  if (transforms.length === 0) return null;
  return (
    <ul className="chips" aria-label="Transforms">
      {transforms.map((t, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a chip is its position in the ordered list
        <li key={i} className="chip">
          <span>{describeTransform(t)}</span>
          <button type="button" aria-label={`Remove ${describeTransform(t)}`} onClick={() => void remove(i)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

function SandwichView() {
  const sandwich = useStore((s) => s.sandwich);
  if (!sandwich) return null;
  const whole = totalOf(sandwich.callers.tree, 0);
  return (
    <div className="sandwich" data-testid="sandwich">
      <div className="sandwich-title">
        Sandwich for <strong>{sandwich.name}</strong>: total {formatCount(sandwich.total)} samples, self{' '}
        {formatCount(sandwich.self)} ({formatPercent(sandwich.self, whole)} of its samples)
      </div>
      {/* Keyed by the sandwich: a new one starts unzoomed, with nothing selected. */}
      <SandwichHalf
        key={`callers-${sandwich.name}`}
        graph={sandwich.callers}
        title={`Callers of ${sandwich.name}`}
        orientation="flame"
        testId="sandwich-callers"
      />
      <SandwichHalf
        key={`callees-${sandwich.name}`}
        graph={sandwich.callees}
        title={`Callees of ${sandwich.name}`}
        orientation="icicle"
        testId="sandwich-callees"
      />
    </div>
  );
}

/** One half of the sandwich: a flame graph with its own zoom and selection. */
function SandwichHalf(props: { graph: PageGraph; title: string; orientation: Orientation; testId: string }) {
  const dark = useStore((s) => s.theme === 'dark');
  const colorMode = useStore((s) => s.colorMode);
  const order = useStore((s) => s.childOrder);
  const [focus, setFocus] = useState(0);
  const [selected, setSelected] = useState<number | null>(null);
  return (
    <FlameGraph
      {...props}
      order={order}
      colorMode={colorMode}
      dark={dark}
      focus={focus}
      onFocus={setFocus}
      selected={selected}
      onSelect={setSelected}
      highlight={null}
    />
  );
}

export interface MenuTarget {
  frame: number;
  /** The graph node right-clicked, for "focus on subtree"; null from the table. */
  node: number | null;
  x: number;
  y: number;
}

function ContextMenu({
  target,
  analysis,
  onClose,
}: {
  target: MenuTarget;
  analysis: Analysis;
  onClose: () => void;
}) {
  const add = useStore((s) => s.addTransform);
  const showSandwich = useStore((s) => s.showSandwich);
  const ref = useRef<HTMLDivElement>(null);
  const { profile, tree } = analysis;
  const name = profile.frames.name[target.frame];
  const module = profile.modules[profile.frames.module[target.frame]] ?? '';
  const items: { label: string; run: () => void }[] = [
    {
      label: `Focus on function ${shortName(name, 40)}`,
      run: () => void add({ kind: 'focus-function', name }),
    },
  ];
  if (target.node !== null && !useStore.getState().inverted) {
    const path: string[] = [];
    for (let v = target.node; v > 0; v = parentOf(tree, v)) path.push(profile.frames.name[tree.frame[v]]);
    path.reverse();
    items.push({ label: 'Focus on subtree', run: () => void add({ kind: 'focus-subtree', path }) });
  }
  items.push({
    label: `Hide function ${shortName(name, 40)}`,
    run: () => void add({ kind: 'hide-function', name }),
  });
  if (module) {
    items.push({
      label: `Merge module ${basename(module)}`,
      run: () => void add({ kind: 'merge-module', module } satisfies Transform),
    });
  }
  items.push({ label: 'Collapse recursion', run: () => void add({ kind: 'collapse-recursion', name }) });
  items.push({ label: 'Show sandwich (callers and callees)', run: () => void showSandwich(target.frame) });

  useEffect(() => {
    ref.current?.querySelector<HTMLButtonElement>('[role="menuitem"]')?.focus();
    const onDown = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) onClose();
    };
    window.addEventListener('mousedown', onDown);
    return () => window.removeEventListener('mousedown', onDown);
  }, [onClose]);

  const onKey = (e: React.KeyboardEvent) => {
    const buttons = Array.from(ref.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? []);
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (e.key === 'Escape') onClose();
    else if (e.key === 'ArrowDown') buttons[(i + 1) % buttons.length]?.focus();
    else if (e.key === 'ArrowUp') buttons[(i - 1 + buttons.length) % buttons.length]?.focus();
    else return;
    e.preventDefault();
  };

  const style = {
    left: Math.min(target.x, window.innerWidth - 300),
    top: Math.min(target.y, window.innerHeight - 40 * items.length),
  };
  return (
    <div
      ref={ref}
      className="context-menu"
      role="menu"
      aria-label={`Actions for ${name}`}
      style={style}
      onKeyDown={onKey}
    >
      {items.map((it) => (
        <button
          key={it.label}
          type="button"
          role="menuitem"
          onClick={() => {
            it.run();
            onClose();
          }}
        >
          {it.label}
        </button>
      ))}
    </div>
  );
}
