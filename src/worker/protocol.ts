// Messages across the worker boundary. Trees and tables travel as transferables; profiles are
// copied (the worker keeps its own to derive views from).

import type { Analysis } from '../core/pipeline';
import type { SandwichResult, SymbolsState, ViewSpec } from './session';

export interface FileBuffer {
  name: string;
  buffer: ArrayBuffer;
}

export type ToWorker =
  /** Files dropped or chosen together: a profile and/or binaries, libraries, nm listings. */
  | { type: 'drop'; id: number; files: FileBuffer[] }
  | { type: 'mangled'; id: number; mangled: boolean }
  | { type: 'view'; id: number; view: ViewSpec }
  | { type: 'sandwich'; id: number; name: string };

export interface WorkerResult {
  analysis: Analysis;
  symbols: SymbolsState | null;
  newProfile: boolean;
}

export type Reply = { kind: 'analysis'; result: WorkerResult } | { kind: 'sandwich'; result: SandwichResult };

export type FromWorker =
  | { type: 'progress'; id: number; phase: string; fraction: number }
  | { type: 'result'; id: number; reply: Reply }
  | { type: 'error'; id: number; message: string; offset?: number; line?: number };
