// What the main area shows (view.panel, in the link as `panel=`): the flame graph, the call tree,
// pprof's call graph, or the flame chart (stacks in time order).

import type { Panel } from '../core/view/schema';
import { useStore } from './store';
import { changeView } from './view';

const PANELS: { panel: Panel; label: string }[] = [
  { panel: 'flame', label: 'Flame graph' },
  { panel: 'calltree', label: 'Call tree' },
  { panel: 'callgraph', label: 'Call graph' },
  { panel: 'flamechart', label: 'Flame chart' },
];

export function PanelTabs() {
  const panel = useStore((s) => s.view.panel);
  return (
    <div className="tabs panel-tabs" role="tablist" aria-label="View">
      {PANELS.map((p) => (
        <button
          key={p.panel}
          type="button"
          role="tab"
          aria-selected={panel === p.panel}
          onClick={() => void changeView({ panel: p.panel })}
        >
          {p.label}
        </button>
      ))}
    </div>
  );
}
