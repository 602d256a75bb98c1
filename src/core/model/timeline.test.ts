import { describe, expect, it } from 'vitest';
import { frameName } from '../text/frame-text';
import { ALL_TRACKS, flameChartBoxes } from './flamechart';
import { foldProfile } from './fold';
import { toFoldedText } from './serialize';
import { rawFromTimedText } from './text-notation';
import {
  buildTimeIndex,
  describeRange,
  noTimeReason,
  sampleNear,
  sortByTime,
  stackWeightsIn,
  type TimeIndex,
  timelineBuckets,
  withStackWeights,
} from './timeline';

// Two threads of process 10 (main 10, worker 11) and one of process 20, out of time order as
// perf.data holds them (each CPU's buffer in turn).
const SAMPLES = `
  0   main   10/10 0 main;a;b
  30  main   10/10 1 main;a;c
  10  main   10/10 0 main;a;b
  20  main   10/10 0 main;a;b 2
  5   worker 10/11 1 start;w;x
  15  worker 10/11 1 start;w;x
  25  worker 10/11 0 start;w;y
  100 other  20/20 1 other;o
  -   main   10/10 0 main;untimed
`;

function folded(text = SAMPLES) {
  const raw = rawFromTimedText(text);
  const sampleStacks = new Int32Array(raw.samples.count);
  const profile = foldProfile(raw, { fileName: 't', names: 'full', sampleStacks });
  return { raw, profile, sampleStacks };
}

function indexOf(text = SAMPLES, by: 'thread' | 'process' = 'thread') {
  const f = folded(text);
  const index = buildTimeIndex(f.raw, f.sampleStacks, f.raw.samples.weight, by);
  if (!index) throw new Error('no index');
  return { ...f, index };
}

const trackNames = (index: TimeIndex) => index.tracks.map((t) => `${t.name} ${t.pid}/${t.tid}`);

describe('time index', () => {
  it('orders samples by time, per track by process then thread, named by their comm', () => {
    const { index, raw } = indexOf();
    expect(Array.from(index.times)).toEqual([0, 5, 10, 15, 20, 25, 30, 100]);
    expect(trackNames(index)).toEqual(['main 10/10', 'worker 10/11', 'other 20/20']);
    const track = (k: number) =>
      Array.from(
        index.trackOrder.subarray(index.trackStart[k], index.trackStart[k + 1]),
        (s) => raw.samples.time![s],
      );
    expect(track(0)).toEqual([0, 10, 20, 30]);
    expect(track(1)).toEqual([5, 15, 25]);
    expect(track(2)).toEqual([100]);
    expect(index.tracks.map((t) => [t.samples, t.weight])).toEqual([
      [4, 5],
      [3, 3],
      [1, 1],
    ]);
    expect(index.untimed).toBe(1);
    expect([index.start, index.end]).toEqual([0, 100]);
    expect(index.cpus).toEqual(['0', '1']);
    expect(Array.from(index.interval)).toEqual([10, 10, 0]);
  });

  it('by process: one track per pid, named by its main thread', () => {
    const { index } = indexOf(SAMPLES, 'process');
    expect(index.tracks.map((t) => `${t.name} ${t.pid} ${t.tid}`)).toEqual([
      'main 10 undefined',
      'other 20 undefined',
    ]);
    expect(index.tracks.map((t) => t.samples)).toEqual([7, 1]);
  });

  it('says when a profile has no time stamps', () => {
    const raw = rawFromTimedText('- a 1/1 0 f\n- a 1/1 0 g');
    expect(noTimeReason(raw)).toBe('no sample of this profile has a time stamp');
    const { time: _, ...samples } = raw.samples;
    expect(noTimeReason({ samples })).toBe('this profile has no time stamps');
    expect(buildTimeIndex(raw, new Int32Array(2), raw.samples.weight, 'thread')).toBeNull();
  });
});

describe('sortByTime', () => {
  it('is stable and sorts any span (1, 2, 3 and 4 radix passes)', () => {
    for (const scale of [1, 1e5, 1e10, 2 ** 50]) {
      const n = 5000;
      const time = new Float64Array(n);
      let seed = 7;
      for (let i = 0; i < n; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        // ties on purpose: a few hundred distinct times
        time[i] = Math.floor(((seed % 300) / 300) * scale);
      }
      const ids = Uint32Array.from({ length: n }, (_, i) => i);
      const got = Array.from(sortByTime(ids, time));
      const want = Array.from(ids).sort((x, y) => time[x] - time[y] || x - y);
      expect(got).toEqual(want);
    }
  });
});

describe('a range of time', () => {
  it('reweighs the folded stacks by the samples in it (both ends in)', () => {
    const { index, profile, sampleStacks, raw } = indexOf();
    const w = stackWeightsIn(index, sampleStacks, raw.samples.weight, profile.stacks.count, {
      start: 10,
      end: 25,
    });
    const ranged = withStackWeights(profile, w, { start: 10, end: 25 });
    expect(toFoldedText(ranged).trim().split('\n').sort()).toEqual([
      'main;a;b 3', // 10 and 20 (weight 2)
      'start;w;x 1', // 15
      'start;w;y 1', // 25
    ]);
    expect(ranged.meta.totalSamples).toBe(5);
    expect(ranged.meta.timeRange).toEqual({ start: 10, end: 25 });
    expect([ranged.meta.fileName, ranged.meta.mappingSamplesPending]).toEqual(['t', true]);
    // the frame table is the profile's, ids unchanged
    expect(ranged.frames).toBe(profile.frames);
  });

  it('an empty range gives an empty profile; the untimed sample is in no range', () => {
    const { index, profile, sampleStacks, raw } = indexOf();
    const w = stackWeightsIn(index, sampleStacks, raw.samples.weight, profile.stacks.count, {
      start: 40,
      end: 90,
    });
    expect(withStackWeights(profile, w).stacks.count).toBe(0);
    const all = stackWeightsIn(index, sampleStacks, raw.samples.weight, profile.stacks.count, {
      start: -1,
      end: 1e9,
    });
    expect(toFoldedText(withStackWeights(profile, all))).not.toContain('untimed');
  });

  it('is described in seconds', () => {
    expect(describeRange({ start: 200_000_000, end: 500_000_000 })).toBe('0.200–0.500 s');
    expect(describeRange({ start: 1_000_000, end: 3_500_000 })).toBe('0.0010–0.0035 s');
  });
});

describe('timeline buckets', () => {
  it("spreads each sample over the time before it (its track's usual gap), with the CPU run on most", () => {
    const { index, raw } = indexOf();
    const b = timelineBuckets(index, raw.samples.weight, { start: 0, end: 100 }, 4);
    // buckets of 25 ns: [0,25) [25,50) [50,75) [75,100]; tracks 0 and 1 sample every 10 ns
    const row = (k: number) => Array.from(b.weight.subarray(k * 4, k * 4 + 4));
    // 0: before the window; 10 and 20 (weight 2) in the first; 30 half and half
    expect(row(0)).toEqual([3.5, 0.5, 0, 0]);
    // 5: half of it (0..5); 15; 25 stands for 15..25
    expect(row(1)).toEqual([2.5, 0, 0, 0]);
    // a track of one sample has no usual gap: a point, in the last bucket (which holds the end)
    expect(row(2)).toEqual([0, 0, 0, 1]);
    expect(Array.from(b.cpu.subarray(0, 4))).toEqual([0, 1, -1, -1]);
    expect(Array.from(b.cpu.subarray(4, 8))).toEqual([1, -1, -1, -1]); // 1.5 on CPU 1, 1 on CPU 0
    // samples are counted where they are
    expect(Array.from(b.samples.subarray(0, 4))).toEqual([3, 1, 0, 0]);
  });

  it('over a window: what its samples stand for inside it, later samples included', () => {
    const { index, raw } = indexOf();
    const b = timelineBuckets(index, raw.samples.weight, { start: 10, end: 20 }, 2);
    // [10, 15) [15, 20]: main's 20 (weight 2) covers both; worker's 15 half of the first, 25 half of the second
    expect(Array.from(b.weight)).toEqual([1, 1, 0.5, 0.5, 0, 0]);
  });

  it("with weights in time, a sample stands for its own weight (perf's period)", () => {
    const { index, raw } = indexOf(`
      100 m 1/1 0 main 40
      200 m 1/1 0 main 20
    `);
    const b = timelineBuckets(index, raw.samples.weight, { start: 0, end: 200 }, 4, 1);
    // 100 stands for 60..100, 200 for 180..200
    expect(Array.from(b.weight)).toEqual([0, 40, 0, 20]);
    const half = timelineBuckets(index, raw.samples.weight, { start: 0, end: 200 }, 4, 0.5);
    expect(Array.from(half.weight)).toEqual([0, 40, 0, 20]);
    const twice = timelineBuckets(index, raw.samples.weight, { start: 0, end: 200 }, 8, 2);
    // 100 for 20..100: buckets of 25: 5 + 25 + 25 + 25 ns of 80; 200 for 160..200: 15 + 25 of 40
    expect(Array.from(twice.weight)).toEqual([2.5, 12.5, 12.5, 12.5, 0, 0, 7.5, 12.5]);
  });
});

describe('the sample at a moment', () => {
  it('is the nearest of the track within the tolerance', () => {
    const { index, raw } = indexOf();
    const at = (k: number, t: number, tol: number) => {
      const s = sampleNear(index, k, t, tol);
      return s < 0 ? null : raw.samples.time![s];
    };
    expect(at(0, 12, 5)).toBe(10);
    expect(at(0, 17, 5)).toBe(20);
    expect(at(1, 40, 5)).toBeNull();
    expect(at(1, 40, 20)).toBe(25);
    expect(at(5, 0, 100)).toBeNull();
    // the sample that stands for the moment: the time before it (here 10 ns) covers it
    const standsFor = (k: number, t: number) => {
      const s = sampleNear(index, k, t, 1, () => 10);
      return s < 0 ? null : raw.samples.time![s];
    };
    expect(standsFor(0, 12)).toBe(20);
    expect(standsFor(0, 31)).toBe(30); // past the last: the nearest within the tolerance
    expect(standsFor(0, 35)).toBeNull();
  });
});

describe('flame chart boxes', () => {
  const boxesOf = (text: string, window: { start: number; end: number }, width: number, track = 0) => {
    const { index, profile, sampleStacks } = indexOf(text);
    const b = flameChartBoxes(index, track, sampleStacks, profile.stacks, window, width);
    const out: string[] = [];
    for (let i = 0; i < b.count; i++)
      out.push(`${b.depth[i]} ${frameName(profile.frames, b.frame[i])} ${b.start[i]}-${b.end[i]}`);
    return out.sort();
  };

  it('merges a frame that stays from one sample to the next into one box', () => {
    const text = `
      0  m 1/1 0 main;a;b
      10 m 1/1 0 main;a;b
      20 m 1/1 0 main;a;c
      30 m 1/1 0 main;d
      40 m 1/1 0 main;a;c
    `;
    expect(boxesOf(text, { start: 0, end: 40 }, 1000)).toEqual([
      '0 main 0-50', // the last sample lasts its usual gap
      '1 a 0-30',
      '1 a 40-50',
      '1 d 30-40',
      '2 b 0-20',
      '2 c 20-30',
      '2 c 40-50',
    ]);
  });

  it('a sample far from the next (the thread slept) lasts its usual gap', () => {
    const text = `
      0   m 1/1 0 main;a
      10  m 1/1 0 main;a
      20  m 1/1 0 main;a
      200 m 1/1 0 main;a
      210 m 1/1 0 main;b
    `;
    expect(boxesOf(text, { start: 0, end: 210 }, 1000)).toEqual([
      '0 main 0-30',
      '0 main 200-220',
      '1 a 0-30',
      '1 a 200-210',
      '1 b 210-220',
    ]);
  });

  it('reads one sample per pixel: what is narrower than a pixel is not made', () => {
    // 1000 samples alternating between two leaves, 1 ns apart, at 10 pixels
    const lines: string[] = [];
    for (let t = 0; t < 1000; t++) lines.push(`${t} m 1/1 0 main;${t % 2 === 0 ? 'even' : 'odd'}`);
    const { index, profile, sampleStacks } = indexOf(lines.join('\n'));
    const b = flameChartBoxes(index, 0, sampleStacks, profile.stacks, { start: 0, end: 999 }, 10);
    // the root, and one leaf box per pixel at most
    expect(b.count).toBeLessThanOrEqual(1 + 11);
    const main = Array.from({ length: b.count }, (_, i) => i).filter((i) => b.depth[i] === 0);
    expect(main.map((i) => [b.start[i], b.end[i]])).toEqual([[0, 1000]]);
    // zoomed in to 10 ns at 100 pixels: every sample is read
    const z = flameChartBoxes(index, 0, sampleStacks, profile.stacks, { start: 100, end: 110 }, 100);
    expect(Array.from(z.depth).filter((d) => d === 1).length).toBe(12); // 99 … 110
  });

  it('all tracks: every sample in one time order', () => {
    const text = `
      0  m 1/1 0 main;a
      10 w 1/2 0 start;work
      20 m 1/1 0 main;a
      30 w 1/2 0 start;work
    `;
    // one thread alone: its samples 20 ns apart, the last lasting that usual gap
    expect(boxesOf(text, { start: 0, end: 30 }, 1000, 1)).toEqual(['0 start 10-50', '1 work 10-50']);
    // both: the stack changes every 10 ns, and the last sample lasts the usual gap of all (10 ns)
    expect(boxesOf(text, { start: 0, end: 30 }, 1000, ALL_TRACKS)).toEqual([
      '0 main 0-10',
      '0 main 20-30',
      '0 start 10-20',
      '0 start 30-40',
      '1 a 0-10',
      '1 a 20-30',
      '1 work 10-20',
      '1 work 30-40',
    ]);
  });

  it('starts from the sample before the window, whose boxes reach into it', () => {
    const text = `
      0  m 1/1 0 main;a
      10 m 1/1 0 main;b
      20 m 1/1 0 main;b
    `;
    expect(boxesOf(text, { start: 15, end: 25 }, 100)).toEqual(['0 main 10-30', '1 b 10-30']);
  });

  it('a sample a transform left out (no stack) ends every box', () => {
    const { index, profile, sampleStacks } = indexOf(`
      0  m 1/1 0 main;a
      10 m 1/1 0 main;b
      20 m 1/1 0 main;a
    `);
    const stackOf = sampleStacks.slice();
    stackOf[1] = -1;
    const b = flameChartBoxes(index, 0, stackOf, profile.stacks, { start: 0, end: 20 }, 100);
    const boxes = Array.from({ length: b.count }, (_, i) => `${b.depth[i]} ${b.start[i]}-${b.end[i]}`).sort();
    expect(boxes).toEqual(['0 0-10', '0 20-30', '1 0-10', '1 20-30']);
  });
});
