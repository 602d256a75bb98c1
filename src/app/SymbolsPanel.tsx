// Every mapped file of the profile with its status: symbolized by which file (and how it was
// matched), missing (with the exact path to copy from the machine that recorded it), or refused
// for another build-id; the samples each holds; what a dropped folder gave; one click to add more.

import { useEffect, useState } from 'react';
import type { MappingSamples } from '../core/symbols/modules';
import { basename } from '../core/text/names';
import type { FoldedMeta } from '../core/types';
import { FilePicker } from './FilePicker';
import { mappingSamplesOf } from './open';
import { PlacementForm } from './PlacementForm';
import { RememberedFiles } from './RememberedFiles';
import { useStore } from './store';
import { setMangled } from './view';

/** How many mapped files are listed before "more". */
const SHOWN = 12;

const pct = (n: number, total: number) =>
  total > 0 ? `${((100 * n) / total).toFixed(n / total < 0.001 && n > 0 ? 2 : 1)}%` : '';

function CopyPath({ path }: { path: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="link small"
      title="Copy the path: this file, from the machine that recorded the profile, symbolizes these frames"
      onClick={() => {
        void navigator.clipboard?.writeText(path).then(
          () => setCopied(true),
          () => setCopied(false),
        );
      }}
    >
      {copied ? 'copied' : 'copy path'}
    </button>
  );
}

/**
 * The profile's samples per mapped file: from its metadata, or asked of the worker when the fold
 * put them off (a large profile's); null while they are being counted.
 */
function useMappingSamples(meta: FoldedMeta | undefined): MappingSamples[] | null {
  const [asked, setAsked] = useState<{ meta: FoldedMeta; list: MappingSamples[] } | null>(null);
  useEffect(() => {
    if (!meta?.mappingSamplesPending) return;
    let live = true;
    mappingSamplesOf(meta).then(
      (list) => live && setAsked({ meta, list }),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [meta]);
  if (!meta?.mappingSamplesPending) return meta?.mappingSamples ?? [];
  return asked?.meta === meta ? asked.list : null;
}

/**
 * The frames a mapped file's code no symbol names shows as: `[xz]` (one frame per module), or
 * `xz+0x…` (one per address: Frames = addresses).
 */
function unnamedFrames(path: string, perAddress: boolean): string {
  const base = basename(path);
  return perAddress ? `${base}+0x…` : `[${base}]`;
}

/** Which mappings got symbols from which dropped files, and what stays unsymbolized. */
export function SymbolsPanel() {
  const symbols = useStore((s) => s.symbols);
  const folder = useStore((s) => s.folder);
  const remembered = useStore((s) => s.remembered);
  const meta = useStore((s) => s.analysis?.profile.meta);
  const mangled = useStore((s) => s.view.mangled);
  const perAddress = useStore((s) => s.view.granularity === 'addresses');
  const report = useStore((s) => s.report);
  // While a profile opens, its first picture may already be named by the files dropped with it
  // (perf.data's sample): which files name which mappings is known when the open ends.
  const matching = useStore((s) => s.status === 'loading' && s.symbols === null);
  const [all, setAll] = useState(false);
  const counted = useMappingSamples(meta);
  const format = meta?.format;
  if (format === 'folded') return null;
  if (report) {
    // An HTML report's names were resolved when it was made: nothing to drop here.
    const from = meta?.extra?.['Symbols from'];
    return (
      <section className="symbols" aria-label="Symbols">
        <h2>Symbols</h2>
        <p className="muted">
          Names were resolved when this report was made{from ? ` (from ${from})` : ''}; code without symbols
          then stays one frame per module.
        </p>
      </section>
    );
  }
  const matched = new Map((symbols?.report.matched ?? []).map((m) => [m.mappingPath, m]));
  const mismatched = new Map((symbols?.report.mismatched ?? []).map((m) => [m.mappingPath, m]));
  const held = new Map((counted ?? []).map((m) => [m.path, m]));
  // A file refused for its build-id is said by its mapping's line (and a warning), not as one that
  // matches no mapping: it was named like one.
  const refused = new Set((symbols?.report.mismatched ?? []).map((m) => m.elfFile));
  const unmatched = (symbols?.report.unmatchedFiles ?? []).filter((f) => !refused.has(f));
  // Every mapped file (by path), heaviest first; pseudo mappings ([vdso]) have nothing to drop.
  const paths = [...new Set((meta?.mappings ?? []).map((m) => m.path))].filter(
    (p) => p !== '' && !p.startsWith('['),
  );
  paths.sort((a, b) => (held.get(b)?.total ?? 0) - (held.get(a)?.total ?? 0));
  // Files without samples wait behind a toggle: nothing there to name (all are listed while counting).
  const heavy = counted === null ? paths : paths.filter((p) => held.has(p));
  const shown = all ? paths : heavy.slice(0, SHOWN);
  const hidden = paths.length - shown.length;
  const embedded = format === 'pprof-raw';
  return (
    <section className="symbols" aria-label="Symbols">
      <h2>Symbols</h2>
      {!symbols && (
        <p className="muted">
          {embedded
            ? 'Names come from the file’s own symbol section.'
            : format === 'pprof'
              ? 'Names come from the file itself; address-only locations take names from the binaries you drop here.'
              : 'Code without symbols shows as one frame per module ([libc.so.6]). Drop the binary and its libraries here, or a folder of them (a sysroot, a .build-id tree), or a bundle made by flamelens bundle.'}
        </p>
      )}
      {symbols && <PlacementForm />}
      {!embedded && paths.length > 0 && (
        <ul className="sym-list" aria-label="Mapped files">
          {shown.map((p) => {
            const m = matched.get(p);
            const bad = mismatched.get(p);
            const h = held.get(p);
            const samples = h ? (
              <span
                className="sym-samples"
                title="samples whose leaf is in this file; samples with any frame in it"
              >
                {pct(h.self, h.of)} self · {pct(h.total, h.of)} total
              </span>
            ) : (
              <span className="sym-samples muted">{counted ? 'no samples' : 'counting samples…'}</span>
            );
            if (m?.noSymbols)
              return (
                <li key={p} className="missing" data-status="stripped">
                  – {basename(p)}{' '}
                  <span className="muted">
                    {m.elfFile} (by {m.by}) is stripped: no symbol covers its code, its frames stay{' '}
                    <code>{unnamedFrames(p, perAddress)}</code>; drop its debug file
                  </span>{' '}
                  {samples}
                </li>
              );
            if (m)
              return (
                <li key={p} className="ok" data-status="symbolized">
                  ✓ {basename(p)}{' '}
                  <span className="muted">
                    from {m.elfFile}
                    {m.debugFile &&
                      m.debugFile !== m.elfFile &&
                      ` with its debug file ${basename(m.debugFile)}`}
                    {m.debugFile === m.elfFile && ' (a debug file)'} (by {m.by})
                  </span>{' '}
                  {samples}
                </li>
              );
            if (bad)
              return (
                <li key={p} className="bad" data-status="mismatch">
                  ✗ {basename(p)}{' '}
                  <span>
                    build-id mismatch: {bad.elfFile} is {bad.fileBuildId.slice(0, 12)}…, the profile’s{' '}
                    {bad.mappingBuildId.slice(0, 12)}…: not used
                  </span>{' '}
                  {samples}
                </li>
              );
            if (matching)
              return (
                <li key={p} data-status="pending">
                  – {basename(p)} <span className="muted">matching symbol files…</span> {samples}
                </li>
              );
            return (
              <li key={p} className="missing" data-status="missing">
                – {basename(p)}{' '}
                <span className="muted">
                  unsymbolized, its frames stay <code>{unnamedFrames(p, perAddress)}</code>: copy
                </span>{' '}
                <code>{p}</code> <CopyPath path={p} /> {samples}
              </li>
            );
          })}
          {(hidden > 0 || all) && paths.length > heavy.length && (
            <li>
              <button type="button" className="link small" onClick={() => setAll(!all)}>
                {all
                  ? 'only files with samples'
                  : `${hidden} more mapped files (${paths.length - heavy.length} without samples)`}
              </button>
            </li>
          )}
        </ul>
      )}
      {remembered && remembered.length > 0 && (
        <p className="muted remembered-note">
          From files this browser remembers: {remembered.map((n) => basename(n)).join(', ')}.
        </p>
      )}
      {folder && (
        <p className="muted folder-note">
          From folder {folder.name}: {folder.read.length} of {folder.files} files read
          {folder.headsRead > 0 ? ` (and the first 64 KB of ${folder.headsRead})` : ''}.
        </p>
      )}
      {symbols && (
        <>
          <ul className="sym-list">
            {unmatched.map((f) => (
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
      <div className="sym-add">
        <FilePicker label="Add binaries" text="Add binaries…" small />
        <FilePicker label="Add a folder of binaries" text="Add a folder…" small folder />
      </div>
      <RememberedFiles />
    </section>
  );
}
