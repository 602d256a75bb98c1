// The single-file report's worker (vite.report.config.ts puts this module in place of spawn.ts):
// the worker's code is inlined in the page and started from a Blob URL, so a report opened from
// file:// needs no other file.

import ProfileWorker from './profile.worker.ts?worker&inline';

export const spawnWorker = (): Worker => new ProfileWorker({ name: 'flamelens' });
