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
  childCountOf,
  depthOf,
  firstChildOf,
  parentOf,
  subtreeEndOf,
  totalOf,
} from '../core/model/calltree';
import { weightOrder, weightOrderSteps } from '../core/model/order';

/** From this many children on, a node's children are ordered a slice at a time (`work`) and kept. */
export const SLICED_FROM = 1 << 16;

/** Ids between two looks at the clock while a large node's children are listed and ordered. */
const CHECK = 1 << 16;

/**
 * A change of the rows that may take long, done a slice at a time: the children of a node with
 * millions (a DCPI image: 8.75M at 400 MB, 2 s of the page's thread in one task) are listed and
 * ordered in steps, and the rows change only in the step that finishes, all at once. Dropped half
 * done, it leaves the rows as they were (only the children ordered so far are kept).
 */
export interface RowsWork {
  /** Works until `deadline` (performance.now()); true once done (the rows have changed then). */
  step(deadline: number): boolean;
  /** The node whose children are being ordered, -1 while none is. */
  readonly ordering: number;
  /** How far that node's ordering is, 0–1. */
  readonly progress: number;
}

/** What a step of the rows' work yields to: the clock and what it is doing. */
interface Clock {
  deadline: number;
  ordering: number;
  progress: number;
}

const UNTIMED: Clock = { deadline: Number.POSITIVE_INFINITY, ordering: -1, progress: 0 };

/** Runs a step function to its end (an untimed clock never pauses it). */
function finish<T>(g: Generator<void, T>): T {
  for (;;) {
    const r = g.next();
    if (r.done) return r.value;
  }
}

export class CallTreeRows {
  /** Node ids in display order (`count` of them); the root (node 0) is not a row. */
  rows: Int32Array;
  count = 0;
  /** Per node: 1 while its children are rows. */
  readonly expanded: Uint8Array;
  /** Counts changes, for views that redraw on one. */
  version = 0;

  /** The children of nodes with SLICED_FROM or more, ordered once (by `work` or at once). */
  private readonly large = new Map<number, Int32Array>();

  constructor(
    readonly tree: CallTree,
    /** Children from which a node's are ordered a slice at a time (tests take fewer). */
    private readonly slicedFrom = SLICED_FROM,
  ) {
    this.expanded = new Uint8Array(tree.count);
    this.rows = new Int32Array(16);
    this.expanded[0] = 1;
    this.insert(0, this.childrenOf(0));
  }

  /**
   * The children of node `v`, heaviest first (ties: lower id first, as the tree links them). The
   * chains of v's subtree follow its own (ids are a preorder): its children start the ones whose
   * parent is v, found in one pass over them and ordered by a radix sort of their totals. Reading
   * the tree's sibling links instead costs a binary search per child: a DCPI image's 8.75M children
   * (400 MB) took seconds, on the page's thread.
   */
  childrenOf(v: number): Int32Array {
    return finish(this.ordered(v, UNTIMED));
  }

  /**
   * `childrenOf` as steps: a node of `slicedFrom` children or more pauses when the clock's deadline
   * has passed (between chunks of its chains, between chunks of the radix passes) and is kept;
   * `memo` keeps the others for the same work.
   */
  private *ordered(v: number, clock: Clock, memo?: Map<number, Int32Array>): Generator<void, Int32Array> {
    const known = this.large.get(v) ?? memo?.get(v);
    if (known) return known;
    const t = this.tree;
    const { start, end, depth, parent, total, children, count } = t.chains;
    const cv = chainOf(t, v);
    if (v < end[cv] - 1) return Int32Array.of(v + 1);
    const d = depth[cv] + (v - start[cv]);
    const all = new Int32Array(children[cv]);
    const large = all.length >= this.slicedFrom;
    const due = () => performance.now() >= clock.deadline;
    if (large) {
      clock.ordering = v;
      clock.progress = 0;
    }
    let n = 0;
    for (let k = cv + 1; k < count && depth[k] > d && n < all.length; ) {
      const stop = large ? Math.min(count, k + CHECK) : count;
      for (; k < stop && depth[k] > d && n < all.length; k++) if (parent[k] === v) all[n++] = k;
      if (large && due()) yield;
    }
    const kids = all.subarray(0, n);
    const passes = large ? yield* weightOrderSteps(kids, total, due) : weightOrder(kids, total);
    if (passes && large)
      while (!passes.run(due)) {
        clock.progress = passes.progress;
        yield;
      }
    else passes?.run();
    for (let i = 0; i < n; ) {
      const stop = large ? Math.min(n, i + CHECK) : n;
      for (; i < stop; i++) kids[i] = start[kids[i]];
      if (large && i < n && due()) yield;
    }
    if (large) {
      this.large.set(v, kids);
      clock.ordering = -1;
    } else memo?.set(v, kids);
    return kids;
  }

  /**
   * `expand`, `expandAll` or `reveal` (of each of some nodes) as a work done a slice at a time (see
   * RowsWork); a revealed node's row is `rowOf` once it is done.
   */
  work(op: 'expand' | 'expandAll' | 'reveal', v: number | readonly number[]): RowsWork {
    const clock: Clock = { deadline: 0, ordering: -1, progress: 0 };
    const nodes = typeof v === 'number' ? [v] : v;
    const g =
      op === 'reveal'
        ? this.revealSteps(nodes, clock)
        : op === 'expand'
          ? this.expandSteps(nodes[0], clock)
          : this.expandAllSteps(nodes[0], 20_000, clock);
    let done = false;
    return {
      step(deadline: number): boolean {
        clock.deadline = deadline;
        done ||= g.next().done === true;
        return done;
      },
      get ordering() {
        return clock.ordering;
      },
      get progress() {
        return clock.progress;
      },
    };
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
    finish(this.expandSteps(v, UNTIMED));
  }

  private *expandSteps(v: number, clock: Clock): Generator<void, void> {
    if (this.expanded[v] || !this.hasChildren(v)) return;
    // ordered first (kept when large): the rows change after, in one step
    const memo = new Map<number, Int32Array>();
    yield* this.ordered(v, clock, memo);
    if (this.expanded[v]) return;
    const at = v === 0 ? -1 : this.rowOf(v);
    if (v !== 0 && at < 0) return;
    this.expanded[v] = 1;
    this.insert(at + 1, this.visibleBelow(v, memo));
  }

  /** The rows below an expanded `v`: its children, and below each expanded one its own, in order. */
  private visibleBelow(v: number, memo?: Map<number, Int32Array>): Int32Array {
    const top = finish(this.ordered(v, UNTIMED, memo));
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
        stack.push(finish(this.ordered(u, UNTIMED, memo)));
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
    finish(this.expandAllSteps(v, limit, UNTIMED));
  }

  private *expandAllSteps(v: number, limit: number, clock: Clock): Generator<void, void> {
    let rows = 0;
    // children listed by the walk, read again by visibleBelow (sorting them was most of `*`)
    const memo = new Map<number, Int32Array>();
    const opened: number[] = [];
    const stack = [v];
    while (stack.length > 0 && rows < limit) {
      const u = stack.pop()!;
      if (!this.hasChildren(u)) continue;
      opened.push(u);
      const kids = yield* this.ordered(u, clock, memo);
      rows += kids.length;
      // past the limit none of them would be opened (a DCPI image's 8.75M pushed were 0.1 s)
      if (rows < limit) for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    }
    // the rows change here, in one step
    const at = v === 0 ? -1 : this.rowOf(v);
    if (v !== 0 && at < 0) return;
    for (const u of opened) this.expanded[u] = 1;
    this.removeBelow(at);
    this.insert(at + 1, this.visibleBelow(v, memo));
  }

  /** Expands every ancestor of `v`, so that it is a row; its row. */
  reveal(v: number): number {
    finish(this.revealSteps([v], UNTIMED));
    return this.rowOf(v);
  }

  private *revealSteps(nodes: readonly number[], clock: Clock): Generator<void, void> {
    const paths = nodes.map((v) => {
      const path: number[] = [];
      for (let u = parentOf(this.tree, v); u > 0; u = parentOf(this.tree, u)) path.push(u);
      return path.reverse();
    });
    // the large ones ordered first (kept): the rows change after, in one step
    for (const path of paths)
      for (const u of path)
        if (!this.expanded[u] && childCountOf(this.tree, u) >= this.slicedFrom) yield* this.ordered(u, clock);
    for (const path of paths) for (const u of path) this.expand(u);
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
