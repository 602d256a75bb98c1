// Folded stacks of the current view, through the one serializer (core/model/serialize.ts).

import { foldedChunks } from '../core/model/serialize';
import type { FoldedProfile } from '../core/types';

/** The ids of the stacks that begin with a root-first frame path. */
export function keptStacks(p: FoldedProfile, path: readonly number[]): number[] {
  const { start, frames } = p.stacks;
  const keep: number[] = [];
  for (let s = 0; s < p.stacks.count; s++) {
    const b = start[s];
    if (start[s + 1] - b < path.length) continue;
    let k = 0;
    while (k < path.length && frames[b + k] === path[k]) k++;
    if (k === path.length) keep.push(s);
  }
  return keep;
}

/** The stacks of a profile that begin with a root-first frame path, as a smaller FoldedProfile. */
export function stacksThrough(
  p: FoldedProfile,
  path: readonly number[],
  keep: readonly number[] = keptStacks(p, path),
): FoldedProfile {
  if (path.length === 0) return p;
  const { start, frames, weight } = p.stacks;
  let frameCount = 0;
  for (const s of keep) frameCount += start[s + 1] - start[s];
  const nStart = new Uint32Array(keep.length + 1);
  const nFrames = new Uint32Array(frameCount);
  const nWeight = new Float64Array(keep.length);
  let at = 0;
  keep.forEach((s, i) => {
    nStart[i] = at;
    nFrames.set(frames.subarray(start[s], start[s + 1]), at);
    at += start[s + 1] - start[s];
    nWeight[i] = weight[s];
  });
  nStart[keep.length] = at;
  return { ...p, stacks: { count: keep.length, start: nStart, frames: nFrames, weight: nWeight } };
}

/**
 * `root;…;leaf COUNT` lines of the whole profile, or of the stacks through a frame-id path, in
 * parts of about a megabyte (a view with DWARF's inline frames can have gigabytes of text: more
 * than one string holds). `columns`: other weights over the same stacks (a comparison's two sides).
 */
export function foldedPartsThrough(
  profile: FoldedProfile,
  path: readonly number[],
  columns?: readonly Float64Array[],
): string[] {
  const keep = path.length > 0 ? keptStacks(profile, path) : null;
  const p = keep ? stacksThrough(profile, path, keep) : profile;
  const cols = columns ?? [profile.stacks.weight];
  const parts: string[] = [];
  foldedChunks(p, keep ? cols.map((w) => Float64Array.from(keep, (s) => w[s])) : cols, (t) => parts.push(t));
  return parts;
}

/** The same as one string. */
export function foldedTextThrough(profile: FoldedProfile, path: readonly number[]): string {
  return foldedPartsThrough(profile, path).join('');
}
