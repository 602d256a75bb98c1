/// <reference lib="webworker" />
// The call graph's layout worker: Graphviz (layout.ts) off the page's thread, one DOT text in, its
// SVG (or Graphviz's error) out. The page terminates it when a layout takes too long or is no
// longer wanted (a dense graph can take minutes), and starts another.

import { dotToSvg, LayoutError, loadGraphviz } from './layout';

const scope = self as unknown as DedicatedWorkerGlobalScope;

scope.onmessage = async (ev: MessageEvent<{ id: number; dot: string } | { warm: true }>) => {
  // Graphviz compiled while the analysis worker derives the graph (a failed load is retried by
  // the layout, which then says why).
  if ('warm' in ev.data) {
    loadGraphviz().catch(() => {});
    return;
  }
  const { id, dot } = ev.data;
  try {
    const r = await dotToSvg(dot);
    scope.postMessage({ id, svg: r.svg, warnings: r.warnings });
  } catch (e) {
    const message =
      e instanceof LayoutError ? e.message : `the layout failed: ${e instanceof Error ? e.message : e}`;
    scope.postMessage({ id, error: message });
  }
};
