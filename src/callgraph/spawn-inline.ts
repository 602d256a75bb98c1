// The single-file report's layout worker (vite.report.config.ts puts this module in place of
// spawn.ts): its code, Graphviz included, inlined in the page and started from a Blob URL, so a
// report opened from file:// lays out its call graph with no other file.

import LayoutWorker from './layout.worker.ts?worker&inline';

export const spawnLayoutWorker = (): Worker => new LayoutWorker({ name: 'flamelens-layout' });
