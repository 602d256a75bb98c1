// Messages across the worker boundary. Typed arrays travel as transferables, never copies.

import type { Analysis } from '../core/pipeline';
import type { SymbolsState } from './session';

export interface FileBuffer {
  name: string;
  buffer: ArrayBuffer;
}

export type ToWorker =
  /** Files dropped or chosen together: a profile and/or binaries, libraries, nm listings. */
  { type: 'drop'; id: number; files: FileBuffer[] } | { type: 'mangled'; id: number; mangled: boolean };

export interface WorkerResult {
  analysis: Analysis;
  symbols: SymbolsState | null;
  newProfile: boolean;
}

export type FromWorker =
  | { type: 'progress'; id: number; phase: string; fraction: number }
  | { type: 'result'; id: number; result: WorkerResult }
  | { type: 'error'; id: number; message: string; offset?: number; line?: number };
