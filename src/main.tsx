import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { narrowConnectSrc } from './app/connectPolicy';
import { ErrorBoundary } from './app/ErrorBoundary';
import './app/styles.css';

// frame-ancestors 'none' cannot be said in a meta tag (hosts that set headers send it, see
// docs/hosting.md): a page shown inside another site's frame does not start, so that site cannot
// drive it under the user's clicks.
if (window.top !== window.self) {
  document.getElementById('root')!.textContent =
    'Flamelens does not run inside a frame of another page: open it in its own tab.';
} else {
  narrowConnectSrc();
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <ErrorBoundary>
        <App />
      </ErrorBoundary>
    </StrictMode>,
  );
}
