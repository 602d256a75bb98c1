// What the main area shows (view.panel, in the link as `panel=`): the flame graph, the call tree,
// pprof's call graph, or the flame chart (stacks in time order).

import type { Panel } from '../core/view/schema';
import { useStore } from './store';
import { type TabItem, TabList } from './TabList';
import { changeView } from './view';

const PANELS: TabItem<Panel>[] = [
  { id: 'flame', label: 'Flame graph' },
  { id: 'calltree', label: 'Call tree' },
  { id: 'callgraph', label: 'Call graph' },
  { id: 'flamechart', label: 'Flame chart' },
];

export function PanelTabs() {
  const panel = useStore((s) => s.view.panel);
  return (
    <TabList
      tabs={PANELS}
      selected={panel}
      onChoose={(p) => void changeView({ panel: p })}
      label="View"
      className="panel-tabs"
    />
  );
}
