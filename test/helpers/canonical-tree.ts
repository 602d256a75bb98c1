// Call trees compared by names: read back from treeToText (so not tied to how trees are stored),
// cut like the coarse tree, and printed with siblings in a canonical order.

import type { CallTree } from '../../src/core/model/calltree';
import { treeToText } from '../../src/core/model/text-notation';
import type { FoldedProfile } from '../../src/core/types';

export interface Node {
  name: string;
  total: number;
  self: number;
  parent: number;
}

/**
 * The nodes of the tree of `p`'s stacks (node 0 the root), read back from treeToText so the test
 * does not depend on how trees are stored. The root holds every stack's weight; its self is what
 * its children leave.
 */
export function nodesOf(tree: CallTree, p: FoldedProfile): Node[] {
  const all = p.stacks.weight.reduce((a, b) => a + b, 0);
  const nodes: Node[] = [{ name: '(root)', total: all, self: 0, parent: -1 }];
  const atDepth = [0];
  let children = 0;
  for (const line of treeToText(tree, p).split('\n')) {
    if (line === '') continue;
    const d = (line.length - line.trimStart().length) / 2;
    const sp = line.lastIndexOf(' ');
    const [total, self] = line
      .slice(sp + 1)
      .split('/')
      .map(Number);
    atDepth[d + 1] = nodes.length;
    nodes.push({ name: line.slice(2 * d, sp), total, self, parent: atDepth[d] });
    if (d === 0) children += total;
  }
  nodes[0].self = all - children;
  return nodes;
}

/**
 * The coarse tree by definition: nodes at least minValue heavy under heavy ancestors; the light
 * children of a kept node are one "(light children)" child of it (what LIGHT_CHILDREN stands for).
 */
export function coarse(nodes: Node[], minValue: number): Node[] {
  const keep = nodes.map(() => -1);
  const light = new Map<number, Node>();
  const out: Node[] = [];
  nodes.forEach((v, i) => {
    // Parents come before their children in treeToText's (preorder) order.
    if (i === 0 || (keep[v.parent] >= 0 && v.total >= minValue)) {
      keep[i] = out.length;
      out.push({ ...v, parent: i === 0 ? -1 : keep[v.parent] });
    } else if (keep[v.parent] >= 0) {
      const parent = keep[v.parent];
      let rest = light.get(parent);
      if (!rest) {
        rest = { name: '(light children)', total: 0, self: 0, parent };
        light.set(parent, rest);
        out.push(rest);
      }
      rest.total += v.total;
      rest.self += v.total;
    }
  });
  return out;
}

/**
 * `name total/self` per node, indented by depth, siblings sorted by name (then weights): equal
 * for equal trees, whatever their node and frame ids.
 */
export function canonical(nodes: Node[]): string {
  const kids: number[][] = nodes.map(() => []);
  nodes.forEach((v, i) => {
    if (i > 0) kids[v.parent].push(i);
  });
  const cmp = (a: number, b: number) => {
    const x = nodes[a];
    const y = nodes[b];
    return x.name < y.name ? -1 : x.name > y.name ? 1 : x.total - y.total || x.self - y.self;
  };
  const out: string[] = [];
  const work: [number, number][] = [[0, 0]];
  while (work.length > 0) {
    const [v, d] = work.pop()!;
    out.push(`${' '.repeat(d)}${nodes[v].name} ${nodes[v].total}/${nodes[v].self}`);
    const sorted = kids[v].sort(cmp);
    for (let k = sorted.length - 1; k >= 0; k--) work.push([sorted[k], d + 1]);
  }
  return out.join('\n');
}
