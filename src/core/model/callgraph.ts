// pprof's call graph (`pprof -dot`, the Graph view of `pprof -http`), computed as pprof computes it
// (internal/graph/graph.go `New`, internal/report/report.go `newTrimmedGraph`, in the version
// Go 1.19 vendors): one node per frame name with flat and cum, edges caller → callee weighted by the
// samples through them (each node and each edge counted once per sample, however often a recursion
// passes it), then pprof's pruning — nodefraction, nodecount (nodes ordered by pprof's entropy
// score), edgefraction — and its residual edges (dotted) through the nodes it removed. The DOT text
// is callgraph-dot.ts.
//
// Nodes are frame names: at the granularity functions a function (or `[module]` for code without
// symbols), at lines `function file:line`, at addresses `function+0xOFFSET`. Frames of equal names
// in several modules are one node, as pprof merges functions across binaries in this report.

import { frameName } from '../text/frame-text';
import { shortFunctionName } from '../text/names';
import { type FoldedProfile, type RawProfile, Unnamed } from '../types';

export interface CallGraphOptions {
  /** At most this many nodes (pprof `-nodecount`, default 80); 0: no limit. */
  nodeCount?: number;
  /** Drop nodes whose cum is below this share of the total (pprof `-nodefraction`, default 0.005). */
  nodeFraction?: number;
  /** Drop edges whose weight is below this share of the total (pprof `-edgefraction`, default 0.001). */
  edgeFraction?: number;
  /**
   * What is known of inlined calls (`inlineCallsOf`): edges whose every call is inlined are marked
   * inline. A FoldedProfile does not say which of its frames came from one location's inline
   * chain, so without this no edge is marked.
   */
  inlineCalls?: InlineCalls;
  /**
   * The granularity the profile's frames were named at (default `functions`). At `functions` and
   * `lines`, code outside every mapping (`0x…` frames, Unnamed.NoModule) is one `<unknown>` node,
   * as pprof aggregates it; at `addresses` each address stays a node.
   */
  granularity?: 'functions' | 'lines' | 'addresses';
}

/** The node pprof makes of code outside every mapping, at function or line granularity. */
export const UNKNOWN_NODE = '<unknown>';

/**
 * Inlined calls by frame name. pprof marks a call inline when the callee is not the outermost frame
 * of its location; by names that is: a call between neighbours `caller\ncallee` that are only ever
 * neighbours inside one location's chain (`pairs`), or, for a residual call (across removed
 * nodes), a callee that is never the outermost frame of a location (`inlinedOnly`).
 */
export interface InlineCalls {
  pairs: ReadonlySet<string>;
  inlinedOnly: ReadonlySet<string>;
}

export const CALL_GRAPH_DEFAULTS = { nodeCount: 80, nodeFraction: 0.005, edgeFraction: 0.001 } as const;

export interface CallGraph {
  /** In pprof's order for `-dot` (its entropy order): node i is DOT's `N{i+1}`. */
  nodes: {
    count: number;
    name: string[];
    /** 1 for a function (or any name a profile gave), 0 for unnamed code (`[module]`, `0x…`). */
    named: Uint8Array;
    /** A frame of the profile with this name (the first): what the page selects. */
    frame: Int32Array;
    flat: Float64Array;
    cum: Float64Array;
  };
  /** In DOT order: heaviest first, then by caller name, then by callee name. Indices into `nodes`. */
  edges: {
    count: number;
    src: Int32Array;
    dst: Int32Array;
    weight: Float64Array;
    /** 1: the edge goes through nodes that were removed (pprof draws it dotted). */
    residual: Uint8Array;
    /** 1: every call counted on this edge is an inlined one (pprof draws it dashed). */
    inline: Uint8Array;
  };
  /**
   * What shares are shares of (pprof's report total): the sum of |weight| over every sample, with
   * the weight the label filters left out (FoldedMeta.labelDropped) — pprof takes its total before
   * `-tagfocus`/`-tagignore` (driver.go: the report is made before applyFocus), so a filtered graph
   * shows its nodes as shares of the whole profile. Node and edge cutoffs are not shares of it:
   * pprof takes them from the filtered graph's flat sum (report.go newTrimmedGraph).
   */
  total: number;
  /** Nodes after the nodefraction cut, before the nodecount cut (pprof's "out of N"). */
  origCount: number;
  droppedNodes: number;
  droppedEdges: number;
  /** The cutoffs the fractions gave, in the profile's unit (of the flat sum, as pprof). */
  nodeCutoff: number;
  edgeCutoff: number;
  options: { nodeCount: number; nodeFraction: number; edgeFraction: number };
}

/** A graph while it is pruned: node ids are name ids; edges are kept in growable arrays. */
interface Work {
  nodes: number[];
  flat: Float64Array;
  cum: Float64Array;
  src: number[];
  dst: number[];
  weight: number[];
  residual: Uint8Array<ArrayBuffer>;
  inline: Uint8Array<ArrayBuffer>;
  alive: Uint8Array<ArrayBuffer>;
  edgeCount: number;
}

/** The frame names of a profile, numbered: frames with equal names are one node. */
interface Names {
  ofFrame: Int32Array;
  /** How many nodes. */
  count: number;
  /** Node v's name (made when asked for a frame named when asked: see namesOf). */
  nameOf(v: number): string;
  named: Uint8Array;
  frame: Int32Array;
}

/**
 * The nodes of a profile's frames, one per name. A frame the fold named (its `ownName`) is looked
 * up by its name; an address frame named when asked (`module+0xOFFSET`, a DCPI profile's 8.75M at
 * 400 MB) is a node of its own without being named: its module and address make its name, which no
 * other frame has. Naming them all and hashing the names took the call graph of a 400 MB DCPI
 * profile 18 s.
 */
function namesOf(p: FoldedProfile, mergeUnmapped: boolean): Names {
  const t = p.frames;
  const ids = new Map<string, number>();
  const ofFrame = new Int32Array(t.count);
  const named = new Uint8Array(t.count);
  const frame = new Int32Array(t.count);
  let count = 0;
  let unknownNode = -1;
  const unnamed = t.unnamed;
  for (let f = 0; f < t.count; f++) {
    const why = unnamed?.[f] ?? Unnamed.Named;
    const merged = mergeUnmapped && why === Unnamed.NoModule;
    let id: number | undefined;
    if (!merged && (t.ownName[f] ?? null) === null) id = count++;
    else {
      const n = merged ? UNKNOWN_NODE : frameName(t, f);
      id = ids.get(n);
      if (id === undefined) {
        id = count++;
        ids.set(n, id);
        if (merged) unknownNode = id;
      } else {
        ofFrame[f] = id;
        continue;
      }
    }
    named[id] = why === Unnamed.Named ? 1 : 0;
    frame[id] = f;
    ofFrame[f] = id;
  }
  const made = new Map<number, string>();
  const nameOf = (v: number): string => {
    if (v === unknownNode) return UNKNOWN_NODE;
    let n = made.get(v);
    if (n === undefined) made.set(v, (n = frameName(t, frame[v])));
    return n;
  };
  return { ofFrame, count, nameOf, named: named.subarray(0, count), frame: frame.subarray(0, count) };
}

/** Open-addressing map (caller, callee) → edge index, in typed arrays. */
class EdgeTable {
  private keyA: Int32Array;
  private keyB: Int32Array;
  private val: Int32Array;
  private size = 0;
  constructor(capacity = 1024) {
    this.keyA = new Int32Array(capacity).fill(-1);
    this.keyB = new Int32Array(capacity);
    this.val = new Int32Array(capacity);
  }
  /** The edge index of (a, b), or -1. */
  get(a: number, b: number): number {
    const mask = this.keyA.length - 1;
    for (let h = hashPair(a, b) & mask; ; h = (h + 1) & mask) {
      const k = this.keyA[h];
      if (k === -1) return -1;
      if (k === a && this.keyB[h] === b) return this.val[h];
    }
  }
  set(a: number, b: number, v: number): void {
    if ((this.size + 1) * 2 > this.keyA.length) this.grow();
    const mask = this.keyA.length - 1;
    let h = hashPair(a, b) & mask;
    while (this.keyA[h] !== -1) h = (h + 1) & mask;
    this.keyA[h] = a;
    this.keyB[h] = b;
    this.val[h] = v;
    this.size++;
  }
  private grow(): void {
    const { keyA, keyB, val } = this;
    this.keyA = new Int32Array(keyA.length * 2).fill(-1);
    this.keyB = new Int32Array(keyA.length * 2);
    this.val = new Int32Array(keyA.length * 2);
    this.size = 0;
    for (let i = 0; i < keyA.length; i++) if (keyA[i] !== -1) this.set(keyA[i], keyB[i], val[i]);
  }
}

function hashPair(a: number, b: number): number {
  return (Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca77)) >>> 0;
}

function growBytes(a: Uint8Array<ArrayBuffer>, n: number): Uint8Array<ArrayBuffer> {
  if (n <= a.length) return a;
  const b = new Uint8Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}

/**
 * graph.New over the stacks (pprof's newGraph): cum once per sample per node, an edge once per
 * sample per (caller, callee) pair, flat to the leaf. With `kept`, other nodes are left out of the
 * stacks, an edge across them is residual, and a sample whose leaf was left out adds no flat.
 */
function build(p: FoldedProfile, names: Names, kept: Uint8Array | null, inlineCalls?: InlineCalls): Work {
  const n = names.count;
  const flat = new Float64Array(n);
  const cum = new Float64Array(n);
  const seenNode = new Int32Array(n).fill(-1);
  const table = new EdgeTable();
  // Each caller's last callee and their edge: calls repeat from stack to stack, and this memo
  // answers most lookups without the hash table.
  const memoCallee = new Int32Array(n).fill(-1);
  const memoEdge = new Int32Array(n);
  const src: number[] = [];
  const dst: number[] = [];
  const weight: number[] = [];
  let residualOf = new Uint8Array(256);
  let inlineOf = new Uint8Array(256);
  let pairInline = new Uint8Array(256);
  let seenEdge = new Int32Array(256);
  // whether a node is only ever inlined (asked per callee of a residual edge, not for every node)
  const inlinedOnly = new Int8Array(inlineCalls ? n : 0).fill(-1);
  const calleeInline = (v: number): number =>
    inlineCalls
      ? inlinedOnly[v] < 0
        ? (inlinedOnly[v] = inlineCalls.inlinedOnly.has(names.nameOf(v)) ? 1 : 0)
        : inlinedOnly[v]
      : 0;
  const { start, frames, weight: sw } = p.stacks;
  const ofFrame = names.ofFrame;
  for (let s = 0; s < p.stacks.count; s++) {
    const w = sw[s];
    if (w === 0) continue;
    let parent = -1;
    let residual = false;
    for (let i = start[s], e = start[s + 1]; i < e; i++) {
      const node = ofFrame[frames[i]];
      if (kept !== null && kept[node] === 0) {
        residual = true;
        continue;
      }
      if (seenNode[node] !== s) {
        seenNode[node] = s;
        cum[node] += w;
      }
      if (parent >= 0 && node !== parent) {
        let edge = memoCallee[parent] === node ? memoEdge[parent] : table.get(parent, node);
        if (edge < 0) {
          edge = src.length;
          table.set(parent, node, edge);
          src.push(parent);
          dst.push(node);
          weight.push(w);
          if (edge >= seenEdge.length) {
            const grown = new Int32Array(seenEdge.length * 2);
            grown.set(seenEdge);
            seenEdge = grown;
          }
          residualOf = growBytes(residualOf, edge + 1);
          inlineOf = growBytes(inlineOf, edge + 1);
          pairInline = growBytes(pairInline, edge + 1);
          seenEdge[edge] = s;
          residualOf[edge] = residual ? 1 : 0;
          pairInline[edge] = inlineCalls?.pairs.has(`${names.nameOf(parent)}\n${names.nameOf(node)}`) ? 1 : 0;
          inlineOf[edge] = residual ? calleeInline(node) : pairInline[edge];
        } else if (seenEdge[edge] !== s) {
          seenEdge[edge] = s;
          weight[edge] += w;
          if (residual) residualOf[edge] = 1;
          if ((residual ? calleeInline(node) : pairInline[edge]) === 0) inlineOf[edge] = 0;
        }
        memoCallee[parent] = node;
        memoEdge[parent] = edge;
      }
      parent = node;
      residual = false;
    }
    if (parent >= 0 && !residual) flat[parent] += w;
  }
  const nodes: number[] = [];
  for (let v = 0; v < n; v++)
    if ((kept === null || kept[v] === 1) && (cum[v] !== 0 || flat[v] !== 0)) nodes.push(v);
  const edgeCount = src.length;
  return {
    nodes,
    flat,
    cum,
    src,
    dst,
    weight,
    residual: residualOf.subarray(0, edgeCount),
    inline: inlineOf.subarray(0, edgeCount),
    alive: new Uint8Array(edgeCount).fill(1),
    edgeCount,
  };
}

/** The nodes graph.New makes of all the stacks, with their flat and cum, without their edges. */
function nodeTotals(
  p: FoldedProfile,
  names: Names,
): { nodes: number[]; flat: Float64Array; cum: Float64Array } {
  const n = names.count;
  const flat = new Float64Array(n);
  const cum = new Float64Array(n);
  const seen = new Int32Array(n).fill(-1);
  const { start, frames, weight } = p.stacks;
  const ofFrame = names.ofFrame;
  for (let s = 0; s < p.stacks.count; s++) {
    const w = weight[s];
    const b = start[s];
    const e = start[s + 1];
    if (w === 0 || e === b) continue;
    for (let i = b; i < e; i++) {
      const node = ofFrame[frames[i]];
      if (seen[node] !== s) {
        seen[node] = s;
        cum[node] += w;
      }
    }
    flat[ofFrame[frames[e - 1]]] += w;
  }
  const nodes: number[] = [];
  for (let v = 0; v < n; v++) if (cum[v] !== 0 || flat[v] !== 0) nodes.push(v);
  return { nodes, flat, cum };
}

/** Go's string order (bytes of UTF-8): UTF-16 order but for surrogates against U+E000–U+FFFF. */
function goCompare(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys && (x >= 0xe000 || y >= 0xe000)) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** Per node, its live in- and out-edges. */
/** Each node's live in- and out-edges (none: an empty list), kept only for nodes that have some. */
function adjacency(g: Work): { ins: (v: number) => number[]; outs: (v: number) => number[] } {
  const ins = new Map<number, number[]>();
  const outs = new Map<number, number[]>();
  const add = (m: Map<number, number[]>, v: number, e: number) => {
    const l = m.get(v);
    if (l) l.push(e);
    else m.set(v, [e]);
  };
  for (let e = 0; e < g.edgeCount; e++) {
    if (g.alive[e] === 0) continue;
    add(ins, g.dst[e], e);
    add(outs, g.src[e], e);
  }
  return { ins: (v) => ins.get(v) ?? NO_EDGES, outs: (v) => outs.get(v) ?? NO_EDGES };
}

const NO_EDGES: number[] = [];

const frexpView = new DataView(new ArrayBuffer(8));

/** Go's math.Log2 (frexp, then Log of the fraction): exact at powers of two. */
function goLog2(x: number): number {
  frexpView.setFloat64(0, x);
  const hi = frexpView.getUint32(0);
  const biased = (hi >>> 20) & 0x7ff;
  if (biased === 0) return Math.log2(x); // subnormal: not reached by fractions of weights
  const exp = biased - 1022;
  frexpView.setUint32(0, (hi & 0x800fffff) | (1022 << 20));
  const frac = frexpView.getFloat64(0);
  if (frac === 0.5) return exp - 1;
  return Math.log(frac) * (1 / Math.LN2) + exp;
}

function edgeEntropy(g: Work, edges: number[], self: number): number {
  let score = 0;
  let total = self;
  for (const e of edges) if (g.weight[e] > 0) total += Math.abs(g.weight[e]);
  if (total !== 0) {
    for (const e of edges) {
      const frac = Math.abs(g.weight[e]) / total;
      score += -frac * goLog2(frac);
    }
    if (self > 0) {
      const frac = Math.abs(self) / total;
      score += -frac * goLog2(frac);
    }
  }
  return score;
}

/** graph.SortNodes(cum=false, visualMode=true): EntropyOrder, then name, then flat. */
function sortByEntropy(g: Work, names: Names): void {
  const { ins, outs } = adjacency(g);
  const score = new Map<number, number>();
  for (const v of g.nodes) {
    let s = 0;
    s += ins(v).length === 0 ? 1 : edgeEntropy(g, ins(v), 0);
    s += outs(v).length === 0 ? 1 : edgeEntropy(g, outs(v), g.flat[v]);
    score.set(v, Math.trunc(s * g.cum[v]) + g.flat[v]);
  }
  g.nodes.sort(
    (a, b) =>
      Math.abs(score.get(b)!) - Math.abs(score.get(a)!) ||
      goCompare(names.nameOf(a), names.nameOf(b)) ||
      Math.abs(g.flat[b]) - Math.abs(g.flat[a]) ||
      a - b,
  );
}

/** graph.TrimLowFrequencyEdges: removes the edges lighter than the cutoff between the graph's nodes. */
function trimEdges(g: Work, cutoff: number): number {
  const inGraph = new Set(g.nodes);
  let dropped = 0;
  for (let e = 0; e < g.edgeCount; e++) {
    if (g.alive[e] === 1 && inGraph.has(g.dst[e]) && Math.abs(g.weight[e]) < cutoff) {
      g.alive[e] = 0;
      dropped++;
    }
  }
  return dropped;
}

/** EdgeMap.Sort's order: heaviest first, then caller name, then callee name. */
function edgeOrder(g: Work, names: Names): (a: number, b: number) => number {
  return (a, b) =>
    (g.weight[a] !== g.weight[b] ? Math.abs(g.weight[b]) - Math.abs(g.weight[a]) : 0) ||
    goCompare(names.nameOf(g.src[a]), names.nameOf(g.src[b])) ||
    goCompare(names.nameOf(g.dst[a]), names.nameOf(g.dst[b]));
}

/**
 * graph.RemoveRedundantEdges: from the last node back, its residual in-edges from the lightest,
 * each dropped when its caller reaches its callee another way; stops at a node's first
 * non-residual edge.
 */
function removeRedundantEdges(g: Work, names: Names): void {
  const { ins } = adjacency(g);
  const order = edgeOrder(g, names);
  const liveIns = (v: number) => ins(v).filter((e) => g.alive[e] === 1);
  for (let i = g.nodes.length - 1; i >= 0; i--) {
    const sorted = liveIns(g.nodes[i]).sort(order);
    for (let j = sorted.length - 1; j >= 0; j--) {
      const e = sorted[j];
      if (g.residual[e] === 0) break;
      if (isRedundant(g, e, liveIns)) g.alive[e] = 0;
    }
  }
}

function isRedundant(g: Work, edge: number, liveIns: (v: number) => number[]): boolean {
  const from = g.src[edge];
  const seen = new Set<number>([g.dst[edge]]);
  const queue = [g.dst[edge]];
  for (let q = 0; q < queue.length; q++) {
    for (const e of liveIns(queue[q])) {
      if (e === edge || seen.has(g.src[e])) continue;
      if (g.src[e] === from) return true;
      seen.add(g.src[e]);
      queue.push(g.src[e]);
    }
  }
  return false;
}

function maskOf(nodes: readonly number[], n: number): Uint8Array {
  const m = new Uint8Array(n);
  for (const v of nodes) m[v] = 1;
  return m;
}

/** pprof's call graph of `p`, pruned as `pprof -dot` prunes it. */
export function buildCallGraph(p: FoldedProfile, opts: CallGraphOptions = {}): CallGraph {
  const nodeCount = opts.nodeCount ?? CALL_GRAPH_DEFAULTS.nodeCount;
  const nodeFraction = opts.nodeFraction ?? CALL_GRAPH_DEFAULTS.nodeFraction;
  const edgeFraction = opts.edgeFraction ?? CALL_GRAPH_DEFAULTS.edgeFraction;
  const names = namesOf(p, (opts.granularity ?? 'functions') !== 'addresses');
  const n = names.count;
  const inline = opts.inlineCalls;

  // pprof builds the whole graph first to find the nodes under the cutoff; its nodes' values are
  // all that step reads, so its edges are made only when no node is cut.
  const all = nodeTotals(p, names);
  let totalValue = 0;
  for (const v of all.nodes) totalValue += all.flat[v];
  const nodeCutoff = Math.abs(Math.trunc(totalValue * nodeFraction));
  const edgeCutoff = Math.abs(Math.trunc(totalValue * edgeFraction));

  let droppedNodes = 0;
  const kept = nodeCutoff > 0 ? all.nodes.filter((v) => Math.abs(all.cum[v]) >= nodeCutoff) : all.nodes;
  let g: Work;
  if (kept.length !== all.nodes.length) {
    droppedNodes = all.nodes.length - kept.length;
    g = build(p, names, maskOf(kept, n), inline);
  } else {
    g = build(p, names, null, inline);
  }
  const origCount = g.nodes.length;
  sortByEntropy(g, names);
  if (nodeCount > 0) {
    trimEdges(g, edgeCutoff);
    const top = g.nodes.slice(0, Math.min(nodeCount, g.nodes.length));
    if (top.length !== g.nodes.length) {
      g = build(p, names, maskOf(top, n), inline);
      sortByEntropy(g, names);
    }
  }
  const droppedEdges = trimEdges(g, edgeCutoff);
  removeRedundantEdges(g, names);
  return finish(p, g, names, {
    origCount,
    droppedNodes,
    droppedEdges,
    nodeCutoff,
    edgeCutoff,
    options: { nodeCount, nodeFraction, edgeFraction },
  });
}

function finish(
  p: FoldedProfile,
  g: Work,
  names: Names,
  rest: Pick<
    CallGraph,
    'origCount' | 'droppedNodes' | 'droppedEdges' | 'nodeCutoff' | 'edgeCutoff' | 'options'
  >,
): CallGraph {
  const index = new Int32Array(names.count).fill(-1);
  g.nodes.forEach((v, i) => {
    index[v] = i;
  });
  const count = g.nodes.length;
  const edges: number[] = [];
  for (let e = 0; e < g.edgeCount; e++)
    if (g.alive[e] === 1 && index[g.src[e]] >= 0 && index[g.dst[e]] >= 0) edges.push(e);
  edges.sort(edgeOrder(g, names));
  let total = Math.abs(p.meta.labelDropped?.weight ?? 0);
  const sw = p.stacks.weight;
  for (let s = 0; s < p.stacks.count; s++) total += Math.abs(sw[s]);
  return {
    nodes: {
      count,
      name: g.nodes.map((v) => names.nameOf(v)),
      named: Uint8Array.from(g.nodes, (v) => names.named[v]),
      frame: Int32Array.from(g.nodes, (v) => names.frame[v]),
      flat: Float64Array.from(g.nodes, (v) => g.flat[v]),
      cum: Float64Array.from(g.nodes, (v) => g.cum[v]),
    },
    edges: {
      count: edges.length,
      src: Int32Array.from(edges, (e) => index[g.src[e]]),
      dst: Int32Array.from(edges, (e) => index[g.dst[e]]),
      weight: Float64Array.from(edges, (e) => g.weight[e]),
      residual: Uint8Array.from(edges, (e) => g.residual[e]),
      inline: Uint8Array.from(edges, (e) => g.inline[e]),
    },
    total,
    ...rest,
  };
}

/**
 * What a profile's own inline chains (pprof `Line`s: a location's frames, outermost first) say of
 * inlined calls, by the names the fold gives the frames (`names` as FoldOptions.names): the
 * neighbours in a chain that are never caller and callee across two locations, and the names never
 * outermost in a location. Only profiles that carry their frames (pprof) have chains; inline frames
 * a symbolizer finds in DWARF are not seen here.
 */
export function inlineCallsOf(raw: RawProfile, names: 'short' | 'full' = 'short'): InlineCalls {
  const lines = raw.lines;
  if (lines === undefined) return { pairs: new Set(), inlinedOnly: new Set() };
  const nameOf = names === 'short' ? shortFunctionName : (s: string) => s;
  const cache = new Map<number, string>();
  const name = (k: number): string => {
    let s = cache.get(k);
    if (s === undefined) {
      s = nameOf(raw.strings[lines.name[k]]);
      cache.set(k, s);
    }
    return s;
  };
  // The locations the samples use, and the calls between them: a caller location's innermost
  // frame calls its callee's outermost.
  const used = new Uint8Array(raw.locations.count);
  const called = new Set<string>();
  const seenPair = new Set<number>();
  const { stackStart, stackLocs } = raw.samples;
  const nLoc = raw.locations.count;
  for (let s = 0; s < raw.samples.count; s++) {
    const e = stackStart[s + 1];
    for (let i = stackStart[s]; i < e; i++) {
      used[stackLocs[i]] = 1;
      if (i + 1 === e) continue;
      const callee = stackLocs[i];
      const caller = stackLocs[i + 1];
      const key = caller * nLoc + callee;
      if (seenPair.has(key)) continue;
      seenPair.add(key);
      const a = lines.start[caller + 1];
      const b = lines.start[callee];
      if (a > lines.start[caller] && lines.start[callee + 1] > b) called.add(`${name(a - 1)}\n${name(b)}`);
    }
  }
  const pairs = new Set<string>();
  const inner = new Set<string>();
  const outermost = new Set<string>();
  for (let loc = 0; loc < nLoc; loc++) {
    const b = lines.start[loc];
    const e = lines.start[loc + 1];
    if (used[loc] === 0 || e === b) continue;
    outermost.add(name(b));
    for (let k = b; k + 1 < e; k++) {
      const pair = `${name(k)}\n${name(k + 1)}`;
      if (!called.has(pair)) pairs.add(pair);
      inner.add(name(k + 1));
    }
  }
  const inlinedOnly = new Set<string>();
  for (const n of inner) if (!outermost.has(n)) inlinedOnly.add(n);
  return { pairs, inlinedOnly };
}
