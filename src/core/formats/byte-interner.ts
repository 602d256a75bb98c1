// Byte strings of a file found in place, without decoding them: the text readers' names and
// lines (perf script's symbols and DSOs, folded stacks' frames) are decoded once per distinct byte
// string and found again by a hash of their bytes.

/** A hash of bytes[b, e) (`view` over `bytes`), read four bytes at a time. */
export function hashBytes(bytes: Uint8Array, view: DataView, b: number, e: number): number {
  let h = 0x811c9dc5 ^ (e - b);
  let i = b;
  for (; i + 4 <= e; i += 4) h = Math.imul(((h << 5) | (h >>> 27)) ^ view.getInt32(i, true), 0x9e3779b1);
  let w = 0;
  for (let k = 0; i < e; i++, k += 8) w |= bytes[i] << k;
  h = Math.imul(((h << 5) | (h >>> 27)) ^ w, 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return h ^ (h >>> 13);
}

/**
 * Values of byte strings (symbols, DSOs, frame names) found in place: a value is computed from the
 * decoded text once per distinct byte string, then found by a hash of the bytes, confirmed byte by
 * byte against a copy of its first occurrence. The copies lie together (a few hundred KB where the
 * file is 400 MB): confirming against the first occurrence in the file missed the cache each time
 * (a 400 MB folded file's 20M names: 5.5 s read in node).
 */
export class ByteInterner {
  private slots = new Int32Array(1 << 10).fill(-1);
  /** The distinct byte strings, one after another; `starts` says where each begins. */
  private dict = new Uint8Array(1 << 12);
  private dictLength = 0;
  private starts: number[] = [];
  private lengths: number[] = [];
  private hashes: number[] = [];
  private values: number[] = [];

  constructor(
    private readonly bytes: Uint8Array,
    private readonly view: DataView,
    private readonly compute: (b: number, e: number) => number,
  ) {}

  get(b: number, e: number): number {
    const bytes = this.bytes;
    const h = hashBytes(bytes, this.view, b, e);
    const len = e - b;
    let mask = this.slots.length - 1;
    let p = h & mask;
    for (; ; p = (p + 1) & mask) {
      const id = this.slots[p];
      if (id < 0) break;
      if (this.hashes[id] !== h || this.lengths[id] !== len) continue;
      const s = this.starts[id];
      const dict = this.dict;
      let i = 0;
      while (i < len && dict[s + i] === bytes[b + i]) i++;
      if (i === len) return this.values[id];
    }
    const value = this.compute(b, e);
    const id = this.values.length;
    if (this.dictLength + len > this.dict.length) {
      const grown = new Uint8Array(Math.max(this.dict.length * 2, this.dictLength + len));
      grown.set(this.dict.subarray(0, this.dictLength));
      this.dict = grown;
    }
    this.dict.set(bytes.subarray(b, e), this.dictLength);
    this.starts.push(this.dictLength);
    this.dictLength += len;
    this.lengths.push(len);
    this.hashes.push(h);
    this.values.push(value);
    if (this.values.length * 2 > this.slots.length) {
      this.slots = new Int32Array(this.slots.length * 2).fill(-1);
      mask = this.slots.length - 1;
      for (let i = 0; i < this.values.length; i++) {
        let q = this.hashes[i] & mask;
        while (this.slots[q] >= 0) q = (q + 1) & mask;
        this.slots[q] = i;
      }
    } else {
      this.slots[p] = id;
    }
    return value;
  }
}
