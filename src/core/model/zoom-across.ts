// Keeping the zoom when Frames (the granularity) changes: the zoomed path of one tree, found again in
// the tree of the other granularity. A frame of the path is found as the frame of the same name, or
// else as a frame of the same function (`main` at functions is `main a.c:12` at lines, `main+0x1c`
// at addresses; a function's one frame may be several line frames: the heaviest is taken). Where a
// frame has none (an inlined function at addresses, unnamed code), the zoom stays at the deepest
// frame found, and the message says why. Pure: no DOM.

import { frameLabel, frameName, functionOf } from '../text/frame-text';
import type { FrameTable, Granularity } from '../types';
import { type CallTree, firstChildOf, nextSiblingOf, pathToNode, totalOf } from './calltree';

/** One frame of a zoomed path, as the tree it was zoomed in names it. */
export interface ZoomStep {
  /** The frame's name (its identity: FrameTable.name). */
  name: string;
  /** How its bar is labelled (frameLabel), for the message. */
  label: string;
  /** Its function (functionOf): null for code no symbol names. */
  fn: string | null;
}

/** The zoomed path from the root to `node` of `tree`, as steps another granularity can find. */
export function zoomSteps(tree: CallTree, frames: FrameTable, node: number): ZoomStep[] {
  return pathToNode(tree, node).map((f) => ({
    name: frameName(frames, f),
    label: frameLabel(frames, f),
    fn: functionOf(frames, f),
  }));
}

export interface ZoomFound {
  /** The node of the new tree to zoom to (0: the whole profile). */
  node: number;
  /** How many steps of the path were found (the path's length: all of them). */
  reached: number;
  /** How many frames of the new tree matched the deepest step found (more than one: the heaviest is `node`). */
  candidates: number;
}

/**
 * The node of `tree` (its frames `frames`) at the place of the zoomed path `steps`: every prefix
 * of the path followed through all the frames that match it, the heaviest of the deepest found.
 */
export function findZoom(steps: readonly ZoomStep[], tree: CallTree, frames: FrameTable): ZoomFound {
  let frontier = [0];
  let reached = 0;
  for (const step of steps) {
    const next: number[] = [];
    const byFunction: number[] = [];
    for (const v of frontier)
      for (let c = firstChildOf(tree, v); c !== -1; c = nextSiblingOf(tree, c)) {
        const f = tree.frame[c];
        if (f < 0) continue;
        if (frameName(frames, f) === step.name) next.push(c);
        else if (step.fn !== null && functionOf(frames, f) === step.fn) byFunction.push(c);
      }
    // The same frame where this granularity has it; else the frames of its function.
    const found = next.length > 0 ? next : byFunction;
    if (found.length === 0) break;
    frontier = found;
    reached++;
  }
  if (reached === 0) return { node: 0, reached, candidates: 0 };
  let node = frontier[0];
  for (const v of frontier) if (totalOf(tree, v) > totalOf(tree, node)) node = v;
  return { node, reached, candidates: frontier.length };
}

const FRAMES: Record<Granularity, string> = {
  functions: 'function',
  lines: 'line',
  addresses: 'address',
};
const A_FRAME: Record<Granularity, string> = {
  functions: 'a function frame',
  lines: 'a line frame',
  addresses: 'an address frame',
};

/**
 * What to say of a zoom carried to `to` granularity: kept at a frame (the heaviest of several),
 * or moved up to the nearest frame found, naming the frame that has none here.
 */
export function zoomMessage(
  steps: readonly ZoomStep[],
  found: ZoomFound,
  frames: FrameTable,
  tree: CallTree,
  to: Granularity,
): string {
  const at = found.node > 0 ? `\`${frameLabel(frames, tree.frame[found.node])}\`` : 'the whole profile';
  if (found.reached === steps.length) {
    const several =
      found.candidates > 1
        ? ` (the heaviest of the ${found.candidates} ${FRAMES[to]} frames of \`${steps[steps.length - 1].fn ?? steps[steps.length - 1].label}\`)`
        : '';
    return `Zoom kept at ${at}${several}.`;
  }
  const lost = steps[found.reached];
  return `Zoom moved to ${at} (\`${lost.label}\` is not ${A_FRAME[to]} here).`;
}
