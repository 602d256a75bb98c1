// DOT text → SVG text: Graphviz 16 compiled to WebAssembly (@viz-js/viz; chosen by measurement,
// docs/DESIGN.md "Call graph"). Loaded on first use by a dynamic import, so its 1.2 MB module (the
// wasm inlined, 0.47 MB gzipped) is a chunk of its own that neither the page's nor the worker's
// first bundle holds; the service worker precaches it with the app's other scripts. No DOM: the
// worker runs it (a large graph's layout takes seconds), and node runs it for tests.

import type { RenderError } from '@viz-js/viz';

/** A layout that failed: Graphviz's messages (`syntax error in line 3 near ';'`). */
export class LayoutError extends Error {
  readonly messages: string[];
  constructor(messages: string[]) {
    super(`Graphviz could not lay out the graph: ${messages.join('; ') || 'no message'}`);
    this.name = 'LayoutError';
    this.messages = messages;
  }
}

export interface LayoutResult {
  svg: string;
  /** Graphviz's warnings for a graph it laid out all the same. */
  warnings: string[];
}

type Render = (
  dot: string,
) => { ok: true; svg: string; warnings: string[] } | { ok: false; errors: string[] };

let loading: Promise<Render> | null = null;

const messagesOf = (errors: RenderError[], level: 'error' | 'warning') =>
  errors.filter((e) => (e.level ?? 'error') === level).map((e) => e.message.trim());

async function instantiate(): Promise<Render> {
  const viz = await (await import('@viz-js/viz')).instance();
  return (dot) => {
    const r = viz.render(dot, { format: 'svg', engine: 'dot' });
    if (r.status === 'success') return { ok: true, svg: r.output, warnings: messagesOf(r.errors, 'warning') };
    return { ok: false, errors: messagesOf(r.errors, 'error') };
  };
}

/** Graphviz, loaded once (later calls share the promise; a failed load may be retried). */
export function loadGraphviz(): Promise<Render> {
  if (loading === null) {
    loading = instantiate().catch((e: unknown) => {
      loading = null;
      throw e;
    });
  }
  return loading;
}

/**
 * Lays out `dot` with Graphviz's `dot` engine and returns the SVG text (nodes keep the DOT's `id`
 * attributes, so `node1`… name pprof's N1…). Rejects with a LayoutError saying what Graphviz
 * found wrong. The layout is synchronous once Graphviz is loaded: run it in a worker.
 */
export async function dotToSvg(dot: string): Promise<LayoutResult> {
  const render = await loadGraphviz();
  const r = render(dot);
  if (!r.ok) throw new LayoutError(r.errors);
  return { svg: r.svg, warnings: r.warnings };
}
