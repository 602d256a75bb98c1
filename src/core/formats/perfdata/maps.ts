// The executable mappings of a perf.data recording, per process. A RawProfile has one address space
// (one list of mappings for every sample), perf.data one per process: mappings of different
// processes (or of one process before and after an exec) may cover the same addresses with
// different files (address-space randomization off: every PIE executable at 0x555555554000). Each
// distinct mapping (start, length, file offset, file) is one RawProfile mapping, at its own
// addresses while it overlaps no other; one that overlaps another is moved to a synthetic range of
// its own (a non-canonical high word, never a real address), and the addresses of the samples of
// processes that map it there are moved with it. The file offset of every address is kept, so
// symbolization and `module+0xOFFSET` names are unchanged. Kernel mappings (pid −1) serve every
// process and are never moved.
//
// Which mapping a process had at an address depends on time: perf writes each CPU's buffer in
// turn, so a sample may come in the file before the MMAP that preceded it. Processes' mappings are
// therefore replayed in time order after the read (`moveSamples`), and only when a mapping was
// moved (else every address stays as it is and the order does not matter).

import type { AddrTable } from '../../address.ts';
import type { Mapping } from '../../types.ts';

/** High words of moved mappings: 0x20000000… (non-canonical on every 64-bit machine). */
const MOVED_HI_BASE = 0x20000000;
const TWO32 = 0x100000000n;
const MAX_END = (1n << 64n) - 1n;
/** Addresses from here up are the kernel's (canonical upper half): never in a process's mappings. */
const KERNEL_HI = 0x80000000;

/** What changed a process's mappings, and when (a time stamp, or the record's number). */
export interface MapEvent {
  kind: 'mmap' | 'fork' | 'exec';
  pid: number;
  /** mmap: the mapping's index; fork: the parent process. */
  arg: number;
  timeHi: number;
  timeLo: number;
  seq: number;
}

/** One process's mappings, sorted by start (their real addresses), and how many were moved. */
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

  /** Adds mapping `id` at [start, end), replacing the mappings it overlaps (munmap, remap). */
  insert(id: number, start: bigint, end: bigint, moved: boolean, movedOf: (id: number) => boolean): void {
    for (let i = this.ids.length - 1; i >= 0; i--) {
      const s = (BigInt(this.startHi[i]) << 32n) | BigInt(this.startLo[i]);
      const e = (BigInt(this.endHi[i]) << 32n) | BigInt(this.endLo[i]);
      if (s < end && start < e) {
        if (movedOf(this.ids[i])) this.moved--;
        for (const a of [this.startHi, this.startLo, this.endHi, this.endLo, this.ids]) a.splice(i, 1);
      }
    }
    const [sh, sl] = halves(start);
    const [eh, el] = halves(end);
    let at = 0;
    while (
      at < this.ids.length &&
      (this.startHi[at] < sh || (this.startHi[at] === sh && this.startLo[at] < sl))
    )
      at++;
    this.startHi.splice(at, 0, sh);
    this.startLo.splice(at, 0, sl);
    this.endHi.splice(at, 0, eh);
    this.endLo.splice(at, 0, el);
    this.ids.splice(at, 0, id);
    if (moved) this.moved++;
  }
}

export class PerfMaps {
  /** The RawProfile's mappings (moved ones at their synthetic ranges). */
  readonly mappings: Mapping[] = [];
  /** Per mapping: its real range, and its synthetic high word if it was moved (else −1). */
  private realStart: bigint[] = [];
  private realEnd: bigint[] = [];
  private movedHi: number[] = [];
  private kernel: boolean[] = [];
  private keys = new Map<string, number>();
  /** User mappings at their own addresses, sorted by start and disjoint, for the overlap check. */
  private placedStart: bigint[] = [];
  private placedEnd: bigint[] = [];
  /** Mappings moved so far. */
  moved = 0;

  /**
   * A mapping from an MMAP/MMAP2 record (`kernel`: pid −1, the kernel's or a module's). Returns
   * its index, or −1 when it is empty.
   */
  add(
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
    const known = this.keys.get(key);
    if (known !== undefined) return known;
    const id = this.mappings.length;
    this.keys.set(key, id);
    const m: Mapping = { start, end, offset: pgoff, path };
    if (buildId !== undefined) m.buildId = buildId;
    if (kernel) m.linkTimeAddresses = true;
    this.realStart.push(start);
    this.realEnd.push(end);
    this.movedHi.push(-1);
    this.kernel.push(kernel);
    if (!kernel) {
      const i = this.lastStartingBefore(end);
      // the placed mappings are disjoint: only the last one starting before `end` can reach `start`
      if (i >= 0 && this.placedEnd[i] > start) {
        // (one of 4 GB or more that overlaps another is left where it is, unplaced)
        if (end - start < TWO32) {
          const hi = MOVED_HI_BASE + this.moved++;
          m.start = BigInt(hi) << 32n;
          m.end = m.start + (end - start);
          this.movedHi[id] = hi;
        }
      } else {
        this.placedStart.splice(i + 1, 0, start);
        this.placedEnd.splice(i + 1, 0, end);
      }
    }
    this.mappings.push(m);
    return id;
  }

  /**
   * Extends the kernel's mapping (`[kernel.kallsyms]`) over the kernel's call-chain entries past its
   * end (u64 halves) that no other mapping holds, up to the next mapping: perf's MMAP of the kernel
   * ends at `_etext`, and the init text after it (`start_kernel`, `x86_64_start_kernel`: the roots of
   * the idle task's stacks) is kernel code perf names from kallsyms too. An entry at or past the
   * start of a mapping above the kernel's (a module's) is left to it.
   */
  coverKernel(entries: Iterable<[number, number]>): void {
    const k = this.mappings.findIndex((m, i) => this.kernel[i] && m.path === '[kernel.kallsyms]');
    if (k < 0) return;
    const m = this.mappings[k];
    let next = MAX_END;
    for (const o of this.mappings) if (o.start >= m.end && o.start < next) next = o.start;
    let end = m.end;
    for (const [hi, lo] of entries) {
      const a = (BigInt(hi) << 32n) | BigInt(lo);
      if (a >= end && a < next) end = a + 1n;
    }
    if (end === m.end) return;
    m.end = end;
    this.realEnd[k] = end;
  }

  /** Whether mapping `id` is the kernel's (served to every process). */
  isKernel(id: number): boolean {
    return this.kernel[id];
  }

  /** Gives the mappings of `path` without a build-id of their own this one (the BUILD_ID feature's). */
  setBuildId(path: string, buildId: string): void {
    for (const m of this.mappings) if (m.path === path && m.buildId === undefined) m.buildId = buildId;
  }

  /**
   * Moves the addresses of the samples that lie in moved mappings: replays the processes'
   * mappings (`events`) and the samples (with their processes and keys: time stamps, or record
   * numbers) in time order, re-interning each moved address in `addrs` and pointing the sample's
   * stack at it. Nothing to do when no mapping was moved.
   */
  moveSamples(
    events: MapEvent[],
    samples: {
      count: number;
      pid: Uint32Array;
      keyHi: Uint32Array;
      keyLo: Uint32Array;
      stackStart: Uint32Array;
      stackLocs: Uint32Array;
    },
    addrs: AddrTable,
  ): void {
    if (this.moved === 0) return;
    const ev = events.slice().sort((a, b) => a.timeHi - b.timeHi || a.timeLo - b.timeLo || a.seq - b.seq);
    const { count, pid, keyHi, keyLo, stackStart, stackLocs } = samples;
    const order = new Uint32Array(count);
    for (let s = 0; s < count; s++) order[s] = s;
    order.sort((a, b) => keyHi[a] - keyHi[b] || keyLo[a] - keyLo[b] || a - b);
    const processes = new Map<number, ProcessMaps>();
    const movedOf = (id: number) => this.movedHi[id] >= 0;
    let e = 0;
    for (let k = 0; k < count; k++) {
      const s = order[k];
      // the events up to the sample's time (an event at the same time goes first)
      for (; e < ev.length; e++) {
        const x = ev[e];
        if (x.timeHi > keyHi[s] || (x.timeHi === keyHi[s] && x.timeLo > keyLo[s])) break;
        if (x.kind === 'mmap') {
          let p = processes.get(x.pid);
          if (p === undefined) processes.set(x.pid, (p = new ProcessMaps()));
          p.insert(x.arg, this.realStart[x.arg], this.realEnd[x.arg], movedOf(x.arg), movedOf);
        } else if (x.kind === 'fork') {
          const parent = processes.get(x.arg);
          if (x.pid === x.arg) continue; // a thread: the same mappings
          if (parent) processes.set(x.pid, parent.clone());
          else processes.delete(x.pid);
        } else processes.delete(x.pid);
      }
      const p = processes.get(pid[s]);
      if (p === undefined || p.moved === 0) continue;
      for (let q = stackStart[s]; q < stackStart[s + 1]; q++) {
        const loc = stackLocs[q];
        const hi = addrs.hi[loc];
        if (hi >= KERNEL_HI) continue;
        const lo = addrs.lo[loc];
        const i = p.find(hi, lo);
        const mh = i < 0 ? -1 : this.movedHi[p.ids[i]];
        if (mh < 0) continue;
        // the address's distance from its mapping's real start, below 2^32 (moved ones are shorter)
        stackLocs[q] = addrs.intern(mh, (lo - p.startLo[i] + (hi - p.startHi[i]) * 0x100000000) >>> 0);
      }
    }
  }

  /** The index of the last placed mapping whose start is below `x`, or −1. */
  private lastStartingBefore(x: bigint): number {
    let a = 0;
    let b = this.placedStart.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (this.placedStart[m] < x) a = m + 1;
      else b = m;
    }
    return a - 1;
  }
}

function halves(v: bigint): [number, number] {
  return [Number((v >> 32n) & 0xffffffffn), Number(v & 0xffffffffn)];
}
