import { useEffect, useId, useState } from 'react';
import type { Analysis } from '../core/pipeline';
import type { ProfileWarning } from '../core/types';
import { FlameGraph } from '../flamegraph/FlameGraph';
import { FunctionTable } from '../table/FunctionTable';
import { formatBytes, formatCount, formatTime } from './format';
import { useStore } from './store';

const NO_WARNINGS: readonly ProfileWarning[] = [];

export const EXAMPLE = { file: 'examples/tiny.prof', label: 'tiny.prof (gperftools, 64-bit)' };

export function App() {
  const theme = useStore((s) => s.theme);
  const analysis = useStore((s) => s.analysis);
  const status = useStore((s) => s.status);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  return (
    <DropZone>
      <Toolbar />
      <Progress />
      <Messages />
      {analysis ? <ProfileView analysis={analysis} /> : status !== 'loading' && <StartPage />}
    </DropZone>
  );
}

function DropZone({ children }: { children: React.ReactNode }) {
  const openFile = useStore((s) => s.openFile);
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
      const file = e.dataTransfer?.files?.[0];
      if (file) void openFile(file);
    };
    window.addEventListener('dragover', onOver);
    window.addEventListener('dragleave', onLeave);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragover', onOver);
      window.removeEventListener('dragleave', onLeave);
      window.removeEventListener('drop', onDrop);
    };
  }, [openFile]);
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

function Toolbar() {
  const inputId = useId();
  const openFile = useStore((s) => s.openFile);
  const analysis = useStore((s) => s.analysis);
  const theme = useStore((s) => s.theme);
  const setTheme = useStore((s) => s.setTheme);
  return (
    <header className="toolbar">
      <h1 className="logo">Flamelens</h1>
      <label htmlFor={inputId} className="file-label">
        Open profile…
      </label>
      <input
        id={inputId}
        className="file-input"
        type="file"
        aria-label="Open profile"
        onChange={(e) => {
          const f = e.currentTarget.files?.[0];
          if (f) void openFile(f);
          e.currentTarget.value = '';
        }}
      />
      {analysis && <span className="current-file">{analysis.profile.meta.fileName}</span>}
      <span className="spacer" />
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
  const openBuffer = useStore((s) => s.openBuffer);
  const [failed, setFailed] = useState<string | null>(null);
  const openExample = async () => {
    performance.mark('flamelens:file-received');
    try {
      const res = await fetch(EXAMPLE.file);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      await openBuffer('tiny.prof', await res.arrayBuffer());
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

function ProfileView({ analysis }: { analysis: Analysis }) {
  return (
    <main className="profile">
      <FlameGraph analysis={analysis} />
      <div className="lower">
        <FunctionTable analysis={analysis} />
        <MetadataPanel analysis={analysis} />
      </div>
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
  rows.push(['Unique stacks', formatCount(analysis.profile.stacks.count)]);
  rows.push(['Functions', formatCount(analysis.profile.frames.count)]);
  for (const [k, v] of Object.entries(m.extra ?? {})) rows.push([k, v]);
  const t = analysis.timings;
  rows.push([
    'Read in',
    `parse ${t.parseMs.toFixed(0)} ms · fold ${t.foldMs.toFixed(0)} ms · tree ${t.treeMs.toFixed(0)} ms`,
  ]);
  return (
    <aside className="meta" aria-label="Profile metadata" data-timings={JSON.stringify(t)}>
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
    </aside>
  );
}
