// Seeded mutations shared by the fuzz tests (test/fuzz*.test.ts, pprof-fuzz.test.ts) and the
// in-process fuzz engine (test/fuzz/engine.ts). Every mutation is a pure function of its input and
// the random stream `r` (test/helpers/prng.ts): the same seed gives the same bytes.

export type Rng = () => number;

/** An integer in [0, n). */
export const int = (r: Rng, n: number): number => Math.floor(r() * n);
export const pick = <T>(r: Rng, xs: readonly T[]): T => xs[int(r, xs.length)];

const enc = new TextEncoder();
const dec = new TextDecoder();

function insertAt(b: Uint8Array, at: number, chunk: Uint8Array): Uint8Array {
  const out = new Uint8Array(b.length + chunk.length);
  out.set(b.subarray(0, at));
  out.set(chunk, at);
  out.set(b.subarray(at), at + chunk.length);
  return out;
}

// ─── bytes ──────────────────────────────────────────────────────────────────────────────────

/** Flips 1..max random bits. */
export function bitflips(b: Uint8Array, r: Rng, max = 8): Uint8Array {
  const out = b.slice();
  if (out.length === 0) return out;
  for (let k = 1 + int(r, max); k > 0; k--) out[int(r, out.length)] ^= 1 << int(r, 8);
  return out;
}

/** Boundary bytes: zero, all ones, signed limits; also varint continuation and proto tags. */
export const INTERESTING_BYTES = [0x00, 0xff, 0x7f, 0x80, 0x01, 0x0a, 0x12, 0x08] as const;

/** Sets 1..max random bytes to one of `values`. */
export function setBytes(
  b: Uint8Array,
  r: Rng,
  values: readonly number[] = INTERESTING_BYTES,
  max = 4,
): Uint8Array {
  const out = b.slice();
  if (out.length === 0) return out;
  for (let k = 1 + int(r, max); k > 0; k--) out[int(r, out.length)] = pick(r, values);
  return out;
}

/** 32-bit values a count, length or offset field should survive. */
export const INTERESTING_U32 = [0, 1, 2, 3, 0xffffffff, 0x7fffffff, 0x80000000, 0x10000, 0xfffffffe] as const;
/** 64-bit values: 0, 1, −1, 2^31, 2^32 − 1, 2^32, 2^53 + 1, 2^63, huge. */
export const INTERESTING_U64 = [
  0n,
  1n,
  0xffffffffffffffffn,
  0x80000000n,
  0xffffffffn,
  0x100000000n,
  (1n << 53n) + 1n,
  1n << 63n,
  1n << 40n,
  0x7fffffffffffffffn,
] as const;

/**
 * Overwrites 1..max integer fields of `size` bytes at multiples of `align` (default: `size`) with
 * a boundary value, or a random one; the byte order is random unless `littleEndian` is given.
 */
export function setWords(
  b: Uint8Array,
  r: Rng,
  opts: { size: 4 | 8; align?: number; max?: number; littleEndian?: boolean; values?: readonly number[] },
): Uint8Array {
  const out = b.slice();
  const { size } = opts;
  const align = opts.align ?? size;
  const slots = Math.floor((out.length - size) / align) + 1;
  if (slots <= 0) return out;
  const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
  for (let k = 1 + int(r, opts.max ?? 3); k > 0; k--) {
    const at = int(r, slots) * align;
    const le = opts.littleEndian ?? r() < 0.5;
    if (size === 4) {
      const values = opts.values ?? INTERESTING_U32;
      dv.setUint32(at, r() < 0.85 ? pick(r, values) : int(r, 0x100000000), le);
    } else {
      const v =
        r() < 0.85
          ? pick(r, INTERESTING_U64)
          : (BigInt(int(r, 0x100000000)) << 32n) | BigInt(int(r, 0x100000000));
      dv.setBigUint64(at, v, le);
    }
  }
  return out;
}

/** Keeps a random prefix (possibly empty, possibly all). */
export function truncate(b: Uint8Array, r: Rng): Uint8Array {
  return b.slice(0, int(r, b.length + 1));
}

/** Removes up to `maxLen` bytes at a random place. */
export function dropRange(b: Uint8Array, r: Rng, maxLen = 256): Uint8Array {
  const at = int(r, b.length + 1);
  const len = Math.min(int(r, maxLen + 1), b.length - at);
  const out = new Uint8Array(b.length - len);
  out.set(b.subarray(0, at));
  out.set(b.subarray(at + len), at);
  return out;
}

/** Repeats a chunk (offset and length multiples of `align`) right after itself, 1..times times. */
export function duplicateRange(
  b: Uint8Array,
  r: Rng,
  opts: { align?: number; maxLen?: number; from?: number; times?: number } = {},
): Uint8Array {
  const align = opts.align ?? 1;
  const from = Math.min(opts.from ?? 0, b.length);
  const at = from + int(r, Math.floor((b.length - from) / align) + 1) * align;
  const len = Math.min(int(r, Math.floor((opts.maxLen ?? 512) / align) + 1) * align, b.length - at);
  const chunk = b.subarray(at, at + len);
  const times = 1 + int(r, opts.times ?? 1);
  const out = new Uint8Array(b.length + chunk.length * times);
  out.set(b.subarray(0, at + len));
  for (let t = 1; t <= times; t++) out.set(chunk, at + len * t);
  out.set(b.subarray(at + len), at + len * (times + 1));
  return out;
}

/** Inserts a chunk of `other` (at most `maxLen` bytes; offsets multiples of `align`) into `b`. */
export function splice(
  b: Uint8Array,
  r: Rng,
  other: Uint8Array,
  opts: { align?: number; maxLen?: number } = {},
): Uint8Array {
  const align = opts.align ?? 1;
  const at = int(r, Math.floor(b.length / align) + 1) * align;
  const from = int(r, Math.floor(other.length / align) + 1) * align;
  const len = int(r, Math.min(opts.maxLen ?? 4096, other.length - from) + 1);
  return insertAt(b, Math.min(at, b.length), other.subarray(from, from + len));
}

/** Overwrites `b` from a random point on with a tail of `other` (the classic cross-over). */
export function crossover(b: Uint8Array, r: Rng, other: Uint8Array): Uint8Array {
  const at = int(r, b.length + 1);
  const from = int(r, other.length + 1);
  const out = new Uint8Array(at + other.length - from);
  out.set(b.subarray(0, at));
  out.set(other.subarray(from), at);
  return out;
}

/** Inserts `run` (or a random suffix of it) at a random place. */
export function insertBytes(b: Uint8Array, r: Rng, run: readonly number[], wholeRun = false): Uint8Array {
  const chunk = Uint8Array.from(wholeRun ? run : run.slice(int(r, run.length)));
  return insertAt(b, int(r, b.length + 1), chunk);
}

/** A varint that never ends before 10 bytes, then one that ends: protobuf lengths and ids. */
export const VARINT_RUN = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01] as const;

// ─── text ───────────────────────────────────────────────────────────────────────────────────

/** Numbers a field should survive: zero, signs, limits of 32/53/64 bits, overflow, hex, floats. */
export const INTERESTING_NUMBERS = [
  '0',
  '-1',
  '1',
  '2147483648',
  '4294967295',
  '4294967296',
  '9007199254740993',
  '18446744073709551615',
  '18446744073709551616',
  '99999999999999999999999999999999',
  '1e309',
  '-0',
  'NaN',
  '0x',
  '0xffffffffffffffff',
  '0x10000000000000000',
  '00000000000000000000000000000000000001',
  '3.5',
  '',
] as const;

/** Separators and markers the text formats split on. */
export const SEPARATORS = [
  ' ',
  '\t',
  ';',
  ':',
  '@',
  '[',
  ']',
  '(',
  ')',
  '/',
  '+',
  '-',
  '=',
  '#',
  '0x',
  '\n',
  '\n\n',
  '\r\n',
  '---',
  '%',
  ',',
  '\0',
  '\r',
  '\u2028',
  '\u00e9',
] as const;

const NUMBER = /-?(?:0x)?[0-9a-fA-F]+(?:\.[0-9]+)?/g;

/** Replaces 1..max numbers (decimal or hex runs) of the text by boundary numbers. */
export function replaceNumbers(text: string, r: Rng, max = 4): string {
  const spans: [number, number][] = [];
  for (const m of text.matchAll(NUMBER)) {
    spans.push([m.index, m.index + m[0].length]);
    if (spans.length >= 4096) break;
  }
  if (spans.length === 0) return text;
  const chosen = new Set<number>();
  for (let k = 1 + int(r, max); k > 0; k--) chosen.add(int(r, spans.length));
  let out = text;
  for (const i of [...chosen].sort((a, b) => b - a)) {
    const [s, e] = spans[i];
    out = out.slice(0, s) + pick(r, INTERESTING_NUMBERS) + out.slice(e);
  }
  return out;
}

/** Inserts separators at random places, or removes runs of them. */
export function editSeparators(text: string, r: Rng, max = 6): string {
  let out = text;
  for (let k = 1 + int(r, max); k > 0; k--) {
    const at = int(r, out.length + 1);
    if (r() < 0.6) {
      out = out.slice(0, at) + pick(r, SEPARATORS) + out.slice(at);
    } else {
      // drop the next separator-ish character after `at`
      const m = /[ \t;:@[\]()/+=#\n,-]/.exec(out.slice(at));
      if (m) out = out.slice(0, at + m.index) + out.slice(at + m.index + 1);
    }
  }
  return out;
}

/** Replaces up to `maxLen` characters at 1..max places with one of `tokens`. */
export function replaceTokens(text: string, r: Rng, tokens: readonly string[], max = 6, maxLen = 12): string {
  let out = text;
  for (let k = 1 + int(r, max); k > 0; k--) {
    const at = int(r, out.length);
    out = out.slice(0, at) + pick(r, tokens) + out.slice(at + int(r, maxLen));
  }
  return out;
}

/** Duplicates, deletes or swaps 1..max lines. */
export function editLines(text: string, r: Rng, max = 5): string {
  const lines = text.split('\n');
  for (let k = 1 + int(r, max); k > 0; k--) {
    const i = int(r, lines.length);
    const j = int(r, lines.length);
    const op = r();
    if (op < 0.35) [lines[i], lines[j]] = [lines[j], lines[i]];
    else if (op < 0.7) lines.splice(i, 1);
    else lines.splice(i, 0, ...Array.from({ length: 1 + int(r, 8) }, () => lines[j] ?? ''));
  }
  return lines.join('\n');
}

/** Units a long line repeats besides its own words: blank runs and separators (regexp backtracking). */
const LONG_UNITS = [' ', '\t', ' \t', ':', '0', ';', 'a ', '0x1 '] as const;

/**
 * Makes one line very long: a token of it, the line itself, or a blank or separator, repeated up
 * to `maxLen` characters in place of one of its tokens.
 */
export function longLine(text: string, r: Rng, maxLen = 20000): string {
  const lines = text.split('\n');
  const i = int(r, lines.length);
  const line = lines[i] ?? '';
  const words = line.split(/(\s+)/).filter((w) => w.length > 0);
  const u = r();
  const unit = u < 0.3 ? pick(r, LONG_UNITS) : words.length > 0 && u < 0.75 ? pick(r, words) : line || 'x';
  const times = Math.max(1, Math.floor((1 + int(r, maxLen)) / unit.length));
  const w = words.length > 0 ? int(r, words.length) : 0;
  if (words.length > 0) words.splice(w, 1, unit.repeat(times));
  // a line terminator other than \n at the end makes `.*$` fail late (regexp backtracking)
  const end = r() < 0.25 ? pick(r, ['\r', '\u2028', ' \r x']) : '';
  lines[i] = (words.length > 0 ? words.join('') : unit.repeat(times)) + end;
  return lines.join('\n');
}

/** A text mutation applied to bytes (decoded as UTF-8, encoded back). */
export function onText(b: Uint8Array, f: (text: string) => string): Uint8Array {
  return enc.encode(f(dec.decode(b)));
}

/** The first `maxBytes` bytes of a text, cut at the last line break (keeps whole lines/records). */
export function headLines(b: Uint8Array, maxBytes: number, breakAt = '\n'): Uint8Array {
  if (b.length <= maxBytes) return b;
  const text = dec.decode(b.subarray(0, maxBytes));
  const cut = text.lastIndexOf(breakAt);
  return enc.encode(cut > 0 ? text.slice(0, cut + breakAt.length) : text);
}

// ─── damaged copies ─────────────────────────────────────────────────────────────────────────

/**
 * `count` damaged copies of `base` from the random stream `r`: each cut at a random length (8
 * bytes at least), then 3 random bytes overwritten.
 */
export function* cutAndDamaged(base: Uint8Array, r: Rng, count: number): Generator<Uint8Array> {
  for (let k = 0; k < count; k++) {
    const file = base.slice(0, Math.max(8, Math.floor(r() * base.length)));
    for (let j = 0; j < 3; j++) file[Math.floor(r() * file.length)] = Math.floor(r() * 256);
    yield file;
  }
}

/** What `f` returns, or its error as a string (to compare two parses' outcomes). */
export function resultOrError(f: () => unknown): unknown {
  try {
    return f();
  } catch (e) {
    return String(e);
  }
}
