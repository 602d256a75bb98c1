// A first picture of a large gperftools profile from its record headers and root-side PCs alone
// (scanGperftools), before its millions of PCs are interned and folded: a FoldedProfile whose
// stacks are the records' root-first stacks cut at the first node lighter than a fraction of all
// samples. buildCallTree of it is the coarse tree treeAndFunctions posts first for a large profile
// (the nodes a full-width paint can show), with the same names, in a few ms instead of ~1 s.

import { AddrTable, minusOne } from '../address.ts';
import type { GperftoolsScan } from '../formats/gperftools.ts';
import type { FoldedProfile } from '../types.ts';
import { FrameNaming, foldedMeta } from './fold.ts';

/** Nodes lighter than this fraction of all samples are cut: the coarse tree's threshold. */
export const PREVIEW_FRACTION = 1 / 4096;

export interface PreviewOptions {
  fileName: string;
  /** Defaults to PREVIEW_FRACTION; 0 keeps every node (the whole tree, for tests). */
  fraction?: number;
}

/**
 * The records grouped level by level from the root: at depth d, the records of a heavy node that
 * have a frame at depth d are grouped by that frame; a group weighing at least the threshold is a
 * node and goes on to depth d + 1; a lighter group stops there and its weight stays with the
 * parent as its self, as do records that end at the node. Each node with self weight gives one
 * stack (its path), so identical cut stacks are summed; light roots give one empty stack.
 *
 * Frames are named and interned through FrameNaming exactly as foldProfile names an unsymbolized
 * gperftools profile: the leaf (a record's first PC) as is, callers at PC − 1.
 *
 * Cost: one step per record per heavy level it reaches (at most the file's PCs, usually a few per
 * record), each distinct address named once.
 */
export function gperftoolsPreview(scan: GperftoolsScan, opts: PreviewOptions): FoldedProfile {
  const { words: w, wide, hiWord, loWord, pcStart, numPcs, weight } = scan;
  const n = scan.recordCount;
  let total = 0;
  for (let r = 0; r < n; r++) total += weight[r];
  const minValue = total * (opts.fraction ?? PREVIEW_FRACTION);

  const naming = new FrameNaming(scan.meta.mappings);
  // Looked-up address → frame, so each distinct address is named once.
  const addrs = new AddrTable(1024);
  let frameOfAddr = new Int32Array(1024);
  let named = 0;
  // Per frame while one node is grouped: its records, their weight, and where its child's records
  // go in `order` (-1: the group is light).
  let groupSize = new Uint32Array(1024);
  let groupWeight = new Float64Array(1024);
  let groupAt = new Int32Array(1024);

  /** The frame at root-first depth d of record r (d < numPcs[r]). */
  const frameAt = (r: number, d: number): number => {
    const np = numPcs[r];
    const slot = pcStart[r] + np - 1 - d;
    let hi = wide ? w[2 * slot + hiWord] : 0;
    let lo = wide ? w[2 * slot + loWord] : w[slot];
    // Callers are return addresses: looked up at PC − 1, as foldProfile does (adjustCallers).
    if (d < np - 1) [hi, lo] = minusOne(hi, lo);
    const a = addrs.intern(hi, lo);
    if (a === named) {
      // A new address (AddrTable's ids are dense, in first-seen order): named once, here.
      if (named === frameOfAddr.length) frameOfAddr = grown(frameOfAddr, named + 1);
      frameOfAddr[named++] = naming.addressFrame(hi, lo);
      if (naming.count > groupSize.length) {
        groupSize = grown(groupSize, naming.count);
        groupWeight = grown(groupWeight, naming.count);
        groupAt = grown(groupAt, naming.count);
      }
    }
    return frameOfAddr[a];
  };

  // Nodes (node 0: the root).
  const parent: number[] = [-1];
  const frame: number[] = [-1];
  const self: number[] = [0];
  // Each node's records are a range of `order`; its children's ranges are carved out of it.
  const order = new Uint32Array(n);
  for (let r = 0; r < n; r++) order[r] = r;
  const scratch = new Uint32Array(n);
  /** Per position of `order` in the node being grouped: the record's frame there, -1 if it ends. */
  const frameHere = new Int32Array(n);
  const groups: number[] = [];
  // Work items: node, its range [lo, hi) of `order`, its depth.
  const work: number[] = [0, 0, n, 0];
  while (work.length > 0) {
    const d = work.pop()!;
    const hi = work.pop()!;
    const lo = work.pop()!;
    const v = work.pop()!;
    groups.length = 0;
    for (let k = lo; k < hi; k++) {
      const r = order[k];
      if (numPcs[r] === d) {
        frameHere[k] = -1;
        self[v] += weight[r];
        continue;
      }
      const f = frameAt(r, d);
      frameHere[k] = f;
      if (groupSize[f]++ === 0) groups.push(f);
      groupWeight[f] += weight[r];
    }
    let at = lo;
    for (const f of groups) {
      if (groupWeight[f] >= minValue) {
        const child = parent.length;
        parent.push(v);
        frame.push(f);
        self.push(0);
        work.push(child, at, at + groupSize[f], d + 1);
        groupAt[f] = at;
        at += groupSize[f];
      } else {
        self[v] += groupWeight[f];
        groupAt[f] = -1;
      }
    }
    // The heavy groups' records, each group contiguous, at the front of the range.
    for (let k = lo; k < hi; k++) {
      const f = frameHere[k];
      if (f >= 0 && groupAt[f] >= 0) scratch[groupAt[f]++] = order[k];
    }
    order.set(scratch.subarray(lo, at), lo);
    for (const f of groups) {
      groupSize[f] = 0;
      groupWeight[f] = 0;
    }
  }

  // One stack per node with self weight: its path from the root. Each such node has a record cut
  // there that was read down to its depth, so this writes at most as many frames as were read.
  const start = [0];
  const stackFrames: number[] = [];
  const stackWeight: number[] = [];
  const path: number[] = [];
  for (let v = 0; v < parent.length; v++) {
    if (self[v] === 0) continue;
    path.length = 0;
    for (let u = v; u > 0; u = parent[u]) path.push(frame[u]);
    for (let k = path.length - 1; k >= 0; k--) stackFrames.push(path[k]);
    start.push(stackFrames.length);
    stackWeight.push(self[v]);
  }
  return {
    meta: foldedMeta(
      { format: 'gperftools', meta: scan.meta, warnings: scan.warnings },
      opts.fileName,
      total,
    ),
    ...naming.finish(),
    stacks: {
      count: stackWeight.length,
      start: Uint32Array.from(start),
      frames: Uint32Array.from(stackFrames),
      weight: Float64Array.from(stackWeight),
    },
  };
}

/** A copy of `a` with room for at least `min` elements (doubling). */
function grown<T extends Int32Array | Uint32Array | Float64Array>(a: T, min: number): T {
  const b = new (a.constructor as new (length: number) => T)(Math.max(min, a.length * 2));
  b.set(a);
  return b;
}
