// The symbol files this browser remembers (symbolStore.ts): name, size, build-id, last use, a
// Forget button each and Forget all, and the switch that turns remembering off.

import { useEffect, useState } from 'react';
import { formatBytes } from '../core/text/units';
import { useStore } from './store';
import {
  forgetRemembered,
  listRemembered,
  type RememberedMeta,
  rememberingOn,
  setRemembering,
} from './symbolStore';
import { forgetWorkspaceFiles } from './workspaceStore';

export function RememberedFiles({ open }: { open?: boolean }) {
  const [files, setFiles] = useState<RememberedMeta[] | null>(null);
  const [on, setOn] = useState(rememberingOn);
  // Re-listed whenever files are remembered (after a drop) or the worker's symbols change.
  const symbols = useStore((s) => s.symbols);
  const version = useStore((s) => s.rememberedVersion);
  useEffect(() => {
    void symbols;
    void version;
    void listRemembered().then(setFiles);
  }, [symbols, version]);
  if (files === null) return null;
  const forget = async (f?: RememberedMeta) => {
    const gone = f ? [f] : files;
    await forgetRemembered(f?.key);
    // The copies kept with workspaces go too: forgotten means this browser no longer has them.
    await forgetWorkspaceFiles(gone.map((g) => ({ name: g.name, size: g.size })));
    setFiles(await listRemembered());
  };
  const total = files.reduce((t, f) => t + f.size, 0);
  return (
    <details className="remembered" open={open}>
      <summary>
        Remembered symbol files ({files.length}
        {files.length > 0 ? `, ${formatBytes(total)}` : ''})
      </summary>
      <p className="muted">
        Binaries and debug files you drop are kept in this browser (never uploaded) and symbolize later
        profiles of the same programs.
      </p>
      <label className="check">
        <input
          type="checkbox"
          checked={on}
          onChange={(e) => {
            setRemembering(e.currentTarget.checked);
            setOn(e.currentTarget.checked);
          }}
        />{' '}
        Remember dropped symbol files
      </label>
      {files.length > 0 && (
        <>
          <ul aria-label="Remembered symbol files">
            {files.map((f) => (
              <li key={f.key}>
                {f.name}{' '}
                <span className="muted">
                  {formatBytes(f.size)}
                  {f.buildId ? ` · build-id ${f.buildId.slice(0, 12)}…` : ''} · used{' '}
                  {new Date(f.when).toLocaleString()}
                </span>{' '}
                <button type="button" aria-label={`Forget ${f.name}`} onClick={() => void forget(f)}>
                  Forget
                </button>
              </li>
            ))}
          </ul>
          <button type="button" onClick={() => void forget()}>
            Forget all symbol files
          </button>
        </>
      )}
    </details>
  );
}
