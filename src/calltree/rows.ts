// The call tree's rows: which nodes of a CallTree are shown, in order, as nodes are expanded and
// collapsed (Firefox Profiler's call tree; Grafana's call-tree pane). Pure and columnar: the rows
// are one Int32Array of node ids, children come heaviest first, and expanding a node is a pass
// over its subtree's chains and a radix sort of its children, collapsing one a compare of the
// rows below it with its subtree's id range, opening the heaviest path a walk of first children:
// never a walk of the whole tree, nor a lookup per row (a DCPI image has 8.75M children at 400 MB).
// The view (CallTreeView.tsx) draws the rows on screen.

import {
  type CallTree,
  chainOf,
  depthOf,
  firstChildOf,
  parentOf,
  subtreeEndOf,
  totalOf,
} from '../core/model/calltree';
import { stableByWeightDescending } from '../core/model/order';

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

  /**
   * The children of node `v`, heaviest first (ties: lower id first, as the tree links them). The
   * chains of v's subtree follow its own (ids are a preorder): its children start the ones whose
   * parent is v, found in one pass over them and ordered by a radix sort of their totals. Reading
   * the tree's sibling links instead costs a binary search per child: a DCPI image's 8.75M children
   * (400 MB) took seconds, on the page's thread.
   */
  childrenOf(v: number): Int32Array {
    const known = this.sorted?.get(v);
    if (known) return known;
    const t = this.tree;
    const { start, end, depth, parent, total, children, count } = t.chains;
    const cv = chainOf(t, v);
    if (v < end[cv] - 1) return Int32Array.of(v + 1);
    const d = depth[cv] + (v - start[cv]);
    const all = new Int32Array(children[cv]);
    let n = 0;
    for (let k = cv + 1; k < count && depth[k] > d && n < all.length; k++) if (parent[k] === v) all[n++] = k;
    const kids = all.subarray(0, n);
    stableByWeightDescending(kids, total);
    for (let i = 0; i < n; i++) kids[i] = start[kids[i]];
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
    const top = this.childrenOf(v);
    // none of them expanded (a node just opened, most often): its children are the rows
    let any = false;
    for (let i = 0; i < top.length && !any; i++)
      any = this.expanded[top[i]] === 1 && this.hasChildren(top[i]);
    if (!any) return top;
    let out = new Int32Array(top.length * 2);
    let n = 0;
    const stack: Int32Array[] = [top];
    const at: number[] = [0];
    while (stack.length > 0) {
      const k = stack.length - 1;
      if (at[k] >= stack[k].length) {
        stack.pop();
        at.pop();
        continue;
      }
      const u = stack[k][at[k]++];
      if (n === out.length) {
        const grown = new Int32Array(out.length * 2);
        grown.set(out);
        out = grown;
      }
      out[n++] = u;
      if (this.expanded[u] && this.hasChildren(u)) {
        stack.push(this.childrenOf(u));
        at.push(0);
      }
    }
    return out.subarray(0, n);
  }

  /** Hides everything below `v` (its expanded descendants stay expanded, to come back as they were). */
  collapse(v: number): void {
    if (!this.expanded[v] || v === 0) return;
    const at = this.rowOf(v);
    this.expanded[v] = 0;
    if (at >= 0) this.removeBelow(at);
  }

  /**
   * Removes the rows below row `at` that are in its node's subtree (all rows for the root, at = -1):
   * the rows whose ids are in its id range (collapsing a DCPI image of 8.75M rows took 4 s when each
   * row's depth was looked up).
   */
  private removeBelow(at: number): void {
    const v = at < 0 ? 0 : this.rows[at];
    const last = subtreeEndOf(this.tree, v);
    let end = at + 1;
    while (end < this.count && this.rows[end] > v && this.rows[end] < last) end++;
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
      // the heaviest child: the first a built tree links (a node's children are not all listed
      // to find it: a DCPI image has millions, none of them 1 %)
      const heaviest = firstChildOf(this.tree, v);
      if (heaviest === -1 || totalOf(this.tree, heaviest) < whole * share) break;
      this.expand(v);
      v = heaviest;
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
