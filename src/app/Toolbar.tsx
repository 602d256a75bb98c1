// The page's top bar: open a file, the open file's name, export, theme.

import { ExportMenu } from './ExportMenu';
import { FilePicker } from './FilePicker';
import { useStore } from './store';

export function Toolbar() {
  const analysis = useStore((s) => s.analysis);
  const theme = useStore((s) => s.theme);
  const setTheme = useStore((s) => s.setTheme);
  const focusNode = useStore((s) => s.focusNode);
  return (
    <header className="toolbar">
      <h1 className="logo">Flamelens</h1>
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
