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
  const n = ids.length;
  if (n < 2) return;
  let max = 0;
  let exact = n >= NATIVE_FROM;
  let nonNegative = n >= NATIVE_FROM;
  for (let i = 0; i < n && nonNegative; i++) {
    const w = weight[ids[i]];
    if (!(w >= 0 && w < Number.POSITIVE_INFINITY)) nonNegative = exact = false;
    else if (!Number.isInteger(w)) exact = false;
    else if (w > max) max = w;
  }
  if (exact && max < 2 ** 32) radixByKey(ids, weight, max);
  // Fractions, or integers past 32 bits (a DCPI profile's image frame holds every sample: at
  // 400 MB its 8.75M functions took ~4 s to sort with the comparator): by the weights' bits.
  else if (nonNegative) radixByBits(ids, weight);
  else {
    const sorted = Array.from(ids, (id, pos) => ({ id, pos }));
    sorted.sort((a, b) => weight[b.id] - weight[a.id] || a.pos - b.pos);
    for (let i = 0; i < n; i++) ids[i] = sorted[i].id;
  }
}

/**
 * A least-significant-digit radix sort of `ids` by `weight[id]` descending, for finite weights
 * ≥ 0, whose IEEE 754 bits (as unsigned 64-bit integers) order as the numbers do: four passes of 16
 * bits, a pass skipped where every id has the same digit; stable, so ties keep their order.
 */
function radixByBits(ids: Int32Array, weight: Float64Array): void {
  const n = ids.length;
  const one = new Float64Array(1);
  const bits = new Uint32Array(one.buffer);
  const little = new Uint8Array(one.buffer);
  one[0] = 1; // 0x3ff00000_00000000: its high word's bytes come last when little-endian
  const [loAt, hiAt] = little[7] === 0x3f ? [0, 1] : [1, 0];
  // Descending: the complement of the bits (−0 as +0, so that it ties with 0 as the comparator has it).
  let hiFrom = new Uint32Array(n);
  let loFrom = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    one[0] = weight[ids[i]] + 0;
    hiFrom[i] = ~bits[hiAt] >>> 0;
    loFrom[i] = ~bits[loAt] >>> 0;
  }
  let from: Int32Array = ids;
  let to: Int32Array = new Int32Array(n);
  let hiTo = new Uint32Array(n);
  let loTo = new Uint32Array(n);
  const count = new Int32Array(65537);
  for (const pass of [0, 1, 2, 3]) {
    const shift = (pass & 1) * 16;
    const key = pass < 2 ? loFrom : hiFrom;
    count.fill(0);
    for (let i = 0; i < n; i++) count[((key[i] >>> shift) & 0xffff) + 1]++;
    if (count[1 + ((key[0] >>> shift) & 0xffff)] === n) continue; // one digit: in order already
    for (let d = 0; d < 65536; d++) count[d + 1] += count[d];
    for (let i = 0; i < n; i++) {
      const at = count[(key[i] >>> shift) & 0xffff]++;
      to[at] = from[i];
      hiTo[at] = hiFrom[i];
      loTo[at] = loFrom[i];
    }
    [from, to] = [to, from];
    [hiFrom, hiTo] = [hiTo, hiFrom];
    [loFrom, loTo] = [loTo, loFrom];
  }
  if (from !== ids) ids.set(from);
}

/**
 * A least-significant-digit radix sort of `ids` by `max − weight[id]` (integers below 2^32), two
 * passes of 16 bits: stable, so ties keep their order (~10× the native sort of 2.2M packed keys).
 */
function radixByKey(ids: Int32Array, weight: Float64Array, max: number): void {
  const n = ids.length;
  const key = new Uint32Array(n);
  for (let i = 0; i < n; i++) key[i] = max - weight[ids[i]];
  let from: Int32Array = ids;
  let to: Int32Array = new Int32Array(n);
  let keyFrom: Uint32Array = key;
  let keyTo: Uint32Array = new Uint32Array(n);
  const count = new Int32Array(65537);
  for (const shift of [0, 16]) {
    count.fill(0);
    for (let i = 0; i < n; i++) count[((keyFrom[i] >>> shift) & 0xffff) + 1]++;
    if (count[1 + ((keyFrom[0] >>> shift) & 0xffff)] === n) continue; // one digit: in order already
    for (let d = 0; d < 65536; d++) count[d + 1] += count[d];
    for (let i = 0; i < n; i++) {
      const at = count[(keyFrom[i] >>> shift) & 0xffff]++;
      to[at] = from[i];
      keyTo[at] = keyFrom[i];
    }
    [from, to] = [to, from];
    [keyFrom, keyTo] = [keyTo, keyFrom];
  }
  if (from !== ids) ids.set(from);
}
