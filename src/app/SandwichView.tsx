// The sandwich of one function: its callers above (a flame graph rooted at it), its callees below.

import { useMemo, useState } from 'react';
import { totalOf } from '../core/model/calltree';
import { formatPercent, formatWeight, weightUnit } from '../core/text/units';
import { FlameGraph } from '../flamegraph/FlameGraph';
import type { Orientation } from '../flamegraph/layout';
import type { PageGraph } from '../worker/protocol';
import type { MenuTarget } from './ContextMenu';
import { useStore } from './store';

export function SandwichView({ onMenu }: { onMenu: (t: MenuTarget) => void }) {
  const sandwich = useStore((s) => s.sandwich);
  if (!sandwich) return null;
  const whole = sandwich.callers.diff ? sandwich.callers.diff.comp.whole : totalOf(sandwich.callers.tree, 0);
  const unit = weightUnit(sandwich.callers.profile.meta);
  return (
    <div className="sandwich" data-testid="sandwich">
      <div className="sandwich-title">
        Sandwich for <strong>{sandwich.name}</strong>: total {formatWeight(sandwich.total, unit)}, self{' '}
        {formatWeight(sandwich.self, unit)} ({formatPercent(sandwich.self, whole)} of its samples)
      </div>
      {/* Keyed by the sandwich: a new one starts unzoomed, with nothing selected. */}
      <SandwichHalf
        key={`callers-${sandwich.name}`}
        graph={sandwich.callers}
        title={`Callers of ${sandwich.name}`}
        orientation="flame"
        testId="sandwich-callers"
        onMenu={onMenu}
      />
      <SandwichHalf
        key={`callees-${sandwich.name}`}
        graph={sandwich.callees}
        title={`Callees of ${sandwich.name}`}
        orientation="icicle"
        testId="sandwich-callees"
        onMenu={onMenu}
      />
    </div>
  );
}

/** One half of the sandwich: a flame graph with its own zoom and selection. */
function SandwichHalf(props: {
  graph: PageGraph;
  title: string;
  orientation: Orientation;
  testId: string;
  onMenu: (t: MenuTarget) => void;
}) {
  const { onMenu, ...graphProps } = props;
  const dark = useStore((s) => s.theme === 'dark');
  const normalized = useStore((s) => s.view.diff.normalized);
  const { diff } = props.graph;
  const diffProp = useMemo(() => (diff ? { totals: diff, normalized } : undefined), [diff, normalized]);
  const colorMode = useStore((s) => s.colorMode);
  const order = useStore((s) => s.childOrder);
  const [focus, setFocus] = useState(0);
  const [selected, setSelected] = useState<number | null>(null);
  return (
    <FlameGraph
      {...graphProps}
      onContextMenu={(node, x, y) =>
        onMenu({ frame: props.graph.tree.frame[node], node, x, y, graph: props.graph })
      }
      order={order}
      colorMode={colorMode}
      dark={dark}
      focus={focus}
      onFocus={setFocus}
      selected={selected}
      onSelect={setSelected}
      highlight={null}
      diff={diffProp}
    />
  );
}
