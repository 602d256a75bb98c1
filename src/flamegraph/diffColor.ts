// Colours of a differential flame graph: a diverging, colour-blind-safe scale (blue shrank, grey
// unchanged, red grew), saturation and depth by the size of the change relative to the largest.

import { type CallTree, chainOf } from '../core/model/calltree';
import type { DiffTotals } from '../core/model/diff';
import { deltaOf } from '../core/model/diff';
import type { Theme } from './paint';

export interface DiffScale {
  /** The change of a node (its chain): share of each side's total (normalized), or samples. */
  delta: (node: number) => number;
  /** The largest |change| among the nodes: the ends of the scale. */
  maxAbs: number;
  normalized: boolean;
}

export function diffScale(
  tree: CallTree,
  d: Pick<DiffTotals, 'comp' | 'base'>,
  normalized: boolean,
): DiffScale {
  const { comp, base } = d;
  const of = (c: number) => deltaOf(comp.total[c], base.total[c], comp.whole, base.whole, normalized);
  let maxAbs = 0;
  for (let c = 1; c < tree.chains.count; c++) {
    const a = Math.abs(of(c));
    if (a > maxAbs) maxAbs = a;
  }
  return { delta: (node) => of(chainOf(tree, node)), maxAbs, normalized };
}

/** Blue (shrank) … grey … red (grew); |change| below 0.5 % of the largest counts as unchanged. */
export function diffColor(delta: number, maxAbs: number, theme: Theme): string {
  const t = maxAbs > 0 ? Math.min(1, Math.abs(delta) / maxAbs) : 0;
  if (t < 0.005) return theme.dark ? 'hsl(220, 6%, 40%)' : 'hsl(220, 6%, 80%)';
  const hue = delta > 0 ? 4 : 214;
  const sat = Math.round(35 + 55 * t);
  const light = Math.round(theme.dark ? 38 + 8 * t : 78 - 28 * t);
  return `hsl(${hue}, ${sat}%, ${light}%)`;
}
