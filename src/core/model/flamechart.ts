// The flame chart (speedscope's Time Order, Firefox Profiler's stack chart): one track's stacks in
// time order, a frame that stays on the stack from one sample to the next one box. Made for a window
// at a width in pixels: one sample per pixel is read (the first at or after each pixel's start), so
// what a box narrower than a pixel would show is never made, and a request costs about
// width × depth whatever the file's size (a 200 MB perf.data as a 200 KB one). A sample lasts until
// the next one, or, when the next is far (the thread slept: more than twice its usual gap), for its
// usual gap (TimeIndex.interval).

import type { FoldedProfile } from '../types.ts';
import { lowerBound, medianGap, type TimeIndex, type TimeRange } from './timeline.ts';

/** Boxes, columnar: box i spans [start[i], end[i]] ns at `depth[i]` (0: the root frame) and shows `frame[i]`. */
export interface FlameChartBoxes {
  count: number;
  start: Float64Array;
  end: Float64Array;
  depth: Uint32Array;
  /** A frame id of the profile whose stacks were read. */
  frame: Uint32Array;
  /** The deepest box's depth + 1. */
  depthCount: number;
}

class BoxBuilder {
  count = 0;
  start = new Float64Array(1024);
  end = new Float64Array(1024);
  depth = new Uint32Array(1024);
  frame = new Uint32Array(1024);
  depthCount = 0;

  push(start: number, end: number, depth: number, frame: number): void {
    if (this.count === this.start.length) this.grow();
    const i = this.count++;
    this.start[i] = start;
    this.end[i] = end;
    this.depth[i] = depth;
    this.frame[i] = frame;
    if (depth + 1 > this.depthCount) this.depthCount = depth + 1;
  }

  private grow(): void {
    const n = this.start.length * 2;
    const f64 = (a: Float64Array) => {
      const b = new Float64Array(n);
      b.set(a);
      return b;
    };
    const u32 = (a: Uint32Array) => {
      const b = new Uint32Array(n);
      b.set(a);
      return b;
    };
    this.start = f64(this.start);
    this.end = f64(this.end);
    this.depth = u32(this.depth);
    this.frame = u32(this.frame);
  }

  finish(): FlameChartBoxes {
    const n = this.count;
    return {
      count: n,
      start: this.start.slice(0, n),
      end: this.end.slice(0, n),
      depth: this.depth.slice(0, n),
      frame: this.frame.slice(0, n),
      depthCount: this.depthCount,
    };
  }
}

/** The flame chart's track of every sample: all tracks' samples in one time order. */
export const ALL_TRACKS = -1;

/**
 * The boxes of track `track` (ALL_TRACKS: every sample) over `window` at `width` pixels.
 * `stackOf[s]` is parsed sample s's stack in `stacks` (root first), −1 for a sample with none
 * (left out by a transform).
 */
export function flameChartBoxes(
  index: TimeIndex,
  track: number,
  stackOf: Int32Array,
  stacks: FoldedProfile['stacks'],
  window: TimeRange,
  width: number,
): FlameChartBoxes {
  const out = new BoxBuilder();
  const all = track === ALL_TRACKS;
  if ((!all && (track < 0 || track >= index.tracks.length)) || !(window.end >= window.start))
    return out.finish();
  const times = all ? index.times : index.trackTimes;
  const trackOrder = all ? index.order : index.trackOrder;
  const a = all ? 0 : index.trackStart[track];
  const b = all ? index.order.length : index.trackStart[track + 1];
  const px = (window.end - window.start) / Math.max(1, Math.floor(width));
  const usual = all ? medianGap(times, a, b) : index.interval[track];
  const far = usual > 0 ? 2 * usual : Number.POSITIVE_INFINITY;
  // the open boxes, root first: their frames and starts
  let openFrame = new Uint32Array(64);
  let openStart = new Float64Array(64);
  let open = 0;
  const closeFrom = (depth: number, end: number) => {
    for (let d = open - 1; d >= depth; d--) out.push(openStart[d], end, d, openFrame[d]);
    open = Math.min(open, depth);
  };
  // from the last sample at or before the window's start: its boxes may reach into the window
  let i = Math.max(a, lowerBound(times, window.start, a, b) - 1);
  let lastEnd = window.start;
  const { start: sStart, frames } = stacks;
  while (i < b && times[i] <= window.end) {
    const t = times[i];
    // the next sample read: the first a pixel later
    const j = px > 0 ? Math.max(i + 1, lowerBound(times, t + px, i + 1, b)) : i + 1;
    const last = times[j - 1];
    const continues = j < b && times[j] - last <= far;
    const end = continues ? times[j] : last + (usual > 0 ? usual : px);
    const st = stackOf[trackOrder[i]];
    if (st < 0) {
      closeFrom(0, t);
    } else {
      const f0 = sStart[st];
      const len = sStart[st + 1] - f0;
      let same = 0;
      while (same < open && same < len && openFrame[same] === frames[f0 + same]) same++;
      closeFrom(same, t);
      if (len > openFrame.length) {
        const nf = new Uint32Array(len * 2);
        nf.set(openFrame);
        openFrame = nf;
        const ns = new Float64Array(len * 2);
        ns.set(openStart);
        openStart = ns;
      }
      for (let d = same; d < len; d++) {
        openFrame[d] = frames[f0 + d];
        openStart[d] = t;
      }
      open = len;
    }
    lastEnd = end;
    if (!continues) closeFrom(0, end);
    i = j;
  }
  closeFrom(0, lastEnd);
  return out.finish();
}
