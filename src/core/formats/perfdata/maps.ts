// The executable mappings of a perf.data recording, per process. A RawProfile has one address space
// (one list of mappings for every sample), perf.data one per process: mappings of different
// processes (or of one process before and after an exec) may cover the same addresses with
// different files (address-space randomization off: every PIE executable at 0x555555554000). Each
// distinct mapping (start, length, file offset, file) is one RawProfile mapping, at its own
// addresses while it overlaps no other; one that overlaps another is moved to a synthetic range of
// its own (a non-canonical high word, never a real address), and the samples of the processes that
// map it have their addresses moved with it. The file offset of every address is kept, so
// symbolization and `module+0xOFFSET` names are unchanged. Kernel mappings (pid −1) serve every
// process and are never moved.

import type { Mapping } from '../../types.ts';

/** High words of moved mappings: 0x20000000… (non-canonical on every 64-bit machine). */
const MOVED_HI_BASE = 0x20000000;
const TWO32 = 0x100000000n;
const MAX_END = (1n << 64n) - 1n;

interface Placed {
  start: bigint;
  end: bigint;
  id: number;
}

/** One process's mappings, sorted by start, and whether any of them was moved. */
class ProcessMaps {
  startHi: number[] = [];
  startLo: number[] = [];
  endHi: number[] = [];
  endLo: number[] = [];
  ids: number[] = [];
  moved = 0;

  clone(): ProcessMaps {
    const c = new ProcessMaps();
    c.startHi = this.startHi.slice();
    c.startLo = this.startLo.slice();
    c.endHi = this.endHi.slice();
    c.endLo = this.endLo.slice();
    c.ids = this.ids.slice();
    c.moved = this.moved;
    return c;
  }

  /** The index of the mapping holding (hi, lo), or −1. */
  find(hi: number, lo: number): number {
    let a = 0;
    let b = this.ids.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (hi < this.startHi[m] || (hi === this.startHi[m] && lo < this.startLo[m])) b = m;
      else a = m + 1;
    }
    const i = a - 1;
    if (i < 0) return -1;
    return hi < this.endHi[i] || (hi === this.endHi[i] && lo < this.endLo[i]) ? i : -1;
  }
}

export class PerfMaps {
  /** The RawProfile's mappings (moved ones at their synthetic ranges). */
  readonly mappings: Mapping[] = [];
  /** Per mapping: its synthetic high word if it was moved, else −1. */
  private movedHi: number[] = [];
  private keys = new Map<string, number>();
  /** User mappings at their own addresses, sorted by start, for the overlap check. */
  private placed: Placed[] = [];
  private processes = new Map<number, ProcessMaps>();
  /** Mappings moved so far. */
  moved = 0;

  /**
   * A mapping of process `pid` (−1: the kernel's) from an MMAP/MMAP2 record. Returns the mapping's
   * index, or −1 when it is empty.
   */
  add(
    pid: number,
    start: bigint,
    len: bigint,
    pgoff: bigint,
    path: string,
    kernel: boolean,
    buildId: string | undefined,
  ): number {
    if (len <= 0n) return -1;
    let end = start + len;
    if (end > MAX_END) end = MAX_END;
    const key = `${start}/${end}/${pgoff}/${path}/${buildId ?? ''}`;
    let id = this.keys.get(key);
    if (id === undefined) {
      id = this.mappings.length;
      this.keys.set(key, id);
      const m: Mapping = { start, end, offset: pgoff, path };
      if (buildId !== undefined) m.buildId = buildId;
      if (kernel) m.linkTimeAddresses = true;
      this.movedHi.push(-1);
      if (!kernel && this.overlapsPlaced(start, end)) {
        // (a mapping of 4 GB or more that overlaps another stays where it is, unplaced)
        if (end - start < TWO32) {
          const hi = MOVED_HI_BASE + this.moved++;
          const s = BigInt(hi) << 32n;
          m.start = s;
          m.end = s + (end - start);
          this.movedHi[id] = hi;
        }
      } else if (!kernel) {
        this.place(start, end, id);
      }
      this.mappings.push(m);
    }
    if (!kernel) this.insert(pid, id, start, end);
    return id;
  }

  /** A new process `pid` forked from `ppid`: it starts with the parent's mappings. */
  fork(ppid: number, pid: number): void {
    if (pid === ppid) return; // a thread: same mappings
    const parent = this.processes.get(ppid);
    if (parent) this.processes.set(pid, parent.clone());
    else this.processes.delete(pid);
  }

  /** Process `pid` ran exec: its old mappings are gone. */
  exec(pid: number): void {
    this.processes.delete(pid);
  }

  /**
   * The mappings of `pid` when some of them were moved (its samples' addresses must move too),
   * else null.
   */
  movedFor(pid: number): ProcessMaps | null {
    const p = this.processes.get(pid);
    return p !== undefined && p.moved > 0 ? p : null;
  }

  /**
   * Writes where the address (hi, lo) of a process with moved mappings (`movedFor`) lies in the
   * profile's address space into out[0], out[1]: moved with its mapping, or as it is.
   */
  translate(p: ProcessMaps, hi: number, lo: number, out: Uint32Array): void {
    const i = p.find(hi, lo);
    const mh = i < 0 ? -1 : this.movedHi[p.ids[i]];
    if (mh < 0) {
      out[0] = hi;
      out[1] = lo;
      return;
    }
    // address − real start, below 2^32 (moved mappings are shorter)
    out[0] = mh;
    out[1] = (lo - p.startLo[i] + (hi - p.startHi[i]) * 0x100000000) >>> 0;
  }

  /** Gives the mappings of `path` without a build-id of their own this one (the BUILD_ID feature's). */
  setBuildId(path: string, buildId: string): void {
    for (const m of this.mappings) if (m.path === path && m.buildId === undefined) m.buildId = buildId;
  }

  private processMaps(pid: number, create: boolean): ProcessMaps | undefined {
    let p = this.processes.get(pid);
    if (p === undefined && create) {
      p = new ProcessMaps();
      this.processes.set(pid, p);
    }
    return p;
  }

  /** Puts mapping `id` in process `pid`'s list, replacing the mappings it overlaps there. */
  private insert(pid: number, id: number, start: bigint, end: bigint): void {
    const p = this.processMaps(pid, true)!;
    const [sh, sl] = halves(start);
    const [eh, el] = halves(end);
    // drop what the new mapping covers (munmap, or a mapping replaced at the same place)
    for (let i = p.ids.length - 1; i >= 0; i--) {
      const s = (BigInt(p.startHi[i]) << 32n) | BigInt(p.startLo[i]);
      const e = (BigInt(p.endHi[i]) << 32n) | BigInt(p.endLo[i]);
      if (s < end && start < e) {
        if (this.movedHi[p.ids[i]] >= 0) p.moved--;
        for (const a of [p.startHi, p.startLo, p.endHi, p.endLo, p.ids]) a.splice(i, 1);
      }
    }
    let at = 0;
    while (at < p.ids.length && (p.startHi[at] < sh || (p.startHi[at] === sh && p.startLo[at] < sl))) at++;
    p.startHi.splice(at, 0, sh);
    p.startLo.splice(at, 0, sl);
    p.endHi.splice(at, 0, eh);
    p.endLo.splice(at, 0, el);
    p.ids.splice(at, 0, id);
    if (this.movedHi[id] >= 0) p.moved++;
  }

  private overlapsPlaced(start: bigint, end: bigint): boolean {
    const i = this.lastStartingBefore(end);
    // the placed mappings are disjoint: only the last one starting before `end` can reach `start`
    return i >= 0 && this.placed[i].end > start;
  }

  private place(start: bigint, end: bigint, id: number): void {
    this.placed.splice(this.lastStartingBefore(end) + 1, 0, { start, end, id });
  }

  /** The index of the last placed mapping whose start is below `x`, or −1. */
  private lastStartingBefore(x: bigint): number {
    let a = 0;
    let b = this.placed.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (this.placed[m].start < x) a = m + 1;
      else b = m;
    }
    return a - 1;
  }
}

export type { ProcessMaps };

function halves(v: bigint): [number, number] {
  return [Number((v >> 32n) & 0xffffffffn), Number(v & 0xffffffffn)];
}
