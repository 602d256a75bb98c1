// The profile on screen: graph toolbar, transform chips, the timeline (profiles with time stamps),
// the main view the view's panel names (the flame graph or the sandwich, the call tree, the call
// graph, the flame chart) over the function table (a handle between them, Splitter, shares the
// height), and a context menu shared by graph frames, tree rows and table rows.

import { useCallback, useEffect, useState } from 'react';
import { FunctionTable } from '../table/FunctionTable';
import { useTableSort } from '../table/sortState';
import type { PageAnalysis as Analysis } from '../worker/protocol';
import { CallGraphPanel } from './CallGraphPanel';
import { CallTreePanel } from './CallTreePanel';
import { ContextMenu, type MenuTarget } from './ContextMenu';
import { DiffControls } from './DiffControls';
import { FlameChartPanel } from './FlameChartPanel';
import { GraphToolbar } from './GraphToolbar';
import { LabelControls } from './LabelControls';
import { MainGraph } from './MainGraph';
import { isOpening } from './opening';
import { PanelTabs } from './PanelTabs';
import { SandwichView } from './SandwichView';
import { Splitter, splitStyle } from './Splitter';
import { useStore } from './store';
import { TimelinePanel } from './TimelinePanel';
import { TransformChips } from './TransformChips';
import { useSearch } from './useSearch';
import { showSandwich } from './view';

export function ProfileView({ analysis, side }: { analysis: Analysis; side: React.ReactNode }) {
  const mode = useStore((s) => s.view.mode);
  const panel = useStore((s) => s.view.panel);
  const diffSandwich = useStore((s) => s.view.mode === 'diff' && s.view.sandwich !== undefined);
  const selected = useStore((s) => s.selectedFrame);
  const selectFrame = useStore((s) => s.selectFrame);
  const normalized = useStore((s) => s.view.diff.normalized);
  const split = useStore((s) => s.view.split);
  const { sort, sortBy, setSort } = useTableSort();
  // A comparison's table opens sorted by the size of the change; one profile's by self.
  const comparing = analysis.diff !== undefined;
  useEffect(() => {
    const s = useTableSort.getState().sort;
    const diffKey = s.key.startsWith('base') || s.key.startsWith('delta');
    if (comparing && !diffKey) setSort({ key: 'delta', desc: true });
    if (!comparing && diffKey) setSort({ key: 'self', desc: true });
  }, [comparing, setSort]);
  const [menu, setMenu] = useState<MenuTarget | null>(null);
  const openMenu = useCallback((t: MenuTarget) => setMenu(t), []);
  const search = useSearch();
  return (
    <main className="profile">
      <GraphToolbar analysis={analysis} result={search} />
      <DiffControls />
      <LabelControls />
      <TransformChips />
      <TimelinePanel />
      <PanelTabs />
      <div className="split" style={splitStyle(split)}>
        {panel === 'calltree' ? (
          <CallTreePanel analysis={analysis} search={search} onMenu={openMenu} />
        ) : panel === 'callgraph' ? (
          <CallGraphPanel />
        ) : panel === 'flamechart' ? (
          <FlameChartPanel />
        ) : mode === 'sandwich' || diffSandwich ? (
          <SandwichView onMenu={openMenu} />
        ) : (
          // Mounted anew when the first picture replaces the opening frame (opening.ts): it measures
          // its box then, in the layout the profile's toolbar and panels make, as a graph mounted
          // with its profile always has; from there on it stays, as between a preview and its tree.
          <MainGraph
            key={isOpening(analysis) ? 'opening' : 'profile'}
            analysis={analysis}
            search={search}
            onMenu={openMenu}
          />
        )}
        <Splitter />
        <div className="lower">
          <FunctionTable
            analysis={analysis}
            normalized={normalized}
            sort={sort}
            onSort={sortBy}
            selected={selected}
            onSelect={selectFrame}
            onOpen={(frame) => void showSandwich(frame)}
            onMenu={(frame, x, y) => openMenu({ frame, node: null, x, y })}
          />
          {side}
        </div>
      </div>
      {menu && <ContextMenu target={menu} analysis={analysis} onClose={() => setMenu(null)} />}
    </main>
  );
}
