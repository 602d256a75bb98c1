// The page's top bar: open a file, the open file's name (and, in an HTML report, what it is), export,
// theme.

import { ExportMenu } from './ExportMenu';
import { FilePicker } from './FilePicker';
import { useStore } from './store';

/** A report's date as the reader's locale writes it (the ISO text if it is not a date). */
function formatWhen(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function Toolbar() {
  const analysis = useStore((s) => s.analysis);
  const theme = useStore((s) => s.theme);
  const setTheme = useStore((s) => s.setTheme);
  const focusNode = useStore((s) => s.focusNode);
  const report = useStore((s) => s.report);
  return (
    <header className="toolbar">
      <h1 className="logo">Flamelens</h1>
      {report && (
        <span
          className="report-badge"
          data-testid="report-badge"
          title={`A Flamelens report of ${report.title}, made ${formatWhen(report.created)}: the app and the profile in one file, symbols resolved`}
        >
          Report of {report.title} · made {formatWhen(report.created)}
        </span>
      )}
      <FilePicker label="Open profile" text="Open profile…" />
      {analysis && <span className="current-file">{analysis.profile.meta.fileName}</span>}
      {analysis && !analysis.functionsPending && (
        <FilePicker label="Compare with another profile" text="Compare with…" compare />
      )}
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
