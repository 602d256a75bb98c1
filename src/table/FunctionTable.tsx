// The function table: one row per function (merged over call sites), sortable by every column,
// filterable, virtualized, keyboard-navigable, with real table semantics.

import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import { depthOf, type FunctionTable as Functions, firstChildOf, totalOf } from '../core/model/calltree';
import { visibleText } from '../core/text/escape';
import { formatCount, formatPercent, formatValue } from '../core/text/format';
import { basename } from '../core/text/names';
import type { PageAnalysis as Analysis } from '../worker/protocol';
import type { SortKey, TableSort } from './sortState';

const ROW = 24;

type Column = { key: SortKey; label: string; pct?: boolean; numeric?: boolean };

const COLUMNS: Column[] = [
  { key: 'name', label: 'Function' },
  { key: 'module', label: 'Module' },
  { key: 'self', label: 'Self', numeric: true },
  { key: 'self', label: 'Self %', numeric: true, pct: true },
  { key: 'total', label: 'Total', numeric: true },
  { key: 'total', label: 'Total %', numeric: true, pct: true },
];

/** A comparison's columns: both sides, and the change of self (sorted by its size by default). */
const DIFF_COLUMNS: Column[] = [
  { key: 'name', label: 'Function' },
  { key: 'module', label: 'Module' },
  { key: 'baseSelf', label: 'Baseline self', numeric: true },
  { key: 'baseTotal', label: 'Baseline total', numeric: true },
  { key: 'self', label: 'Comparison self', numeric: true },
  { key: 'total', label: 'Comparison total', numeric: true },
  { key: 'delta', label: 'Δ self', numeric: true },
  { key: 'deltaPct', label: 'Δ %', numeric: true },
];

/** Δ % of a function's self: relative to the baseline; Infinity for new functions. */
function deltaPct(base: number, comp: number): number {
  if (base === 0) return comp === 0 ? 0 : Number.POSITIVE_INFINITY;
  return ((comp - base) / base) * 100;
}

export interface TableQuery {
  key: SortKey;
  desc: boolean;
  /** Case-insensitive substring of the function or module name. */
  filter: string;
  /** Frames to leave out (e.g. the address rows of a flat DCPI profile). */
  exclude?: Uint8Array;
}

/** Row order for a sort and filter: frame ids. Pure, so it is tested without a DOM. */
export function sortFunctions(a: Analysis, q: TableQuery): Int32Array {
  const { functions, profile } = a;
  const name = profile.frames.name;
  const mod = (f: number) => profile.modules[profile.frames.module[f]] ?? '';
  const needle = q.filter.trim().toLowerCase();
  const base = a.diff?.baseFunctions;
  // The default order comes sorted from the worker.
  if (q.key === 'self' && q.desc && !needle && !q.exclude && !base && functions.bySelf)
    return functions.bySelf;
  const ids: number[] = [];
  for (let f = 0; f < functions.count; f++) {
    if ((functions.total[f] <= 0 && !(base && base.total[f] > 0)) || q.exclude?.[f]) continue;
    if (needle && !name[f].toLowerCase().includes(needle) && !basename(mod(f)).toLowerCase().includes(needle))
      continue;
    ids.push(f);
  }
  const sign = q.desc ? -1 : 1;
  const byName = (x: number, y: number) => (name[x] < name[y] ? -1 : name[x] > name[y] ? 1 : 0);
  const { self, total } = functions;
  const cmp: Record<SortKey, (x: number, y: number) => number> = {
    name: (x, y) => sign * byName(x, y),
    module: (x, y) => sign * (mod(x) < mod(y) ? -1 : mod(x) > mod(y) ? 1 : 0) || byName(x, y),
    // Numeric ties break by frame id, not by name: string comparisons made a 64k-row sort cost
    // ~60 ms on the main thread.
    self: (x, y) => sign * (self[x] - self[y]) || total[y] - total[x] || x - y,
    total: (x, y) => sign * (total[x] - total[y]) || self[y] - self[x] || x - y,
    baseSelf: (x, y) => sign * ((base?.self[x] ?? 0) - (base?.self[y] ?? 0)) || x - y,
    baseTotal: (x, y) => sign * ((base?.total[x] ?? 0) - (base?.total[y] ?? 0)) || x - y,
    delta: (x, y) =>
      sign * (Math.abs(self[x] - (base?.self[x] ?? 0)) - Math.abs(self[y] - (base?.self[y] ?? 0))) || x - y,
    deltaPct: (x, y) =>
      sign * (deltaPct(base?.self[x] ?? 0, self[x]) - deltaPct(base?.self[y] ?? 0, self[y]) || 0) || x - y,
  };
  return Int32Array.from(ids.sort(cmp[q.key]));
}

/**
 * For flat (DCPI) profiles, whose stacks are [image, address] or [image, function, address]: the
 * leaf address frames (shown on demand), and the table's functions with their addresses' samples
 * as their self (a function's samples are all at its own addresses). Without function frames (no
 * image ELF dropped) the addresses are where the samples are: the table shows them by default.
 */
export function flatFunctions(
  a: Analysis,
): { addresses: Uint8Array; functions: Analysis['functions'] | null } | null {
  if (a.profile.meta.format !== 'dcpi') return null;
  const addresses = new Uint8Array(a.profile.frames.count);
  const { tree } = a;
  let self: Float64Array | null = null;
  for (let v = 1; v < tree.count; v++) {
    if (depthOf(tree, v) < 2) continue;
    if (firstChildOf(tree, v) === -1) addresses[tree.frame[v]] = 1;
    else {
      self ??= a.functions.self.slice();
      self[tree.frame[v]] = a.functions.total[tree.frame[v]];
    }
  }
  return { addresses, functions: self ? { ...a.functions, self, bySelf: undefined } : null };
}

export interface FunctionTableProps {
  analysis: Analysis;
  sort: TableSort;
  onSort: (key: SortKey) => void;
  /** The selected function (frame id), and how a row selects one. */
  selected: number | null;
  onSelect: (frame: number | null) => void;
  /** Enter or double-click on a row (the sandwich). */
  onOpen: (frame: number) => void;
  onMenu?: (frame: number, x: number, y: number) => void;
}

export function FunctionTable({
  analysis,
  sort,
  onSort: sortBy,
  selected,
  onSelect: selectFrame,
  onOpen: showSandwich,
  onMenu,
}: FunctionTableProps) {
  const [filter, setFilter] = useState('');
  const flat = useMemo(() => flatFunctions(analysis), [analysis]);
  const addresses = flat?.addresses;
  // null: automatic — per function where there are functions (an image ELF was dropped), else per address.
  const [perAddressChoice, setPerAddress] = useState<boolean | null>(null);
  const perAddress = perAddressChoice ?? (flat !== null && flat.functions === null);
  const shown = useMemo(
    () => (flat?.functions && !perAddress ? { ...analysis, functions: flat.functions } : analysis),
    [analysis, flat, perAddress],
  );
  const order = useMemo(
    () =>
      sortFunctions(shown, {
        key: sort.key,
        desc: sort.desc,
        filter,
        exclude: perAddress ? undefined : addresses,
      }),
    [shown, sort, filter, perAddress, addresses],
  );
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: order.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW,
    overscan: 12,
  });
  const { profile, functions, tree, diff } = shown;
  const whole = diff ? diff.comp.whole : totalOf(tree, 0);
  const columns = diff ? DIFF_COLUMNS : COLUMNS;
  const value = useMemo(() => cellValue(profile.meta), [profile.meta]);
  const items = virtual.getVirtualItems();
  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? virtual.getTotalSize() - items[items.length - 1].end : 0;
  const selIndex = selected === null ? -1 : order.indexOf(selected);

  // Keep the selected row in view when it changes (keyboard, graph).
  useEffect(() => {
    if (selIndex >= 0) virtual.scrollToIndex(selIndex, { align: 'auto' });
  }, [selIndex, virtual]);

  const onKeyDown = (e: React.KeyboardEvent) => {
    const move = (i: number) => {
      e.preventDefault();
      if (order.length === 0) return;
      const j = Math.max(0, Math.min(order.length - 1, i));
      selectFrame(order[j]);
    };
    if (e.key === 'ArrowDown') move(selIndex + 1);
    else if (e.key === 'ArrowUp') move(selIndex - 1);
    else if (e.key === 'PageDown') move(selIndex + 10);
    else if (e.key === 'PageUp') move(selIndex - 10);
    else if (e.key === 'Home') move(0);
    else if (e.key === 'End') move(order.length - 1);
    else if (e.key === 'Enter' && selected !== null) {
      e.preventDefault();
      showSandwich(selected);
    } else if ((e.key === 'ContextMenu' || (e.shiftKey && e.key === 'F10')) && selected !== null && onMenu) {
      e.preventDefault();
      const box = scrollRef.current!.getBoundingClientRect();
      onMenu(
        selected,
        box.left + 40,
        box.top + 30 + Math.max(0, selIndex) * ROW - scrollRef.current!.scrollTop,
      );
    }
  };

  return (
    <section className="ftable" aria-label="Function table">
      <div className="ftable-bar">
        <input
          type="search"
          placeholder="Filter functions"
          aria-label="Filter functions"
          value={filter}
          onChange={(e) => setFilter(e.currentTarget.value)}
        />
        {analysis.functionsPending ? (
          // A raw preview: the graph is drawn, the per-function totals are still being counted.
          <span className="muted" role="status">
            Building the function table…
          </span>
        ) : (
          <span className="muted" data-testid="row-count">
            {formatCount(order.length)} functions
          </span>
        )}
        {addresses && (
          <label className="check">
            <input
              type="checkbox"
              checked={perAddress}
              onChange={(e) => setPerAddress(e.currentTarget.checked)}
            />{' '}
            Per address
          </label>
        )}
        {selected !== null && (
          <button type="button" onClick={() => showSandwich(selected)}>
            Sandwich: {visibleText(profile.frames.name[selected] ?? '').slice(0, 40)}
          </button>
        )}
      </div>
      <div
        className="ftable-scroll"
        ref={scrollRef}
        onKeyDown={onKeyDown}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the table body is keyboard-navigable
        tabIndex={0}
      >
        <table aria-rowcount={order.length + 1}>
          <thead>
            <tr>
              {columns.map((c) => {
                // Both the count and its % column show the arrow; one of them carries aria-sort.
                const sorted = sort.key === c.key;
                const active = sorted && !c.pct;
                return (
                  <th
                    key={c.label}
                    scope="col"
                    className={c.numeric ? 'num' : undefined}
                    aria-sort={active ? (sort.desc ? 'descending' : 'ascending') : undefined}
                  >
                    <button type="button" onClick={() => sortBy(c.key)}>
                      {c.label}
                      {sorted ? (sort.desc ? ' ▼' : ' ▲') : ''}
                    </button>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {padTop > 0 && (
              <tr style={{ height: padTop }}>
                <td colSpan={columns.length} />
              </tr>
            )}
            {items.map((it) => {
              const f = order[it.index];
              const isSel = selected === f;
              const mod = profile.modules[profile.frames.module[f]] ?? '';
              return (
                <tr
                  key={f}
                  aria-rowindex={it.index + 2}
                  aria-selected={isSel}
                  className={isSel ? 'selected' : undefined}
                  style={{ height: ROW }}
                  onClick={() => selectFrame(isSel ? null : f)}
                  onDoubleClick={() => showSandwich(f)}
                  onContextMenu={(e) => {
                    if (!onMenu) return;
                    e.preventDefault();
                    selectFrame(f);
                    onMenu(f, e.clientX, e.clientY);
                  }}
                >
                  <td className="fn" title={visibleText(profile.frames.name[f])}>
                    {visibleText(profile.frames.name[f])}
                  </td>
                  <td className="mod" title={mod}>
                    {basename(mod)}
                  </td>
                  {diff ? (
                    <DiffCells f={f} comp={functions} base={diff.baseFunctions} value={value} />
                  ) : (
                    <>
                      <td className="num">{value(functions.self[f])}</td>
                      <td className="num">{formatPercent(functions.self[f], whole)}</td>
                      <td className="num">{value(functions.total[f])}</td>
                      <td className="num">{formatPercent(functions.total[f], whole)}</td>
                    </>
                  )}
                </tr>
              );
            })}
            {padBottom > 0 && (
              <tr style={{ height: padBottom }}>
                <td colSpan={columns.length} />
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Table cells in the profile's unit: counts as plain numbers, bytes and time in their units. */
function cellValue(meta: Analysis['profile']['meta']): (v: number) => string {
  const t = meta.sampleType;
  if (t.unit === 'count') return formatCount;
  return (v) => formatValue(v, { sampleType: t, periodUs: 0 });
}

function DiffCells(props: { f: number; comp: Functions; base: Functions; value: (v: number) => string }) {
  const { f, comp, base, value } = props;
  const d = comp.self[f] - base.self[f];
  const pct = deltaPct(base.self[f], comp.self[f]);
  return (
    <>
      <td className="num">{value(base.self[f])}</td>
      <td className="num">{value(base.total[f])}</td>
      <td className="num">{value(comp.self[f])}</td>
      <td className="num">{value(comp.total[f])}</td>
      <td className={`num ${d > 0 ? 'grew' : d < 0 ? 'shrank' : ''}`}>
        {d > 0 ? '+' : d < 0 ? '−' : ''}
        {value(Math.abs(d))}
      </td>
      <td className="num">
        {pct === Number.POSITIVE_INFINITY ? 'new' : `${pct > 0 ? '+' : ''}${pct.toFixed(1)} %`}
      </td>
    </>
  );
}
