// Lays out DOT text in a worker of its own (layout.worker.ts), so that the page stays responsive
// and a layout that takes too long can be stopped: a new request supersedes the one running (its
// worker is terminated, its promise rejects with LayoutCancelled), and one past `timeoutMs` is
// stopped with a message saying how to get a smaller graph.

import { spawnLayoutWorker } from './spawn';

export class LayoutCancelled extends Error {
  constructor() {
    super('layout cancelled');
    this.name = 'LayoutCancelled';
  }
}

let worker: Worker | null = null;
let running: { id: number; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> } | null = null;
let serial = 0;

function stop(reason: Error): void {
  if (!running) return;
  clearTimeout(running.timer);
  running.reject(reason);
  running = null;
  worker?.terminate();
  worker = null;
}

/**
 * Starts the layout worker and Graphviz's load (its wasm compiled: ~0.4 s) ahead of the first
 * layout, while the graph is being derived; no-op once a worker runs.
 */
export function warmLayout(): void {
  if (worker) return;
  worker = spawnLayoutWorker();
  worker.postMessage({ warm: true });
}

/** The SVG of `dot` laid out by Graphviz's dot; rejects with its message, or when superseded. */
export function layoutDot(dot: string, timeoutMs = 20_000): Promise<{ svg: string; warnings: string[] }> {
  stop(new LayoutCancelled());
  const id = ++serial;
  worker ??= spawnLayoutWorker();
  const w = worker;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        stop(
          new Error(
            `the layout took more than ${timeoutMs / 1000} s (a graph this dense): show fewer nodes (Nodes), or raise the edge fraction`,
          ),
        ),
      timeoutMs,
    );
    running = { id, reject, timer };
    w.onmessage = (ev: MessageEvent<{ id: number; svg?: string; warnings?: string[]; error?: string }>) => {
      if (ev.data.id !== id || running?.id !== id) return;
      clearTimeout(timer);
      running = null;
      if (ev.data.error !== undefined) reject(new Error(ev.data.error));
      else resolve({ svg: ev.data.svg ?? '', warnings: ev.data.warnings ?? [] });
    };
    w.onerror = (ev) => {
      ev.preventDefault();
      stop(new Error(`the layout stopped: ${ev.message || 'worker error'}`));
    };
    w.postMessage({ id, dot });
  });
}
