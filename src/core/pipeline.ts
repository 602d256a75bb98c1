// Bytes → everything the views need: parse, fold, tree and function table. The worker session,
// the bench and the tests all build trees through treeAndFunctions.

import { parseProfile } from './formats/detect';
import {
  buildCallTree,
  buildCoarseTree,
  type CallTree,
  type FunctionTable,
  PREVIEW_FRACTION,
  PREVIEW_MIN_FRAMES,
  sortedStackOrder,
} from './model/calltree';
import { foldProfile } from './model/fold';
import { functionTableOf } from './model/functions';
import type { FoldedProfile, RawProfile, Symbolizer } from './types';

export interface Analysis {
  profile: FoldedProfile;
  tree: CallTree;
  functions: FunctionTable;
  timings: { parseMs: number; foldMs: number; treeMs: number };
}

export interface AnalyzeOptions {
  fileName: string;
  onProgress?: (phase: string, fraction: number) => void;
}

const now = () => performance.now();

export function parseBytes(bytes: Uint8Array, opts: AnalyzeOptions): { raw: RawProfile; parseMs: number } {
  const t0 = now();
  const raw = parseProfile(bytes, { onProgress: (f: number) => opts.onProgress?.('parse', f) });
  return { raw, parseMs: now() - t0 };
}

/** Folds an already parsed profile (again, e.g. after symbols arrive) and builds its tree. */
export function analyzeRaw(
  raw: RawProfile,
  opts: AnalyzeOptions & { symbolizer?: Symbolizer; parseMs?: number },
): Analysis {
  const t0 = now();
  opts.onProgress?.('fold', 0);
  const profile = foldProfile(raw, { fileName: opts.fileName, symbolizer: opts.symbolizer });
  const t1 = now();
  opts.onProgress?.('tree', 0);
  const { tree, functions } = treeAndFunctions(profile);
  const t2 = now();
  return {
    profile,
    tree,
    functions,
    timings: { parseMs: opts.parseMs ?? 0, foldMs: t1 - t0, treeMs: t2 - t1 },
  };
}

export function analyzeBytes(bytes: Uint8Array, opts: AnalyzeOptions): Analysis {
  const { raw, parseMs } = parseBytes(bytes, opts);
  return analyzeRaw(raw, { ...opts, parseMs });
}

/**
 * The call tree of `graph` and the function table of `table` (the graph itself, or the profile an
 * inverted graph came from: inversion keeps frame ids, so one table serves both). With `preview`,
 * a large graph first yields a coarse tree (the nodes at least 1/4096 of the total: all a
 * full-width paint can draw), built from the same sorted stack order in tens of ms, while the
 * full tree of millions of nodes is still to come. The one place the worker, the bench and the
 * tests get trees from.
 */
export function treeAndFunctions(
  graph: FoldedProfile,
  opts: { table?: FoldedProfile; preview?: (tree: CallTree, functions: FunctionTable) => void } = {},
): { tree: CallTree; functions: FunctionTable } {
  const wantPreview = opts.preview && graph.stacks.frames.length >= PREVIEW_MIN_FRAMES;
  const functions = functionTableOf(opts.table ?? graph);
  const order = sortedStackOrder(graph);
  if (wantPreview) {
    const copy = { count: functions.count, self: functions.self.slice(), total: functions.total.slice() };
    opts.preview!(buildCoarseTree(graph, order, graph.meta.totalSamples * PREVIEW_FRACTION), copy);
  }
  return { tree: buildCallTree(graph, order), functions };
}
