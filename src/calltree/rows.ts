// The call tree's rows: which nodes of a CallTree are shown, in order, as nodes are expanded and
// collapsed (Firefox Profiler's call tree; Grafana's call-tree pane). Pure and columnar: the rows
// are one Int32Array of node ids, children come heaviest first, and expanding a node with 100k
// children or collapsing one under a million rows is a sort of those children and a copy of the
// rows, never a walk of the whole tree. The view (CallTreeView.tsx) draws the rows on screen.

import {
  type CallTree,
  childCountOf,
  depthOf,
  firstChildOf,
  nextSiblingOf,
  parentOf,
  totalOf,
} from '../core/model/calltree';

export class CallTreeRows {
  /** Node ids in display order (`count` of them); the root (node 0) is not a row. */
  rows: Int32Array;
  count = 0;
  /** Per node: 1 while its children are rows. */
  readonly expanded: Uint8Array;
  /** Counts changes, for views that redraw on one. */
  version = 0;

  constructor(readonly tree: CallTree) {
    this.expanded = new Uint8Array(tree.count);
    this.rows = new Int32Array(16);
    this.expanded[0] = 1;
    this.insert(0, this.childrenOf(0));
  }

  /** Children sorted by expandAll, read again by visibleBelow (sorting them was most of `*`). */
  private sorted: Map<number, Int32Array> | null = null;

  /** The children of node `v`, heaviest first (ties: in the tree's order). */
  childrenOf(v: number): Int32Array {
    const known = this.sorted?.get(v);
    if (known) return known;
    const t = this.tree;
    const out = new Int32Array(childCountOf(t, v));
    let n = 0;
    for (let c = firstChildOf(t, v); c !== -1 && n < out.length; c = nextSiblingOf(t, c)) out[n++] = c;
    const totals = new Float64Array(n);
    for (let i = 0; i < n; i++) totals[i] = totalOf(t, out[i]);
    const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => totals[b] - totals[a] || a - b);
    const kids = Int32Array.from(order, (i) => out[i]);
    this.sorted?.set(v, kids);
    return kids;
  }

  /** The row index of node `v`, or -1 when it is not shown. */
  rowOf(v: number): number {
    for (let i = 0; i < this.count; i++) if (this.rows[i] === v) return i;
    return -1;
  }

  /** The depth of the node at row `i` (0 for the root's children). */
  depthAt(i: number): number {
    return depthOf(this.tree, this.rows[i]) - 1;
  }

  hasChildren(v: number): boolean {
    return firstChildOf(this.tree, v) !== -1;
  }

  /** Shows the children of `v` (a row, or the root) below it. */
  expand(v: number): void {
    if (this.expanded[v] || !this.hasChildren(v)) return;
    const at = v === 0 ? -1 : this.rowOf(v);
    if (v !== 0 && at < 0) return;
    this.expanded[v] = 1;
    this.insert(at + 1, this.visibleBelow(v));
  }

  /** The rows below an expanded `v`: its children, and below each expanded one its own, in order. */
  private visibleBelow(v: number): Int32Array {
    const out: number[] = [];
    const stack: Int32Array[] = [this.childrenOf(v)];
    const at: number[] = [0];
    while (stack.length > 0) {
      const top = stack.length - 1;
      if (at[top] >= stack[top].length) {
        stack.pop();
        at.pop();
        continue;
      }
      const u = stack[top][at[top]++];
      out.push(u);
      if (this.expanded[u] && this.hasChildren(u)) {
        stack.push(this.childrenOf(u));
        at.push(0);
      }
    }
    return Int32Array.from(out);
  }

  /** Hides everything below `v` (its expanded descendants stay expanded, to come back as they were). */
  collapse(v: number): void {
    if (!this.expanded[v] || v === 0) return;
    const at = this.rowOf(v);
    this.expanded[v] = 0;
    if (at >= 0) this.removeBelow(at);
  }

  /** Removes the rows below row `at` that are deeper than it (all rows for the root, at = -1). */
  private removeBelow(at: number): void {
    const depth = at < 0 ? -1 : this.depthAt(at);
    let end = at + 1;
    while (end < this.count && this.depthAt(end) > depth) end++;
    if (end === at + 1) return;
    this.rows.copyWithin(at + 1, end, this.count);
    this.count -= end - (at + 1);
    this.version++;
  }

  /** Expands `v` and everything below it, about `limit` rows at most (a huge subtree stops there). */
  expandAll(v: number, limit = 20_000): void {
    const at = v === 0 ? -1 : this.rowOf(v);
    if (v !== 0 && at < 0) return;
    let rows = 0;
    this.sorted = new Map();
    const stack = [v];
    while (stack.length > 0 && rows < limit) {
      const u = stack.pop()!;
      if (!this.hasChildren(u)) continue;
      this.expanded[u] = 1;
      const kids = this.childrenOf(u);
      rows += kids.length;
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    }
    this.removeBelow(at);
    this.insert(at + 1, this.visibleBelow(v));
    this.sorted = null;
  }

  /** Expands every ancestor of `v`, so that it is a row; its row. */
  reveal(v: number): number {
    const path: number[] = [];
    for (let u = parentOf(this.tree, v); u > 0; u = parentOf(this.tree, u)) path.push(u);
    for (let i = path.length - 1; i >= 0; i--) this.expand(path[i]);
    return this.rowOf(v);
  }

  /**
   * Opens the heaviest path from the root: each node's heaviest child while it holds at least
   * `share` of the whole (Firefox Profiler opens the call tree this way). The node it ends at.
   */
  openHeaviestPath(share = 0.01, maxDepth = 200): number {
    const whole = totalOf(this.tree, 0);
    let v = 0;
    for (let d = 0; d < maxDepth; d++) {
      const kids = this.childrenOf(v);
      if (kids.length === 0 || totalOf(this.tree, kids[0]) < whole * share) break;
      this.expand(v);
      v = kids[0];
    }
    return v;
  }

  private insert(at: number, nodes: Int32Array): void {
    if (nodes.length === 0) return;
    if (this.count + nodes.length > this.rows.length) {
      const grown = new Int32Array(Math.max(this.rows.length * 2, this.count + nodes.length));
      grown.set(this.rows.subarray(0, this.count));
      this.rows = grown;
    }
    this.rows.copyWithin(at + nodes.length, at, this.count);
    this.rows.set(nodes, at);
    this.count += nodes.length;
    this.version++;
  }
}
