// A first picture of a large gperftools profile from its record headers and root-side PCs alone
// (scanGperftools), before its millions of PCs are interned and folded: a FoldedProfile whose
// stacks are the records' root-first stacks cut at the first node lighter than a fraction of all
// samples. buildCallTree of it is the coarse tree treeAndFunctions posts first for a large profile
// (the nodes a full-width paint can show), with the same names, in tens of ms (the bench's 100 MB
// file: ~70 ms in Chromium, mostly one cache miss per record and naming 6k addresses) where the
// parse and fold take ~0.6 s.
//
// It runs once per file, so its loops run cold: each lives in a small method of its own, which V8
// optimizes on its own (one large function was deoptimized and recompiled at every new phase).

import { AddrTable, minusOne } from '../address.ts';
import { LIGHT_CHILDREN, PREVIEW_FRACTION, PREVIEW_MIN_FRAMES } from '../model/calltree.ts';
import { foldedMeta } from '../model/fold.ts';
import { FrameNaming, type FrameNamingOptions } from '../model/naming.ts';
import type { FoldedProfile, RawProfile } from '../types.ts';
import {
  GperftoolsChunkStream,
  type GperftoolsScan,
  GperftoolsStream,
  HEAD_PCS,
  internGperftools,
  manyShortRecords,
  scanGperftools,
  type WordSegment,
} from './gperftools.ts';
import type { ImporterChunks, ImporterPreview, ImporterStream, ParseProfileOptions } from './importer.ts';

export interface PreviewOptions {
  fileName: string;
  /** Defaults to PREVIEW_FRACTION; 0 keeps every node (the whole tree, for tests). */
  fraction?: number;
  /** As the fold's (FrameNamingOptions: unnamed code per address when neither is given). */
  granularity?: FrameNamingOptions['granularity'];
  unnamedPerAddress?: boolean;
}

/**
 * The records grouped level by level from the root: at depth d, the records of a heavy node that
 * have a frame at depth d are grouped by that frame; a group weighing at least the threshold is a
 * node and goes on to depth d + 1; lighter groups stop there, together one LIGHT_CHILDREN child
 * of the node; records that end at the node are its self. Each node with self weight gives one
 * stack (its path), and its light children one more (its path + LIGHT_CHILDREN).
 *
 * Frames are named and interned through FrameNaming exactly as foldProfile names an unsymbolized
 * gperftools profile: the leaf (a record's first PC) as is, callers at PC − 1.
 *
 * Cost: one step per record per heavy level it reaches, after copying up to HEAD_PCS root-side
 * PCs of each record (never more than the file's PCs, usually a few per record); each distinct
 * address is named once.
 */
export function gperftoolsPreview(scan: GperftoolsScan, opts: PreviewOptions): FoldedProfile {
  let total = 0;
  for (let r = 0; r < scan.recordCount; r++) total += scan.weight[r];
  const naming = new FrameNaming(scan.meta.mappings, {
    granularity: opts.granularity,
    unnamedPerAddress: opts.unnamedPerAddress,
  });
  const tree = new CutTree(scan, new RecordFrames(scan, naming), total * (opts.fraction ?? PREVIEW_FRACTION));
  return {
    meta: foldedMeta(
      { format: 'gperftools', meta: scan.meta, warnings: scan.warnings },
      opts.fileName,
      total,
    ),
    ...naming.finish(),
    stacks: tree.stacks(),
  };
}

/** The frame of any record at any root-first depth, each distinct address named once. */
class RecordFrames {
  /**
   * The first HEAD_PCS PCs of every record from the root, as (lo, hi) pairs: record r's are pairs
   * headStart[r] .. headStart[r + 1]. Records lie ~1.5 KB apart in a large file, so reading one PC
   * per record per level costs a cache and TLB miss each time (~12 ms per level over 70k records);
   * the copy costs that once, and the top levels then read a compact array. At most one pair per
   * PC of the file.
   */
  private readonly headStart: Uint32Array;
  private readonly head: Uint32Array;
  private readonly addrs = new AddrTable(1024);
  /** Per AddrTable id (a looked-up address): its frame. */
  private frameOfAddr = new Int32Array(1024);
  // The last lookup: the records of a node mostly share their PC at the next depth (all of them
  // share the root frames), so most lookups repeat the previous one and skip the hash.
  private lastHi = -1;
  private lastLo = -1;
  private lastCaller = false;
  private lastFrame = -1;
  /** The segment segmentOf found last (records are read in order, mostly). */
  private lastSegment = 0;

  constructor(
    private readonly scan: GperftoolsScan,
    private readonly naming: FrameNaming,
  ) {
    const { pcStart, numPcs } = scan;
    const n = scan.recordCount;
    if (scan.heads !== undefined) {
      // Kept by the scan as it walked the records.
      this.headStart = scan.heads.start;
      this.head = scan.heads.pcs;
      return;
    }
    const headStart = new Uint32Array(n + 1);
    for (let r = 0; r < n; r++) headStart[r + 1] = headStart[r] + Math.min(HEAD_PCS, numPcs[r]);
    const head = new Uint32Array(2 * headStart[n]);
    for (let r = 0; r < n; r++) {
      const rootSlot = pcStart[r] + numPcs[r] - 1;
      for (let h = headStart[r], d = 0; h < headStart[r + 1]; h++, d++) {
        head[2 * h] = this.pcLo(r, rootSlot - d);
        head[2 * h + 1] = this.pcHi(r, rootSlot - d);
      }
    }
    this.headStart = headStart;
    this.head = head;
  }

  /** How many frames there are so far (frame ids are below this). */
  get count(): number {
    return this.naming.count;
  }

  /** The frame at root-first depth d of record r (d < numPcs[r]). */
  frameAt(r: number, d: number): number {
    const np = this.scan.numPcs[r];
    const h = this.headStart[r] + d;
    const inHead = h < this.headStart[r + 1];
    const slot = this.scan.pcStart[r] + np - 1 - d;
    const lo = inHead ? this.head[2 * h] : this.pcLo(r, slot);
    const hi = inHead ? this.head[2 * h + 1] : this.pcHi(r, slot);
    const caller = d < np - 1;
    if (lo === this.lastLo && hi === this.lastHi && caller === this.lastCaller) return this.lastFrame;
    this.lastHi = hi;
    this.lastLo = lo;
    this.lastCaller = caller;
    this.lastFrame = this.lookup(hi, lo, caller);
    return this.lastFrame;
  }

  /**
   * The low half of record r's PC in `slot`: from the file's words, or (read in chunks) its
   * interned address or the words of the segment that holds it.
   */
  private pcLo(r: number, slot: number): number {
    const s = this.scan;
    if (s.interned) {
      if (r < s.interned.done) return s.interned.lo[this.locAt(r, slot)];
      const seg = this.segmentOf(r);
      return s.wide ? seg.words[2 * (slot - seg.base) + s.loWord] : seg.words[slot - seg.base];
    }
    return s.wide ? s.words[2 * slot + s.loWord] : s.words[slot];
  }

  private pcHi(r: number, slot: number): number {
    const s = this.scan;
    if (!s.wide) return 0;
    if (s.interned) {
      if (r < s.interned.done) return s.interned.hi[this.locAt(r, slot)];
      const seg = this.segmentOf(r);
      return seg.words[2 * (slot - seg.base) + s.hiWord];
    }
    return s.words[2 * slot + s.hiWord];
  }

  private locAt(r: number, slot: number): number {
    const { interned, pcStart } = this.scan;
    return interned!.stackLocs[interned!.stackStart[r] + slot - pcStart[r]];
  }

  /** The segment holding record r (not interned): the last one found, or by binary search. */
  private segmentOf(r: number): WordSegment {
    const segs = this.scan.interned!.segments;
    let k = this.lastSegment;
    if (!(k < segs.length && segs[k].recStart <= r && r < segs[k].recEnd)) {
      let lo = 0;
      let hi = segs.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (segs[mid].recEnd <= r) lo = mid + 1;
        else hi = mid;
      }
      k = this.lastSegment = lo;
    }
    return segs[k];
  }

  private lookup(hi: number, lo: number, caller: boolean): number {
    // Callers are return addresses: looked up at PC − 1, as foldProfile does (adjustCallers).
    const [aHi, aLo] = caller ? minusOne(hi, lo) : [hi, lo];
    const named = this.addrs.count;
    const a = this.addrs.intern(aHi, aLo);
    if (a === named) {
      // A new address (AddrTable's ids are dense, in first-seen order): named once, here.
      if (a === this.frameOfAddr.length) this.frameOfAddr = grown(this.frameOfAddr, a + 1);
      this.frameOfAddr[a] = this.naming.addressFrame(aHi, aLo);
    }
    return this.frameOfAddr[a];
  }
}

/** The records' stacks cut at `minValue`, grown level by level from the root. */
class CutTree {
  // Nodes (node 0: the root).
  private readonly parent: number[] = [-1];
  private readonly frame: number[] = [-1];
  private readonly self: number[] = [0];
  /** The weight of each node's light children. */
  private readonly light: number[] = [0];
  /** Each node's records are a range of `order`; its children's ranges are carved out of it. */
  private readonly order: Uint32Array;
  private readonly scratch: Uint32Array;
  /** Per position of `order` in the node being split: the record's frame there, -1 if it ends. */
  private readonly frameHere: Int32Array;
  // Per frame while one node is split: its records, their weight, and where its child's records
  // go in `order` (-1: the group is light); the frames met, in order.
  private groupSize = new Uint32Array(1024);
  private groupWeight = new Float64Array(1024);
  private groupAt = new Int32Array(1024);
  private readonly groups: number[] = [];

  constructor(
    private readonly scan: GperftoolsScan,
    private readonly frames: RecordFrames,
    private readonly minValue: number,
  ) {
    const n = scan.recordCount;
    this.order = new Uint32Array(n);
    for (let r = 0; r < n; r++) this.order[r] = r;
    this.scratch = new Uint32Array(n);
    this.frameHere = new Int32Array(n);
    // Work items: node, its range [lo, hi) of `order`, its depth.
    const work: number[] = [0, 0, n, 0];
    while (work.length > 0) {
      const d = work.pop()!;
      const hi = work.pop()!;
      const lo = work.pop()!;
      this.split(work.pop()!, lo, hi, d, work);
    }
  }

  /** Groups node v's records order[lo, hi) by their frame at depth d; heavy groups go to `work`. */
  private split(v: number, lo: number, hi: number, d: number, work: number[]): void {
    this.group(v, lo, hi, d);
    let at = lo;
    for (const f of this.groups) {
      const size = this.groupSize[f];
      if (this.groupWeight[f] >= this.minValue) {
        const child = this.parent.length;
        this.parent.push(v);
        this.frame.push(f);
        this.self.push(0);
        this.light.push(0);
        work.push(child, at, at + size, d + 1);
        this.groupAt[f] = at;
        at += size;
      } else {
        this.light[v] += this.groupWeight[f];
        this.groupAt[f] = -1;
      }
      this.groupSize[f] = 0;
      this.groupWeight[f] = 0;
    }
    this.gather(lo, hi, at);
  }

  /** Sizes and weights of the groups of order[lo, hi) at depth d; records ending there are v's self. */
  private group(v: number, lo: number, hi: number, d: number): void {
    const { numPcs, weight } = this.scan;
    const { order, frameHere, frames, groups } = this;
    groups.length = 0;
    let ended = 0;
    for (let k = lo; k < hi; k++) {
      const r = order[k];
      if (numPcs[r] === d) {
        frameHere[k] = -1;
        ended += weight[r];
        continue;
      }
      const f = frames.frameAt(r, d);
      if (f >= this.groupSize.length) this.grow(frames.count);
      frameHere[k] = f;
      if (this.groupSize[f]++ === 0) groups.push(f);
      this.groupWeight[f] += weight[r];
    }
    this.self[v] += ended;
  }

  /** Moves the heavy groups' records, each group contiguous, to order[lo, end). */
  private gather(lo: number, hi: number, end: number): void {
    const { order, scratch, frameHere, groupAt } = this;
    for (let k = lo; k < hi; k++) {
      const f = frameHere[k];
      if (f >= 0 && groupAt[f] >= 0) scratch[groupAt[f]++] = order[k];
    }
    order.set(scratch.subarray(lo, end), lo);
  }

  private grow(min: number): void {
    this.groupSize = grown(this.groupSize, min);
    this.groupWeight = grown(this.groupWeight, min);
    this.groupAt = grown(this.groupAt, min);
  }

  /**
   * Per node with self weight its path from the root, and per node with light children its path
   * and LIGHT_CHILDREN. Each such node has a record cut there or just below that was read down to
   * its depth, so this writes at most about as many frames as were read.
   */
  stacks(): FoldedProfile['stacks'] {
    const { parent, frame, self, light } = this;
    const start = [0];
    const frames: number[] = [];
    const weight: number[] = [];
    const path: number[] = [];
    for (let v = 0; v < parent.length; v++) {
      if (self[v] === 0 && light[v] === 0) continue;
      path.length = 0;
      for (let u = v; u > 0; u = parent[u]) path.push(frame[u]);
      path.reverse();
      for (const [w, last] of [
        [self[v], null],
        [light[v], LIGHT_CHILDREN >>> 0],
      ] as const) {
        if (w === 0) continue;
        frames.push(...path);
        if (last !== null) frames.push(last);
        start.push(frames.length);
        weight.push(w);
      }
    }
    return {
      count: weight.length,
      start: Uint32Array.from(start),
      frames: Uint32Array.from(frames),
      weight: Float64Array.from(weight),
    };
  }
}

/** A copy of `a` with room for at least `min` elements (doubling). */
function grown<T extends Int32Array | Uint32Array | Float64Array>(a: T, min: number): T {
  const b = new (a.constructor as new (length: number) => T)(Math.max(min, a.length * 2));
  b.set(a);
  return b;
}

/**
 * A file of many short records (a long-running server's: ~1.2M records over ~100k stacks per
 * 100 MB) is pictured from about this many of its records, evenly spread: grouping all of them
 * level by level takes ~0.8 s, as long as parsing them.
 */
export const PREVIEW_SAMPLE_RECORDS = 1 << 14;

/**
 * One record in `every` (records 0, every, 2·every, …), each weighing the file's total over theirs:
 * the same file, thinned. Never more PCs than the file's.
 */
export function sampledScan(scan: GperftoolsScan, every: number): GperftoolsScan {
  const n = Math.ceil(scan.recordCount / every);
  const pcStart = new Uint32Array(n);
  const numPcs = new Uint32Array(n);
  const weight = new Float64Array(n);
  let all = 0;
  for (let r = 0; r < scan.recordCount; r++) all += scan.weight[r];
  let kept = 0;
  let totalPcs = 0;
  let maxPcs = 0;
  for (let i = 0, r = 0; i < n; i++, r += every) {
    pcStart[i] = scan.pcStart[r];
    numPcs[i] = scan.numPcs[r];
    weight[i] = scan.weight[r];
    kept += weight[i];
    totalPcs += numPcs[i];
    if (numPcs[i] > maxPcs) maxPcs = numPcs[i];
  }
  const scale = kept > 0 ? all / kept : 1;
  for (let i = 0; i < n; i++) weight[i] *= scale;
  return { ...scan, recordCount: n, pcStart, numPcs, weight, totalPcs, maxPcs, heads: undefined };
}

/**
 * Posts the preview of a scanned file through `onPreview` when it is large enough and pays at the
 * granularity: its coarse tree, of a sample of its records when they are many and short.
 */
function postPreview(
  scan: GperftoolsScan,
  opts: ParseProfileOptions & { onPreview: (p: ImporterPreview) => void },
  t0: number,
): void {
  const every = manyShortRecords(scan) ? Math.ceil(scan.recordCount / PREVIEW_SAMPLE_RECORDS) : 1;
  // A sample's records are not the interned ones (read in chunks): no preview then.
  if (every > 1 && scan.interned) return;
  // With one frame per module for unnamed code (the default, but at granularity `addresses`) the
  // fold and tree of all records are fast (a few frames), while the level-by-level walk would find
  // no light node and read every record to its root (2.3 s on the bench's file): only a sample's
  // walk pays then.
  const pays = opts.granularity === 'addresses' || opts.unnamedPerAddress === true || every > 1;
  if (scan.totalPcs < PREVIEW_MIN_FRAMES || !pays) return;
  try {
    const profile = gperftoolsPreview(every > 1 ? sampledScan(scan, every) : scan, {
      fileName: opts.fileName ?? '',
      granularity: opts.granularity,
      unnamedPerAddress: opts.unnamedPerAddress ?? false,
    });
    // The height of the full graph from the start: the deepest stack (one frame per PC).
    opts.onPreview({
      profile,
      maxDepth: scan.maxPcs,
      ms: performance.now() - t0,
      ...(every > 1 && { sampledEvery: every }),
    });
  } catch {
    // Only a preview: the parse reports what is wrong with the file.
  }
}

/**
 * The gperftools importer's preview capability: one walk over the record headers, a coarse
 * picture from it (posted through `onPreview` when the file is large), then the parse from the
 * same scan. Returns what parseGperftools would. The picture of a file of many short records is
 * drawn from a sample of them (sampledScan) and says so.
 */
export function parseGperftoolsWithPreview(
  bytes: Uint8Array,
  opts: ParseProfileOptions & { onPreview: (p: ImporterPreview) => void },
): RawProfile {
  const t0 = performance.now();
  const scan = scanGperftools(bytes);
  postPreview(scan, opts, t0);
  scan.heads = undefined; // the preview's only: not kept through the parse
  return internGperftools(scan, { onProgress: opts.onProgress });
}

/**
 * The gperftools importer's chunks capability (GperftoolsChunkStream: no buffer of the file's
 * size); its finish previews as parseGperftoolsWithPreview does.
 */
export function chunkGperftools(
  first: Uint8Array,
  size: number,
  release?: (buffer: ArrayBuffer) => void,
): ImporterChunks | null {
  const stream = GperftoolsChunkStream.open(first, size, undefined, release);
  if (stream === null) return null;
  return {
    push: (chunk, budgetMs) => {
      stream.push(chunk, budgetMs);
    },
    finish: (opts) => finishWithPreview(stream, opts),
  };
}

/** A parse begun while read, finished: the scan, its preview, then the rest of the parse. */
function finishWithPreview(
  stream: Pick<GperftoolsStream, 'finishScan' | 'finish'>,
  opts: ParseProfileOptions & { onPreview?: (p: ImporterPreview) => void },
): RawProfile {
  const t0 = performance.now();
  const scan = stream.finishScan();
  if (opts.onPreview) postPreview(scan, { ...opts, onPreview: opts.onPreview }, t0);
  scan.heads = undefined; // the preview's only: not kept through the parse
  return stream.finish(scan, { onProgress: opts.onProgress });
}

/**
 * The gperftools importer's stream capability (GperftoolsStream: records walked and interned as
 * the file comes in); its finish previews as parseGperftoolsWithPreview does.
 */
export function streamGperftools(bytes: Uint8Array): ImporterStream | null {
  const stream = GperftoolsStream.open(bytes);
  if (stream === null) return null;
  return {
    advance: (available, budgetMs) => stream.advance(available, budgetMs),
    finish: (opts) => finishWithPreview(stream, opts),
  };
}
