// The function table: one row per function, sortable by every column, virtualized rows.

import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef } from 'react';
import { baseName, formatCount, formatPercent } from '../app/format';
import { type SortKey, useStore } from '../app/store';
import type { Analysis } from '../core/pipeline';

const ROW = 24;

const COLUMNS: { key: SortKey; label: string; pct?: boolean; numeric?: boolean }[] = [
  { key: 'name', label: 'Function' },
  { key: 'module', label: 'Module' },
  { key: 'self', label: 'Self', numeric: true },
  { key: 'self', label: 'Self %', numeric: true, pct: true },
  { key: 'total', label: 'Total', numeric: true },
  { key: 'total', label: 'Total %', numeric: true, pct: true },
];

/** Row order for a sort: frame ids. Pure, so it can be tested and moved to the worker if needed. */
export function sortFunctions(a: Analysis, key: SortKey, desc: boolean): Int32Array {
  const { functions, profile } = a;
  const ids: number[] = [];
  for (let f = 0; f < functions.count; f++) if (functions.total[f] > 0) ids.push(f);
  const name = profile.frames.name;
  const mod = (f: number) => profile.modules[profile.frames.module[f]] ?? '';
  const sign = desc ? -1 : 1;
  const byName = (x: number, y: number) => (name[x] < name[y] ? -1 : name[x] > name[y] ? 1 : 0);
  let cmp: (x: number, y: number) => number;
  switch (key) {
    case 'name':
      cmp = (x, y) => sign * byName(x, y);
      break;
    case 'module':
      cmp = (x, y) => sign * (mod(x) < mod(y) ? -1 : mod(x) > mod(y) ? 1 : 0) || byName(x, y);
      break;
    case 'self':
      cmp = (x, y) =>
        sign * (functions.self[x] - functions.self[y]) ||
        functions.total[y] - functions.total[x] ||
        byName(x, y);
      break;
    case 'total':
      cmp = (x, y) =>
        sign * (functions.total[x] - functions.total[y]) ||
        functions.self[y] - functions.self[x] ||
        byName(x, y);
      break;
  }
  return Int32Array.from(ids.sort(cmp));
}

export function FunctionTable({ analysis }: { analysis: Analysis }) {
  const sort = useStore((s) => s.sort);
  const sortBy = useStore((s) => s.sortBy);
  const selected = useStore((s) => s.selectedFrame);
  const selectFrame = useStore((s) => s.selectFrame);
  const order = useMemo(() => sortFunctions(analysis, sort.key, sort.desc), [analysis, sort]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: order.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW,
    overscan: 12,
  });
  const { profile, functions, tree } = analysis;
  const whole = tree.total[0];
  const items = virtual.getVirtualItems();
  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? virtual.getTotalSize() - items[items.length - 1].end : 0;

  return (
    <section className="ftable" aria-label="Function table">
      <div className="ftable-scroll" ref={scrollRef}>
        <table aria-rowcount={order.length + 1}>
          <thead>
            <tr>
              {COLUMNS.map((c) => {
                const active = sort.key === c.key && !c.pct;
                return (
                  <th
                    key={c.label}
                    scope="col"
                    className={c.numeric ? 'num' : undefined}
                    aria-sort={active ? (sort.desc ? 'descending' : 'ascending') : undefined}
                  >
                    <button type="button" onClick={() => sortBy(c.key)}>
                      {c.label}
                      {active ? (sort.desc ? ' ▼' : ' ▲') : ''}
                    </button>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {padTop > 0 && (
              <tr style={{ height: padTop }}>
                <td colSpan={6} />
              </tr>
            )}
            {items.map((it) => {
              const f = order[it.index];
              const isSel = selected === f;
              return (
                <tr
                  key={f}
                  aria-rowindex={it.index + 2}
                  aria-selected={isSel}
                  className={isSel ? 'selected' : undefined}
                  style={{ height: ROW }}
                  onClick={() => selectFrame(isSel ? null : f)}
                >
                  <td className="fn" title={profile.frames.name[f]}>
                    {profile.frames.name[f]}
                  </td>
                  <td className="mod" title={profile.modules[profile.frames.module[f]] ?? ''}>
                    {baseName(profile.modules[profile.frames.module[f]] ?? '')}
                  </td>
                  <td className="num">{formatCount(functions.self[f])}</td>
                  <td className="num">{formatPercent(functions.self[f], whole)}</td>
                  <td className="num">{formatCount(functions.total[f])}</td>
                  <td className="num">{formatPercent(functions.total[f], whole)}</td>
                </tr>
              );
            })}
            {padBottom > 0 && (
              <tr style={{ height: padBottom }}>
                <td colSpan={6} />
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
