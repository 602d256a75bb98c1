// Sample labels (pprof labels, perf's process and thread): group the graph by one (its values
// become root frames) and keep or hide samples by value (pprof's -tagfocus / -tagignore).

import { addLabelValue, describeFilter } from '../core/model/labels';
import { useStore } from './store';
import { changeView } from './view';

export function LabelControls() {
  const labels = useStore((s) => s.labels);
  const groupBy = useStore((s) => s.view.groupBy);
  const filters = useStore((s) => s.view.labelFilters);
  if (labels.length === 0 && filters.length === 0 && !groupBy) return null;
  const addFilter = (spec: string) => {
    const [op, key, value] = spec.split('\u001f') as ['focus' | 'ignore', string, string];
    void changeView({ labelFilters: addLabelValue(filters, op, key, value) });
  };
  return (
    <fieldset className="label-controls" aria-label="Labels">
      <label>
        Group by{' '}
        <select
          aria-label="Group by"
          value={groupBy ?? ''}
          onChange={(e) => void changeView({ groupBy: e.currentTarget.value || undefined })}
        >
          <option value="">nothing</option>
          {/* Numeric labels (a heap block's size) make one root per number: filter them by range instead. */}
          {labels
            .filter((l) => l.kind === 'string' || l.key === groupBy)
            .map((l) => (
              <option key={l.key} value={l.key}>
                {l.key} ({l.distinct} values)
              </option>
            ))}
        </select>
      </label>
      <label>
        Label filter{' '}
        <select
          aria-label="Label filter"
          value=""
          onChange={(e) => {
            if (e.currentTarget.value) addFilter(e.currentTarget.value);
          }}
        >
          <option value="">add…</option>
          {(['focus', 'ignore'] as const).map((op) => (
            <optgroup key={op} label={op === 'focus' ? 'only samples with' : 'hide samples with'}>
              {labels.flatMap((l) =>
                l.values.map((v) => (
                  <option key={`${op}-${l.key}-${v.value}`} value={`${op}\u001f${l.key}\u001f${v.value}`}>
                    {l.key}={v.value}
                  </option>
                )),
              )}
            </optgroup>
          ))}
        </select>
      </label>
      {filters.map((f, i) => (
        <span key={describeFilter(f)} className="chip">
          {describeFilter(f)}{' '}
          <button
            type="button"
            aria-label={`Remove ${describeFilter(f)}`}
            onClick={() => void changeView({ labelFilters: filters.filter((_, j) => j !== i) })}
          >
            ×
          </button>
        </span>
      ))}
    </fieldset>
  );
}
