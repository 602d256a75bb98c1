// How the page starts the call graph's layout worker: a module worker from its own file (vite
// bundles layout.worker.ts and Graphviz as separate files, loaded only when a graph is shown).
// The single-file report build replaces this module with spawn-inline.ts.

export const spawnLayoutWorker = (): Worker =>
  new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module', name: 'flamelens-layout' });
