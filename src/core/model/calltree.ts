// The call tree of a FoldedProfile, path-compressed and columnar, and the per-function table type.
// Built iteratively (no recursion: stacks reach 250+ frames) from lexicographically sorted stacks.

import type { FoldedProfile } from '../types';
import { stableByWeightDescending } from './order.ts';

/**
 * A call tree whose nodes are numbered in depth-first preorder (a subtree is a contiguous id
 * range; node 0 is the virtual root holding all samples, frame ROOT_FRAME), stored as *chains*: maximal
 * runs of nodes where each node but the last has exactly one child and no self weight. All nodes
 * of a chain share its total, and their ids are consecutive.
 *
 * Why: deep stacks that share little (a long run of a real program, the bench's 100 MB profile)
 * give a tree of 12.6M nodes but only ~140k chains. Per node only the frame is stored (4 bytes
 * instead of 36 for parent, depth, total, self and child links); chains are numbered in the order
 * of their first node, so the chain of a node is found by a binary search of `chains.start`
 * (`chainOf`). The builder does per-chain work instead of per-node work, and far less crosses the
 * worker boundary. Read nodes through the accessors below (`totalOf`, `parentOf`, …).
 */
export interface CallTree {
  /** Number of nodes. */
  count: number;
  /** Per node: its frame id (ROOT_FRAME for the root, LIGHT_CHILDREN in a coarse tree). */
  frame: Int32Array;
  /** In the order of their first nodes: chain c holds nodes start[c] .. end[c] − 1. */
  chains: Chains;
  /** The deepest node's depth (the root is at depth 0). */
  maxDepth: number;
}

export interface Chains {
  count: number;
  /** First node and one past the last node of each chain. */
  start: Int32Array;
  end: Int32Array;
  /** The parent node of the chain's first node (-1 for the root's chain). */
  parent: Int32Array;
  /** Depth of the chain's first node. */
  depth: Int32Array;
  /** Total weight of every node of the chain. */
  total: Float64Array;
  /** Self weight of the chain's last node (the others have none). */
  self: Float64Array;
  /** The first child (a node id) of the chain's last node, -1 if none. Children: heaviest first. */
  firstChild: Int32Array;
  /** The next sibling (a node id) of the chain's first node, -1 if none. */
  nextSibling: Int32Array;
  /** How many children the chain's last node has. */
  children: Int32Array;
}

export interface FunctionTable {
  /** One row per frame id (function); row i describes frame i. */
  count: number;
  self: Float64Array;
  /** Samples with the function anywhere on the stack, each sample counted once (recursion). */
  total: Float64Array;
  /**
   * The functions with samples, by self (then total, then id), heaviest first: the table's default
   * order, sorted in the worker (a 1 GB profile has 400k functions: ~100 ms of the page's thread).
   */
  bySelf?: Int32Array;
}

/** The chain that holds node v: the last chain starting at or before v. */
export function chainOf(t: CallTree, v: number): number {
  const start = t.chains.start;
  let lo = 0;
  let hi = t.chains.count;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (start[mid] <= v) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** Samples in the node's subtree. */
export function totalOf(t: CallTree, v: number): number {
  return t.chains.total[chainOf(t, v)];
}

/** Samples whose stack ends at the node. */
export function selfOf(t: CallTree, v: number): number {
  const c = chainOf(t, v);
  return v === t.chains.end[c] - 1 ? t.chains.self[c] : 0;
}

/** The parent node, -1 for the root. */
export function parentOf(t: CallTree, v: number): number {
  const c = chainOf(t, v);
  return v > t.chains.start[c] ? v - 1 : t.chains.parent[c];
}

/** Depth from the root (the root is 0; its children are 1). */
export function depthOf(t: CallTree, v: number): number {
  const c = chainOf(t, v);
  return t.chains.depth[c] + (v - t.chains.start[c]);
}

/**
 * One past the last node of `v`'s subtree (ids are a preorder: the subtree is v … end − 1): where
 * the first chain after v's starts no deeper than v. A walk of the chains in the subtree.
 */
export function subtreeEndOf(t: CallTree, v: number): number {
  const { start, depth, count } = t.chains;
  const c = chainOf(t, v);
  const d = depth[c] + (v - start[c]);
  for (let k = c + 1; k < count; k++) if (depth[k] <= d) return start[k];
  return t.count;
}

/**
 * The depth of the deepest node in `v`'s subtree (the tree's `maxDepth` for the root): how many
 * rows a flame graph zoomed to `v` has. A walk of the chains in the subtree, as subtreeEndOf.
 */
export function deepestUnder(t: CallTree, v: number): number {
  if (v <= 0) return t.maxDepth;
  const { start, end, depth, count } = t.chains;
  const c = chainOf(t, v);
  const d = depth[c] + (v - start[c]);
  let deepest = depth[c] + (end[c] - 1 - start[c]);
  for (let k = c + 1; k < count && depth[k] > d; k++) {
    const last = depth[k] + (end[k] - 1 - start[k]);
    if (last > deepest) deepest = last;
  }
  return deepest;
}

/** The heaviest child, -1 for a leaf. */
export function firstChildOf(t: CallTree, v: number): number {
  const c = chainOf(t, v);
  return v < t.chains.end[c] - 1 ? v + 1 : t.chains.firstChild[c];
}

/** How many children the node has. */
export function childCountOf(t: CallTree, v: number): number {
  const c = chainOf(t, v);
  return v < t.chains.end[c] - 1 ? 1 : t.chains.children[c];
}

/** The next lighter sibling, -1 for the last. */
export function nextSiblingOf(t: CallTree, v: number): number {
  const c = chainOf(t, v);
  return v === t.chains.start[c] ? t.chains.nextSibling[c] : -1;
}

/** Every column of a tree: its frames, then its chains' columns. */
export function treeColumns(t: CallTree): ArrayBufferView[] {
  const c = t.chains;
  return [
    t.frame,
    c.start,
    c.end,
    c.parent,
    c.depth,
    c.total,
    c.self,
    c.firstChild,
    c.nextSibling,
    c.children,
  ];
}

/** The buffers of a tree, to transfer it to another thread. */
export function treeBuffers(t: CallTree): ArrayBuffer[] {
  return treeColumns(t).map((a) => a.buffer as ArrayBuffer);
}

/**
 * Builds the call tree (root first) of a profile's stacks. `sortedStacks`: the stacks' sorted order
 * and common prefixes (sortedStackOrder), when the caller has them already.
 *
 * Stacks are sorted lexicographically first (a prefix before its extensions); then the nodes a
 * stack adds are exactly its suffix after the common prefix (LCP) with the previous stack, with
 * consecutive ids: one new chain. Where it branches off inside an existing chain, that chain is
 * split in two (node ids do not change, only which chain holds them). So the work is per stack
 * and per chain, plus one memcpy of each new suffix's frames and one `fill` of chain ids.
 * `leafOut`, when given, receives each stack's last node (node ids never change). `frameBuffer`:
 * zeroed memory for the nodes' frames, used when large enough (worker/prefault.ts). `byWeight`
 * false leaves each node's children in the order of their first nodes, for reweighTree to order
 * by other weights.
 */
export function buildCallTree(
  p: FoldedProfile,
  sortedStacks?: SortedStacks,
  leafOut?: Uint32Array,
  frameBuffer?: ArrayBuffer | null,
  byWeight = true,
): CallTree {
  const { start, frames, weight } = p.stacks;
  const n = p.stacks.count;
  const { order: sorted, lcp } = sortedStacks ?? sortStacks(start, frames, n);

  // The node count and the deepest stack.
  let count = 1;
  let maxDepth = 0;
  for (let k = 0; k < n; k++) {
    const s = sorted[k];
    const len = start[s + 1] - start[s];
    if (len > maxDepth) maxDepth = len;
    count += len - lcp[k];
  }

  // Chains: at most one new chain and one split per stack, plus the root's; and no more than the
  // nodes (a flat profile's tree, a node per stack, has a chain per node and no splits).
  const cap = Math.min(2 * n + 1, count);
  const cStart = new Int32Array(cap);
  const cEnd = new Int32Array(cap);
  const cParent = new Int32Array(cap);
  const cDepth = new Int32Array(cap);
  const cTotal = new Float64Array(cap);
  const cSelf = new Float64Array(cap);
  // Child links between chains, by chain id while building (node ids at the end).
  const cFirst = new Int32Array(cap).fill(-1);
  const cLast = new Int32Array(cap).fill(-1);
  const cNext = new Int32Array(cap).fill(-1);
  const cKids = new Int32Array(cap);
  const frame =
    frameBuffer && frameBuffer.byteLength >= count * 4
      ? new Int32Array(frameBuffer, 0, count)
      : new Int32Array(count);
  // Frame ids are < 2^31, so a Uint32 view of `frame` lets `set` copy a stack's frames as memcpy.
  const frameU32 = new Uint32Array(frame.buffer, frame.byteOffset, count);
  frame[0] = ROOT_FRAME;
  cEnd[0] = 1;
  cParent[0] = -1;
  let chains = 1;
  /** Chains with two or more children: their lists are re-ordered by weight at the end. */
  const branching: number[] = [];

  // The chains on the previous stack's path, root first, and the weight gathered under each so
  // far (its total once the walk leaves it: sorted order never comes back).
  const open = new Int32Array(maxDepth + 1);
  const acc = new Float64Array(maxDepth + 1);
  let top = 0; // open[0] = the root chain
  let next = 1;
  const addChild = (par: number, child: number) => {
    cKids[par]++;
    if (cFirst[par] < 0) cFirst[par] = child;
    else {
      cNext[cLast[par]] = child;
      if (cFirst[par] === cLast[par]) branching.push(par);
    }
    cLast[par] = child;
  };
  for (let k = 0; k < n; k++) {
    const s = sorted[k];
    const b = start[s];
    const len = start[s + 1] - b;
    const common = lcp[k];
    const w = weight[s];
    // Leave the chains that lie wholly below the common prefix: their subtrees are complete.
    while (top > 0 && cDepth[open[top]] > common) {
      const c = open[top];
      cTotal[c] = acc[top];
      acc[top - 1] += acc[top];
      top--;
    }
    const x = open[top];
    const xLastDepth = cDepth[x] + (cEnd[x] - cStart[x]) - 1;
    if (common < xLastDepth) {
      // The stack leaves x in its middle: x's nodes below the branch point become a chain y of
      // their own, complete already (y keeps x's children and self).
      const y = chains++;
      const cut = cStart[x] + (common - cDepth[x]) + 1; // y's first node
      cStart[y] = cut;
      cEnd[y] = cEnd[x];
      cEnd[x] = cut;
      cParent[y] = cut - 1;
      cDepth[y] = common + 1;
      cTotal[y] = acc[top];
      cSelf[y] = cSelf[x];
      cSelf[x] = 0;
      cFirst[y] = cFirst[x];
      cLast[y] = cLast[x];
      cKids[y] = cKids[x];
      cKids[x] = 1;
      if (cFirst[x] >= 0 && cFirst[x] !== cLast[x]) branching.push(y);
      cFirst[x] = y;
      cLast[x] = y;
      // Chain ids of y's nodes are written at the end, from cStart/cEnd.
    }
    if (len === common) {
      // The stack ends at x's last node (a repeated stack: views may produce them).
      cSelf[x] += w;
      acc[top] += w;
      if (leafOut) leafOut[s] = cEnd[x] - 1;
      continue;
    }
    // The new nodes: one chain z under x's last node.
    const z = chains++;
    cStart[z] = next;
    cEnd[z] = next + (len - common);
    cParent[z] = cEnd[x] - 1;
    cDepth[z] = common + 1;
    cSelf[z] = w;
    // A short suffix by hand: a view per stack to copy one frame cost more than the copy (a flat
    // profile's 8.75M stacks at 400 MB: ~0.4 s, and as much again of collection).
    if (len - common < 16) {
      for (let i = b + common, j = next; i < b + len; i++, j++) frame[j] = frames[i];
    } else frameU32.set(frames.subarray(b + common, b + len), next);
    next += len - common;
    if (leafOut) leafOut[s] = next - 1;
    addChild(x, z);
    open[++top] = z;
    acc[top] = w;
  }
  while (top > 0) {
    cTotal[open[top]] = acc[top];
    acc[top - 1] += acc[top];
    top--;
  }
  cTotal[0] = acc[0];
  if (byWeight) orderChildrenByWeight(branching, cFirst, cNext, cTotal, cStart, cKids, count);

  // Chains renumbered in the order of their first nodes (a split makes a chain that starts inside
  // an older one), so that a node's chain is a binary search away; links are node ids already.
  // Chains made in that order already, as many as the arrays hold (a flat profile's), keep them.
  const byStart = chainsByStart(cStart, chains, count);
  let kept = chains === cap;
  for (let i = 0; i < chains && kept; i++) kept = byStart[i] === i;
  const pick = <A extends Int32Array | Float64Array>(from: A, into: (n: number) => A): A => {
    if (kept) return from;
    const to = into(chains);
    for (let i = 0; i < chains; i++) to[i] = from[byStart[i]];
    return to;
  };
  const ints = (k: number) => new Int32Array(k);
  const floats = (k: number) => new Float64Array(k);
  const firstChild = kept ? cFirst : ints(chains);
  const nextSibling = kept ? cNext : ints(chains);
  for (let i = 0; i < chains; i++) {
    const c = byStart[i];
    firstChild[i] = cFirst[c] < 0 ? -1 : cStart[cFirst[c]];
    nextSibling[i] = cNext[c] < 0 ? -1 : cStart[cNext[c]];
  }
  return {
    count,
    frame,
    chains: {
      count: chains,
      start: pick(cStart, ints),
      end: pick(cEnd, ints),
      parent: pick(cParent, ints),
      depth: pick(cDepth, ints),
      total: pick(cTotal, floats),
      self: pick(cSelf, floats),
      firstChild,
      nextSibling,
      children: pick(cKids, ints),
    },
    maxDepth,
  };
}

/**
 * Chains 0 … `chains − 1` in the order of their first nodes (`start`, node ids below `nodes`): as
 * a natively sorted Float64Array of `start · chains + chain` where that is exact (no comparator
 * call per comparison: ~45 ms instead of ~85 for the 390k chains of a 400 MB profile).
 */
function chainsByStart(start: Int32Array, chains: number, nodes: number): Int32Array {
  const ids = new Int32Array(chains);
  for (let c = 0; c < chains; c++) ids[c] = c;
  return inStartOrder(ids, start, chains, nodes);
}

/**
 * `ids` (chains below `idBound`, first nodes below `startBound`) sorted by their first nodes, in
 * place: natively by `start · idBound + id` where exact, else with a comparator.
 */
function inStartOrder(ids: Int32Array, start: Int32Array, idBound: number, startBound: number): Int32Array {
  // In order already: a tree without splits (a flat profile's: 8.75M chains at 400 MB, 1.3 s to sort).
  let i = 1;
  while (i < ids.length && start[ids[i - 1]] < start[ids[i]]) i++;
  if (i >= ids.length) return ids;
  if (startBound * idBound >= 2 ** 53) return ids.sort((a, b) => start[a] - start[b]);
  const keys = new Float64Array(ids.length);
  for (let i = 0; i < ids.length; i++) keys[i] = start[ids[i]] * idBound + ids[i];
  keys.sort();
  for (let i = 0; i < ids.length; i++) ids[i] = keys[i] % idBound;
  return ids;
}

/** The sorted order of each profile's stacks made so far (the fold in place makes one). */
const sortedOf = new WeakMap<FoldedProfile['stacks'], SortedStacks>();

/**
 * Stack indices in lexicographic order of their frame sequences: build's first step, shared, and
 * kept with the stacks (a view shown again sorts nothing).
 */
export function sortedStackOrder(p: FoldedProfile): SortedStacks {
  let sorted = sortedOf.get(p.stacks);
  if (sorted === undefined) {
    sorted = sortStacks(p.stacks.start, p.stacks.frames, p.stacks.count);
    sortedOf.set(p.stacks, sorted);
  }
  return sorted;
}

/** Gives sortedStackOrder the sorted order of `stacks`, made with them (foldStacksInPlace). */
export function rememberSortedStacks(stacks: FoldedProfile['stacks'], sorted: SortedStacks): void {
  sortedOf.set(stacks, sorted);
}

/**
 * A profile with at least PREVIEW_MIN_FRAMES stack frames (one per PC when unsymbolized) paints a
 * coarse tree first: its nodes at least PREVIEW_FRACTION of all samples, all a full-width graph
 * can draw. Smaller profiles are built whole at once.
 */
export const PREVIEW_FRACTION = 1 / 4096;
/** `tree.frame` of the virtual root (node 0), the one node that is no function. */
export const ROOT_FRAME = -1;
/**
 * In a coarse tree, one child per node stands for its light children together: this is its
 * `tree.frame` (`LIGHT_CHILDREN >>> 0` in a profile's Uint32 stacks), and the flame graph draws it
 * as a merged bar, as it draws those children when they are too narrow in the full tree.
 */
export const LIGHT_CHILDREN = -2;
export const PREVIEW_MIN_FRAMES = 1_000_000;

/**
 * Only the nodes at least `minValue` heavy (what a first paint at full width can show), from the
 * sorted stack order: a node is a contiguous range of sorted stacks, so its total is a difference
 * of prefix sums, and its children are the runs of that range split where a stack's common prefix
 * with the one before it (`lcp`) is no longer than the node's depth. Light children are one
 * LIGHT_CHILDREN child together. Costs about (stacks × heavy levels) reads of `lcp`, in order,
 * and one frame read per node kept: reading each stack's frame at each heavy level instead (a
 * cache miss each, stacks in sorted order lie anywhere) took ~90 ms of a 400 MB profile's tree in
 * Chromium. `maxDepth` is the deepest stack's, as in the full tree.
 *
 * Each heavy node with stacks that end there becomes one cut stack (its path), and its light
 * children one more (its path + LIGHT_CHILDREN); buildCallTree of those is the coarse tree.
 */
export function buildCoarseTree(p: FoldedProfile, sortedStacks: SortedStacks, minValue: number): CallTree {
  const { start, frames, weight } = p.stacks;
  const { order, lcp } = sortedStacks;
  const n = p.stacks.count;
  const prefix = new Float64Array(n + 1);
  let maxDepth = 0;
  for (let k = 0; k < n; k++) {
    prefix[k + 1] = prefix[k] + weight[order[k]];
    maxDepth = Math.max(maxDepth, start[order[k] + 1] - start[order[k]]);
  }
  const outStart: number[] = [0];
  const outFrames: number[] = [];
  const outWeight: number[] = [];
  const emit = (from: number, depth: number, weight: number, last?: number) => {
    for (let i = 0; i < depth; i++) outFrames.push(frames[from + i]);
    if (last !== undefined) outFrames.push(last);
    outStart.push(outFrames.length);
    outWeight.push(weight);
  };
  // Work items: a heavy node's range [lo, hi) of sorted stacks and its depth; its path is the
  // first `d` frames of any stack in the range.
  const work: [number, number, number][] = [[0, n, 0]];
  while (work.length > 0) {
    const [lo, hi, d] = work.pop()!;
    let own = 0;
    let light = 0;
    let k = lo;
    // Stacks that end here come first (a prefix sorts before its extensions).
    while (k < hi && start[order[k] + 1] - start[order[k]] === d) own += weight[order[k++]];
    while (k < hi) {
      // The run of stacks with the same frame at depth d: it ends where one shares only d frames.
      const e = runEnd(lcp, k + 1, hi, d);
      if (prefix[e] - prefix[k] >= minValue) work.push([k, e, d + 1]);
      else light += prefix[e] - prefix[k];
      k = e;
    }
    const path = start[order[lo]];
    if (own > 0) emit(path, d, own);
    if (light > 0) emit(path, d, light, LIGHT_CHILDREN >>> 0);
  }
  const cut: FoldedProfile = {
    ...p,
    stacks: {
      count: outWeight.length,
      start: Uint32Array.from(outStart),
      frames: Uint32Array.from(outFrames),
      weight: Float64Array.from(outWeight),
    },
  };
  // A few thousand short stacks: sorting them is cheap.
  return { ...buildCallTree(cut), maxDepth };
}

/** The first k from `k` on, below `hi`, whose stack shares no more than `d` frames with the one before. */
function runEnd(lcp: Uint32Array, k: number, hi: number, d: number): number {
  while (k < hi && lcp[k] > d) k++;
  return k;
}

/**
 * Stacks in lexicographic order of their frame sequences (a prefix first), `order`, and the length
 * of each one's common prefix with the one before it in that order, `lcp` (0 for the first).
 */
export interface SortedStacks {
  order: Uint32Array;
  lcp: Uint32Array;
}

/** Ranges this small are sorted by comparing whole stacks. */
const SMALL_RANGE = 12;
/** From this many stacks a range whose keys are at most twice as many is sorted by counting. */
const COUNTING_FROM = 256;
/** How many root-side frames of each stack StackRows hold. */
export const ROW = 12;

/**
 * Each stack's first ROW frames (root first) as keys, frame + 1 (0 past the stack's end), ROW
 * keys a stack: written by the fold in place while each stack is in its buffer. The sort reads
 * stacks at the depths where they part, which lie near the root: from these rows, a 15th of the
 * stacks' buffer, instead of a cache miss each in that buffer (in sorted order the stacks lie
 * anywhere).
 */
export type StackRows = Uint32Array;

/** The key of stack s at depth d: its frame there + 1, or 0 past its end. */
function keyAt(
  start: Uint32Array,
  frames: Uint32Array,
  rows: StackRows | null,
  s: number,
  d: number,
): number {
  if (rows !== null && d < ROW) return rows[s * ROW + d];
  const k = start[s] + d;
  return k < start[s + 1] ? frames[k] + 1 : 0;
}

/** How deep stacks x and y agree, from depth d (which they share) up to `limit` at most. */
function agreeFrom(
  start: Uint32Array,
  frames: Uint32Array,
  rows: StackRows | null,
  x: number,
  y: number,
  d: number,
  limit: number,
): number {
  const bx = start[x];
  const by = start[y];
  const m = Math.min(start[x + 1] - bx, start[y + 1] - by, limit);
  let k = d;
  if (rows !== null && k < ROW) {
    const inRows = Math.min(m, ROW);
    const rx = x * ROW;
    const ry = y * ROW;
    while (k < inRows && rows[rx + k] === rows[ry + k]) k++;
    if (k < inRows) return k;
  }
  while (k < m && frames[bx + k] === frames[by + k]) k++;
  return k;
}

/**
 * Sorts the stacks by an MSD radix sort on frame ids: a range of stacks that share their first
 * `d` frames first skips the frames all of them share, then is sorted by the frame at that depth
 * (a natively sorted Float64Array of `key · size + position`: no comparator), and each run of
 * equal frames is sorted one level down. Every stack's common prefix with the one before it falls
 * out: it is the depth at which they were told apart. The work is about the stacks' common prefixes
 * (read in order, stack by stack) plus one native sort per level, where comparing whole stacks in
 * `Array.prototype.sort` cost a comparator call and two cache misses per comparison (~0.3 s for the
 * 280k stacks of a 400 MB profile). Stable: equal stacks stay in the order of their indices.
 * `rows`: the stacks' root-side frames (StackRows), read instead of the stacks where they reach.
 */
export function sortStacks(
  start: Uint32Array,
  frames: Uint32Array,
  n: number,
  rows: StackRows | null = null,
): SortedStacks {
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const lcp = new Uint32Array(n);
  if (n < 2) return { order, lcp };
  const keys = new Float64Array(n);
  const moved = new Uint32Array(n);
  /** A counting sort's counters (frame ids + 2), and its keys in their new order: made when first needed. */
  let counts = new Int32Array(0);
  let movedKeys: Uint32Array | null = null;
  // Work: ranges [lo, hi) of `order` whose stacks share their first d frames.
  const work: number[] = [0, n, 0];
  while (work.length > 0) {
    const d0 = work.pop()!;
    const hi = work.pop()!;
    const lo = work.pop()!;
    if (hi - lo <= SMALL_RANGE) {
      sortSmall(start, frames, rows, order, lcp, lo, hi, d0);
      continue;
    }
    // The frames every stack of the range shares past d0.
    const s0 = order[lo];
    let d = start[s0 + 1] - start[s0];
    for (let i = lo + 1; i < hi && d > d0; i++) d = agreeFrom(start, frames, rows, s0, order[i], d0, d);
    // Sort by the frame at depth d (0 for a stack that ends there: it comes first).
    const size = hi - lo;
    const kv = keys.subarray(0, size);
    let maxKey = 0;
    // Ranges whose stacks come in order already (a flat profile's, one frame each and numbered in
    // stack order: 8.75M of them at 400 MB, ~0.8 s to sort) are left as they are.
    let inOrder = true;
    for (let i = 0; i < size; i++) {
      const key = keyAt(start, frames, rows, order[lo + i], d);
      kv[i] = key;
      if (key < maxKey) inOrder = false;
      else maxKey = key;
    }
    if (inOrder) {
      // kv holds the keys in sorted order, and order stays (a stable sort would not move them)
    } else if (size >= COUNTING_FROM && maxKey <= 2 * size) {
      // Few distinct keys for the range's size (the root's frames of a large profile): a counting
      // sort, stable, in two passes over the range and one over the counters.
      if (counts.length < maxKey + 2) counts = new Int32Array(Math.max(maxKey + 2, 2 * counts.length));
      else counts.fill(0, 0, maxKey + 2);
      movedKeys ??= new Uint32Array(n);
      for (let i = 0; i < size; i++) counts[kv[i] + 1]++;
      for (let k = 1; k <= maxKey + 1; k++) counts[k] += counts[k - 1];
      for (let i = 0; i < size; i++) {
        const at = counts[kv[i]]++;
        moved[at] = order[lo + i];
        movedKeys[at] = kv[i];
      }
      order.set(moved.subarray(0, size), lo);
      kv.set(movedKeys.subarray(0, size));
    } else if ((maxKey + 1) * size < 2 ** 53) {
      for (let i = 0; i < size; i++) kv[i] = kv[i] * size + i;
      kv.sort();
      for (let i = 0; i < size; i++) {
        const k = kv[i] % size;
        moved[i] = order[lo + k];
        kv[i] = (kv[i] - k) / size; // the key again, now in sorted order
      }
      order.set(moved.subarray(0, size), lo);
    } else {
      const keyOf = (s: number) => keyAt(start, frames, rows, s, d);
      const part = Array.from(order.subarray(lo, hi));
      part.sort((x, y) => keyOf(x) - keyOf(y) || x - y);
      order.set(part, lo);
      for (let i = 0; i < size; i++) kv[i] = keyOf(part[i]);
    }
    // Runs of equal keys at d (read from the sorted keys, not from the stacks again): each told
    // apart from the one before at d, and sorted one deeper. Key 0 (stacks that end at d, equal to
    // this prefix: repeated stacks, which views may produce) sorts first.
    let g = lo;
    while (g < hi) {
      const key = kv[g - lo];
      let e = g + 1;
      while (e < hi && kv[e - lo] === key) e++;
      if (key === 0) for (let x = g + 1; x < e; x++) lcp[x] = d;
      else if (e - g > 1) work.push(g, e, d + 1);
      if (g > lo) lcp[g] = d;
      g = e;
    }
  }
  return { order, lcp };
}

/** Insertion sort of a small range whose stacks share their first d frames; sets their lcp but the first's. */
function sortSmall(
  start: Uint32Array,
  frames: Uint32Array,
  rows: StackRows | null,
  order: Uint32Array,
  lcp: Uint32Array,
  lo: number,
  hi: number,
  d: number,
): void {
  const cmp = (x: number, y: number): number => {
    const xl = start[x + 1] - start[x];
    const yl = start[y + 1] - start[y];
    const c = agreeFrom(start, frames, rows, x, y, d, xl);
    if (c < xl && c < yl) return keyAt(start, frames, rows, x, c) - keyAt(start, frames, rows, y, c);
    return xl - yl;
  };
  for (let i = lo + 1; i < hi; i++) {
    const v = order[i];
    let j = i - 1;
    while (j >= lo && cmp(order[j], v) > 0) {
      order[j + 1] = order[j];
      j--;
    }
    order[j + 1] = v;
  }
  for (let i = lo + 1; i < hi; i++) {
    const x = order[i - 1];
    lcp[i] = agreeFrom(start, frames, rows, x, order[i], d, start[x + 1] - start[x]);
  }
}

/**
 * Re-links the child chains of the given chains heaviest first (ties: lower node id first, which
 * is the order they were made in).
 */
function orderChildrenByWeight(
  parents: number[],
  first: Int32Array,
  next: Int32Array,
  total: Float64Array,
  startNode: Int32Array,
  kids: Int32Array,
  nodes: number,
): void {
  const byWeight = (a: number, b: number) => total[b] - total[a] || startNode[a] - startNode[b];
  const group: number[] = [];
  for (const p of parents) {
    if (kids[p] >= 256) {
      // By first node (the order they were made in, unless p was ordered already), then stably
      // by weight (natively: one node of a flat profile has millions).
      const ids = new Int32Array(kids[p]);
      for (let c = first[p], i = 0; c !== -1; c = next[c]) ids[i++] = c;
      inStartOrder(ids, startNode, first.length, nodes);
      stableByWeightDescending(ids, total);
      link(p, ids);
    } else {
      group.length = 0;
      for (let c = first[p]; c !== -1; c = next[c]) group.push(c);
      link(p, group.sort(byWeight));
    }
  }
  function link(p: number, ids: ArrayLike<number>): void {
    first[p] = ids[0];
    for (let i = 0; i + 1 < ids.length; i++) next[ids[i]] = ids[i + 1];
    next[ids[ids.length - 1]] = -1;
  }
}

/** The frame ids from the root down to `node` (excluding the virtual root). */
export function pathToNode(tree: CallTree, node: number): number[] {
  const out: number[] = [];
  for (let v = node; v > 0; v = parentOf(tree, v)) out.push(tree.frame[v]);
  return out.reverse();
}

/** The node reached by following frame ids from the root (the deepest one found). */
export function nodeByFrames(tree: CallTree, frames: ArrayLike<number>): number {
  let v = 0;
  for (let i = 0; i < frames.length; i++) {
    let c = firstChildOf(tree, v);
    while (c !== -1 && tree.frame[c] !== frames[i]) c = nextSiblingOf(tree, c);
    if (c === -1) break;
    v = c;
  }
  return v;
}

/** The node reached by following function names from the root (the deepest one found). */
export function nodeByNames(
  tree: CallTree,
  names: readonly string[],
  nameOfFrame: (frame: number) => string,
): number {
  let v = 0;
  for (const name of names) {
    let c = firstChildOf(tree, v);
    while (c !== -1 && (tree.frame[c] < 0 || nameOfFrame(tree.frame[c]) !== name)) c = nextSiblingOf(tree, c);
    if (c === -1) break;
    v = c;
  }
  return v;
}

/**
 * Sets every chain's total and self to other weights of the same stacks (a diff's comparison or
 * baseline) and re-orders each node's children heaviest first by them (ties: lower node id first,
 * as buildCallTree orders them).
 */
export function reweighTree(t: CallTree, total: Float64Array, self: Float64Array): void {
  const c = t.chains;
  c.total.set(total);
  c.self.set(self);
  // chains are numbered in the order of their first nodes: by chain, ties by node
  const byWeight = (a: number, b: number) => total[b] - total[a] || a - b;
  const kids: number[] = [];
  for (let p = 0; p < c.count; p++) {
    if (c.children[p] < 2) continue;
    // the child chains (a child is its chain's first node)
    kids.length = 0;
    for (let k = chainOf(t, c.firstChild[p]); ; k = chainOf(t, c.nextSibling[k])) {
      kids.push(k);
      if (c.nextSibling[k] === -1) break;
    }
    if (kids.length >= 256) {
      // by chain, then stably by weight (natively, as buildCallTree orders many children)
      const ids = Int32Array.from(kids).sort();
      stableByWeightDescending(ids, total);
      for (let i = 0; i < ids.length; i++) kids[i] = ids[i];
    } else kids.sort(byWeight);
    c.firstChild[p] = c.start[kids[0]];
    for (let i = 0; i + 1 < kids.length; i++) c.nextSibling[kids[i]] = c.start[kids[i + 1]];
    c.nextSibling[kids[kids.length - 1]] = -1;
  }
}
