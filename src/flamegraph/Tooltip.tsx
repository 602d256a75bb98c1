// The flame graph's tooltip: what the hovered bar is (its kind and fields: core/text/frame-text.ts)
// and its weights (tooltip-text.ts, as the SVG export's titles say them), near the pointer.

import { useLayoutEffect, useRef, useState } from 'react';
import { type CallTree, chainOf, selfOf, totalOf } from '../core/model/calltree';
import type { DiffTotals } from '../core/model/diff';
import { describeFrame } from '../core/text/frame-text';
import { basename } from '../core/text/names';
import { weightUnit } from '../core/text/units';
import type { FoldedProfile } from '../core/types';
import type { DiffScale } from './diffColor';
import { type FrameRect, MERGED, mergedLabel } from './layout';
import { diffRows, mergedRow, type TipRow, weightRows } from './tooltip-text';

export interface TooltipProps {
  graph: { profile: Pick<FoldedProfile, 'frames' | 'modules' | 'meta'>; tree: CallTree };
  rect: FrameRect;
  x: number;
  y: number;
  focus: number;
  diff?: { totals: Pick<DiffTotals, 'comp' | 'base'>; normalized: boolean; scale: DiffScale };
}

export function Tooltip({ graph, rect, x, y, focus, diff }: TooltipProps) {
  const { tree, profile } = graph;
  const ref = useRef<HTMLDivElement>(null);
  const box = useBoxSize(ref);
  const style = tooltipStyle(x, y, box.w, box.h);
  const unit = weightUnit(profile.meta);
  const whole = totalOf(tree, 0);
  if (rect.node === MERGED) {
    return (
      <div ref={ref} className="tooltip" role="tooltip" style={style} data-testid="tooltip">
        <div className="tt-name">{mergedLabel(rect)}</div>
        <div>{mergedRow(rect.value, whole, unit)}</div>
      </div>
    );
  }
  const node = rect.node;
  const d = describeFrame(profile.frames, profile.modules, tree.frame[node]);
  let rows: TipRow[];
  if (diff) {
    const c = chainOf(tree, node);
    const { comp, base } = diff.totals;
    rows = diffRows(
      {
        base: base.total[c],
        comp: comp.total[c],
        baseWhole: base.whole,
        compWhole: comp.whole,
        ...(diff.normalized && { share: diff.scale.delta(node) }),
      },
      unit,
    );
  } else {
    const zoomed = focus > 0 ? totalOf(tree, focus) : undefined;
    rows = weightRows({ total: totalOf(tree, node), self: selfOf(tree, node), whole, zoomed }, unit);
  }
  return (
    <div ref={ref} className="tooltip" role="tooltip" style={style} data-testid="tooltip">
      <div className="tt-name" title={d.full ?? d.title}>
        {d.title}
      </div>
      {d.full && (
        <div className="tt-full" data-testid="tt-full">
          {d.full}
        </div>
      )}
      {d.inlined && <div className="tt-note">inlined into its caller</div>}
      {d.at && (
        <div className="tt-at" title={d.at} data-testid="tt-at">
          {d.at}
        </div>
      )}
      {d.address && (
        <div className="tt-address" data-testid="tt-address">
          at {d.address}
        </div>
      )}
      {d.hint && <div className="tt-hint">{d.hint}</div>}
      {d.module && (
        <div className="tt-module" title={d.module}>
          {basename(d.module)}
        </div>
      )}
      <table>
        <tbody>
          {rows.map((r) => (
            <tr key={r.th || r.td}>
              <th>{r.th}</th>
              <td data-testid={r.th === 'Δ' ? 'tt-delta' : undefined}>{r.td}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
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
