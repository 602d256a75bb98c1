// Carrying what the user looks at from one tree to the next: a zoom made on a preview, found again
// (by frame names and modules) in the analysis that replaces it.

import { nodeByFrames, pathToNode } from '../core/model/calltree';
import { frameName } from '../core/text/frame-text';
import type { PageAnalysis } from '../worker/protocol';

/**
 * The ids in `to` of frames of `from` (-1 where `to` has none). Frames are the same function when
 * their names and modules agree; a raw preview numbers them differently from what follows it.
 */
export function framesIn(to: PageAnalysis, from: PageAnalysis, frames: readonly number[]): number[] {
  if (to.profile.frames === from.profile.frames) return [...frames];
  const key = (p: PageAnalysis['profile'], f: number) =>
    `${p.modules[p.frames.module[f]] ?? ''}\0${frameName(p.frames, f)}`;
  const names = new Set(frames.map((f) => frameName(from.profile.frames, f)));
  const ids = new Map<string, number>();
  for (let f = 0; f < to.profile.frames.count; f++)
    if (names.has(frameName(to.profile.frames, f))) ids.set(key(to.profile, f), f);
  return frames.map((f) => ids.get(key(from.profile, f)) ?? -1);
}

/** The node of `next` at the place of `node` in `prev` (0 when it is not there). */
export function carriedNode(prev: PageAnalysis, node: number, next: PageAnalysis): number {
  if (node <= 0) return 0;
  return nodeByFrames(next.tree, framesIn(next, prev, pathToNode(prev.tree, node)));
}
