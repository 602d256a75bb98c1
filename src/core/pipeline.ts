// Bytes → everything the views need, in one place: used by the worker, the bench and tests.

import { parseProfile } from './formats/detect';
import { buildCallTreeWithFunctions, type CallTree, type FunctionTable } from './model/calltree';
import { foldProfile } from './model/fold';
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
  // One walk builds both (same results as buildCallTree + buildFunctionTable, one pass fewer).
  const { tree, functions } = buildCallTreeWithFunctions(profile);
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
