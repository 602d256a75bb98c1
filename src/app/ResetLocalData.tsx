// "Reset local data": deletes what this page keeps in this browser (kept workspaces, remembered
// symbol files, settings), after asking, then reloads the page without a workspace in its link.
// On the start page and in the error boundary's message, so damaged storage never locks anyone out.

import { useState } from 'react';
import { resetLocalData } from './idb';

export function ResetLocalData({ className }: { className?: string }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className={className}
      disabled={busy}
      title="Forget every profile, file and setting this page keeps in this browser"
      onClick={async () => {
        if (!confirm('Forget every profile, symbol file and setting this page keeps in this browser?'))
          return;
        setBusy(true);
        await resetLocalData();
        location.replace(`${location.pathname}${location.search}`);
      }}
    >
      Reset local data
    </button>
  );
}
