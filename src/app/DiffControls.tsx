// The comparison's controls: which side is the baseline (swap), what the widths show, how the
// change is measured, the colour legend, and the way back to one profile.

import { swapSides } from './open';
import { useStore } from './store';
import { changeView } from './view';

export function DiffControls() {
  const view = useStore((s) => s.view);
  const baseName = useStore((s) => s.analysis?.diff?.baseMeta.fileName);
  const compName = useStore((s) => s.analysis?.profile.meta.fileName);
  if (view.mode !== 'diff') return null;
  const set = (patch: Partial<typeof view.diff>) => void changeView({ diff: { ...view.diff, ...patch } });
  return (
    <fieldset className="diff-controls" aria-label="Comparison">
      <span className="diff-sides" data-testid="diff-sides">
        baseline <strong>{baseName ?? '…'}</strong> → comparison <strong>{compName}</strong>
      </span>
      <button type="button" onClick={() => void swapSides()}>
        ⇄ Swap
      </button>
      <label>
        Width{' '}
        <select
          value={view.diff.width}
          onChange={(e) => set({ width: e.currentTarget.value as typeof view.diff.width })}
        >
          <option value="comparison">comparison</option>
          <option value="baseline">baseline</option>
          <option value="both">both (vanished paths stay)</option>
        </select>
      </label>
      <label
        className="check"
        title="Off: compare sample counts (when both profiles cover the same duration)"
      >
        <input
          type="checkbox"
          checked={view.diff.normalized}
          onChange={(e) => set({ normalized: e.currentTarget.checked })}
        />{' '}
        Normalized
      </label>
      <span className="diff-legend" data-testid="diff-legend">
        <span>shrank</span>
        <span className="ramp" aria-hidden="true" />
        <span>grew</span>
        <span className="muted">
          ({view.diff.normalized ? 'change in share of each profile' : 'change in samples'}; + only in the
          comparison, − only in the baseline)
        </span>
      </span>
      <button type="button" onClick={() => void changeView({ mode: 'graph', sandwich: undefined })}>
        Close comparison
      </button>
    </fieldset>
  );
}
