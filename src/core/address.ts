// 64-bit addresses as (hi, lo) uint32 pairs: exact, and cheap to intern.

import type { RawProfile } from './types';

/** Lowercase hex without leading zeros and without 0x ("0" for zero). */
export function hexOf(hi: number, lo: number): string {
  if (hi === 0) return lo.toString(16);
  return hi.toString(16) + lo.toString(16).padStart(8, '0');
}

export function bigOf(hi: number, lo: number): bigint {
  return (BigInt(hi) << 32n) | BigInt(lo);
}

export function splitBig(v: bigint): [number, number] {
  return [Number((v >> 32n) & 0xffffffffn), Number(v & 0xffffffffn)];
}

/** (hi, lo) − 1, wrapping at 0. */
export function minusOne(hi: number, lo: number): [number, number] {
  if (lo > 0) return [hi, lo - 1];
  return [hi === 0 ? 0xffffffff : hi - 1, 0xffffffff];
}

/** Interns strings to dense ids. */
export class StringInterner {
  readonly strings: string[] = [];
  private readonly ids = new Map<string, number>();

  intern(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.strings.length;
      const own = ownString(s);
      this.strings.push(own);
      this.ids.set(own, id);
    }
    return id;
  }
}

/**
 * `s` in memory of its own. A name cut out of a file's decoded text (`slice`, `split`) may be a
 * view into that whole text: kept, a few thousand short names held a 400 MB string alive after
 * the parse. Concatenating makes a new string, which `slice` flattens into a fresh copy.
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : ` ${s}`.slice(1);
}

/** A growable Uint32Array. */
export class U32Builder {
  length = 0;
  data: Uint32Array;
  constructor(initialCapacity = 1024) {
    this.data = new Uint32Array(Math.max(16, initialCapacity));
  }
  push(v: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = v;
  }
  grow(min: number): void {
    let cap = this.data.length * 2;
    while (cap < min) cap *= 2;
    this.growTo(cap);
  }
  /** Exactly `cap` slots (a caller's estimate of the final size). */
  growTo(cap: number): void {
    const n = new Uint32Array(Math.max(cap, this.length));
    n.set(this.data.subarray(0, this.length));
    this.data = n;
  }
  /** The values; no copy when they fill nearly all of the buffer (a good estimate's). */
  finish(): Uint32Array {
    if (this.length >= this.data.length * 0.9) return this.data.subarray(0, this.length);
    return this.data.slice(0, this.length);
  }
}

/** A growable Float64Array. */
export class F64Builder {
  length = 0;
  data: Float64Array;
  constructor(initialCapacity = 1024) {
    this.data = new Float64Array(Math.max(16, initialCapacity));
  }
  push(v: number): void {
    if (this.length === this.data.length) this.growTo(this.data.length * 2);
    this.data[this.length++] = v;
  }
  /** At least `cap` slots (a caller's estimate of the final size). */
  growTo(cap: number): void {
    if (cap <= this.data.length) return;
    const n = new Float64Array(cap);
    n.set(this.data.subarray(0, this.length));
    this.data = n;
  }
  finish(): Float64Array {
    return this.data.slice(0, this.length);
  }
}

/**
 * Open-addressing interner for (hi, lo) addresses; much faster than a Map on millions of PCs.
 *
 * A 100 MB profile has 13M PCs over ~64k addresses, so `intern` is the gperftools parser's inner
 * loop and its cost is cache misses (the table is larger than L2). Each slot therefore holds its
 * key next to its id, [id + 1, lo, hi, unused] in 16 aligned bytes, so a lookup touches one cache
 * line instead of three (slot, lo[id], hi[id]); 0 marks an empty slot, so no fill(-1) is needed.
 * The hash is one multiply (Fibonacci hashing: the top bits of (lo ^ hi·c)·φ). Measured on the
 * bench's 400 MB file (52M PCs, 170k addresses): slots of 4 bytes (ids only, keys compared in
 * lo/hi) were faster in node but slower in Chromium; a probe loop over a record's PCs with the
 * table in locals was within noise of calling intern per PC.
 */
export class AddrTable {
  count = 0;
  hi: Uint32Array;
  lo: Uint32Array;
  private slots: Uint32Array;
  private shift: number;
  private mask: number;

  constructor(capacity = 4096) {
    this.hi = new Uint32Array(capacity);
    this.lo = new Uint32Array(capacity);
    this.slots = new Uint32Array(capacity * 2 * 4);
    this.mask = capacity * 2 - 1;
    this.shift = 32 - Math.log2(capacity * 2);
  }

  private static hash(hi: number, lo: number, shift: number): number {
    return Math.imul(lo ^ Math.imul(hi, 0x7feb352d), 0x9e3779b1) >>> shift;
  }

  intern(hi: number, lo: number): number {
    const mask = this.mask;
    const slots = this.slots;
    let p = AddrTable.hash(hi, lo, this.shift);
    for (;;) {
      const q = p << 2;
      const idPlus1 = slots[q];
      if (idPlus1 === 0) break;
      if (slots[q + 1] === lo && slots[q + 2] === hi) return idPlus1 - 1;
      p = (p + 1) & mask;
    }
    const id = this.count++;
    if (id === this.hi.length) {
      this.grow();
      return this.insertNew(hi, lo, id);
    }
    this.hi[id] = hi;
    this.lo[id] = lo;
    const q = p << 2;
    slots[q] = id + 1;
    slots[q + 1] = lo;
    slots[q + 2] = hi;
    return id;
  }

  private insertNew(hi: number, lo: number, id: number): number {
    this.hi[id] = hi;
    this.lo[id] = lo;
    this.place(hi, lo, id);
    return id;
  }

  private place(hi: number, lo: number, id: number): void {
    let p = AddrTable.hash(hi, lo, this.shift);
    while (this.slots[p << 2] !== 0) p = (p + 1) & this.mask;
    const q = p << 2;
    this.slots[q] = id + 1;
    this.slots[q + 1] = lo;
    this.slots[q + 2] = hi;
  }

  private grow(): void {
    const cap = this.hi.length * 2;
    const nh = new Uint32Array(cap);
    nh.set(this.hi);
    const nl = new Uint32Array(cap);
    nl.set(this.lo);
    this.hi = nh;
    this.lo = nl;
    this.slots = new Uint32Array(cap * 2 * 4);
    this.mask = cap * 2 - 1;
    this.shift = 32 - Math.log2(cap * 2);
    for (let id = 0; id < this.count - 1; id++) this.place(nh[id], nl[id], id);
  }
}

/** The locations of a profile whose frames are names only (folded stacks): location i is name `locName[i]`. */
export function nameOnlyLocations(locName: Int32Array): RawProfile['locations'] {
  const n = locName.length;
  return {
    count: n,
    addrHi: new Uint32Array(n),
    addrLo: new Uint32Array(n),
    hasAddr: new Uint8Array(n),
    locName,
  };
}

/** The locations of a profile whose locations are all addresses, from its address table. */
export function addressLocations(addrs: AddrTable): RawProfile['locations'] {
  const n = addrs.count;
  return {
    count: n,
    addrHi: addrs.hi.slice(0, n),
    addrLo: addrs.lo.slice(0, n),
    hasAddr: new Uint8Array(n).fill(1),
    locName: new Int32Array(n).fill(-1),
  };
}
