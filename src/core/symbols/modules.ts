// Mapping lookup (address → executable mapping) and the default frame naming `MODULE+0xOFFSET`.
// Addresses are (hi, lo) uint32 pairs; the hot path compares pairs and never builds a bigint.

import { hexOf, splitBig } from '../address.ts';
import { basename } from '../text/names.ts';
import type { Mapping, MappingInfo } from '../types.ts';

/** `0x` + lowercase hex of a bigint. */
export function hex0x(v: bigint): string {
  return `0x${v.toString(16)}`;
}

export function mappingInfo(m: Mapping): MappingInfo {
  const info: MappingInfo = {
    start: hex0x(m.start),
    end: hex0x(m.end),
    offset: hex0x(m.offset),
    path: m.path,
  };
  if (m.buildId !== undefined) info.buildId = m.buildId;
  return info;
}

/** MappingIndex.offsetIn's answer: the offset's high and low uint32 halves. */
export const OFFSET = new Uint32Array(2);

/** (aHi, aLo) < (bHi, bLo) as unsigned 64-bit numbers. */
function lt(aHi: number, aLo: number, bHi: number, bLo: number): boolean {
  return aHi < bHi || (aHi === bHi && aLo < bLo);
}

/**
 * Executable mappings sorted by start, searchable by address. Mappings without a path (anonymous)
 * are left out, so their addresses are named `0x…` like any address outside every mapping.
 * When mappings overlap, the one with the greatest start not above the address is used.
 */
export class MappingIndex {
  readonly mappings: Mapping[];
  private readonly startHi: Uint32Array;
  private readonly startLo: Uint32Array;
  private readonly endHi: Uint32Array;
  private readonly endLo: Uint32Array;
  private readonly offHi: Uint32Array;
  private readonly offLo: Uint32Array;
  /** Basename of each mapping's path. */
  readonly names: string[];

  constructor(mappings: readonly Mapping[]) {
    this.mappings = mappings.filter((m) => m.path !== '' && m.end > m.start);
    this.mappings.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
    const n = this.mappings.length;
    this.startHi = new Uint32Array(n);
    this.startLo = new Uint32Array(n);
    this.endHi = new Uint32Array(n);
    this.endLo = new Uint32Array(n);
    this.offHi = new Uint32Array(n);
    this.offLo = new Uint32Array(n);
    this.names = [];
    for (let i = 0; i < n; i++) {
      const m = this.mappings[i];
      [this.startHi[i], this.startLo[i]] = splitBig(m.start);
      [this.endHi[i], this.endLo[i]] = splitBig(m.end);
      [this.offHi[i], this.offLo[i]] = splitBig(m.offset);
      this.names.push(basename(m.path));
    }
  }

  /** Index of the mapping holding the address, or -1. */
  find(hi: number, lo: number): number {
    // Last mapping whose start <= address.
    let a = 0;
    let b = this.mappings.length;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (lt(hi, lo, this.startHi[mid], this.startLo[mid])) b = mid;
      else a = mid + 1;
    }
    const i = a - 1;
    if (i < 0) return -1;
    return lt(hi, lo, this.endHi[i], this.endLo[i]) ? i : -1;
  }

  /** address − start + file offset of mapping i, as lowercase hex without 0x (wraps at 2^64). */
  offsetHex(i: number, hi: number, lo: number): string {
    this.offsetIn(i, hi, lo);
    return hexOf(OFFSET[0], OFFSET[1]);
  }

  /**
   * address − start + file offset of mapping i (wrapping at 2^64), as uint32 halves in
   * `OFFSET[0]` (high) and `OFFSET[1]` (low); outside every mapping (i −1) the address itself.
   */
  offsetIn(i: number, hi: number, lo: number): void {
    if (i < 0) {
      OFFSET[0] = hi;
      OFFSET[1] = lo;
      return;
    }
    // (hi, lo) - (sHi, sLo) + (oHi, oLo), in 32-bit halves with borrow/carry.
    let l = lo - this.startLo[i];
    let h = hi - this.startHi[i];
    if (l < 0) {
      l += 0x100000000;
      h -= 1;
    }
    l += this.offLo[i];
    h += this.offHi[i];
    if (l >= 0x100000000) {
      l -= 0x100000000;
      h += 1;
    }
    OFFSET[0] = h >>> 0;
    OFFSET[1] = l;
  }

  /**
   * What nameIn writes as a number (address − start + file offset in mapping i; outside all, the
   * address), or −1 when it could exceed 2^53 (the caller names it instead).
   */
  offsetKey(i: number, hi: number, lo: number): number {
    if (i < 0) return hi < 0x200000 ? hi * 4294967296 + lo : -1;
    const v = (hi - this.startHi[i] + this.offHi[i]) * 4294967296 + (lo - this.startLo[i] + this.offLo[i]);
    return v >= 0 && v < 2 ** 53 ? v : -1;
  }

  /** The default frame name: `MODULE+0xOFFSET` inside a mapping, else `0x` + hex. */
  frameName(hi: number, lo: number): string {
    return this.nameIn(this.find(hi, lo), hi, lo);
  }

  /** frameName of an address whose mapping `i` (find's answer, -1 for none) is known already. */
  nameIn(i: number, hi: number, lo: number): string {
    if (i < 0) return `0x${hexOf(hi, lo)}`;
    return `${this.names[i]}+0x${this.offsetHex(i, hi, lo)}`;
  }
}

/** The weight of samples in one mapped file: whose leaf is in it (self) and whose stack touches it. */
export interface MappingSamples {
  path: string;
  self: number;
  total: number;
  /**
   * The weight of every sample counted (whatever its file): the whole the file's shares are of. The
   * view's total is not it: transforms, label filters and a fold's dropped frames change that one.
   */
  of: number;
}

/**
 * samplesByMapping from a folded profile whose every frame lies in one mapped file: its module
 * (modules are numbered by mapping path), as the fold in place makes them (one frame per location
 * and role, no frame dropped, no sample filtered, no root frame added). What the session counts
 * after the first full analysis of a large profile is shown, not before (a pass over every frame,
 * ~0.4 s at 2 GB).
 */
export function samplesByModule(p: {
  frames: { module: Int32Array };
  modules: readonly string[];
  stacks: { count: number; start: Uint32Array; frames: Uint32Array; weight: Float64Array };
}): MappingSamples[] {
  if (p.modules.length === 0) return [];
  const { count, start, frames, weight } = p.stacks;
  // Folded stacks are root first: the leaf is the last frame.
  const stacks = { count, start, items: frames, weight, leafFirst: false };
  return countByFile(stacks, p.frames.module, [...p.modules]);
}

/**
 * Per mapped file (by path), the weight of the samples whose leaf address lies in it and of those
 * with any frame in it: what the Symbols panel says each mapping holds. One mapping lookup per
 * location; files with no samples are left out.
 */
export function samplesByMapping(raw: {
  locations: { count: number; addrHi: Uint32Array; addrLo: Uint32Array; hasAddr: Uint8Array };
  samples: { count: number; stackStart: Uint32Array; stackLocs: Uint32Array; weight: Float64Array };
  meta: { mappings: readonly Mapping[] };
}): MappingSamples[] {
  const index = new MappingIndex(raw.meta.mappings);
  const paths = [...new Set(index.mappings.map((m) => m.path))];
  if (paths.length === 0) return [];
  const pathId = new Map(paths.map((p, i) => [p, i]));
  const { locations: L, samples: S } = raw;
  const fileOf = new Int32Array(L.count);
  for (let l = 0; l < L.count; l++) {
    const i = L.hasAddr[l] ? index.find(L.addrHi[l], L.addrLo[l]) : -1;
    fileOf[l] = i < 0 ? -1 : pathId.get(index.mappings[i].path)!;
  }
  // The arrays read once (the samples object may be slow to read from: see fold-in-place.ts).
  const { count, stackStart, stackLocs, weight } = S;
  // Raw stacks are leaf first.
  return countByFile({ count, start: stackStart, items: stackLocs, weight, leafFirst: true }, fileOf, paths);
}

/**
 * The weight of the stacks whose leaf lies in each file (`fileOf` of a stack's item: a location,
 * or a frame; −1 for none) and of those with any item in it, the files with some heaviest first.
 */
function countByFile(
  stacks: { count: number; start: Uint32Array; items: Uint32Array; weight: Float64Array; leafFirst: boolean },
  fileOf: Int32Array,
  paths: string[],
): MappingSamples[] {
  const { count, start, items, weight, leafFirst } = stacks;
  const self = new Float64Array(paths.length);
  const total = new Float64Array(paths.length);
  let whole = 0;
  if (paths.length <= 31) {
    // Few files (nearly always): each item's file as a bit, the files a sample touches as the
    // bits of one integer, summed once per sample (at 400 MB ~95 ms, against ~145 ms checking each
    // item's file against the sample's last).
    const bitOf = new Int32Array(fileOf.length);
    for (let l = 0; l < fileOf.length; l++) bitOf[l] = fileOf[l] < 0 ? 0 : 1 << fileOf[l];
    for (let s = 0; s < count; s++) {
      const a = start[s];
      const b = start[s + 1];
      if (b <= a) continue;
      const w = weight[s];
      whole += w;
      const leaf = fileOf[items[leafFirst ? a : b - 1]];
      if (leaf >= 0) self[leaf] += w;
      let touched = 0;
      for (let q = a; q < b; q++) touched |= bitOf[items[q]];
      for (let f = 0; touched !== 0; f++, touched >>>= 1) if (touched & 1) total[f] += w;
    }
  } else {
    const seen = new Int32Array(paths.length).fill(-1);
    for (let s = 0; s < count; s++) {
      const a = start[s];
      const b = start[s + 1];
      if (b <= a) continue;
      const w = weight[s];
      whole += w;
      const leaf = fileOf[items[leafFirst ? a : b - 1]];
      if (leaf >= 0) self[leaf] += w;
      for (let q = a; q < b; q++) {
        const f = fileOf[items[q]];
        if (f >= 0 && seen[f] !== s) {
          seen[f] = s;
          total[f] += w;
        }
      }
    }
  }
  return heaviestFiles(paths, self, total, whole);
}

/** The files with samples, heaviest first. */
function heaviestFiles(
  paths: string[],
  self: Float64Array,
  total: Float64Array,
  of: number,
): MappingSamples[] {
  const out: MappingSamples[] = [];
  for (let i = 0; i < paths.length; i++)
    if (total[i] !== 0) out.push({ path: paths[i], self: self[i], total: total[i], of });
  return out.sort((x, y) => y.total - x.total || (x.path < y.path ? -1 : 1));
}
