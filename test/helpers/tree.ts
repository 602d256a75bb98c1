// Test oracles over call trees.

import {
  type CallTree,
  type FunctionTable,
  firstChildOf,
  nextSiblingOf,
  selfOf,
  totalOf,
} from '../../src/core/model/calltree';

/** Per-function self and total from the tree, by DFS: an independent check of functionTableOf. */
export function treeFunctionTable(tree: CallTree, frameCount: number): FunctionTable {
  const self = new Float64Array(frameCount);
  const total = new Float64Array(frameCount);
  const onStack = new Int32Array(frameCount);
  const stack: number[] = [0];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (v < 0) {
      const f = tree.frame[~v];
      if (f >= 0) onStack[f]--;
      continue;
    }
    const f = tree.frame[v];
    if (f >= 0) {
      self[f] += selfOf(tree, v);
      if (onStack[f] === 0) total[f] += totalOf(tree, v);
      onStack[f]++;
    }
    stack.push(~v);
    for (let c = firstChildOf(tree, v); c !== -1; c = nextSiblingOf(tree, c)) stack.push(c);
  }
  return { count: frameCount, self, total };
}
