// "A new version of Flamelens is available — Reload": shown when a deployed update has installed.
// The new service worker waits (skipWaiting is off) until the user accepts, so the open page
// keeps working with the files it was built with.

import { useRegisterSW } from 'virtual:pwa-register/react';
import '../pwa/update-prompt.css';

const HOUR = 60 * 60 * 1000;

export function UpdatePrompt() {
  const {
    needRefresh: [needRefresh, setNeedRefresh],
    updateServiceWorker,
  } = useRegisterSW({
    onRegisteredSW(_url, registration) {
      // Long-lived tabs look for a new deployment now and then (a no-op offline).
      if (registration) setInterval(() => void registration.update().catch(() => {}), HOUR);
    },
    onRegisterError(error) {
      console.warn('Flamelens: service worker registration failed; no offline use', error);
    },
  });
  if (!needRefresh) return null;
  return (
    <div className="update-prompt" role="status">
      <span>A new version of Flamelens is available</span>
      <button type="button" className="primary" onClick={() => void updateServiceWorker(true)}>
        Reload
      </button>
      <button type="button" aria-label="Dismiss update notice" onClick={() => setNeedRefresh(false)}>
        ×
      </button>
    </div>
  );
}
