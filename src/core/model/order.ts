// Large orderings by weight with radix sorts (no comparator call per comparison): the 2.2M
// functions and the 2.2M children of one node of a 100 MB DCPI profile took ~1.2 s each to sort
// with a comparator.

/** Below this many ids a comparator sort is as fast. */
const NATIVE_FROM = 256;

/**
 * Reorders `ids` heaviest first by `weight[id]`, ties kept in their current order (a stable sort).
 * A radix sort where every weight is finite and ≥ 0 (by `max − weight` for integers below 2^32,
 * else by the weights' bits), a comparator sort otherwise.
 */
export function stableByWeightDescending(ids: Int32Array, weight: Float64Array): void {
  weightOrder(ids, weight)?.run();
}

/**
 * `stableByWeightDescending`, its radix passes left to the caller to run (RadixPasses.run, a
 * slice at a time if it likes); null when it is done already (few ids, or sorted by comparison).
 */
export function weightOrder(ids: Int32Array, weight: Float64Array): RadixPasses | null {
  const steps = weightOrderSteps(ids, weight, () => false);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Ids between two looks at `stop` in weightOrderSteps' passes that make the keys. */
const KEY_CHUNK = 1 << 16;

/**
 * `weightOrder` in steps: it pauses (yields) where `stop()` says so between chunks of its passes
 * over the ids (the largest weight, the keys), which take ~0.2 s of a loaded page's thread for a
 * DCPI image's 8.75M children.
 */
export function* weightOrderSteps(
  ids: Int32Array,
  weight: Float64Array,
  stop: () => boolean,
): Generator<void, RadixPasses | null> {
  const n = ids.length;
  if (n < 2) return null;
  let max = 0;
  let exact = n >= NATIVE_FROM;
  let nonNegative = n >= NATIVE_FROM;
  for (let i = 0; i < n && nonNegative; ) {
    const end = Math.min(n, i + KEY_CHUNK);
    for (; i < end && nonNegative; i++) {
      const w = weight[ids[i]];
      if (!(w >= 0 && w < Number.POSITIVE_INFINITY)) nonNegative = exact = false;
      else if (!Number.isInteger(w)) exact = false;
      else if (w > max) max = w;
    }
    if (i < n && stop()) yield;
  }
  if (exact && max < 2 ** 32) {
    // by `max − weight[id]` (integers below 2^32)
    const key = new Uint32Array(n);
    for (let i = 0; i < n; ) {
      const end = Math.min(n, i + KEY_CHUNK);
      for (; i < end; i++) key[i] = max - weight[ids[i]];
      if (i < n && stop()) yield;
    }
    return new RadixPasses(ids, [key]);
  }
  // Fractions, or integers past 32 bits (a DCPI profile's image frame holds every sample: at
  // 400 MB its 8.75M functions took ~4 s to sort with the comparator): by the weights' bits.
  if (nonNegative) return radixByBits(ids, weight);
  const sorted = Array.from(ids, (id, pos) => ({ id, pos }));
  sorted.sort((a, b) => weight[b.id] - weight[a.id] || a.pos - b.pos);
  for (let i = 0; i < n; i++) ids[i] = sorted[i].id;
  return null;
}

/**
 * Reorders `ids` heaviest first by `weight[id]`, finite weights ≥ 0, whose IEEE 754 bits (as
 * unsigned 64-bit integers) order as the numbers do: by the complement of their two words.
 */
function radixByBits(ids: Int32Array, weight: Float64Array): RadixPasses {
  const n = ids.length;
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = weight[ids[i]] + 0; // −0 as +0: it ties with 0, as the comparator has it
  const bits = new Uint32Array(keys.buffer);
  const [loAt, hiAt] = new Uint8Array(Float64Array.of(1).buffer)[7] === 0x3f ? [0, 1] : [1, 0];
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  let lowsDiffer = false;
  for (let i = 0; i < n; i++) {
    hi[i] = ~bits[2 * i + hiAt] >>> 0;
    lo[i] = ~bits[2 * i + loAt] >>> 0;
    if (lo[i] !== lo[0]) lowsDiffer = true;
  }
  // Integers below 2^21 and many other weights have one low word: sorted by the high word alone.
  return new RadixPasses(ids, lowsDiffer ? [lo, hi] : [hi]);
}

/**
 * Below this many ids a radix pass takes 8-bit digits (256 counters), from it 16-bit ones: a pass
 * costs about its counters plus twice the ids, so 16-bit digits (half the passes) pay only past
 * ~32k ids. Cold, the 65,536 counters' prefix sums were most of the cost: a two-count preview's
 * node of 311 children took 6–12 ms to order by fractional weights (four passes) in a fresh node
 * process, under 1 ms with 8-bit digits.
 */
const WIDE_DIGITS_FROM = 1 << 15;

/**
 * A least-significant-digit radix sort of `ids` by the unsigned key whose 32-bit words, least
 * significant first, are `words` (one per id each): passes of 8 or 16 bits (WIDE_DIGITS_FROM), a
 * pass skipped where every id has the same digit; stable, so ties keep their order (~10× the
 * native sort of 2.2M packed keys). `run` does it all, or a slice at a time: it can stop between
 * chunks of the passes' loops (the function table's order, made while the page stays free).
 */
export class RadixPasses {
  private readonly n: number;
  private readonly bits: number;
  private readonly mask: number;
  private readonly passes: number;
  private from: Int32Array;
  private to: Int32Array;
  private wordsFrom: Uint32Array[];
  private wordsTo: Uint32Array[];
  private readonly count: Int32Array;
  private pass = 0;
  /** In the pass: counting (false) or moving (true), and the next id. */
  private moving = false;
  private i = 0;

  constructor(
    private readonly ids: Int32Array,
    words: [Uint32Array] | [Uint32Array, Uint32Array],
  ) {
    const n = ids.length;
    this.n = n;
    this.bits = n < WIDE_DIGITS_FROM ? 8 : 16;
    this.mask = (1 << this.bits) - 1;
    this.passes = words.length * (32 / this.bits);
    this.from = ids;
    this.to = new Int32Array(n);
    this.wordsFrom = words;
    this.wordsTo = words.map(() => new Uint32Array(n));
    this.count = new Int32Array((1 << this.bits) + 1);
  }

  /** How far the passes are, 0–1. */
  get progress(): number {
    return (this.pass + (this.moving ? 0.5 : 0) + this.i / Math.max(1, 2 * this.n)) / this.passes;
  }

  /**
   * Runs the passes to the end (true: `ids` is sorted), or until `stop()` says so between chunks
   * of `chunk` ids (false: call again to go on).
   */
  run(stop?: () => boolean, chunk = 1 << 16): boolean {
    const { n, bits, mask, count } = this;
    const step = stop ? chunk : n;
    const perWord = 32 / bits;
    while (this.pass < this.passes) {
      const key = this.wordsFrom[(this.pass / perWord) | 0];
      const shift = (this.pass % perWord) * bits;
      if (!this.moving) {
        if (this.i === 0) count.fill(0);
        while (this.i < n) {
          const end = Math.min(n, this.i + step);
          for (let i = this.i; i < end; i++) count[((key[i] >>> shift) & mask) + 1]++;
          this.i = end;
          if (this.i < n && stop?.()) return false;
        }
        this.i = 0;
        if (count[1 + ((key[0] >>> shift) & mask)] === n) {
          this.pass++; // one digit: in order already
          continue;
        }
        for (let d = 0; d < mask + 1; d++) count[d + 1] += count[d];
        this.moving = true;
      }
      // One loop per word count: a loop over the words inside this one cost a third more.
      const { from, to } = this;
      const [k0, k1] = this.wordsFrom;
      const [t0, t1] = this.wordsTo;
      while (this.i < n) {
        const end = Math.min(n, this.i + step);
        if (k1 === undefined) {
          for (let i = this.i; i < end; i++) {
            const at = count[(key[i] >>> shift) & mask]++;
            to[at] = from[i];
            t0[at] = k0[i];
          }
        } else {
          for (let i = this.i; i < end; i++) {
            const at = count[(key[i] >>> shift) & mask]++;
            to[at] = from[i];
            t0[at] = k0[i];
            t1[at] = k1[i];
          }
        }
        this.i = end;
        if (this.i < n && stop?.()) return false;
      }
      this.i = 0;
      this.moving = false;
      [this.from, this.to] = [to, from];
      [this.wordsFrom, this.wordsTo] = [this.wordsTo, this.wordsFrom];
      this.pass++;
      if (this.pass < this.passes && stop?.()) return false;
    }
    if (this.from !== this.ids) {
      this.ids.set(this.from);
      this.from = this.ids;
    }
    return true;
  }
}
