// The comparison's controls: which side is the baseline (swap), what the widths show, how the
// change is measured, the colour legend, and the way back to one profile. A comparison of two
// time ranges of one profile (A the baseline, B compared) swaps its ranges.

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
