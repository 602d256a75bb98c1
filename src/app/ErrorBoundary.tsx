// The page's last line: a view that throws while rendering leaves a message with what went wrong
// and two ways on (reload; reset the data this page keeps, when damaged storage is the cause),
// never a blank page.

import { Component, type ReactNode } from 'react';
import { ResetLocalData } from './ResetLocalData';

interface State {
  error: Error | null;
}

export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <main className="start crashed" role="alert">
        <h2>Flamelens stopped: {error.message || error.name}</h2>
        <p>
          The page could not show what it was asked to. Reloading opens the page again; if it stops again,
          what this browser keeps for it (recent profiles, remembered symbol files) may be damaged: resetting
          forgets them, and nothing else.
        </p>
        <p>
          <button type="button" className="primary" onClick={() => location.reload()}>
            Reload
          </button>{' '}
          <ResetLocalData />
        </p>
        <details>
          <summary>Details</summary>
          <pre>{error.stack ?? String(error)}</pre>
        </details>
      </main>
    );
  }
}
