// Byte-level reading of DWARF sections: fixed-size integers in either byte order, LEB128,
// NUL-terminated strings, initial lengths (32- and 64-bit DWARF). Every read is bounds-checked
// against the reader's end and throws DwarfError past it, so a damaged section can only end the
// unit being read, never loop or read garbage from another section.
//
// Addresses and offsets are JS numbers. A 64-bit value at or above 2^53 reads as BIG: such
// addresses (tombstones like 0xffffffffffffffff, kernel addresses) never match a lookup.

/** A malformed or unsupported piece of DWARF. `section` names where it was found. */
export class DwarfError extends Error {
  readonly section: string;
  readonly offset: number;
  constructor(section: string, message: string, offset: number) {
    super(`${section}: ${message} (at offset ${offset})`);
    this.name = 'DwarfError';
    this.section = section;
    this.offset = offset;
  }
}

/** 2^53: what a 64-bit value too large for an exact JS number reads as. */
export const BIG = 9007199254740992;
const TWO32 = 4294967296;

const utf8 = new TextDecoder('utf-8');
/** One DataView per section (readers are made per DIE for name lookups). */
const views = new WeakMap<Uint8Array, DataView>();

/** A cursor over one section's bytes. `pos` is a section offset; reads stay below `end`. */
export class Reader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  readonly le: boolean;
  readonly section: string;
  pos: number;
  end: number;

  constructor(bytes: Uint8Array, le: boolean, section: string, pos = 0, end = bytes.length) {
    this.bytes = bytes;
    let view = views.get(bytes);
    if (view === undefined) {
      view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      views.set(bytes, view);
    }
    this.view = view;
    this.le = le;
    this.section = section;
    this.pos = pos;
    this.end = Math.min(end, bytes.length);
  }

  fail(message: string, at = this.pos): never {
    throw new DwarfError(this.section, message, at);
  }

  need(n: number): void {
    if (n < 0 || this.pos + n > this.end) this.fail(`${n} bytes needed, ${this.end - this.pos} left`);
  }
  /** Skips n bytes that must be there. */
  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  u8(): number {
    if (this.pos >= this.end) this.fail('unexpected end of data');
    return this.bytes[this.pos++];
  }

  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.pos, this.le);
    this.pos += 2;
    return v;
  }

  u24(): number {
    this.need(3);
    const b = this.bytes;
    const p = this.pos;
    this.pos += 3;
    return this.le ? b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) : (b[p] << 16) | (b[p + 1] << 8) | b[p + 2];
  }

  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos, this.le);
    this.pos += 4;
    return v;
  }

  /** A 64-bit value as a number; BIG when it is 2^53 or more. */
  u64(): number {
    this.need(8);
    const a = this.view.getUint32(this.pos, this.le);
    const b = this.view.getUint32(this.pos + 4, this.le);
    this.pos += 8;
    const hi = this.le ? b : a;
    const lo = this.le ? a : b;
    return hi >= 0x200000 ? BIG : hi * TWO32 + lo;
  }

  /** An unsigned value of 1, 2, 4 or 8 bytes (address sizes, offset sizes). */
  uN(n: number): number {
    switch (n) {
      case 1:
        return this.u8();
      case 2:
        return this.u16();
      case 4:
        return this.u32();
      case 8:
        return this.u64();
      default:
        return this.fail(`unsupported size ${n}`);
    }
  }

  /** True when the next n bytes (n = 4 or 8) are all 0xff (the "largest address" marker). */
  allOnes(n: number): boolean {
    this.need(n);
    for (let i = 0; i < n; i++) if (this.bytes[this.pos + i] !== 0xff) return false;
    return true;
  }

  /** Unsigned LEB128. Values past 2^53 read as BIG (the bytes are still consumed). */
  uleb(): number {
    const b = this.bytes;
    let p = this.pos;
    const end = this.end;
    if (p >= end) this.fail('unexpected end of data in LEB128');
    let byte = b[p++];
    if (byte < 0x80) {
      this.pos = p;
      return byte;
    }
    let result = byte & 0x7f;
    let mul = 128;
    for (;;) {
      if (p >= end) this.fail('unexpected end of data in LEB128');
      byte = b[p++];
      if (mul < BIG) result += (byte & 0x7f) * mul;
      mul *= 128;
      if (byte < 0x80) break;
    }
    this.pos = p;
    return result >= BIG ? BIG : result;
  }

  /** Signed LEB128 (exact for |value| < 2^53). */
  sleb(): number {
    const b = this.bytes;
    let p = this.pos;
    const end = this.end;
    let result = 0;
    let mul = 1;
    let byte: number;
    do {
      if (p >= end) this.fail('unexpected end of data in LEB128');
      byte = b[p++];
      if (mul < BIG) result += (byte & 0x7f) * mul;
      mul *= 128;
    } while (byte >= 0x80);
    this.pos = p;
    if (byte & 0x40 && mul <= BIG) result -= mul;
    else if (byte & 0x40) result = -BIG;
    return result;
  }

  /** Skips a LEB128 value. */
  skipLeb(): void {
    const b = this.bytes;
    let p = this.pos;
    const end = this.end;
    while (p < end && b[p] >= 0x80) p++;
    if (p >= end) this.fail('unexpected end of data in LEB128');
    this.pos = p + 1;
  }

  /** A NUL-terminated string (UTF-8). */
  cstr(): string {
    const s = cstrAt(this.bytes, this.pos, this.end);
    if (s === null) this.fail('unterminated string');
    this.pos += s.bytes + 1;
    return s.text;
  }

  /** Skips a NUL-terminated string. */
  skipCstr(): void {
    const i = this.bytes.indexOf(0, this.pos);
    if (i < 0 || i >= this.end) this.fail('unterminated string');
    this.pos = i + 1;
  }

  /**
   * A unit's initial length: returns [length, offsetSize] (offsetSize 8 for 64-bit DWARF).
   * Reserved values 0xfffffff0–0xfffffffe are an error.
   */
  initialLength(): [number, 4 | 8] {
    const n = this.u32();
    if (n < 0xfffffff0) return [n, 4];
    if (n === 0xffffffff) return [this.u64(), 8];
    return this.fail(`reserved unit length 0x${n.toString(16)}`, this.pos - 4);
  }

  /** An offset of the unit's offset size. */
  offset(offsetSize: number): number {
    return offsetSize === 8 ? this.u64() : this.u32();
  }
}

/** The NUL-terminated string at `off` (below `end`) and its byte length, or null if unterminated. */
export function cstrAt(b: Uint8Array, off: number, end: number): { text: string; bytes: number } | null {
  if (off < 0 || off >= end) return null;
  let e = off;
  let high = 0;
  while (e < end && b[e] !== 0) high |= b[e++];
  if (e >= end) return null;
  const n = e - off;
  // ASCII names (nearly all): one fromCharCode call is much faster than a TextDecoder call.
  const text =
    high < 0x80 && n < 4096
      ? String.fromCharCode.apply(null, b.subarray(off, e) as unknown as number[])
      : utf8.decode(b.subarray(off, e));
  return { text, bytes: n };
}
