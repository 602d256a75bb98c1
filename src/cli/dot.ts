// `flamelens dot FILE [--nodecount N] [--nodefraction F] [--edgefraction F]`: the call graph as
// `pprof -dot` prints it (core/model/callgraph.ts, callgraph-dot.ts), from the folded profile the
// other commands read (symbol files, granularity, sample type and label filters apply).

import { buildCallGraph, type CallGraphOptions, inlineCallsOf } from '../core/model/callgraph.ts';
import { callGraphDot } from '../core/model/callgraph-dot.ts';
import type { FoldedProfile, RawProfile } from '../core/types.ts';

export interface DotInput {
  profile: FoldedProfile;
  /** The parsed profile the fold read: its inline chains mark inlined calls. */
  raw: RawProfile;
  names: 'short' | 'full';
  granularity: 'functions' | 'lines' | 'addresses';
  /** The legend's "Active filters:" lines (DotOptions.activeFilters); default: from the profile's. */
  filters?: string[];
}

/** The options' values, or a message saying which one is wrong. */
export function dotOptions(options: Map<string, string[]>): CallGraphOptions | string {
  const out: CallGraphOptions = {};
  const count = options.get('nodecount')?.[0];
  if (count !== undefined) {
    if (!/^\d+$/.test(count)) return `--nodecount ${count}: expected a whole number (0: no limit)`;
    out.nodeCount = Number(count);
  }
  for (const [name, key] of [
    ['nodefraction', 'nodeFraction'],
    ['edgefraction', 'edgeFraction'],
  ] as const) {
    const t = options.get(name)?.[0];
    if (t === undefined) continue;
    const v = Number(t);
    if (t.trim() === '' || !Number.isFinite(v) || v < 0 || v > 1)
      return `--${name} ${t}: expected a fraction between 0 and 1`;
    out[key] = v;
  }
  return out;
}

/** The DOT text of the profile's call graph, as `pprof -dot` with these options prints it. */
export function dotText(input: DotInput, opts: CallGraphOptions): string {
  const graph = buildCallGraph(input.profile, {
    ...opts,
    granularity: input.granularity,
    inlineCalls: inlineCallsOf(input.raw, input.names),
  });
  return callGraphDot(graph, input.profile.meta, input.filters ? { activeFilters: input.filters } : {});
}
