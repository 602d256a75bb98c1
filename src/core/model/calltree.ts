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
 */
export function buildCallTree(p: FoldedProfile): CallTree {
  const { start, frames, weight } = p.stacks;
  const n = p.stacks.count;
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

  // Pass 1: count the nodes.
  let count = 1;
  let maxDepth = 0;
  for (let k = 0; k < n; k++) {
    const s = order[k];
    const len = start[s + 1] - start[s];
    if (len > maxDepth) maxDepth = len;
    if (k === 0) {
      count += len;
      continue;
    }
    const q = order[k - 1];
    count += len - commonPrefix(frames, start[q], start[q + 1] - start[q], start[s], len);
  }

  // Pass 2: create them.
  const parent = new Int32Array(count);
  const frame = new Int32Array(count);
  const depth = new Int32Array(count);
  const total = new Float64Array(count);
  const self = new Float64Array(count);
  parent[0] = -1;
  frame[0] = -1;
  const path = new Int32Array(maxDepth + 1);
  let next = 1;
  for (let k = 0; k < n; k++) {
    const s = order[k];
    const b = start[s];
    const len = start[s + 1] - b;
    let common = 0;
    if (k > 0) {
      const q = order[k - 1];
      common = commonPrefix(frames, start[q], start[q + 1] - start[q], b, len);
    }
    let node = path[common];
    for (let i = common; i < len; i++) {
      const id = next++;
      parent[id] = node;
      frame[id] = frames[b + i];
      depth[id] = i + 1;
      node = id;
      path[i + 1] = id;
    }
    self[node] += weight[s];
  }
  // Children have larger ids than their parents: one reverse pass sums totals.
  for (let i = count - 1; i >= 0; i--) {
    total[i] += self[i];
    if (i > 0) total[parent[i]] += total[i];
  }
  const { firstChild, nextSibling } = linkChildren(count, parent, total);
  return { count, parent, frame, depth, total, self, firstChild, nextSibling, maxDepth };
}

/** Children lists ordered heaviest first (ties: lower node id first). O(n log k), k = siblings. */
function linkChildren(
  n: number,
  parent: Int32Array,
  total: Float64Array,
): { firstChild: Int32Array; nextSibling: Int32Array } {
  // One reverse pass links every parent's children in increasing id order.
  const firstChild = new Int32Array(n).fill(-1);
  const nextSibling = new Int32Array(n).fill(-1);
  for (let i = n - 1; i > 0; i--) {
    const p = parent[i];
    nextSibling[i] = firstChild[p];
    firstChild[p] = i;
  }
  // Then only the (few) parents with several children are reordered by weight.
  const byWeight = (a: number, b: number) => total[b] - total[a] || a - b;
  const group: number[] = [];
  for (let p = 0; p < n; p++) {
    const c0 = firstChild[p];
    if (c0 === -1 || nextSibling[c0] === -1) continue;
    group.length = 0;
    for (let c = c0; c !== -1; c = nextSibling[c]) group.push(c);
    group.sort(byWeight);
    firstChild[p] = group[0];
    for (let i = 0; i + 1 < group.length; i++) nextSibling[group[i]] = group[i + 1];
    nextSibling[group[group.length - 1]] = -1;
  }
  return { firstChild, nextSibling };
}

/** Per-function self and total; a recursive function's total counts each sample once. */
export function buildFunctionTable(tree: CallTree, frameCount: number): FunctionTable {
  const self = new Float64Array(frameCount);
  const total = new Float64Array(frameCount);
  const onStack = new Int32Array(frameCount);
  // Iterative DFS with an explicit stack; `exit` marks nodes whose subtree is done.
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
