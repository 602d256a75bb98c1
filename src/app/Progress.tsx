// Progress of the worker's current job.

import { useStore } from './store';

export function Progress() {
  const status = useStore((s) => s.status);
  const progress = useStore((s) => s.progress);
  const name = useStore((s) => s.loadingName);
  if (status !== 'loading' || !progress) return null;
  const pct = Math.round(progress.fraction * 100);
  return (
    <div className="progress-anchor">
      <div className="progress" role="status">
        <span>
          Opening {name} — {progress.phase}
        </span>
        <progress max={100} value={pct} aria-label="Parsing progress" />
      </div>
    </div>
  );
}
