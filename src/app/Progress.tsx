// Progress of the worker's current job.

import { useRef } from 'react';
import { formatBytes, formatCount, formatTime } from '../core/text/units';
import { cancelJob } from './open';
import { useStore } from './store';

export function Progress() {
  const status = useStore((s) => s.status);
  const progress = useStore((s) => s.progress);
  const name = useStore((s) => s.loadingName);
  const size = useStore((s) => s.loadingBytes);
  // A first picture drawn from a sample of a file's records, shown while the rest is read.
  const sampled = useStore((s) => s.analysis?.sampledEvery);
  // When this phase started, for the estimate of the time left.
  const started = useRef<{ phase: string; at: number } | null>(null);
  if (status !== 'loading' || !progress) {
    started.current = null;
    return null;
  }
  if (started.current?.phase !== progress.phase)
    started.current = { phase: progress.phase, at: performance.now() };
  const pct = Math.round(progress.fraction * 100);
  const elapsed = performance.now() - started.current.at;
  const left =
    progress.fraction > 0.05 && progress.fraction < 1
      ? (elapsed / progress.fraction) * (1 - progress.fraction)
      : 0;
  const bytes =
    size > 0 && (progress.phase === 'parse' || progress.phase === 'read')
      ? ` · ${formatBytes(size * progress.fraction)} of ${formatBytes(size)}`
      : '';
  return (
    <div className="progress-anchor">
      <div className="progress" role="status">
        <span>
          Opening {name} — {progress.phase}
          {bytes}
          {left > 1000 && ` · about ${formatTime(left * 1000)} left`}
          {sampled !== undefined && ` · the graph so far is drawn from 1 in ${formatCount(sampled)} records`}
        </span>
        <progress max={100} value={pct} aria-label="Parsing progress" />
        <button type="button" onClick={cancelJob}>
          Cancel
        </button>
      </div>
    </div>
  );
}
