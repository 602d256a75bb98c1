import { describe, expect, it } from 'vitest';
import { stableByWeightDescending, weightOrderSteps } from './order';

function seeded(seed: number): () => number {
  let x = seed;
  return () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x / 2 ** 32;
  };
}

describe('stableByWeightDescending', () => {
  // The reference: a comparator sort by weight, ties in their given order.
  const reference = (ids: Int32Array, weight: Float64Array) =>
    Array.from(ids, (id, pos) => ({ id, pos }))
      .sort((a, b) => weight[b.id] - weight[a.id] || a.pos - b.pos)
      .map((x) => x.id);

  it('orders heaviest first and keeps ties in order, natively and with the comparator', () => {
    const rand = seeded(3);
    const forms: [string, (r: number) => number][] = [
      ['few integer weights (many ties)', (r) => Math.floor(r * 5)],
      ['wide integer weights', (r) => Math.floor(r * 1e9)],
      ['fractions', (r) => r * 10],
      ['beyond 32 bits (packed keys)', (r) => Math.floor(r * 4) * 2 ** 33],
      ['weights too large to pack', (r) => Math.floor(r * 4) * 2 ** 40],
      ['one weight past 32 bits among small ones', (r) => (r < 0.01 ? 2 ** 34 + 0.5 : Math.floor(r * 3))],
      [
        'fractions and zeros, −0 among them',
        (r) => (r < 0.2 ? 0 : r < 0.4 ? -0 : r < 0.5 ? 1e-300 : r * 1e20),
      ],
      ['negative weights (the comparator)', (r) => Math.floor(r * 9) - 4],
    ];
    for (const [form, weightOf] of forms) {
      for (const n of [0, 1, 7, 255, 256, 3000, 40_000]) {
        const weight = Float64Array.from({ length: n + 10 }, () => weightOf(rand()));
        const ids = Int32Array.from({ length: n }, (_, i) => (i * 7919) % (n + 10));
        const expected = reference(ids, weight);
        stableByWeightDescending(ids, weight);
        expect(Array.from(ids), `${form}, ${n} ids`).toEqual(expected);
      }
    }
  });
});

describe('weightOrderSteps', () => {
  it('pauses between chunks of its passes where asked, and orders as stableByWeightDescending', () => {
    const rand = seeded(11);
    const n = 200_000;
    const weight = Float64Array.from({ length: n }, () => Math.floor(rand() * 1000));
    const ids = Int32Array.from({ length: n }, (_, i) => n - 1 - i);
    const expected = ids.slice();
    stableByWeightDescending(expected, weight);
    const steps = weightOrderSteps(ids, weight, () => true);
    let pauses = 0;
    let r = steps.next();
    for (; !r.done; r = steps.next()) pauses++;
    // the largest weight and the keys: 200,000 ids in chunks of 65,536, a pause after each but the last
    expect(pauses).toBe(6);
    const passes = r.value;
    expect(passes).not.toBeNull();
    while (!passes!.run(() => true, 4096));
    expect(Array.from(ids)).toEqual(Array.from(expected));
  });
});
