// Messages across the worker boundary. Typed arrays travel as transferables, never copies.

import type { Analysis } from '../core/pipeline';

export type ToWorker = { type: 'open'; id: number; name: string; buffer: ArrayBuffer };

export type FromWorker =
  | { type: 'progress'; id: number; phase: string; fraction: number }
  | { type: 'result'; id: number; analysis: Analysis }
  | { type: 'error'; id: number; message: string; offset?: number; line?: number };
