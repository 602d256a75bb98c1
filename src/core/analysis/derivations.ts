// The views derived from what is shown, beside the flame graph and its table: each is one entry
// here, declaring the part of the view it reads (null: the view is not shown, nothing is
// derived) and how it derives from the analysis. The session runs the ones whose part changed
// (or whose analysis did) and the worker sends their results as they are (plain data and typed
// arrays, transferred). Adding a view is: its fields in the view schema, one entry here, one
// component (docs/DESIGN.md "How to add a view").

import { buildCallGraph, CALL_GRAPH_DEFAULTS, inlineCallsOf } from '../model/callgraph';
import { callGraphDot } from '../model/callgraph-dot';
import { type TimeIndex, type Track, timelineBuckets } from '../model/timeline';
import type { FoldedProfile, RawProfile } from '../types';
import type { WorkerView } from '../view/schema';

/**
 * What a derivation may read: the profile the graph shows and the parsed profile it came from
 * (made when first read: a derivation that reads none of them costs none of them).
 */
export interface DerivationInput {
  /** The graph's profile: transformed, maybe inverted, or a comparison's merged one. */
  readonly shown: FoldedProfile;
  /** The transformed profile before inversion (what pprof's reports describe). */
  readonly table: FoldedProfile;
  /** The parsed profile shown (the comparison's side in a comparison). */
  readonly raw: RawProfile;
  /**
   * The samples the fold kept in time order per track (the view's tracks), and each parsed
   * sample's weight in the view's sample type, in ns per unit when that is a time (perf's
   * cpu-clock period); `index` null when the profile has no time stamps (`reason` says so).
   */
  readonly time: { index: TimeIndex | null; reason: string | null; weight: Float64Array; nsPerUnit?: number };
}

export interface Derivation<R> {
  /** Its result's key in ViewResult.derived and the page's store. */
  key: string;
  /** The part of the view it reads; null when the view does not show it. */
  reads: (v: WorkerView) => unknown;
  /**
   * The stage whose result it reads: the graph (the default: what the graph shows, transformed),
   * or the fold (the folded profile whole: it runs again when the fold does, not on a transform).
   */
  after?: 'fold' | 'graph';
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

/** How many buckets divide the timeline's window (about a bucket per pixel of a wide window). */
export const TIMELINE_BUCKETS = 1200;

/**
 * The timeline above the graph: per track (thread or process) the weight in each bucket of its
 * window (each sample spread over the time it stands for: model/timeline.ts timelineBuckets), and
 * the CPU each bucket ran on most; or why there is none.
 */
export type TimelineResult =
  | { none: string }
  | {
      none?: undefined;
      /** The profile's first and last sample (ns): the whole range. */
      first: number;
      last: number;
      /** The window shown and its buckets (TimelineBuckets: track-major). */
      start: number;
      end: number;
      buckets: number;
      tracks: Track[];
      weight: Float64Array;
      samples: Uint32Array;
      cpu: Int16Array;
      cpus: string[];
      /** Kept samples without a time stamp (in no range). */
      untimed: number;
    };

export const timeline: Derivation<TimelineResult> = {
  key: 'timeline',
  after: 'fold',
  reads: (v) => (v.timeline ? [v.timeline.window ?? null, v.timeline.tracks] : null),
  derive({ time }, v) {
    const { index, reason, weight, nsPerUnit } = time;
    if (!index) return { none: reason ?? 'this profile has no time stamps' };
    const window = v.timeline?.window ?? { start: index.start, end: index.end };
    const b = timelineBuckets(index, weight, window, TIMELINE_BUCKETS, nsPerUnit);
    return {
      first: index.start,
      last: index.end,
      start: b.start,
      end: b.end,
      buckets: b.buckets,
      tracks: index.tracks,
      weight: b.weight,
      samples: b.samples,
      cpu: b.cpu,
      cpus: index.cpus,
      untimed: index.untimed,
    };
  },
};

/** Every derived view, in the order they run. */
export const DERIVATIONS: readonly Derivation<unknown>[] = [callGraph, timeline];

/** The typed arrays in a derived result (to transfer them). */
export function buffersOf(x: unknown, out: ArrayBuffer[] = []): ArrayBuffer[] {
  if (ArrayBuffer.isView(x)) out.push(x.buffer as ArrayBuffer);
  else if (Array.isArray(x)) for (const y of x) buffersOf(y, out);
  else if (typeof x === 'object' && x !== null) for (const y of Object.values(x)) buffersOf(y, out);
  return out;
}
