// The main flame graph of the open profile, with the store's view and the search's highlight.

import { useMemo } from 'react';
import { FlameGraph } from '../flamegraph/FlameGraph';
import type { PageAnalysis as Analysis } from '../worker/protocol';
import type { MenuTarget } from './ContextMenu';
import { isOpening } from './opening';
import { useStore } from './store';
import type { SearchState } from './useSearch';

export function MainGraph({
  analysis,
  search: result,
  onMenu,
}: {
  analysis: Analysis;
  search: SearchState | null;
  onMenu: (t: MenuTarget) => void;
}) {
  const s = useStore();
  const highlight = useMemo(() => {
    if (result?.match) return result.match;
    if (s.selectedFrame === null) return null;
    const h = new Uint8Array(analysis.profile.frames.count);
    if (s.selectedFrame < h.length) h[s.selectedFrame] = 1;
    return h;
  }, [result, s.selectedFrame, analysis]);
  const heat = useHeat(analysis);
  const { diff } = analysis;
  const normalized = s.view.diff.normalized;
  const diffProp = useMemo(() => (diff ? { totals: diff, normalized } : undefined), [diff, normalized]);
  return (
    <FlameGraph
      graph={analysis}
      diff={diffProp}
      title={
        diff
          ? 'Differential flame graph'
          : s.view.inverted
            ? 'Inverted flame graph'
            : s.view.orientation === 'icicle'
              ? 'Icicle graph'
              : 'Flame graph'
      }
      orientation={s.view.orientation}
      order={s.childOrder}
      colorMode={s.colorMode}
      dark={s.theme === 'dark'}
      focus={s.focusNode}
      onFocus={s.setFocus}
      selected={s.selectedNode}
      onSelect={s.pickNode}
      highlight={highlight}
      heat={heat}
      onPainted={isOpening(analysis) ? undefined : s.paintedFirstFrame}
      onContextMenu={(node, x, y) => onMenu({ frame: analysis.tree.frame[node], node, x, y })}
      testId="main-graph"
    />
  );
}

function useHeat(analysis: Analysis) {
  return useMemo(() => {
    const self = analysis.functions.self;
    let max = 0;
    for (let i = 0; i < self.length; i++) if (self[i] > max) max = self[i];
    return (frame: number) => (max > 0 ? Math.sqrt((self[frame] ?? 0) / max) : 0);
  }, [analysis]);
}
