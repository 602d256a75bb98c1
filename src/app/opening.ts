// The profile view's frame while a first profile opens. App mounts ProfileView with it once the
// worker has read the files it was given (a drop's, a kept workspace's; a download's at once),
// so the page's own work for a profile (React mounting the toolbar, the tabs, the graph's canvas
// and the table, the browser's style and layout of them, the graph's measure of its box) is done
// while the worker parses, and the first picture only fills a view already on screen. Not during
// the read: on two cores that work (50–90 ms) slowed the read it ran beside (100 MB DCPI: read
// 105–154 ms against 158–180 ms, first paint 190–246 ms against 233–269 ms). A picture that comes
// before the read's end (a large text file's, drawn from slices) mounts the view itself; a read
// longer than 300 ms (App's READ_WAIT_MS: a large file's, seconds) shows the frame then.
// It is an analysis of no samples whose table is "being built"; its graph paints nothing and does
// not count as the first paint (MainGraph), and the details panel waits for the real profile.

import { buildCallTree } from '../core/model/calltree';
import { functionFrames } from '../core/model/frames';
import { SAMPLES_COUNT } from '../core/types';
import type { PageAnalysis } from '../worker/protocol';

const openings = new WeakSet<PageAnalysis>();

/** The frame shown while `fileName` opens. */
export function openingAnalysis(fileName: string): PageAnalysis {
  const frames = functionFrames([]);
  const meta = {
    fileName,
    // what it is is not known yet; nothing shows the format of an opening frame
    format: 'folded' as const,
    periodUs: 0,
    totalSamples: 0,
    mappings: [],
    warnings: [],
    sampleType: SAMPLES_COUNT,
    sampleTypes: [SAMPLES_COUNT],
  };
  const stacks = {
    count: 0,
    start: Uint32Array.of(0),
    frames: new Uint32Array(0),
    weight: new Float64Array(0),
  };
  const tree = buildCallTree({ meta, frames, modules: [], stacks });
  const empty = new Float64Array(0);
  const a: PageAnalysis = {
    profile: { meta, frames, modules: [], stackCount: 0 },
    tree,
    functions: { count: 0, self: empty, total: empty, bySelf: new Int32Array(0) },
    timings: { parseMs: 0, foldMs: 0, treeMs: 0 },
    functionsPending: true,
  };
  openings.add(a);
  return a;
}

/** Whether `a` is an opening frame (no profile yet). */
export function isOpening(a: PageAnalysis): boolean {
  return openings.has(a);
}
