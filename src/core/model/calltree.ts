// The call tree of a FoldedProfile and the per-function table, both columnar.
// Built iteratively (no recursion: stacks reach 250+ frames) from lexicographically sorted stacks.

import type { FoldedProfile } from '../types';

export interface CallTree {
  /** Number of nodes; node 0 is the virtual root (all samples), frame -1. */
  count: number;
  parent: Int32Array;
  frame: Int32Array;
  depth: Int32Array;
  total: Float64Array;
  self: Float64Array;
  /** Children linked lists, heaviest first. -1 ends a list. */
  firstChild: Int32Array;
  nextSibling: Int32Array;
  maxDepth: number;
}

export interface FunctionTable {
  /** One row per frame id (function); row i describes frame i. */
  count: number;
  self: Float64Array;
  /** Samples with the function anywhere on the stack, each sample counted once (recursion). */
  total: Float64Array;
}

/** Length of the common prefix of two stacks. */
function commonPrefix(frames: Uint32Array, a: number, aLen: number, b: number, bLen: number): number {
  const n = Math.min(aLen, bLen);
  let i = 0;
  while (i < n && frames[a + i] === frames[b + i]) i++;
  return i;
}

/**
 * Builds the call tree (root first) of a profile's stacks.
 *
 * Stacks are sorted lexicographically first; then the nodes a stack adds are exactly its suffix
 * after the common prefix with the previous stack. No hash table, arrays allocated once at their
 * exact size, and node ids come out in depth-first preorder (a subtree is a contiguous id range).
 *
 * Performance (a 100 MB profile gives 12.6M nodes, so every per-node operation counts):
 * - the new nodes of a stack form one chain of consecutive ids, written in one tight loop;
 * - child links are made while nodes are created (a node's first child is the next id, a new
 *   branch is the next sibling of the previous stack's node at that depth), so there is no
 *   separate linking pass and no `fill(-1)`: every element of every array is written exactly once;
 * - totals are summed when the walk leaves a node, not in a second pass over all nodes;
 * - only parents that got a second child are remembered, and only those are re-sorted by weight.
 * What remains is mostly the first touch of ~36 bytes × nodes of fresh memory (page faults).
 */
export function buildCallTree(p: FoldedProfile, order?: Uint32Array): CallTree {
  return build(p, false, order).tree;
}

/**
 * buildCallTree and buildFunctionTable in one walk (what the worker needs for a new profile):
 * the walk over sorted stacks already enters and leaves every node in depth-first order, so the
 * per-function sums cost a few operations per node there, instead of a second pass over all
 * nodes (~250 ms for 12.6M nodes). The results are the same as the two calls.
 */
export function buildCallTreeWithFunctions(
  p: FoldedProfile,
  order?: Uint32Array,
): { tree: CallTree; functions: FunctionTable } {
  const { tree, functions } = build(p, true, order);
  return { tree, functions: functions! };
}

/** Stack indices in lexicographic order of their frame sequences: build's first step, shared. */
export function sortedStackOrder(p: FoldedProfile): Uint32Array {
  return sortStacks(p.stacks.start, p.stacks.frames, p.stacks.count);
}

/**
 * Only the nodes at least `minValue` heavy (what a first paint at full width can show), from the
 * sorted stack order: a node is a contiguous range of sorted stacks, so its total is a difference
 * of prefix sums and its children are runs of equal frames one level down. Light children are
 * left out (their weight shows as the parent's own). Costs about (stacks × heavy levels), a few ms
 * where the full tree takes hundreds. `maxDepth` is the deepest stack's, as in the full tree.
 */
export function buildCoarseTree(p: FoldedProfile, order: Uint32Array, minValue: number): CallTree {
  const { start, frames, weight } = p.stacks;
  const n = p.stacks.count;
  const prefix = new Float64Array(n + 1);
  let maxDepth = 0;
  for (let k = 0; k < n; k++) {
    prefix[k + 1] = prefix[k] + weight[order[k]];
    maxDepth = Math.max(maxDepth, start[order[k] + 1] - start[order[k]]);
  }
  const parent: number[] = [-1];
  const frame: number[] = [-1];
  const depth: number[] = [0];
  const total: number[] = [prefix[n]];
  const self: number[] = [0];
  const kids: number[][] = [[]];
  // Work items: node id, its range [lo, hi) of sorted stacks, and its depth.
  const work: [number, number, number, number][] = [[0, 0, n, 0]];
  while (work.length > 0) {
    const [node, lo, hi, d] = work.pop()!;
    let k = lo;
    // Stacks that end here come first (a prefix sorts before its extensions).
    while (k < hi && start[order[k] + 1] - start[order[k]] === d) self[node] += weight[order[k++]];
    while (k < hi) {
      const f = frames[start[order[k]] + d];
      let e = k + 1;
      while (e < hi && frames[start[order[e]] + d] === f) e++;
      const w = prefix[e] - prefix[k];
      if (w >= minValue) {
        const id = parent.length;
        parent.push(node);
        frame.push(f);
        depth.push(d + 1);
        total.push(w);
        self.push(0);
        kids.push([]);
        kids[node].push(id);
        work.push([id, k, e, d + 1]);
      } else {
        self[node] += w;
      }
      k = e;
    }
  }
  const count = parent.length;
  const firstChild = new Int32Array(count).fill(-1);
  const nextSibling = new Int32Array(count).fill(-1);
  for (let v = 0; v < count; v++) {
    const c = kids[v].sort((a, b) => total[b] - total[a] || a - b);
    if (c.length > 0) firstChild[v] = c[0];
    for (let i = 0; i + 1 < c.length; i++) nextSibling[c[i]] = c[i + 1];
  }
  return {
    count,
    parent: Int32Array.from(parent),
    frame: Int32Array.from(frame),
    depth: Int32Array.from(depth),
    total: Float64Array.from(total),
    self: Float64Array.from(self),
    firstChild,
    nextSibling,
    maxDepth,
  };
}

function build(
  p: FoldedProfile,
  withFunctions: boolean,
  sorted?: Uint32Array,
): { tree: CallTree; functions: FunctionTable | null } {
  const { start, frames, weight } = p.stacks;
  const n = p.stacks.count;
  const order = sorted ?? sortStacks(start, frames, n);

  // Pass 1: the common prefix of each stack with the previous one in sorted order (kept for pass 2
  // rather than compared again), the node count and the deepest stack.
  const lcp = new Uint32Array(n);
  let count = 1;
  let maxDepth = 0;
  for (let k = 0; k < n; k++) {
    const s = order[k];
    const len = start[s + 1] - start[s];
    if (len > maxDepth) maxDepth = len;
    let c = 0;
    if (k > 0) {
      const q = order[k - 1];
      c = commonPrefix(frames, start[q], start[q + 1] - start[q], start[s], len);
    }
    lcp[k] = c;
    count += len - c;
  }

  // Pass 2: create the nodes. Typed arrays start zeroed; each element below is written once.
  const parent = new Int32Array(count);
  const frame = new Int32Array(count);
  const depth = new Int32Array(count);
  const total = new Float64Array(count);
  const self = new Float64Array(count);
  const firstChild = new Int32Array(count);
  const nextSibling = new Int32Array(count);
  // Frame ids are < 2^31, so a Uint32 view of `frame` lets `set` copy a stack's frames as memcpy.
  const frameU32 = new Uint32Array(frame.buffer, frame.byteOffset, count);
  parent[0] = -1;
  frame[0] = -1;
  firstChild[0] = -1;
  nextSibling[0] = -1;
  /** path[d]: the node at depth d on the previous stack's path (path[0] = the root). */
  const path = new Int32Array(maxDepth + 1);
  /**
   * acc[d]: the weight gathered so far under path[d]. Totals are summed as the sorted walk leaves
   * a node (its subtree is complete then), while its entries are still in cache, instead of in
   * a separate reverse pass that re-read parent, self and total for every node.
   */
  const acc = new Float64Array(maxDepth + 1);
  /** Parents that have several children (each listed once), to order by weight afterwards. */
  const branching: number[] = [];
  // The function table, when asked for: per frame, self and total weight, and how many times the
  // frame is on the current path (a node is its frame's topmost occurrence when it is the only
  // one there, so recursion counts each sample once).
  const frameCount = withFunctions ? p.frames.count : 0;
  const fnSelf = new Float64Array(frameCount);
  const fnTotal = new Float64Array(frameCount);
  const onPath = new Int32Array(frameCount);
  let prevLen = 0;
  let prevStart = 0;
  let next = 1;
  for (let k = 0; k < n; k++) {
    const s = order[k];
    const b = start[s];
    const len = start[s + 1] - b;
    const common = lcp[k];
    // The previous stack's nodes below the common prefix are complete: fix their totals.
    for (let d = prevLen; d > common; d--) {
      total[path[d]] = acc[d];
      acc[d - 1] += acc[d];
      if (withFunctions) {
        const f = frames[prevStart + d - 1];
        if (onPath[f] === 1) fnTotal[f] += acc[d];
        onPath[f]--;
      }
    }
    const w = weight[s];
    if (withFunctions && len > 0) fnSelf[frames[b + len - 1]] += w;
    if (common === len) {
      // The same stack again (a FoldedProfile from a view may repeat one): no new nodes.
      self[path[len]] += w;
      acc[len] += w;
      prevLen = len;
      prevStart = b;
      continue;
    }
    const par = path[common];
    const first = next;
    if (prevLen > common) {
      // par already has children; the last one made is on the previous stack's path.
      const sib = path[common + 1];
      nextSibling[sib] = first;
      if (firstChild[par] === sib) branching.push(par);
    } else {
      firstChild[par] = first;
    }
    frameU32.set(frames.subarray(b + common, b + len), first);
    let node = par;
    for (let i = common; i < len; i++) {
      const id = next++;
      parent[id] = node;
      depth[id] = i + 1;
      firstChild[id] = id + 1;
      nextSibling[id] = -1;
      path[i + 1] = id;
      acc[i + 1] = 0;
      node = id;
    }
    if (withFunctions) for (let i = b + common; i < b + len; i++) onPath[frames[i]]++;
    firstChild[node] = -1;
    self[node] += w;
    acc[len] += w;
    prevLen = len;
    prevStart = b;
  }
  for (let d = prevLen; d > 0; d--) {
    total[path[d]] = acc[d];
    acc[d - 1] += acc[d];
    if (withFunctions) {
      const f = frames[prevStart + d - 1];
      if (onPath[f] === 1) fnTotal[f] += acc[d];
      onPath[f]--;
    }
  }
  total[0] = acc[0];
  orderChildrenByWeight(branching, firstChild, nextSibling, total);
  const tree = { count, parent, frame, depth, total, self, firstChild, nextSibling, maxDepth };
  return { tree, functions: withFunctions ? { count: frameCount, self: fnSelf, total: fnTotal } : null };
}

/** Stack indices in lexicographic order of their frame sequences (a prefix first). */
function sortStacks(start: Uint32Array, frames: Uint32Array, n: number): Uint32Array {
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((x, y) => {
    const xb = start[x];
    const yb = start[y];
    const xl = start[x + 1] - xb;
    const yl = start[y + 1] - yb;
    const c = commonPrefix(frames, xb, xl, yb, yl);
    if (c < xl && c < yl) return frames[xb + c] - frames[yb + c];
    return xl - yl;
  });
  return order;
}

/**
 * Re-links the children of the given parents heaviest first (ties: lower node id first). Their
 * lists are in increasing id order on entry; parents with a single child need nothing.
 */
function orderChildrenByWeight(
  parents: number[],
  firstChild: Int32Array,
  nextSibling: Int32Array,
  total: Float64Array,
): void {
  const byWeight = (a: number, b: number) => total[b] - total[a] || a - b;
  const group: number[] = [];
  for (const p of parents) {
    group.length = 0;
    for (let c = firstChild[p]; c !== -1; c = nextSibling[c]) group.push(c);
    group.sort(byWeight);
    firstChild[p] = group[0];
    for (let i = 0; i + 1 < group.length; i++) nextSibling[group[i]] = group[i + 1];
    nextSibling[group[group.length - 1]] = -1;
  }
}

/** Per-function self and total; a recursive function's total counts each sample once. */
export function buildFunctionTable(tree: CallTree, frameCount: number): FunctionTable {
  return functionTableInPreorder(tree, frameCount) ?? functionTableByDfs(tree, frameCount);
}

/**
 * The fast way, for trees whose ids are a depth-first preorder (every tree buildCallTree makes):
 * one linear pass over the ids with the current root path in a typed array, instead of a DFS
 * through a JS array of 2 entries per node. Returns null, having checked as it goes, when the
 * ids are not in preorder (a node's parent is not on the path of the node before it).
 */
function functionTableInPreorder(tree: CallTree, frameCount: number): FunctionTable | null {
  const { count, parent, frame } = tree;
  const nodeSelf = tree.self;
  const nodeTotal = tree.total;
  if (count === 0 || parent[0] !== -1) return null;
  const self = new Float64Array(frameCount);
  const total = new Float64Array(frameCount);
  /** How many times each frame is on the current root path (recursion counts once). */
  const onStack = new Int32Array(frameCount);
  // The root path of the current node; its length is bounded by the tree's depth + the root.
  const path = new Int32Array(tree.maxDepth + 2);
  let sp = 0;
  path[0] = 0;
  const f0 = frame[0];
  if (f0 >= 0) {
    self[f0] += nodeSelf[0];
    total[f0] += nodeTotal[0];
    onStack[f0]++;
  }
  for (let v = 1; v < count; v++) {
    const p = parent[v];
    // Most nodes continue a chain (parent = the previous node, always on top of the path): test
    // that without touching memory, and only otherwise leave the subtrees that ended before v.
    if (p !== v - 1) {
      if (p < 0) return null; // a second root: the DFS from node 0 does not reach it
      while (sp >= 0 && path[sp] !== p) {
        const g = frame[path[sp--]];
        if (g >= 0) onStack[g]--;
      }
      if (sp < 0) return null;
    }
    if (sp + 1 === path.length) return null;
    path[++sp] = v;
    const f = frame[v];
    if (f >= 0) {
      const s = nodeSelf[v];
      if (s !== 0) self[f] += s; // most nodes have no self weight: skip the random write
      if (onStack[f] === 0) total[f] += nodeTotal[v];
      onStack[f]++;
    }
  }
  return { count: frameCount, self, total };
}

/** Any tree: iterative DFS with an explicit stack; `~v` marks nodes whose subtree is done. */
function functionTableByDfs(tree: CallTree, frameCount: number): FunctionTable {
  const self = new Float64Array(frameCount);
  const total = new Float64Array(frameCount);
  const onStack = new Int32Array(frameCount);
  const stack: number[] = [0];
  const { firstChild, nextSibling, frame } = tree;
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (v < 0) {
      const f = frame[~v];
      if (f >= 0) onStack[f]--;
      continue;
    }
    const f = frame[v];
    if (f >= 0) {
      self[f] += tree.self[v];
      if (onStack[f] === 0) total[f] += tree.total[v];
      onStack[f]++;
    }
    stack.push(~v);
    for (let c = firstChild[v]; c !== -1; c = nextSibling[c]) stack.push(c);
  }
  return { count: frameCount, self, total };
}

/** The frame ids from the root down to `node` (excluding the virtual root). */
export function pathToNode(tree: CallTree, node: number): number[] {
  const out: number[] = [];
  for (let v = node; v > 0; v = tree.parent[v]) out.push(tree.frame[v]);
  return out.reverse();
}

/** Every typed array of a tree, for postMessage transfer lists. */
export function treeBuffers(t: CallTree): ArrayBuffer[] {
  return [t.parent, t.frame, t.depth, t.total, t.self, t.firstChild, t.nextSibling].map(
    (a) => a.buffer as ArrayBuffer,
  );
}
