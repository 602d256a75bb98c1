// 64-bit addresses as (hi, lo) uint32 pairs: exact, and cheap to intern.

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
      this.strings.push(s);
      this.ids.set(s, id);
    }
    return id;
  }
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
    const n = new Uint32Array(cap);
    n.set(this.data.subarray(0, this.length));
    this.data = n;
  }
  finish(): Uint32Array {
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
    if (this.length === this.data.length) {
      const n = new Float64Array(this.data.length * 2);
      n.set(this.data);
      this.data = n;
    }
    this.data[this.length++] = v;
  }
  finish(): Float64Array {
    return this.data.slice(0, this.length);
  }
}
