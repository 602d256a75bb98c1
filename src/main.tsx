import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { ErrorBoundary } from './app/ErrorBoundary';
import { linkOrigins } from './core/view/schema';
import './app/styles.css';

/**
 * The page's own connect-src, narrowed to what the link it was opened with names: index.html's
 * policy allows any http(s) origin (a link may name any server), and a second policy added here
 * can only narrow it (policies intersect), before any fetch. A page opened without a link keeps
 * the wide one: its user may open any URL from the start page. Not in the dev server, whose page
 * has no policy.
 */
function narrowConnectSrc(): void {
  if (!document.querySelector('meta[http-equiv="Content-Security-Policy"]')) return;
  if (!/(?:^#|&)(?:profileURL|baseURL|bin)=/.test(location.hash)) return;
  const meta = document.createElement('meta');
  meta.httpEquiv = 'Content-Security-Policy';
  meta.content = `connect-src ${["'self'", ...linkOrigins(location.hash)].join(' ')}`;
  document.head.appendChild(meta);
}

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
