// The error of the last job (dismissable) and the open profile's warnings.

import type { ProfileWarning } from '../core/types';
import { useStore } from './store';

const NO_WARNINGS: readonly ProfileWarning[] = [];

export function Messages() {
  const error = useStore((s) => s.error);
  const dismiss = useStore((s) => s.dismissError);
  const warnings = useStore((s) => s.analysis?.profile.meta.warnings ?? NO_WARNINGS);
  const fileName = useStore((s) => s.analysis?.profile.meta.fileName);
  const notice = useStore((s) => s.notice);
  if (!error && !notice && warnings.length === 0) return null;
  return (
    <section className="messages" aria-label="Errors and warnings">
      {error && (
        <div className="error" role="alert">
          <strong>Could not open {error.fileName}:</strong> {error.message}
          <button type="button" onClick={dismiss} aria-label="Dismiss error">
            ×
          </button>
        </div>
      )}
      {notice && (
        <div className="notice" role="status" data-testid="notice">
          {notice}
          <button
            type="button"
            onClick={() => useStore.setState({ notice: null })}
            aria-label="Dismiss notice"
          >
            ×
          </button>
        </div>
      )}
      {warnings.length > 0 && (
        <details className="warnings" open={warnings.length <= 3}>
          <summary>
            {warnings.length} warning{warnings.length === 1 ? '' : 's'} for {fileName}
          </summary>
          <ul>
            {warnings.map((w, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: warnings are a fixed list per profile
              <li key={i}>
                {w.message}
                {w.offset !== undefined && <span className="where"> (at byte {w.offset})</span>}
                {w.line !== undefined && <span className="where"> (at line {w.line})</span>}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
