// The page: toolbar, progress, messages, and either the open profile or the start page.

import { useEffect, useMemo, useState } from 'react';
import { installLaunchQueue } from '../pwa/launchQueue';
import { DropZone } from './DropZone';
import { Messages } from './Messages';
import { MetadataPanel } from './MetadataPanel';
import { openFiles } from './open';
import { isOpening, openingAnalysis } from './opening';
import { ProfileView } from './ProfileView';
import { Progress } from './Progress';
import { SourcePanel } from './SourcePanel';
import { StartPage } from './StartPage';
import { SymbolsPanel } from './SymbolsPanel';
import { useStore } from './store';
import { Toolbar } from './Toolbar';
import { UpdatePrompt } from './UpdatePrompt';
import { useUrlState } from './useUrlState';
import { warmUpWorker } from './worker';

export function App() {
  useUrlState();
  useEffect(warmUpWorker, []);
  // The installed app opens profile files from the operating system (File Handling API).
  useEffect(() => installLaunchQueue((file) => void openFiles([file])), []);
  const theme = useStore((s) => s.theme);
  const analysis = useStore((s) => s.analysis);
  const status = useStore((s) => s.status);
  const loadingName = useStore((s) => s.loadingName);
  const reading = useReadWait(useStore((s) => s.progress?.phase === 'read' && s.progress.fraction < 1));
  // A first profile opening: its view is mounted once its files are read, and the first picture
  // fills it (opening.ts).
  const opening = useMemo(
    () => (status === 'loading' && loadingName !== null && !reading ? openingAnalysis(loadingName) : null),
    [status, loadingName, reading],
  );
  const shown = analysis ?? opening;
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  // Follow the system's light/dark preference until the user picks a theme.
  useEffect(() => {
    if (typeof matchMedia !== 'function') return;
    const mq = matchMedia('(prefers-color-scheme: dark)');
    const onChange = () => {
      if (!useStore.getState().view.theme) useStore.getState().setTheme(mq.matches ? 'dark' : 'light', false);
    };
    mq.addEventListener('change', onChange);
    return () => mq.removeEventListener('change', onChange);
  }, []);
  return (
    <DropZone>
      <UpdatePrompt />
      <Toolbar />
      <Progress />
      <Messages />
      {shown ? (
        <ProfileView
          analysis={shown}
          side={
            <aside className="side" aria-label="Profile details">
              {!isOpening(shown) && (
                <>
                  <SourcePanel analysis={shown} />
                  <SymbolsPanel />
                  <MetadataPanel analysis={shown} />
                </>
              )}
            </aside>
          }
        />
      ) : (
        status !== 'loading' && <StartPage />
      )}
    </DropZone>
  );
}

/**
 * How long the opening frame waits for the files' read: a read of seconds (a large file's) shows
 * it then, rather than the progress bar alone on an empty page.
 */
const READ_WAIT_MS = 300;

/** Whether the files are still being read, until READ_WAIT_MS have passed. */
function useReadWait(reading: boolean): boolean {
  const [waited, setWaited] = useState(false);
  useEffect(() => {
    setWaited(false);
    if (!reading) return;
    const t = setTimeout(() => setWaited(true), READ_WAIT_MS);
    return () => clearTimeout(t);
  }, [reading]);
  return reading && !waited;
}
