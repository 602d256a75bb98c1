// The call tree (Firefox Profiler's main view, Grafana's call-tree pane): an expandable table of
// the call paths of the tree on screen — transforms, inversion (bottom-up), labels and granularity
// apply, as they do to the flame graph — with total and self, their share, and in a comparison
// both sides and the change. The heaviest path opens first. Keyboard: ↑/↓ move, → expands or
// goes to the first child, ← collapses or goes to the parent, Home/End, `*` expands all below,
// Enter opens the sandwich. The rows are virtualized (rows.ts keeps which nodes are shown).
// Opening a node of millions of children (a DCPI image) orders them a slice at a time, the page
// free between slices and the progress shown; what is asked meanwhile waits for it, in order.
//
// For assistive technology it is a WAI-ARIA treegrid (APG "Treegrid", rows focused): a screen
// reader honours the rows' aria-level/aria-expanded only there. One row is in the Tab order (the
// selected one, else the first: a roving tabindex) and the keys move the focus with the
// selection. A row scrolled out of the drawn window is not in the page: the scroller is then
// the Tab stop, and gives the focus to that row when it gets it.

import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'react';
import { type CallTree, chainOf, childCountOf, parentOf, selfOf, totalOf } from '../core/model/calltree';
import type { DiffTotals } from '../core/model/diff';
import { frameLabel } from '../core/text/frame-text';
import { basename } from '../core/text/names';
import { formatCell, formatDelta, formatPercent, type WeightUnit } from '../core/text/units';
import { useTableRows } from '../table/useTableRows';
import type { PageProfile } from '../worker/protocol';
import { CallTreeRows, type RowsWork } from './rows';

const ROW = 22;
const INDENT = 14;
/** A change of the rows works this long in the task that asks for it (most finish in it)… */
const FIRST_MS = 24;
/** …and then in tasks this long, the page free between them. */
const SLICE_MS = 12;
/** How often the progress of a long one is shown. */
const PROGRESS_MS = 100;

export interface CallTreeViewProps {
  tree: CallTree;
  profile: PageProfile;
  unit: WeightUnit;
  /** In a comparison: both sides' totals per chain of `tree`. */
  diff?: Pick<DiffTotals, 'comp' | 'base'>;
  /** The selected node (shared with the flame graph), and how a row selects one. */
  selected: number | null;
  onSelect: (node: number | null) => void;
  /** Frames the search matched (1 per frame id): highlighted, and their paths opened. */
  match: Uint8Array | null;
  /** Nodes whose paths to open (the search's places). */
  reveal: readonly number[];
  onContextMenu?: (node: number, x: number, y: number) => void;
  /** Enter on a row, or a double-click: the frame's sandwich. */
  onOpen?: (node: number) => void;
}

export function CallTreeView(props: CallTreeViewProps) {
  const { tree, profile, unit, diff, selected, onSelect, match, reveal } = props;
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  // A new tree (a new view) starts over with its heaviest path open.
  const rows = useMemo(() => {
    const r = new CallTreeRows(tree);
    r.openHeaviestPath();
    return r;
  }, [tree]);
  const scroller = useRef<HTMLDivElement>(null);
  const whole = totalOf(tree, 0);
  const { virtual: v, headRef, items, padTop, padBottom } = useTableRows(rows.count, ROW, scroller);

  // Changes of the rows, in the order asked: one of millions of children works in slices, and the
  // ones asked meanwhile wait for it (a collapse pressed while its node opens comes after).
  const [pending, setPending] = useState<{ node: number; progress: number } | null>(null);
  const queue = useRef<{ rows: CallTreeRows; todo: (() => RowsWork | null)[]; timer: number }>({
    rows,
    todo: [],
    timer: 0,
  });
  const change = useCallback((make: () => RowsWork | null) => {
    const q = queue.current;
    q.todo.push(make);
    if (q.todo.length > 1) return; // a long one runs: after it
    let shown = performance.now();
    const next = (budget: number): void => {
      while (q.todo.length > 0) {
        const w = q.todo[0]();
        if (w && !w.step(performance.now() + budget)) {
          q.todo[0] = () => w;
          if (performance.now() - shown >= PROGRESS_MS || budget === FIRST_MS) {
            shown = performance.now();
            setPending({ node: w.ordering, progress: w.progress });
          }
          q.timer = window.setTimeout(() => next(SLICE_MS), 0);
          return;
        }
        q.todo.shift();
        redraw();
      }
      setPending(null);
    };
    next(FIRST_MS);
  }, []);
  // A new tree drops what was asked of the old one.
  useEffect(() => {
    const q = queue.current;
    if (q.rows !== rows) {
      window.clearTimeout(q.timer);
      queue.current = { rows, todo: [], timer: 0 };
      setPending(null);
    }
    return () => window.clearTimeout(queue.current.timer);
  }, [rows]);

  // The selection (from the flame graph or a row) is a row: its ancestors open, scrolled to.
  useEffect(() => {
    if (selected === null || selected <= 0 || selected >= tree.count) return;
    change(() => rows.work('reveal', selected));
    change(() => {
      const at = rows.rowOf(selected);
      if (at >= 0) v.scrollToIndex(at, { align: 'auto' });
      return null;
    });
  }, [selected, rows, tree, v, change]);

  // The search's places open (the first few: each path is a few rows).
  useEffect(() => {
    const nodes = reveal.slice(0, 50).filter((n) => n > 0 && n < tree.count);
    if (nodes.length > 0) change(() => rows.work('reveal', nodes));
  }, [reveal, rows, tree, change]);

  const selectedRow = selected === null ? -1 : rows.rowOf(selected);
  // The row in the Tab order: the selected one, else the first.
  const activeRow = selectedRow >= 0 ? selectedRow : rows.count > 0 ? 0 : -1;
  const activeNode = activeRow >= 0 ? rows.rows[activeRow] : -1;
  const activeDrawn =
    items.length > 0 && activeRow >= items[0].index && activeRow <= items[items.length - 1].index;
  // The focus is to go to the active row once it is drawn (a key moved it; the scroller got the
  // focus; the rows were drawn anew under a focused row).
  const focusRow = useRef(false);
  const focusedInside = useRef(false);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    // A focused row taken out of the page (a new tree) leaves the focus on the body: the tree keeps it.
    const lost =
      focusedInside.current && (document.activeElement === document.body || document.activeElement === null);
    if (!focusRow.current && !lost) return;
    const tr = activeNode < 0 ? null : el.querySelector<HTMLElement>(`tr[data-node="${activeNode}"]`);
    if (!tr) return;
    focusRow.current = false;
    if (document.activeElement !== tr) tr.focus({ preventScroll: true });
  });
  const move = (row: number) => {
    if (rows.count === 0) return;
    const r = Math.max(0, Math.min(rows.count - 1, row));
    onSelect(rows.rows[r]);
    v.scrollToIndex(r, { align: 'auto' });
  };
  const onKey = (e: React.KeyboardEvent) => {
    // The keys act on the focused row: the selected one, else the first.
    const node = activeNode;
    const changed = (f: () => void) => {
      e.preventDefault();
      focusRow.current = true;
      f();
      redraw();
    };
    if (e.key === 'ArrowDown') changed(() => move(activeRow + 1));
    else if (e.key === 'ArrowUp') changed(() => move(activeRow - 1));
    else if (e.key === 'Home') changed(() => move(0));
    else if (e.key === 'End') changed(() => move(rows.count - 1));
    else if (node < 0) return;
    else if (e.key === 'ArrowRight')
      changed(() => {
        if (!rows.expanded[node] && rows.hasChildren(node)) change(() => rows.work('expand', node));
        else if (rows.hasChildren(node)) move(activeRow + 1);
      });
    else if (e.key === 'ArrowLeft')
      changed(() => {
        if (rows.expanded[node]) change(() => collapse(node));
        else {
          const p = parentOf(tree, node);
          if (p > 0) move(rows.rowOf(p));
        }
      });
    else if (e.key === '*') changed(() => change(() => rows.work('expandAll', node)));
    else if (e.key === 'Enter') changed(() => props.onOpen?.(node));
  };
  const collapse = (node: number) => {
    rows.collapse(node);
    return null;
  };
  const toggle = (node: number) =>
    change(() => (rows.expanded[node] ? collapse(node) : rows.work('expand', node)));

  const cells = (node: number) => {
    const total = totalOf(tree, node);
    const self = selfOf(tree, node);
    if (!diff) return [formatCell(total, unit), formatPercent(total, whole), formatCell(self, unit)];
    const c = chainOf(tree, node);
    const b = diff.base.total[c];
    const t = diff.comp.total[c];
    return [formatCell(b, unit), formatCell(t, unit), formatDelta(t - b, unit)];
  };
  const heads = diff ? ['Baseline total', 'Comparison total', 'Δ total'] : ['Total', 'Total %', 'Self'];

  const columns = heads.length + 1;
  const busy = pending && pending.node >= 0 ? pending : null;
  return (
    <section className="calltree" aria-label="Call tree" data-testid="call-tree">
      {busy && (
        <p className="calltree-status" role="status">
          Ordering {childCountOf(tree, busy.node).toLocaleString('en-US')} children…{' '}
          {Math.floor(busy.progress * 100)} %
        </p>
      )}
      <div
        className="calltree-scroll"
        ref={scroller}
        onKeyDown={onKey}
        onFocus={(e) => {
          focusedInside.current = true;
          // The scroller itself (the Tab stop while the active row is not drawn): to that row.
          if (e.target === e.currentTarget && activeRow >= 0) {
            focusRow.current = true;
            v.scrollToIndex(activeRow, { align: 'auto' });
            redraw();
          }
        }}
        onBlur={(e) => {
          const inside = e.currentTarget;
          if (e.relatedTarget !== null) {
            if (!inside.contains(e.relatedTarget as Node)) focusedInside.current = false;
            return;
          }
          // Nowhere (a click on the page's background) or a row taken out of the page: only the
          // latter keeps the focus in the tree.
          const row = e.target;
          queueMicrotask(() => {
            if (row.isConnected && !inside.contains(document.activeElement)) focusedInside.current = false;
          });
        }}
        // the Tab stop while the row in the Tab order is not drawn
        tabIndex={activeDrawn ? -1 : 0}
      >
        {/* biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: APG's treegrid is a table with this role */}
        <table role="treegrid" aria-label="Call tree" aria-rowcount={rows.count + 1}>
          <thead ref={headRef}>
            <tr>
              {heads.map((h) => (
                <th key={h} scope="col" className="num">
                  {h}
                </th>
              ))}
              <th scope="col">Function</th>
            </tr>
          </thead>
          <tbody>
            {padTop > 0 && (
              <tr style={{ height: padTop }}>
                <td colSpan={columns} />
              </tr>
            )}
            {items.map((it) => {
              const node = rows.rows[it.index];
              const f = tree.frame[node];
              const depth = rows.depthAt(it.index);
              const known = f >= 0 && f < profile.frames.count;
              const name = known ? frameLabel(profile.frames, f) : '(other functions)';
              const mod = known ? profile.modules[profile.frames.module[f]] : undefined;
              const kids = rows.hasChildren(node);
              const cls = [
                node === selected ? 'selected' : '',
                match && known && match[f] ? 'match' : '',
                diff ? deltaClass(diff, tree, node) : '',
              ]
                .filter(Boolean)
                .join(' ');
              return (
                <tr
                  key={node}
                  data-node={node}
                  tabIndex={it.index === activeRow ? 0 : -1}
                  aria-rowindex={it.index + 2}
                  aria-level={depth + 1}
                  aria-expanded={kids ? rows.expanded[node] === 1 : undefined}
                  aria-busy={busy?.node === node || undefined}
                  aria-selected={node === selected}
                  className={cls || undefined}
                  style={{ height: ROW }}
                  onClick={() => onSelect(node)}
                  onDoubleClick={() => props.onOpen?.(node)}
                  onContextMenu={(e) => {
                    e.preventDefault();
                    onSelect(node);
                    props.onContextMenu?.(node, e.clientX, e.clientY);
                  }}
                >
                  {cells(node).map((c, k) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: the cells of a row are its columns, in order
                    <td key={k} className="num">
                      {c}
                    </td>
                  ))}
                  <td className="fn" style={{ paddingLeft: 4 + depth * INDENT }}>
                    <button
                      type="button"
                      className="twisty"
                      tabIndex={-1}
                      aria-label={rows.expanded[node] ? 'Collapse' : 'Expand'}
                      disabled={!kids}
                      onClick={(e) => {
                        e.stopPropagation();
                        toggle(node);
                      }}
                    >
                      {kids ? (rows.expanded[node] ? '▾' : '▸') : ''}
                    </button>
                    <span className="name" title={name}>
                      {name}
                    </span>
                    {mod && <span className="module muted"> {basename(mod)}</span>}
                  </td>
                </tr>
              );
            })}
            {padBottom > 0 && (
              <tr style={{ height: padBottom }}>
                <td colSpan={columns} />
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** A comparison's row colour: grew, shrank (by the change of its total), or the same. */
function deltaClass(diff: Pick<DiffTotals, 'comp' | 'base'>, tree: CallTree, node: number): string {
  const c = chainOf(tree, node);
  const d = diff.comp.total[c] - diff.base.total[c];
  return d > 0 ? 'grew' : d < 0 ? 'shrank' : '';
}
