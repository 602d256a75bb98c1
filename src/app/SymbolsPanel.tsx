// Which mappings got symbols from which dropped files, and what stays unsymbolized.

import { basename } from '../core/text/names';
import { FilePicker } from './FilePicker';
import { setMangled } from './jobs';
import { PlacementForm } from './PlacementForm';
import { useStore } from './store';

/** Which mappings got symbols from which dropped files, and what stays unsymbolized. */
export function SymbolsPanel() {
  const symbols = useStore((s) => s.symbols);
  const format = useStore((s) => s.analysis?.profile.meta.format);
  const mangled = useStore((s) => s.view.mangled);
  if (format === 'folded') return null;
  return (
    <section className="symbols" aria-label="Symbols">
      <h2>Symbols</h2>
      {!symbols && (
        <p className="muted">
          {format === 'pprof-raw'
            ? 'Names come from the file’s own symbol section.'
            : format === 'pprof'
              ? 'Names come from the file itself; address-only locations take names from the binaries you drop here.'
              : 'Code without symbols shows as one frame per module ([libc.so.6]). Drop the binary and its libraries here to see function names.'}
        </p>
      )}
      {symbols && (
        <>
          <PlacementForm />
          <ul className="sym-list">
            {symbols.report.matched.map((m) => (
              <li key={m.mappingPath} className="ok">
                ✓ {basename(m.mappingPath)}{' '}
                <span className="muted">
                  from {m.elfFile} (by {m.by})
                </span>
              </li>
            ))}
            {symbols.report.unsymbolizedMappings.map((p) => (
              <li key={p} className="missing">
                – {basename(p) || '(anonymous)'} <span className="muted">unsymbolized</span>
              </li>
            ))}
            {symbols.report.unmatchedFiles.map((f) => (
              <li key={f} className="unused">
                ? {f} <span className="muted">matches no mapping</span>
              </li>
            ))}
            {symbols.errors.map((e) => (
              <li key={e.fileName} className="bad">
                ✗ {e.message}
              </li>
            ))}
            {symbols.report.warnings.map((w) => (
              <li key={w} className="unused">
                ! {w}
              </li>
            ))}
          </ul>
          <label className="check">
            <input
              type="checkbox"
              checked={mangled}
              onChange={(e) => void setMangled(e.currentTarget.checked)}
            />{' '}
            Show mangled names
          </label>
        </>
      )}
      <FilePicker label="Add binaries" text="Add binaries…" small />
    </section>
  );
}
