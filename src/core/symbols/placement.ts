// Placing an ELF file in a profile that has no mapped-objects list (a truncated gperftools file, a
// writer that omits it): the user says where the file was loaded, and its executable segments
// become the profile's mappings. For a position-independent file the load address is guessed from
// the profile's own return addresses: at the right base, the bytes before each return address
// decode as a call instruction.

import type { Mapping, RawProfile } from '../types';
import type { ElfFile, LoadSegment } from './elf';
import { EM_386, EM_X86_64 } from './machines';

/** An ELF file placed at a load bias: the run-time address of its virtual address 0. */
export interface Placement {
  /** The dropped file's name. */
  file: string;
  /** 0 for a file linked at fixed addresses (ET_EXEC), loaded where it was linked. */
  base: bigint;
}

/** What the profile suggests for an ELF file it could use, shown beside a load-address field. */
export interface PlacementHint {
  file: string;
  /** Linked at fixed addresses: placed at base 0 without guessing. */
  fixed: boolean;
  /** Hex with 0x: the guessed load bias (exact for fixed files). */
  base: string;
  /**
   * How the base was found: its link-time addresses; the return addresses that then follow call
   * instructions (`calls` of the `callers` checked); or a guess the code could not confirm.
   */
  how: 'fixed' | 'calls' | 'guess';
  calls: number;
  callers: number;
  /** Sampled addresses the placement covers, of all. */
  covered: number;
  addresses: number;
}

const PF_X = 1;
const ET_EXEC = 2;
const PAGE = 0x1000n;

const codeSegments = (elf: ElfFile): LoadSegment[] => elf.loadSegments.filter((s) => (s.flags & PF_X) !== 0);

/** The mappings an ELF file's executable segments make when it is loaded at `base`. */
export function placedMappings(elf: ElfFile, base: bigint): Mapping[] {
  return codeSegments(elf).map((s) => ({
    start: base + s.vaddr,
    end: base + s.vaddr + BigInt(s.memsz),
    offset: BigInt(s.offset),
    path: elf.fileName,
  }));
}

/** Parses a load address typed by a user: hex with or without 0x. Null when it is not one. */
export function parseBase(text: string): bigint | null {
  const t = text.trim().replace(/^0x/i, '');
  if (!/^[0-9a-f]{1,16}$/i.test(t)) return null;
  return BigInt(`0x${t}`);
}

export const hexBase = (b: bigint): string => `0x${b.toString(16)}`;

/** The profile's distinct sampled addresses, and which of them are return addresses (callers). */
function sampledAddresses(raw: RawProfile): { all: bigint[]; callers: bigint[] } {
  const { locations: loc, samples } = raw;
  const seen = new Uint8Array(loc.count); // 1 leaf, 2 caller
  const { stackStart, stackLocs } = samples;
  for (let s = 0; s < samples.count; s++) {
    for (let k = stackStart[s]; k < stackStart[s + 1]; k++) {
      seen[stackLocs[k]] |= k === stackStart[s] ? 1 : 2;
    }
  }
  const all: bigint[] = [];
  const callers: bigint[] = [];
  for (let i = 0; i < loc.count; i++) {
    if (!seen[i] || !loc.hasAddr[i]) continue;
    const a = (BigInt(loc.addrHi[i]) << 32n) | BigInt(loc.addrLo[i]);
    all.push(a);
    // A writer that already subtracted 1 from callers (pprof --raw) stores return address − 1; a
    // heap profile's leaves are return addresses too.
    if (seen[i] & 2) callers.push(raw.adjustCallers ? a : a + 1n);
    else if (raw.adjustLeaves) callers.push(a);
  }
  all.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  return { all, callers };
}

/** Does a call instruction end just before `at` (a file offset) in x86 code? */
function followsCall(bytes: Uint8Array, at: number): boolean {
  const b = (back: number) => (at - back >= 0 && at - back < bytes.length ? bytes[at - back] : -1);
  if (b(5) === 0xe8) return true; // call rel32
  if (b(6) === 0xff && (b(5) === 0x15 || (b(5) >= 0x90 && b(5) <= 0x97))) return true; // call [rip+d32] / [r+d32]
  if (b(2) === 0xff && b(1) >= 0xd0 && b(1) <= 0xd7) return true; // call reg
  if (b(3) === 0xff && ((b(2) >= 0x50 && b(2) <= 0x57) || b(2) === 0x14)) return true; // call [r+d8] / [sib]
  if (b(3) === 0x41 && b(2) === 0xff && b(1) >= 0xd0 && b(1) <= 0xd7) return true; // call r8–r15
  return false;
}

/**
 * Where `elf` was probably loaded, from the profile's sampled addresses: fixed files where they
 * were linked; position-independent ones at the page-aligned base that puts the most sampled
 * addresses in the file's code and, among those, the most return addresses right after a call
 * instruction (x86; elsewhere, a guess: the densest sampled addresses start at the code's first page).
 */
export function guessPlacement(elf: ElfFile, bytes: Uint8Array, raw: RawProfile): PlacementHint {
  const { all, callers } = sampledAddresses(raw);
  const segs = codeSegments(elf);
  const hint = (base: bigint, how: PlacementHint['how'], calls = 0, checked = 0): PlacementHint => {
    const maps = placedMappings(elf, base);
    const covered = all.filter((a) => maps.some((m) => a >= m.start && a < m.end)).length;
    return {
      file: elf.fileName,
      fixed: how === 'fixed',
      base: hexBase(base),
      how,
      calls,
      callers: checked,
      covered,
      addresses: all.length,
    };
  };
  if (elf.type === ET_EXEC || segs.length === 0) return hint(0n, 'fixed');
  if (all.length === 0) return hint(0n, 'guess');
  // The code segment; the sampled addresses in clusters no wider than it (each module's code is
  // one cluster, apart from the others by far more than its size).
  const text = segs.reduce((a, s) => (s.memsz > a.memsz ? s : a));
  const span = BigInt(text.memsz);
  const clusters: [number, number][] = [];
  for (let i = 0; i < all.length; ) {
    // The densest window of the run of addresses that starts here.
    let j = i + 1;
    while (j < all.length && all[j] - all[j - 1] < span) j++;
    let best: [number, number] = [i, i + 1];
    for (let a = i, b = i; a < j; a++) {
      while (b < j && all[b] - all[a] < span) b++;
      if (b - a > best[1] - best[0]) best = [a, b];
    }
    clusters.push(best);
    i = j;
  }
  clusters.sort((x, y) => y[1] - y[0] - (x[1] - x[0]));
  const x86 = elf.machine === EM_X86_64 || elf.machine === EM_386;
  const guess = (lo: bigint) => (lo - text.vaddr < 0n ? 0n : ((lo - text.vaddr) / PAGE) * PAGE);
  if (!x86) return hint(guess(all[clusters[0][0]]), 'guess');
  // Each of the largest clusters: the page-aligned bases that keep it inside the code, scored by
  // the return addresses that then follow a call instruction.
  // Scored by calls × the share of calls: a large cluster that mostly follows calls beats a tiny
  // one that follows them by chance.
  let found = { base: guess(all[clusters[0][0]]), calls: 0, probes: 0, score: -1 };
  for (const [i, j] of clusters.slice(0, 16)) {
    const lo = all[i];
    const hi = all[j - 1];
    const inWindow = callers.filter((c) => c >= lo && c <= hi + 1n);
    const step = Math.max(1, Math.floor(inWindow.length / 512));
    const probe = inWindow.filter((_, k) => k % step === 0);
    if (probe.length === 0) continue;
    const highest = guess(lo);
    const lowest = hi - text.vaddr - span + 1n;
    for (let base = highest; base >= lowest && base >= 0n; base -= PAGE) {
      let calls = 0;
      for (const c of probe) {
        const off = c - base - text.vaddr + BigInt(text.offset);
        if (
          off >= BigInt(text.offset) &&
          off <= BigInt(text.offset + text.filesz) &&
          followsCall(bytes, Number(off))
        )
          calls++;
      }
      const score = (calls * calls) / probe.length;
      if (score > found.score) found = { base, calls, probes: probe.length, score };
    }
  }
  return hint(
    found.base,
    found.calls * 2 >= found.probes && found.calls > 0 ? 'calls' : 'guess',
    found.calls,
    found.probes,
  );
}
