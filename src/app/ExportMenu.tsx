// The "Export" toolbar menu: folded stacks, PNG, SVG, CSV and pprof of what is on screen, and an HTML
// report (the app with the profile and the view in one file), saved locally.

import { useEffect, useId, useRef, useState } from 'react';
import { orderWork } from '../core/model/table-order';
import { CSV_PART_ROWS, functionTableCsvParts } from '../export/csv';
import { canvasToPngBlob, downloadBlob, exportBaseName, titledCanvas } from '../export/download';
import { flameGraphSvg } from '../export/svg';
import { DARK, LIGHT } from '../flamegraph/paint';
import { useTableSort } from '../table/sortState';
import type { PageAnalysis as Analysis } from '../worker/protocol';
import '../export/export-menu.css';
import { makeReport } from './report';
import { useStore } from './store';
import { viewOnScreen } from './useUrlState';
import { foldedText, protoBytes } from './view';

export interface ExportMenuProps {
  analysis: Analysis;
  /** The flame graph canvas, for the PNG export. */
  canvas: () => HTMLCanvasElement | null;
  /** The zoomed node (0: whole profile). */
  focusNode: number;
}

type Kind = 'folded' | 'png' | 'svg' | 'csv' | 'pprof' | 'report' | 'dot' | 'graph-svg';

/**
 * `parsed`: needs the parsed profile, so not offered on a raw preview (functionsPending): it has no
 * function table yet, and the worker's stacks will not use its frame ids. `app`: needs the app's
 * files (the report template), so not offered in a report.
 */
const ITEMS: { kind: Kind; label: string; parsed?: true; app?: true; callGraph?: true }[] = [
  { kind: 'dot', label: 'Call graph (.dot)', callGraph: true },
  { kind: 'graph-svg', label: 'Call graph (SVG)', callGraph: true },
  { kind: 'folded', label: 'Folded stacks (.txt)', parsed: true },
  { kind: 'png', label: 'Flame graph (PNG)' },
  { kind: 'svg', label: 'Flame graph (SVG)' },
  { kind: 'csv', label: 'Function table (CSV)', parsed: true },
  { kind: 'pprof', label: 'pprof profile (.pb.gz)', parsed: true },
  { kind: 'report', label: 'HTML report (.html)', parsed: true, app: true },
];

/** Must match the canvas font in FlameGraph.tsx, so SVG labels are cut where the canvas cuts them. */
const LABEL_FONT = '12px "DejaVu Sans Mono", Menlo, Consolas, monospace';

function measureCharWidth(): number {
  const ctx = document.createElement('canvas').getContext('2d');
  if (!ctx) return 7.22;
  ctx.font = LABEL_FONT;
  return ctx.measureText('M').width || 7.22;
}

/** Each slice of the CSV's work on the page's thread, between which it paints and takes input. */
const SLICE_MS = 16;

/** Resolves in a later task: the page paints and takes input in between. */
function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Resolves after the next two animation frames: the graph has painted what the store now says. */
function nextPaint(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
}

export function ExportMenu({ analysis, canvas, focusNode }: ExportMenuProps) {
  const sort = useTableSort((s) => s.sort);
  const theme = useStore((s) => s.theme);
  const inReport = useStore((s) => s.report !== null);
  const panel = useStore((s) => s.view.panel);
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** What a long export is doing, shown in the menu. */
  const [progress, setProgress] = useState<string | null>(null);
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuId = useId();

  useEffect(() => {
    if (!open) return;
    rootRef.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const onDown = (e: PointerEvent) => {
      if (!rootRef.current?.contains(e.target as Node)) setOpen(false);
    };
    window.addEventListener('pointerdown', onDown);
    return () => window.removeEventListener('pointerdown', onDown);
  }, [open]);

  const close = () => {
    setOpen(false);
    buttonRef.current?.focus();
  };

  const run = async (kind: Kind) => {
    setError(null);
    const base = exportBaseName(analysis.profile.meta.fileName);
    const { profile, tree } = analysis;
    try {
      switch (kind) {
        case 'dot': {
          const g = useStore.getState().derived.callGraph;
          if (!g) throw new Error('the call graph is not shown');
          downloadBlob(
            new Blob([g.dot], { type: 'text/vnd.graphviz;charset=utf-8' }),
            `${base}.callgraph.dot`,
          );
          break;
        }
        case 'graph-svg': {
          const svg = document.querySelector('[data-testid="call-graph-svg"] svg');
          if (!svg) throw new Error('the call graph is not laid out yet');
          const copy = svg.cloneNode(true) as SVGElement;
          copy.removeAttribute('style'); // the pan and zoom on screen
          const text = new XMLSerializer().serializeToString(copy);
          downloadBlob(new Blob([text], { type: 'image/svg+xml;charset=utf-8' }), `${base}.callgraph.svg`);
          break;
        }
        case 'folded': {
          // The stacks stay in the worker: it writes the text.
          const parts = await foldedText();
          downloadBlob(new Blob(parts, { type: 'text/plain;charset=utf-8' }), `${base}.folded.txt`);
          break;
        }
        case 'pprof': {
          // Written in the worker, from the stacks it keeps: symbolized as shown, transforms applied.
          const bytes = await protoBytes();
          downloadBlob(new Blob([bytes as BlobPart], { type: 'application/gzip' }), `${base}.pb.gz`);
          break;
        }
        case 'report': {
          // The app in one file with the profile(s), symbols resolved, and the view on screen.
          setBusy(true);
          try {
            const blob = await makeReport(viewOnScreen(useStore.getState()));
            downloadBlob(blob, `${base}.report.html`);
          } finally {
            setBusy(false);
          }
          break;
        }
        case 'csv': {
          // A flat profile's table has millions of rows (8.75M for a 400 MB DCPI file: 23 s of the
          // page's thread as one task, and a string past V8's limit): ordered and written in
          // slices, the progress shown, the text given to the Blob in parts.
          setBusy(true);
          try {
            const work = orderWork(analysis, {
              key: sort.key,
              desc: sort.desc,
              filter: '',
              normalized: useStore.getState().view.diff.normalized,
            });
            let order = work.step(performance.now() + SLICE_MS);
            while (!order) {
              setProgress(`Sorting the functions… ${Math.floor(100 * work.progress)}%`);
              await nextTask();
              order = work.step(performance.now() + SLICE_MS);
            }
            // A byte order mark so spreadsheet programs read the names as UTF-8. Each slice's text
            // is made a Blob at its end (encoded then, and let go of: 560 MB of text for 8.75M
            // rows), and the file is a Blob of those, which the browser joins without a copy.
            const blobs: Blob[] = [];
            let text: string[] = ['\uFEFF'];
            let parts = 0; // the header, then CSV_PART_ROWS rows each
            let deadline = performance.now() + SLICE_MS;
            for (const part of functionTableCsvParts(analysis, order)) {
              text.push(part);
              parts++;
              if (performance.now() >= deadline) {
                blobs.push(new Blob(text));
                text = [];
                setProgress(
                  `Writing the CSV… ${Math.floor((100 * Math.min((parts - 1) * CSV_PART_ROWS, order.length)) / Math.max(1, order.length))}%`,
                );
                await nextTask();
                deadline = performance.now() + SLICE_MS;
              }
            }
            blobs.push(new Blob(text));
            downloadBlob(new Blob(blobs, { type: 'text/csv;charset=utf-8' }), `${base}.functions.csv`);
          } finally {
            setBusy(false);
            setProgress(null);
          }
          break;
        }
        case 'svg': {
          const c = canvas();
          const svg = flameGraphSvg({
            profile,
            tree,
            focus: focusNode,
            width: c?.clientWidth || 1200,
            theme: theme === 'dark' ? DARK : LIGHT,
            charWidth: measureCharWidth(),
          });
          downloadBlob(new Blob([svg], { type: 'image/svg+xml;charset=utf-8' }), `${base}.flamegraph.svg`);
          break;
        }
        case 'png': {
          const c = canvas();
          if (!c) throw new Error('the flame graph is not on screen');
          const title =
            c.getAttribute('aria-label')?.replace(/\. Arrow keys.*$/, '') ?? analysis.profile.meta.fileName;
          // The picture without the search's or the selection's fade: cleared for one paint.
          const st = useStore.getState();
          const saved = { search: st.view.search, frame: st.selectedFrame };
          const faded = saved.search.text !== '' || saved.frame !== null;
          let picture: HTMLCanvasElement;
          try {
            if (faded) {
              st.setLocalView({ search: { ...saved.search, text: '' } });
              st.selectFrame(null);
              await nextPaint();
            }
            picture = titledCanvas(c, title, theme === 'dark');
          } finally {
            if (faded) {
              useStore.getState().setLocalView({ search: saved.search });
              useStore.getState().selectFrame(saved.frame);
            }
          }
          downloadBlob(await canvasToPngBlob(picture), `${base}.flamegraph.png`);
          break;
        }
      }
      close();
    } catch (e) {
      setError(`Export failed: ${(e as Error).message}`);
    }
  };

  const onMenuKey = (e: React.KeyboardEvent) => {
    const items = Array.from(rootRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      items[(at + step + items.length) % items.length]?.focus();
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      items[e.key === 'Home' ? 0 : items.length - 1]?.focus();
    } else if (e.key === 'Tab') {
      setOpen(false);
    }
  };

  return (
    <div className="export-menu" ref={rootRef}>
      <button
        type="button"
        ref={buttonRef}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((o) => !o)}
      >
        Export
      </button>
      {open && (
        <div id={menuId} role="menu" aria-label="Export" tabIndex={-1} onKeyDown={onMenuKey}>
          {ITEMS.filter(
            (it) =>
              !(it.parsed && analysis.functionsPending) &&
              !(it.app && inReport) &&
              (!it.callGraph || panel === 'callgraph'),
          ).map((it) => (
            <button
              key={it.kind}
              type="button"
              role="menuitem"
              tabIndex={-1}
              aria-disabled={busy || undefined}
              onClick={() => !busy && void run(it.kind)}
            >
              {it.label}
            </button>
          ))}
          {progress && (
            <div className="export-progress" role="status">
              {progress}
            </div>
          )}
          {error && (
            <div className="export-error" role="alert">
              {error}
            </div>
          )}
        </div>
      )}
    </div>
  );
}
