// Messages across the worker boundary. Trees and tables travel as transferables. Profiles stay in
// the worker (it derives every view from them): the page gets their frame table and metadata,
// and asks for anything that needs the stacks (folded-text export).

import type { CallTree } from '../core/model/calltree';
import type { Analysis } from '../core/pipeline';
import type { FoldedProfile } from '../core/types';
import type { SandwichResult, SymbolsState, ViewSpec } from './session';

/** A profile as the page sees it: everything but the stacks, and how many there are. */
export type PageProfile = Omit<FoldedProfile, 'stacks'> & { stackCount: number };
/**
 * A raw preview (WorkerSession's, from a gperftools file's record headers) has no function table
 * yet: its `functions` are zeros and the table shows that it is being built.
 */
export interface FunctionsPending {
  functionsPending?: true;
}
export type PageAnalysis = Omit<Analysis, 'profile'> & FunctionsPending & { profile: PageProfile };
export type PageGraph = { profile: PageProfile; tree: CallTree };
export type PageSandwich = Omit<SandwichResult, 'callers' | 'callees'> & {
  callers: PageGraph;
  callees: PageGraph;
};

export function toPageProfile(p: FoldedProfile): PageProfile {
  const { stacks, ...rest } = p;
  return { ...rest, stackCount: stacks.count };
}

/**
 * On the wire, a view whose frame table is the one the page already has (an inverted view, most
 * transforms) leaves it out: 64k names cost tens of ms to copy into the page. `sameFrames` marks it.
 */
export type WireAnalysis = PageAnalysis & { sameFrames?: true };

export interface FileBuffer {
  name: string;
  buffer: ArrayBuffer;
}

export type ToWorker =
  /** Files dropped or chosen together: a profile and/or binaries, libraries, nm listings. */
  | { type: 'drop'; id: number; files: FileBuffer[] }
  | { type: 'mangled'; id: number; mangled: boolean }
  | { type: 'view'; id: number; view: ViewSpec }
  | { type: 'sandwich'; id: number; name: string }
  /** Folded text of the shown view, or of the stacks through a frame path (a zoomed node). */
  | { type: 'folded'; id: number; path: number[] }
  /** Samples of the shown view whose stack holds a matching frame (1 per frame id), each once. */
  | { type: 'search'; id: number; match: Uint8Array };

export interface WorkerResult {
  analysis: PageAnalysis;
  symbols: SymbolsState | null;
  newProfile: boolean;
}

export type Reply =
  | { kind: 'analysis'; result: WorkerResult & { analysis: WireAnalysis } }
  | { kind: 'sandwich'; result: PageSandwich }
  | { kind: 'text'; text: string }
  | { kind: 'count'; samples: number };

export type FromWorker =
  | { type: 'progress'; id: number; phase: string; fraction: number }
  /** A coarse first analysis of a large new profile (only what a full-width paint shows). */
  | { type: 'preview'; id: number; analysis: WireAnalysis }
  | { type: 'result'; id: number; reply: Reply }
  | { type: 'error'; id: number; message: string; offset?: number; line?: number };
