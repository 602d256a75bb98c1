// "A new version of Flamelens is available — Reload": shown when a deployed update has installed.
// The new service worker waits (skipWaiting is off) until the user accepts, so the open page
// keeps working with the files it was built with.

import { useRegisterSW } from 'virtual:pwa-register/react';
import '../pwa/update-prompt.css';

const HOUR = 60 * 60 * 1000;

let reloading = false;
function reloadOnce() {
  if (reloading) return;
  reloading = true;
  window.location.reload();
}

/**
 * Accepts the waiting worker and reloads once it controls the page. workbox-window reloads by
 * itself only when the page was already controlled at registration; an update found later in the
 * session that first installed the app would otherwise activate without a reload.
 */
function acceptUpdate(update: (reload?: boolean) => Promise<void>) {
  navigator.serviceWorker?.addEventListener('controllerchange', reloadOnce, { once: true });
  void update(true);
}

export function UpdatePrompt() {
  const {
    needRefresh: [needRefresh, setNeedRefresh],
    updateServiceWorker,
  } = useRegisterSW({
    onNeedReload: reloadOnce,
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
      <button type="button" className="primary" onClick={() => acceptUpdate(updateServiceWorker)}>
        Reload
      </button>
      <button type="button" aria-label="Dismiss update notice" onClick={() => setNeedRefresh(false)}>
        ×
      </button>
    </div>
  );
}
