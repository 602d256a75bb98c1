import { useEffect, useId, useState } from 'react';
import { formatBytes, formatCount, formatTime } from '../core/text/format';
import { basename } from '../core/text/names';
import type { ProfileWarning } from '../core/types';
import { installLaunchQueue } from '../pwa/launchQueue';
import type { PageAnalysis as Analysis } from '../worker/protocol';
import { ExportMenu } from './ExportMenu';
import { ProfileView } from './ProfileView';
import { useStore, warmUpWorker } from './store';
import { UpdatePrompt } from './UpdatePrompt';
import { useUrlState } from './useUrlState';

const NO_WARNINGS: readonly ProfileWarning[] = [];

/** A real libprofiler profile of a small C++ program, with the binary that symbolizes it. */
export const EXAMPLE = {
  files: ['examples/cxx_demangle.prof', 'examples/cxx_demangle'],
  label: 'cxx_demangle.prof + its binary (gperftools, 64-bit, C++)',
};

export function App() {
  useUrlState();
  useEffect(warmUpWorker, []);
  // The installed app opens profile files from the operating system (File Handling API).
  useEffect(() => installLaunchQueue((file) => void useStore.getState().openFiles([file])), []);
  const theme = useStore((s) => s.theme);
  const analysis = useStore((s) => s.analysis);
  const status = useStore((s) => s.status);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  // Follow the system's light/dark preference until the user picks a theme.
  useEffect(() => {
    if (typeof matchMedia !== 'function') return;
    const mq = matchMedia('(prefers-color-scheme: dark)');
    const onChange = () => {
      if (!useStore.getState().themeChosen)
        useStore.getState().setTheme(mq.matches ? 'dark' : 'light', false);
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
      {analysis ? (
        <ProfileView
          analysis={analysis}
          side={
            <aside className="side" aria-label="Profile details">
              <SymbolsPanel />
              <MetadataPanel analysis={analysis} />
            </aside>
          }
        />
      ) : (
        status !== 'loading' && <StartPage />
      )}
    </DropZone>
  );
}

function DropZone({ children }: { children: React.ReactNode }) {
  const openFiles = useStore((s) => s.openFiles);
  const [over, setOver] = useState(false);
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
      if (files.length > 0) void openFiles(files);
    };
    window.addEventListener('dragover', onOver);
    window.addEventListener('dragleave', onLeave);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragover', onOver);
      window.removeEventListener('dragleave', onLeave);
      window.removeEventListener('drop', onDrop);
    };
  }, [openFiles]);
  return (
    <div className={`app${over ? ' drag-over' : ''}`}>
      {children}
      {over && (
        <div className="drop-overlay" aria-hidden="true">
          Drop the profile to open it
        </div>
      )}
    </div>
  );
}

/** A labelled, multi-file input: opens a profile and/or binaries, like a drop. */
function FilePicker({ label, text, small }: { label: string; text: string; small?: boolean }) {
  const id = useId();
  const openFiles = useStore((s) => s.openFiles);
  return (
    <>
      <label htmlFor={id} className={small ? 'file-label small' : 'file-label'}>
        {text}
      </label>
      <input
        id={id}
        className="file-input"
        type="file"
        multiple
        aria-label={label}
        onChange={(e) => {
          const files = Array.from(e.currentTarget.files ?? []);
          if (files.length > 0) void openFiles(files);
          e.currentTarget.value = '';
        }}
      />
    </>
  );
}

function Toolbar() {
  const analysis = useStore((s) => s.analysis);
  const theme = useStore((s) => s.theme);
  const setTheme = useStore((s) => s.setTheme);
  const focusNode = useStore((s) => s.focusNode);
  return (
    <header className="toolbar">
      <h1 className="logo">Flamelens</h1>
      <FilePicker label="Open profile" text="Open profile…" />
      {analysis && <span className="current-file">{analysis.profile.meta.fileName}</span>}
      <span className="spacer" />
      {analysis && (
        <ExportMenu
          analysis={analysis}
          canvas={() => document.querySelector<HTMLCanvasElement>('[data-testid="main-graph"] .fg-canvas')}
          focusNode={focusNode}
        />
      )}
      <button
        type="button"
        onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')}
        aria-label="Toggle dark theme"
      >
        {theme === 'dark' ? '☀ Light' : '☾ Dark'}
      </button>
    </header>
  );
}

function Progress() {
  const status = useStore((s) => s.status);
  const progress = useStore((s) => s.progress);
  const name = useStore((s) => s.loadingName);
  if (status !== 'loading' || !progress) return null;
  const pct = Math.round(progress.fraction * 100);
  return (
    <div className="progress" role="status">
      <span>
        Opening {name} — {progress.phase}
      </span>
      <progress max={100} value={pct} aria-label="Parsing progress" />
    </div>
  );
}

function Messages() {
  const error = useStore((s) => s.error);
  const dismiss = useStore((s) => s.dismissError);
  const warnings = useStore((s) => s.analysis?.profile.meta.warnings ?? NO_WARNINGS);
  const fileName = useStore((s) => s.analysis?.profile.meta.fileName);
  if (!error && warnings.length === 0) return null;
  return (
    <section className="messages" aria-label="Errors and warnings">
      {error && (
        <div className="error" role="alert">
          <strong>Could not open {error.fileName}:</strong> {error.message}
          <button type="button" onClick={dismiss} aria-label="Dismiss error">
            ×
          </button>
        </div>
      )}
      {warnings.length > 0 && (
        <details className="warnings" open={warnings.length <= 3}>
          <summary>
            {warnings.length} warning{warnings.length === 1 ? '' : 's'} for {fileName}
          </summary>
          <ul>
            {warnings.map((w, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: warnings are a fixed list per profile
              <li key={i}>
                {w.message}
                {w.offset !== undefined && <span className="where"> (at byte {w.offset})</span>}
                {w.line !== undefined && <span className="where"> (at line {w.line})</span>}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function StartPage() {
  const openBuffers = useStore((s) => s.openBuffers);
  const [failed, setFailed] = useState<string | null>(null);
  const openExample = async () => {
    performance.mark('flamelens:file-received');
    try {
      const files = await Promise.all(
        EXAMPLE.files.map(async (url) => {
          const res = await fetch(url);
          if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
          return { name: url.slice(url.lastIndexOf('/') + 1), buffer: await res.arrayBuffer() };
        }),
      );
      await openBuffers(files);
    } catch (e) {
      setFailed((e as Error).message);
    }
  };
  return (
    <main className="start">
      <h2>Drop a CPU profile anywhere on this page</h2>
      <p>
        gperftools (<code>CPUPROFILE=out.prof ./prog</code>) 32- or 64-bit, either byte order; DCPI;{' '}
        <code>pprof --raw</code> output; folded stacks; gzipped or not. Nothing is uploaded: the file is read
        in your browser.
      </p>
      <p>
        <button type="button" className="primary" onClick={openExample}>
          Open the example profile
        </button>{' '}
        <span className="muted">{EXAMPLE.label}</span>
      </p>
      {failed && <p role="alert">Could not load the example: {failed}</p>}
    </main>
  );
}

function MetadataPanel({ analysis }: { analysis: Analysis }) {
  const fileSize = useStore((s) => s.fileSize);
  const m = analysis.profile.meta;
  const rows: [string, string][] = [
    ['File', `${m.fileName} (${formatBytes(fileSize)})`],
    ['Format', m.format],
  ];
  if (m.wordSize) rows.push(['Word size', `${m.wordSize}-bit`]);
  if (m.byteOrder) rows.push(['Byte order', `${m.byteOrder} endian`]);
  rows.push([
    'Period',
    m.periodUs > 0
      ? `${formatCount(m.periodUs)} µs (${formatCount(1e6 / m.periodUs)} Hz)`
      : 'unknown (counts only)',
  ]);
  rows.push(['Samples', formatCount(m.totalSamples)]);
  if (m.samplingTimeUs !== undefined) rows.push(['Sampling time', formatTime(m.samplingTimeUs)]);
  // A raw preview's stacks and frames are only the coarse tree's: the real counts come with the parse.
  const counting = analysis.functionsPending ? 'counting…' : null;
  rows.push(['Unique stacks', counting ?? formatCount(analysis.profile.stackCount)]);
  rows.push(['Functions', counting ?? formatCount(analysis.profile.frames.count)]);
  for (const [k, v] of Object.entries(m.extra ?? {})) rows.push([k, v]);
  const t = analysis.timings;
  rows.push([
    'Read in',
    counting
      ? `first picture in ${(t.parseMs + t.foldMs + t.treeMs).toFixed(0)} ms; parsing…`
      : `parse ${t.parseMs.toFixed(0)} ms · fold ${t.foldMs.toFixed(0)} ms · tree ${t.treeMs.toFixed(0)} ms`,
  ]);
  return (
    <section className="meta" aria-label="Profile metadata" data-timings={JSON.stringify(t)}>
      <h2>Profile</h2>
      <dl>
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      {m.headerLines && m.headerLines.length > 0 && (
        <>
          <h3>Header</h3>
          <pre className="header-lines">
            {m.headerLines.map((l) => `${l.key} ${l.value}${l.known ? '' : '   (unknown line)'}`).join('\n')}
          </pre>
        </>
      )}
      <h3>Mapped objects ({m.mappings.length})</h3>
      <ul className="mappings">
        {m.mappings.map((mp) => (
          <li key={`${mp.start}-${mp.path}`} title={`${mp.start}–${mp.end} offset ${mp.offset}`}>
            <code>{mp.start}</code> {mp.path || '(anonymous)'}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Which mappings got symbols from which dropped files, and what stays unsymbolized. */
function SymbolsPanel() {
  const symbols = useStore((s) => s.symbols);
  const format = useStore((s) => s.analysis?.profile.meta.format);
  const setMangled = useStore((s) => s.setMangled);
  if (format === 'folded') return null;
  return (
    <section className="symbols" aria-label="Symbols">
      <h2>Symbols</h2>
      {!symbols && (
        <p className="muted">
          {format === 'pprof-raw'
            ? 'Names come from the file’s own symbol section.'
            : 'Frames show as module+offset. Drop the binary and its libraries here to see function names.'}
        </p>
      )}
      {symbols && (
        <>
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
              checked={symbols.mangled}
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
