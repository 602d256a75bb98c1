// The whole page as a drop target: files dropped anywhere open like the file picker's. With a
// profile open, the overlay offers two targets: open (replace it) or compare with it.

import { useEffect, useState } from 'react';
import { compareFiles, openEntries, openFiles } from './open';
import { useStore } from './store';

export function DropZone({ children }: { children: React.ReactNode }) {
  const [over, setOver] = useState(false);
  const open = useStore((s) => s.analysis?.profile.meta.fileName);
  useEffect(() => {
    const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
    const onOver = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
      setOver(true);
    };
    const onLeave = (e: DragEvent) => {
      if (e.relatedTarget === null) setOver(false);
    };
    const onDrop = (e: DragEvent) => {
      e.preventDefault();
      setOver(false);
      const files = Array.from(e.dataTransfer?.files ?? []);
      if (files.length === 0) return;
      const target = e.target instanceof Element ? e.target.closest('[data-drop]') : null;
      const compare = target?.getAttribute('data-drop') === 'compare' && useStore.getState().analysis;
      // Entries must be taken during the event; a folder among them is walked, its files unread.
      const entries = Array.from(e.dataTransfer?.items ?? [])
        .map((i) => (i.kind === 'file' ? i.webkitGetAsEntry() : null))
        .filter((x): x is FileSystemEntry => x !== null);
      if (!compare && entries.some((x) => x.isDirectory)) {
        void openEntries(entries);
        return;
      }
      if (compare) void compareFiles(files);
      else void openFiles(files);
    };
    window.addEventListener('dragover', onOver);
    window.addEventListener('dragleave', onLeave);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragover', onOver);
      window.removeEventListener('dragleave', onLeave);
      window.removeEventListener('drop', onDrop);
    };
  }, []);
  return (
    <div className={`app${over ? ' drag-over' : ''}`}>
      {children}
      {over &&
        (open ? (
          <div className="drop-overlay two" data-testid="drop-overlay">
            <div className="drop-target" data-drop="open">
              Drop here to open
              <small>replaces {open}; binaries or a folder of them dropped alone symbolize it</small>
            </div>
            <div className="drop-target compare" data-drop="compare">
              Drop here to compare
              <small>with {open} as the comparison, this file as the baseline</small>
            </div>
          </div>
        ) : (
          <div className="drop-overlay" aria-hidden="true">
            Drop the profile to open it
          </div>
        ))}
    </div>
  );
}
