// The call tree of the view on screen (calltree/CallTreeView.tsx), with the store's selection and
// search: a row selected is the flame graph's selected node and the table's function, and the
// search's matches are highlighted with their paths opened.

import { useMemo } from 'react';
import { CallTreeView } from '../calltree/CallTreeView';
import { nodeByFrames } from '../core/model/calltree';
import { weightUnit } from '../core/text/units';
import type { PageAnalysis as Analysis } from '../worker/protocol';
import type { MenuTarget } from './ContextMenu';
import { useStore } from './store';
import type { SearchState } from './useSearch';
import { showSandwich } from './view';

export function CallTreePanel({
  analysis,
  search,
  onMenu,
}: {
  analysis: Analysis;
  search: SearchState | null;
  onMenu: (t: MenuTarget) => void;
}) {
  const selected = useStore((s) => s.selectedNode);
  const pickNode = useStore((s) => s.pickNode);
  const unit = useMemo(() => weightUnit(analysis.profile.meta), [analysis]);
  const reveal = useMemo(
    () => (search?.tops ?? []).map((path) => nodeByFrames(analysis.tree, path)).filter((n) => n > 0),
    [search, analysis],
  );
  const frameOf = (node: number) => analysis.tree.frame[node];
  return (
    <CallTreeView
      tree={analysis.tree}
      profile={analysis.profile}
      unit={unit}
      diff={analysis.diff}
      selected={selected}
      onSelect={pickNode}
      match={search?.match ?? null}
      reveal={reveal}
      onOpen={(node) => {
        const f = frameOf(node);
        if (f >= 0 && f < analysis.profile.frames.count) void showSandwich(f);
      }}
      onContextMenu={(node, x, y) => onMenu({ frame: frameOf(node), node, x, y })}
    />
  );
}
