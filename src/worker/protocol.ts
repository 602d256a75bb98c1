// Every type that crosses the worker boundary, and the messages. Trees and tables travel as
// transferables. Profiles stay in the worker (it derives every view from them): the page gets
// their frame table and metadata, and asks for anything that needs the stacks (search, export).

import type { FlameChartReply, FlameChartRequest, SampleAt } from '../core/analysis/session';
import type { FunctionListing } from '../core/disasm/disasm';
import type { CallTree } from '../core/model/calltree';
import type { DiffTotals } from '../core/model/diff';
import { functionFrames } from '../core/model/frames';
import type { LabelSummary } from '../core/model/labels';
import type { SourceListing } from '../core/model/lines';
import type { SearchQuery } from '../core/model/search';
import type { Analysis, SandwichAnalysis, SymbolsState } from '../core/pipeline';
import type { MappingSamples } from '../core/symbols/modules';
import type { FolderPick } from '../core/symbols/pick';
import type { FoldedProfile, InputNote } from '../core/types';
import type { WorkerView } from '../core/view/schema';

export type {
  FlameChartReply,
  FlameChartRequest,
  FunctionListing,
  LabelSummary,
  SampleAt,
  SearchQuery,
  SymbolsState,
  WorkerView,
};

/** A profile as the page sees it: everything but the stacks, and how many there are. */
export type PageProfile = Omit<FoldedProfile, 'stacks'> & { stackCount: number };
export type PageAnalysis = Omit<Analysis, 'profile'> & { profile: PageProfile };
/** A graph of its own (a sandwich half); in a comparison, with both sides' totals per chain. */
export type PageGraph = { profile: PageProfile; tree: CallTree; diff?: Pick<DiffTotals, 'comp' | 'base'> };
export type PageSandwich = Omit<SandwichAnalysis, 'callers' | 'callees'> & {
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
 * A result whose function table its job's coarse preview carried (transferred, not copied: a
 * 400 MB DCPI profile's is 175 MB) leaves that out too, `sameFunctions`: the page puts the
 * preview's back.
 */
export type WireAnalysis = PageAnalysis & { sameFrames?: true; sameFunctions?: true };
/** A sandwich half on the wire: one that keeps the page's frame table leaves it out too. */
export type WireGraph = PageGraph & { sameFrames?: true };
export type WireSandwich = Omit<PageSandwich, 'callers' | 'callees'> & {
  callers: WireGraph;
  callees: WireGraph;
};

/** The function table left out on the wire (the page has its job's preview's: see WireAnalysis). */
export const noFunctions = (): PageAnalysis['functions'] => ({
  count: 0,
  self: new Float64Array(0),
  total: new Float64Array(0),
});

/** A profile's frame table left out on the wire (the page has it: see WireAnalysis). */
export function withoutFrames(p: PageProfile): PageProfile {
  return { ...p, frames: functionFrames([]), modules: [] };
}

/**
 * A file for the worker: bytes in memory (a fetched link), transferred, or a local file (a `File`,
 * a `Blob` kept in IndexedDB) that the worker reads itself, in chunks, so the page never holds
 * its bytes.
 */
export interface FileBuffer {
  /** The file's name, or its path inside a dropped folder. */
  name: string;
  data: ArrayBuffer | Blob;
  /**
   * A file of a dropped folder: read only if it can symbolize the profile (core/symbols/pick.ts),
   * its first bytes at most to find out.
   */
  inFolder?: string;
}

/** A file's size in bytes, without reading it. */
export const sizeOf = (f: FileBuffer): number => (f.data instanceof Blob ? f.data.size : f.data.byteLength);

/** What the worker answers to a drop or a view: what changed, and the symbols in use. */
export interface ViewResult {
  /** The new analysis; null when the view's graph did not change (only the sandwich did). */
  analysis: PageAnalysis | null;
  /**
   * The sandwich when the view shows one (mode `sandwich`, or a comparison's), else null; absent
   * when it did not change (the page keeps its own).
   */
  sandwich?: PageSandwich | null;
  symbols: SymbolsState | null;
  /** True when a new profile replaced the previous one. */
  newProfile: boolean;
  /** With a new profile, the size of its file (a bundle's member: as unpacked). */
  fileBytes?: number;
  /** The mode the worker applied (a two-count folded file opens as a comparison). */
  mode: WorkerView['mode'];
  /** The profile's label keys and their top values (after every fold; absent otherwise). */
  labels?: LabelSummary[];
  /** A dropped folder: what was looked at and taken from it. */
  folder?: FolderNote;
  /** With files added, the role each took (core/analysis/inputs.ts). */
  inputs?: InputNote[];
  /** Derived views that changed, by key (core/analysis/derivations.ts; null: no longer shown). */
  derived?: Record<string, unknown>;
}

/** What the worker took from a dropped folder, and how little of it it read. */
export interface FolderNote {
  /** The folder's name. */
  name: string;
  /** Its files. */
  files: number;
  /** Files whose first bytes were read (their build-id). */
  headsRead: number;
  /** Files read whole: the objects and debug files that symbolize the profile. */
  read: string[];
  /** Per mapped file: which file of the folder, by what, or why none. */
  mappings: FolderPick['mappings'];
}

/** A function's source listing, with the text of the dropped source files its lines are in. */
export type SourceReply = SourceListing & { texts: Record<string, string> };

/** A profile as an HTML report carries it: a snapshot file (core/formats/snapshot.ts) and its slot. */
export interface SnapshotFile {
  slot: 'main' | 'base';
  name: string;
  bytes: Uint8Array;
}

/** The search over the shown view: matched frames, samples through them, and the places to visit. */
export interface SearchReply {
  error?: string;
  /** 1 per frame id whose name matches. */
  match: Uint8Array;
  samples: number;
  /** Outermost matching nodes as frame-id paths from the root, heaviest first. */
  tops: Uint32Array[];
}

export type ToWorker =
  /** Files dropped or chosen together: a profile and/or binaries, libraries, nm listings. */
  | { type: 'drop'; id: number; files: FileBuffer[]; view: WorkerView; slot: 'main' | 'base' }
  /** Exchange the profile and its baseline (a diff's sides). */
  | { type: 'swap'; id: number; view: WorkerView }
  /** Apply this view to the open profile (the one message for transforms, inversion, mode, names…). */
  | { type: 'view'; id: number; view: WorkerView }
  /** Search the shown view. */
  | { type: 'search'; id: number; query: SearchQuery }
  /** Folded text of the shown view, or of the stacks through a frame path (a zoomed node). */
  | { type: 'folded'; id: number; path: number[] }
  /** The shown profile as gzipped pprof profile.proto. */
  | { type: 'proto'; id: number }
  /** The open profiles (a comparison's two) with their symbols' names in, as snapshot files. */
  | { type: 'snapshots'; id: number }
  /** Where a function spends its samples, per line and per address. */
  | { type: 'source'; id: number; name: string }
  /** A function's instructions with their samples (the dropped binary that holds it). */
  | { type: 'disasm'; id: number; name: string; syntax: 'att' | 'intel' }
  /** Per mapped file, the samples in it (a large profile's are counted when first asked). */
  | { type: 'mappingSamples'; id: number }
  /** The sample of a timeline track nearest to a moment (ns), within a tolerance (the hover). */
  | { type: 'sampleAt'; id: number; track: number; time: number; tolerance: number }
  /** A track's flame chart over a window, at a width in pixels. */
  | { type: 'flameChart'; id: number; request: FlameChartRequest };

export type Reply =
  | { kind: 'view'; result: ViewResult & { analysis: WireAnalysis | null; sandwich?: WireSandwich | null } }
  | { kind: 'search'; result: SearchReply }
  | { kind: 'text'; parts: string[] }
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'snapshots'; files: SnapshotFile[] }
  | { kind: 'source'; result: SourceReply }
  | { kind: 'disasm'; listings: FunctionListing[] }
  | { kind: 'mappingSamples'; samples: MappingSamples[] }
  | { kind: 'sampleAt'; sample: SampleAt | null }
  | { kind: 'flameChart'; chart: FlameChartReply };

export type FromWorker =
  | { type: 'progress'; id: number; phase: string; fraction: number }
  /** A coarse first analysis of a large new profile (only what a full-width paint shows). */
  | { type: 'preview'; id: number; analysis: WireAnalysis }
  | { type: 'result'; id: number; reply: Reply }
  | { type: 'error'; id: number; message: string; offset?: number; line?: number };
