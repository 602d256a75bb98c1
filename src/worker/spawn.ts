// How the page starts its worker: a module worker from its own file next to the app's (vite
// bundles `profile.worker.ts` as a separate file). The single-file report build replaces this
// module with spawn-inline.ts (vite.report.config.ts).

export const spawnWorker = (): Worker =>
  new Worker(new URL('./profile.worker.ts', import.meta.url), { type: 'module', name: 'flamelens' });
