// The function table: one row per function (merged over call sites), sortable by every column,
// filterable, virtualized, keyboard-navigable, with real table semantics.

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { type FunctionTable as Functions, totalOf } from '../core/model/calltree';
import type { FunctionChanges } from '../core/model/diff';
import { changesOf, type TableQuery } from '../core/model/table-order';
import { frameLabel, frameName, functionOf, lineLabel, sourceAt } from '../core/text/frame-text';
import { basename } from '../core/text/names';
import {
  formatCell,
  formatCellDelta,
  formatCellPercent,
  formatCellPoints,
  formatCounted,
  formatPercent,
  type WeightUnit,
  weightUnit,
} from '../core/text/units';
import { FrameKind } from '../core/types';
import type { PageAnalysis as Analysis } from '../worker/protocol';
import type { SortKey, TableSort } from './sortState';
import { useTableOrder } from './useTableOrder';
import { useTableRows } from './useTableRows';

const ROW = 24;

/**
 * A column: its sort key, header and class. The Function column takes the width the others leave
 * (styles.css gives each class its width); `mod` and `wide` columns give way in a narrow table.
 */
type Column = { key: SortKey; label: string; className: string; pct?: boolean; title?: string };

const COLUMNS: Column[] = [
  { key: 'name', label: 'Function', className: 'fn' },
  { key: 'module', label: 'Module', className: 'mod' },
  { key: 'self', label: 'Self', className: 'num' },
  { key: 'self', label: 'Self %', className: 'num pct', pct: true },
  { key: 'total', label: 'Total', className: 'num' },
  { key: 'total', label: 'Total %', className: 'num pct', pct: true },
];

/**
 * A comparison's columns: both sides, and the change of self (sorted by its size by default): in
 * share of each side's samples with Normalized, else in samples, as the graph's colours.
 */
function diffColumns(normalized: boolean): Column[] {
  return [
    { key: 'name', label: 'Function', className: 'fn' },
    { key: 'module', label: 'Module', className: 'mod' },
    { key: 'baseSelf', label: 'Baseline self', className: 'num side-col' },
    { key: 'baseTotal', label: 'Baseline total', className: 'num side-col wide' },
    { key: 'self', label: 'Comparison self', className: 'num side-col' },
    { key: 'total', label: 'Comparison total', className: 'num side-col wide' },
    normalized
      ? {
          key: 'delta',
          label: 'Δ self (pts)',
          className: 'num delta',
          title: 'The change of self in share of each profile’s samples, in percentage points',
        }
      : { key: 'delta', label: 'Δ self', className: 'num delta', title: 'The change of self in samples' },
    {
      key: 'deltaPct',
      label: 'Δ %',
      className: 'num delta',
      title: normalized
        ? 'The change of the self share, in percent of the baseline’s share'
        : 'The change of self, in percent of the baseline’s self',
    },
  ];
}

/**
 * For flat (DCPI) profiles, whose stacks are [image, address] or [image, function, address]: the
 * address frames (shown on demand), and the table's functions with their addresses' samples as
 * their self (a function's samples are all at its own addresses). Without function frames (no
 * image ELF dropped) the addresses are where the samples are: the table shows them by default.
 * Read from the frames' kinds, not the tree: one pass over the frame column (a DCPI profile has
 * millions, and this runs on the page's thread), and the same rows however the graph is shown
 * (inverted, the image frame is a leaf).
 */
export function flatFunctions(
  a: Analysis,
): { addresses: Uint8Array; functions: Analysis['functions'] | null } | null {
  if (a.profile.meta.format !== 'dcpi') return null;
  const { kind, count } = a.profile.frames;
  const addresses = new Uint8Array(count);
  let self: Float64Array | null = null;
  for (let f = 0; f < count; f++) {
    if (kind[f] === FrameKind.Address) addresses[f] = 1;
    else if (kind[f] !== FrameKind.Module) {
      self ??= a.functions.self.slice();
      self[f] = a.functions.total[f];
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
  /** A comparison's Δ columns: changes of share of each side's samples (true) or of samples. */
  normalized?: boolean;
}

export function FunctionTable({
  analysis,
  normalized = true,
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
  // none for a preview, whose table has no rows yet
  const changes = useMemo(
    () => (shown.functionsPending ? null : changesOf(shown, normalized)),
    [shown, normalized],
  );
  const query = useMemo(
    (): TableQuery => ({
      key: sort.key,
      desc: sort.desc,
      filter,
      exclude: perAddress ? undefined : addresses,
      changes: changes ?? undefined,
    }),
    [sort, filter, perAddress, addresses, changes],
  );
  // A preview's table is not the file's (it counts nothing): no rows until the file's comes.
  const { order, pending, progress } = useTableOrder(shown, query, shown.functionsPending === true);
  const scrollRef = useRef<HTMLDivElement>(null);
  const { virtual, headRef, items, padTop, padBottom } = useTableRows(order.length, ROW, scrollRef);
  const { profile, functions, tree, diff } = shown;
  const whole = diff ? diff.comp.whole : totalOf(tree, 0);
  const columns = useMemo(() => (diff ? diffColumns(normalized) : COLUMNS), [diff, normalized]);
  const unit = useMemo(() => weightUnit(profile.meta), [profile.meta]);
  const value = useCallback((v: number) => formatCell(v, unit), [unit]);
  const selIndex = useMemo(() => (selected === null ? -1 : order.indexOf(selected)), [order, selected]);

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
        ) : pending ? (
          // A large table's order is made a slice at a time (useTableOrder): the page stays free.
          <span className="muted" role="status">
            {filter.trim() ? 'Filtering' : 'Sorting'} the functions… {Math.floor(progress * 100)}%
          </span>
        ) : (
          <span className="muted" data-testid="row-count">
            {formatCounted(order.length, 'function')}
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
            Sandwich: {frameLabel(profile.frames, selected).slice(0, 40)}
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
        <table aria-rowcount={order.length + 1} aria-busy={pending}>
          <thead ref={headRef}>
            <tr>
              {columns.map((c) => {
                // Both the count and its % column show the arrow; one of them carries aria-sort.
                const sorted = sort.key === c.key;
                const active = sorted && !c.pct;
                return (
                  <th
                    key={c.label}
                    scope="col"
                    className={c.className}
                    title={c.title}
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
            {padTop > 0 && <Spacer height={padTop} columns={columns} />}
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
                  <td className="fn" title={cellTitle(profile.frames, f)}>
                    <FunctionCell frames={profile.frames} f={f} />
                  </td>
                  <td className="mod" title={mod}>
                    {basename(mod)}
                  </td>
                  {diff && changes ? (
                    <DiffCells
                      f={f}
                      comp={functions}
                      base={diff.baseFunctions}
                      changes={changes}
                      normalized={normalized}
                      unit={unit}
                    />
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
            {padBottom > 0 && <Spacer height={padBottom} columns={columns} />}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/**
 * The height of the rows not drawn, above or below the window. A cell per column, classed as its
 * column: the columns a narrow table hides (`.mod`, `.wide`) are hidden here too. One cell
 * spanning them all would keep a hidden column's slot, and the fixed layout would give it half
 * the Function column's room, left blank.
 */
function Spacer({ height, columns }: { height: number; columns: Column[] }) {
  return (
    <tr style={{ height }}>
      {columns.map((c) => (
        <td key={c.label} className={c.className} />
      ))}
    </tr>
  );
}

/** A function cell's title: its whole name, and a line frame's file with its path. */
function cellTitle(frames: Analysis['profile']['frames'], f: number): string {
  const at = sourceAt(frames, f);
  const fn = functionOf(frames, f);
  return at === null || fn === null ? frameName(frames, f) : `${fn}\nat ${at}`;
}

/**
 * A function's cell: its label, and a Line frame's `file:line` apart, kept whole when the name is
 * cut (the file's directory is already left out: frameLabel's base name).
 */
function FunctionCell({ frames, f }: { frames: Analysis['profile']['frames']; f: number }) {
  const line = lineLabel(frames, f);
  if (line === null) return <>{frameLabel(frames, f)}</>;
  return (
    <span className="fn-line">
      <span className="fn-name">{line.fn}</span> <span className="fn-at">{line.at}</span>
    </span>
  );
}

function DiffCells(props: {
  f: number;
  comp: Functions;
  base: Functions;
  changes: FunctionChanges;
  normalized: boolean;
  unit: WeightUnit;
}) {
  const { f, comp, base, changes, normalized, unit } = props;
  const value = (v: number) => formatCell(v, unit);
  const d = changes.delta[f];
  return (
    <>
      <td className="num side-col">{value(base.self[f])}</td>
      <td className="num side-col wide">{value(base.total[f])}</td>
      <td className="num side-col">{value(comp.self[f])}</td>
      <td className="num side-col wide">{value(comp.total[f])}</td>
      <td className={`num delta ${d > 0 ? 'grew' : d < 0 ? 'shrank' : ''}`}>
        {normalized ? formatCellPoints(d) : formatCellDelta(d, unit)}
      </td>
      <td className="num delta">{formatCellPercent(changes.relative[f])}</td>
    </>
  );
}
