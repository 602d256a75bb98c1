// The comparison's controls: which side is the baseline (swap), the way back to one profile, what
// the widths show, how the change is measured, and the colour legend.
// A comparison of two time ranges of one profile (A the baseline, B compared) swaps its ranges.

import { describeRange } from '../core/model/timeline';
import type { FoldedMeta } from '../core/types';
import { comparesRanges } from '../core/view/schema';
import { swapSides } from './open';
import { useStore } from './store';
import { changeView, swapRanges } from './view';

/** A side's name: its file, and the time range its samples are from (a comparison of two ranges). */
const sideName = (m: Pick<FoldedMeta, 'fileName' | 'timeRange'> | undefined, label: string) =>
  m && (m.timeRange ? `${label} ${describeRange(m.timeRange)} of ${m.fileName}` : m.fileName);

export function DiffControls() {
  const view = useStore((s) => s.view);
  const baseName = useStore((s) => sideName(s.analysis?.diff?.baseMeta, 'A'));
  const compName = useStore((s) => sideName(s.analysis?.profile.meta, 'B'));
  const mismatch = useStore((s) => s.analysis?.diff?.mismatch);
  if (view.mode !== 'diff') return null;
  const set = (patch: Partial<typeof view.diff>) => void changeView({ diff: { ...view.diff, ...patch } });
  return (
    <fieldset className="diff-controls" aria-label="Comparison">
      <span className="diff-sides" data-testid="diff-sides">
        baseline <strong>{baseName ?? '…'}</strong> → comparison <strong>{compName}</strong>
      </span>
      <button type="button" onClick={() => void (comparesRanges(view) ? swapRanges() : swapSides())}>
        ⇄ Swap
      </button>
      <button type="button" onClick={() => void changeView({ mode: 'graph', sandwich: undefined })}>
        Close comparison
      </button>
      <label>
        Width{' '}
        <select
          title="What the bars’ widths show: both sides’ samples keep the paths that vanished visible"
          value={view.diff.width}
          onChange={(e) => set({ width: e.currentTarget.value as typeof view.diff.width })}
        >
          <option value="comparison">comparison</option>
          <option value="baseline">baseline</option>
          <option value="both">both sides</option>
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
      <span
        className="diff-legend"
        data-testid="diff-legend"
        title="A bar’s colour is its change; + marks a path only in the comparison, − one only in the baseline"
      >
        <span>shrank</span>
        <span className="ramp" aria-hidden="true" />
        <span>grew</span>
        <span className="muted">
          (change in {view.diff.normalized ? 'share of each profile' : 'samples'}; + new, − gone)
        </span>
      </span>
      {mismatch && (
        <span className="diff-mismatch" role="status" data-testid="diff-mismatch">
          Warning: {mismatch}
        </span>
      )}
    </fieldset>
  );
}
