// The views derived from what is shown, beside the flame graph and its table: each is one entry
// here, declaring the part of the view it reads (null: the view is not shown, nothing is
// derived) and how it derives from the analysis. The session runs the ones whose part changed
// (or whose analysis did) and the worker sends their results as they are (plain data and typed
// arrays, transferred). Adding a view is: its fields in the view schema, one entry here, one
// component (docs/DESIGN.md "How to add a view").

import { buildCallGraph, CALL_GRAPH_DEFAULTS, inlineCallsOf } from '../model/callgraph';
import { callGraphDot } from '../model/callgraph-dot';
import type { FoldedProfile, RawProfile } from '../types';
import type { WorkerView } from '../view/schema';

/** What a derivation may read: the profile the graph shows and the parsed profile it came from. */
export interface DerivationInput {
  /** The graph's profile: transformed, maybe inverted, or a comparison's merged one. */
  shown: FoldedProfile;
  /** The transformed profile before inversion (what pprof's reports describe). */
  table: FoldedProfile;
  /** The parsed profile shown (the comparison's side in a comparison). */
  raw: RawProfile;
}

export interface Derivation<R> {
  /** Its result's key in ViewResult.derived and the page's store. */
  key: string;
  /** The part of the view it reads; null when the view does not show it. */
  reads: (v: WorkerView) => unknown;
  derive: (input: DerivationInput, v: WorkerView) => R;
}

/** pprof's call graph of the shown view: its DOT text (laid out on the page) and its nodes. */
export interface CallGraphResult {
  dot: string;
  /** Per DOT node (`node1`… in order): its frame name and a frame id of it in the shown profile. */
  names: string[];
  frames: Int32Array;
  /** Nodes left out by the pruning, and of how many. */
  droppedNodes: number;
  nodes: number;
}

export const callGraph: Derivation<CallGraphResult> = {
  key: 'callGraph',
  reads: (v) => (v.callGraph ? v.callGraph : null),
  derive({ table, raw }, v) {
    const opts = v.callGraph ?? CALL_GRAPH_DEFAULTS; // (reads: shown only with its settings)
    const g = buildCallGraph(table, {
      nodeCount: opts.nodeCount,
      nodeFraction: opts.nodeFraction,
      edgeFraction: opts.edgeFraction,
      granularity: v.granularity,
      inlineCalls: inlineCallsOf(raw, v.fullNames ? 'full' : 'short'),
    });
    return {
      dot: callGraphDot(g, table.meta, { dashedInline: true }),
      names: g.nodes.name.slice(0, g.nodes.count),
      frames: g.nodes.frame.slice(0, g.nodes.count),
      droppedNodes: g.droppedNodes,
      nodes: g.origCount,
    };
  },
};

/** Every derived view, in the order they run. */
export const DERIVATIONS: readonly Derivation<unknown>[] = [callGraph];

/** The typed arrays in a derived result (to transfer them). */
export function buffersOf(x: unknown, out: ArrayBuffer[] = []): ArrayBuffer[] {
  if (ArrayBuffer.isView(x)) out.push(x.buffer as ArrayBuffer);
  else if (Array.isArray(x)) for (const y of x) buffersOf(y, out);
  else if (typeof x === 'object' && x !== null) for (const y of Object.values(x)) buffersOf(y, out);
  return out;
}
