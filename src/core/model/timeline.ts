// Time (profiles whose samples carry time stamps: perf.data, perf script): the samples in time
// order, per track (a thread, or a process), built once per fold from the fold's per-sample stacks
// (FoldOptions.sampleStacks). On it: a time range's weight per folded stack (the range every view
// shows: a profile of the same stacks, reweighed), the timeline's activity per track and bucket
// with the CPU each bucket ran on most, and the sample at a moment of a track (the timeline's
// hover). The flame chart reads it too (flamechart.ts). Columnar: sorted arrays of sample indices,
// no object per sample.

import type { FoldedProfile, RawProfile } from '../types.ts';
import { labelColumn } from './labels.ts';
import { metaWithTotal } from './transforms.ts';

/** A span of time, in nanoseconds since the profile's earliest sample; both ends included (perf script --time). */
export interface TimeRange {
  start: number;
  end: number;
}

/** What a timeline track is: one thread (perf's pid/tid), or one process (pid). */
export type TrackBy = 'thread' | 'process';

export interface Track {
  /** The name of its samples' command (comm) seen most often; its tid or pid when there is none. */
  name: string;
  pid?: string;
  /** The thread (a thread track's). */
  tid?: string;
  /** Its samples kept by the fold, and their weight. */
  samples: number;
  weight: number;
}

export interface TimeIndex {
  by: TrackBy;
  /** The earliest and latest time of the samples kept (ns). */
  start: number;
  end: number;
  /** The kept samples with a time stamp (indices into the parsed profile's samples), in time order. */
  order: Uint32Array;
  /** Their times, in that order. */
  times: Float64Array;
  tracks: Track[];
  /** Track k's samples are trackOrder[trackStart[k] .. trackStart[k + 1]), in time order. */
  trackStart: Uint32Array;
  trackOrder: Uint32Array;
  trackTimes: Float64Array;
  /**
   * Per track, the usual time between two of its samples (the median gap): how long a sample
   * lasts in the flame chart when the next one is far (the thread slept).
   */
  interval: Float64Array;
  /** The CPUs samples ran on (the `cpu` label's values), and each kept sample's (−1: none). */
  cpus: string[];
  cpuOf: Int16Array | null;
  /** Kept samples without a time stamp: in no range. */
  untimed: number;
}

/** Why a profile has no timeline, or null when it has one. */
export function noTimeReason(raw: Pick<RawProfile, 'samples'>): string | null {
  const time = raw.samples.time;
  if (!time) return 'this profile has no time stamps';
  for (let s = 0; s < time.length; s++) if (!Number.isNaN(time[s])) return null;
  return 'no sample of this profile has a time stamp';
}

/**
 * The time index of `raw`'s samples that the fold kept (`sampleStacks[s] >= 0`) and that weigh
 * something in `weight` (the view's sample type: another event's samples weigh 0). Null when the
 * profile has no time stamps.
 */
export function buildTimeIndex(
  raw: Pick<RawProfile, 'samples' | 'labels' | 'strings'>,
  sampleStacks: Int32Array,
  weight: Float64Array,
  by: TrackBy,
): TimeIndex | null {
  const time = raw.samples.time;
  if (!time || noTimeReason(raw) !== null) return null;
  const n = raw.samples.count;
  let timed = 0;
  let untimed = 0;
  for (let s = 0; s < n; s++) {
    if (sampleStacks[s] < 0 || weight[s] === 0) continue;
    if (Number.isNaN(time[s])) untimed++;
    else timed++;
  }
  const kept = new Uint32Array(timed);
  for (let s = 0, k = 0; s < n; s++)
    if (sampleStacks[s] >= 0 && weight[s] !== 0 && !Number.isNaN(time[s])) kept[k++] = s;
  const order = sortByTime(kept, time);
  const times = new Float64Array(timed);
  for (let i = 0; i < timed; i++) times[i] = time[order[i]];
  const { trackOf, tracks } = assignTracks(raw, order, weight, by);
  // A stable counting sort by track keeps each track's samples in time order.
  const trackStart = new Uint32Array(tracks.length + 1);
  for (let i = 0; i < timed; i++) trackStart[trackOf[order[i]] + 1]++;
  for (let k = 0; k < tracks.length; k++) trackStart[k + 1] += trackStart[k];
  const fill = trackStart.slice(0, tracks.length);
  const trackOrder = new Uint32Array(timed);
  const trackTimes = new Float64Array(timed);
  for (let i = 0; i < timed; i++) {
    const at = fill[trackOf[order[i]]]++;
    trackOrder[at] = order[i];
    trackTimes[at] = times[i];
  }
  const interval = new Float64Array(tracks.length);
  for (let k = 0; k < tracks.length; k++)
    interval[k] = medianGap(trackTimes, trackStart[k], trackStart[k + 1]);
  const { cpus, cpuOf } = cpuColumn(raw);
  return {
    by,
    start: timed > 0 ? times[0] : 0,
    end: timed > 0 ? times[timed - 1] : 0,
    order,
    times,
    tracks,
    trackStart,
    trackOrder,
    trackTimes,
    interval,
    cpus,
    cpuOf,
    untimed,
  };
}

/**
 * `ids` (sample indices) stably sorted by `time[id]`: as they are when they are in order already
 * (perf script text), else by an LSD radix sort on the whole nanoseconds, 16 bits a pass (perf.data
 * holds each CPU's buffer in turn: a comparison sort of a million indices took ~10× longer).
 */
export function sortByTime(ids: Uint32Array, time: Float64Array): Uint32Array {
  const n = ids.length;
  let sorted = true;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const t = time[ids[i]];
    if (i > 0 && t < time[ids[i - 1]]) sorted = false;
    if (t < min) min = t;
    if (t > max) max = t;
  }
  if (sorted) return ids;
  // keys: floor(t − min) as two uint32 halves (exact below 2^53 ns)
  let lo = new Uint32Array(n);
  let hi = new Uint32Array(n);
  let a = ids.slice();
  for (let i = 0; i < n; i++) {
    const k = Math.floor(time[a[i]] - min);
    lo[i] = k >>> 0;
    hi[i] = Math.floor(k / 4294967296);
  }
  const span = Math.floor(max - min);
  const passes = span < 65536 ? 1 : span < 4294967296 ? 2 : span / 4294967296 < 65536 ? 3 : 4;
  let lo2 = new Uint32Array(n);
  let hi2 = new Uint32Array(n);
  let a2 = new Uint32Array(n);
  const count = new Uint32Array(65537);
  for (let p = 0; p < passes; p++) {
    const key = p < 2 ? lo : hi;
    const shift = p % 2 === 0 ? 0 : 16;
    count.fill(0);
    for (let i = 0; i < n; i++) count[((key[i] >>> shift) & 0xffff) + 1]++;
    for (let d = 0; d < 65536; d++) count[d + 1] += count[d];
    for (let i = 0; i < n; i++) {
      const at = count[(key[i] >>> shift) & 0xffff]++;
      a2[at] = a[i];
      lo2[at] = lo[i];
      hi2[at] = hi[i];
    }
    [a, a2] = [a2, a];
    [lo, lo2] = [lo2, lo];
    [hi, hi2] = [hi2, hi];
  }
  return a;
}

/** The track of each sample (by `by`), and the tracks ordered by process, then thread, as numbers. */
function assignTracks(
  raw: Pick<RawProfile, 'samples' | 'labels' | 'strings'>,
  order: Uint32Array,
  weight: Float64Array,
  by: TrackBy,
): { trackOf: Int32Array; tracks: Track[] } {
  const n = raw.samples.count;
  const trackOf = new Int32Array(n).fill(-1);
  const str = (key: string): Int32Array | null => {
    const c = labelColumn(raw, key);
    return c?.kind === 'string' ? c.value : null;
  };
  const pid = str('pid');
  const tids = str('tid');
  const tid = by === 'thread' ? tids : null;
  const comm = str('comm');
  const width = raw.strings.length + 1;
  // key: (pid + 1) · width + (tid + 1), exact (both below the string count)
  const ids = new Map<number, number>();
  const keys: number[] = [];
  let lastKey = -1;
  let lastId = -1;
  for (let i = 0; i < order.length; i++) {
    const s = order[i];
    const key = ((pid ? pid[s] : -1) + 1) * width + ((tid ? tid[s] : -1) + 1);
    if (key !== lastKey) {
      let id = ids.get(key);
      if (id === undefined) {
        id = keys.length;
        ids.set(key, id);
        keys.push(key);
      }
      lastKey = key;
      lastId = id;
    }
    trackOf[s] = lastId;
  }
  // per track: samples, weight, and its most frequent comm (counted per comm string)
  const samples = new Float64Array(keys.length);
  const weights = new Float64Array(keys.length);
  const commCounts = keys.map(() => new Map<number, number>());
  // the main thread's comm names its process (tid = pid)
  const mainComm = keys.map(() => new Map<number, number>());
  for (let i = 0; i < order.length; i++) {
    const s = order[i];
    const k = trackOf[s];
    samples[k]++;
    weights[k] += weight[s];
    if (comm && comm[s] >= 0) {
      const c = commCounts[k];
      c.set(comm[s], (c.get(comm[s]) ?? 0) + 1);
      if (by === 'process' && pid && tids && tids[s] === pid[s]) {
        const m = mainComm[k];
        m.set(comm[s], (m.get(comm[s]) ?? 0) + 1);
      }
    }
  }
  const text = (i: number) => (i >= 0 ? raw.strings[i] : undefined);
  const made = keys.map((key, k): Track => {
    const p = text(Math.floor(key / width) - 1);
    const t = text((key % width) - 1);
    const named = mostOf(mainComm[k]) ?? mostOf(commCounts[k]);
    const track: Track = {
      name: named !== undefined ? raw.strings[named] : (t ?? p ?? 'all samples'),
      samples: samples[k],
      weight: weights[k],
    };
    if (p !== undefined) track.pid = p;
    if (t !== undefined) track.tid = t;
    return track;
  });
  const rank = made.map((_, k) => k);
  const num = (x: string | undefined) => (x === undefined ? -1 : Number(x));
  const cmp = (x: string | undefined, y: string | undefined) => {
    const a = num(x);
    const b = num(y);
    if (!Number.isNaN(a) && !Number.isNaN(b)) return a - b;
    return (x ?? '').localeCompare(y ?? '');
  };
  rank.sort((x, y) => cmp(made[x].pid, made[y].pid) || cmp(made[x].tid, made[y].tid) || x - y);
  const renumber = new Int32Array(made.length);
  rank.forEach((k, i) => {
    renumber[k] = i;
  });
  for (let i = 0; i < order.length; i++) trackOf[order[i]] = renumber[trackOf[order[i]]];
  return { trackOf, tracks: rank.map((k) => made[k]) };
}

/** The key counted most (the first seen of equals), or undefined for none. */
function mostOf(counts: Map<number, number>): number | undefined {
  let best: number | undefined;
  let most = 0;
  for (const [k, c] of counts)
    if (c > most) {
      most = c;
      best = k;
    }
  return best;
}

/** The median gap between consecutive times of `t[a .. b)` (of at most 4096 gaps spread over them). */
export function medianGap(t: Float64Array, a: number, b: number): number {
  const gaps = b - a - 1;
  if (gaps <= 0) return 0;
  const step = Math.max(1, Math.floor(gaps / 4096));
  const got: number[] = [];
  for (let i = a; i + 1 < b; i += step) got.push(t[i + 1] - t[i]);
  got.sort((x, y) => x - y);
  return got[got.length >> 1];
}

/** The `cpu` label's values and each sample's index into them (−1 without), when the profile has it. */
function cpuColumn(raw: Pick<RawProfile, 'samples' | 'labels' | 'strings'>): {
  cpus: string[];
  cpuOf: Int16Array | null;
} {
  const c = labelColumn(raw, 'cpu');
  if (c?.kind !== 'string') return { cpus: [], cpuOf: null };
  const n = raw.samples.count;
  const cpuOf = new Int16Array(n).fill(-1);
  const ids = new Map<number, number>();
  const cpus: string[] = [];
  for (let s = 0; s < n; s++) {
    const v = c.value[s];
    if (v < 0) continue;
    let id = ids.get(v);
    if (id === undefined) {
      if (cpus.length === 32767) continue;
      id = cpus.length;
      ids.set(v, id);
      cpus.push(raw.strings[v]);
    }
    cpuOf[s] = id;
  }
  // CPUs in numeric order, so that colours follow their numbers
  const rank = cpus.map((_, i) => i).sort((x, y) => Number(cpus[x]) - Number(cpus[y]) || x - y);
  const renumber = new Int16Array(cpus.length);
  rank.forEach((i, r) => {
    renumber[i] = r;
  });
  for (let s = 0; s < n; s++) if (cpuOf[s] >= 0) cpuOf[s] = renumber[cpuOf[s]];
  return { cpus: rank.map((i) => cpus[i]), cpuOf };
}

// ─── searching in time ──────────────────────────────────────────────────────────────────────

/** The first i in [a, b) with t[i] >= x (b when none). */
export function lowerBound(t: Float64Array, x: number, a = 0, b = t.length): number {
  let lo = a;
  let hi = b;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (t[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first i in [a, b) with t[i] > x (b when none). */
export function upperBound(t: Float64Array, x: number, a = 0, b = t.length): number {
  let lo = a;
  let hi = b;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (t[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A range as text, in seconds since the profile's start (`0.200–0.500 s`), for names and labels. */
export function describeRange(r: TimeRange): string {
  const digits = r.end - r.start >= 1e8 ? 3 : r.end - r.start >= 1e6 ? 4 : 6;
  return `${(r.start / 1e9).toFixed(digits)}–${(r.end / 1e9).toFixed(digits)} s`;
}

// ─── a range's profile ──────────────────────────────────────────────────────────────────────

/**
 * The weight of each folded stack (`sampleStacks`: each parsed sample's) over the samples in
 * `range`, of `stackCount` stacks.
 */
export function stackWeightsIn(
  index: TimeIndex,
  sampleStacks: Int32Array,
  weight: Float64Array,
  stackCount: number,
  range: TimeRange,
): Float64Array {
  const out = new Float64Array(stackCount);
  const { order, times } = index;
  const a = lowerBound(times, range.start);
  const b = upperBound(times, range.end, a);
  for (let i = a; i < b; i++) {
    const s = order[i];
    out[sampleStacks[s]] += weight[s];
  }
  return out;
}

/**
 * `p` with its stacks reweighed (`w` per stack), those left with no weight taken out: the same
 * frame table (ids unchanged), the total and the time range its samples are from (`range`) in its
 * metadata; its samples per mapped file are left to be counted (`mappingSamplesPending`).
 */
export function withStackWeights(p: FoldedProfile, w: Float64Array, range?: TimeRange): FoldedProfile {
  const { start, frames } = p.stacks;
  let count = 0;
  let size = 0;
  let total = 0;
  for (let s = 0; s < p.stacks.count; s++)
    if (w[s] !== 0) {
      count++;
      size += start[s + 1] - start[s];
      total += w[s];
    }
  const outStart = new Uint32Array(count + 1);
  const outFrames = new Uint32Array(size);
  const outWeight = new Float64Array(count);
  for (let s = 0, k = 0, at = 0; s < p.stacks.count; s++) {
    if (w[s] === 0) continue;
    outFrames.set(frames.subarray(start[s], start[s + 1]), at);
    at += start[s + 1] - start[s];
    outWeight[k] = w[s];
    outStart[++k] = at;
  }
  const meta = metaWithTotal(p.meta, total);
  if (range) meta.timeRange = { start: range.start, end: range.end };
  delete meta.mappingSamples;
  meta.mappingSamplesPending = true;
  return {
    ...p,
    meta,
    stacks: { count, start: outStart, frames: outFrames, weight: outWeight },
  };
}

// ─── the timeline ───────────────────────────────────────────────────────────────────────────

/** Per track and bucket of a window, the weight and the CPU run on most. */
export interface TimelineBuckets {
  /** The window, and how many buckets divide it (bucket b: [start + b·w, start + (b+1)·w)). */
  start: number;
  end: number;
  buckets: number;
  /** Track-major: track k's bucket b is at k · buckets + b. */
  weight: Float64Array;
  /** Its samples. */
  samples: Uint32Array;
  /** Index into TimeIndex.cpus of the CPU most of the bucket's samples ran on; −1: none. */
  cpu: Int16Array;
}

/**
 * The activity of every track over `window`, in `buckets` buckets. A sample stands for the time
 * before it: its weight when weights are a time (`nsPerUnit` ns each: perf's period), else its
 * track's usual gap; its weight is spread over the buckets that time covers, so a bucket's weight
 * says how busy the track was in it. Its CPU too: each bucket's is the CPU with most weight in it.
 */
export function timelineBuckets(
  index: TimeIndex,
  weight: Float64Array,
  window: TimeRange,
  buckets: number,
  nsPerUnit?: number,
): TimelineBuckets {
  const nTracks = index.tracks.length;
  const out: TimelineBuckets = {
    start: window.start,
    end: window.end,
    buckets,
    weight: new Float64Array(nTracks * buckets),
    samples: new Uint32Array(nTracks * buckets),
    cpu: new Int16Array(nTracks * buckets).fill(-1),
  };
  const span = window.end - window.start;
  const per = span > 0 ? buckets / span : 0;
  const { cpuOf, trackTimes, trackOrder } = index;
  const nCpu = index.cpus.length;
  // per bucket and CPU, the weight this track ran there; the buckets it touched
  const byCpu = cpuOf && nCpu > 0 ? new Float64Array(buckets * nCpu) : null;
  const touched = new Uint8Array(buckets);
  const list: number[] = [];
  const bucketOf = (t: number) => Math.min(buckets - 1, Math.max(0, Math.floor((t - window.start) * per)));
  /** Weight `part` of a sample on CPU `c` in bucket x of the track at `row`. */
  const add = (row: number, x: number, part: number, c: number) => {
    out.weight[row + x] += part;
    if (!byCpu || c < 0) return;
    if (touched[x] === 0) {
      touched[x] = 1;
      list.push(x);
    }
    byCpu[x * nCpu + c] += part;
  };
  // the longest time a sample stands for: samples up to that much after the window reach into it
  let longest = 0;
  if (nsPerUnit !== undefined) {
    for (let i = 0; i < trackOrder.length; i++)
      longest = Math.max(longest, weight[trackOrder[i]] * nsPerUnit);
  } else for (let k = 0; k < nTracks; k++) longest = Math.max(longest, index.interval[k]);
  for (let k = 0; k < nTracks; k++) {
    const row = k * buckets;
    const a = lowerBound(trackTimes, window.start, index.trackStart[k], index.trackStart[k + 1]);
    const b = upperBound(trackTimes, window.end + longest, a, index.trackStart[k + 1]);
    for (let i = a; i < b; i++) {
      const s = trackOrder[i];
      const t = trackTimes[i];
      const w = weight[s];
      const d = nsPerUnit !== undefined ? w * nsPerUnit : index.interval[k];
      const c = cpuOf ? cpuOf[s] : -1;
      if (t <= window.end) out.samples[row + bucketOf(t)]++;
      if (d <= 0 || per === 0) {
        // a point in time
        if (t >= window.start && t <= window.end) add(row, bucketOf(t), w, c);
        continue;
      }
      // the time it stands for, [t − d, t], within the window
      const from = Math.max(window.start, t - d);
      const to = Math.min(window.end, t);
      if (to <= from) continue;
      for (let x = bucketOf(from); x <= bucketOf(to); x++) {
        const lo = Math.max(from, window.start + x / per);
        const hi = Math.min(to, window.start + (x + 1) / per);
        if (hi > lo) add(row, x, (w * (hi - lo)) / d, c);
      }
    }
    if (!byCpu) continue;
    for (const x of list) {
      let best = -1;
      let most = 0;
      for (let c = 0; c < nCpu; c++) {
        const v = byCpu[x * nCpu + c];
        if (v > most) {
          most = v;
          best = c;
        }
        byCpu[x * nCpu + c] = 0;
      }
      out.cpu[row + x] = best;
      touched[x] = 0;
    }
    list.length = 0;
  }
  return out;
}

/**
 * The sample of track `track` at time `t` (an index into the parsed profile's samples): the one
 * that stands for that moment (`lengthOf(s)`: the time before it a sample stands for, as the
 * timeline draws it), else the nearest within `tolerance` ns; −1 when none is that near.
 */
export function sampleNear(
  index: TimeIndex,
  track: number,
  t: number,
  tolerance: number,
  lengthOf?: (s: number) => number,
): number {
  if (track < 0 || track >= index.tracks.length) return -1;
  const a = index.trackStart[track];
  const b = index.trackStart[track + 1];
  const i = lowerBound(index.trackTimes, t, a, b);
  if (lengthOf && i < b && index.trackTimes[i] - lengthOf(index.trackOrder[i]) <= t + tolerance)
    return index.trackOrder[i];
  let best = -1;
  let gap = tolerance;
  for (const j of [i - 1, i]) {
    if (j < a || j >= b) continue;
    const d = Math.abs(index.trackTimes[j] - t);
    if (d <= gap) {
      gap = d;
      best = index.trackOrder[j];
    }
  }
  return best;
}
