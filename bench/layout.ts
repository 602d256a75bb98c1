// Times layoutFlameGraph in node on the bench's synthetic profile, over the viewports of the
// interaction sequence `npm run bench` plays in the browser (wheel zooms around random points and
// pans, at 1280 px with the rows of a 900 px tall view). Prints the median and p95 layout time and
// the bars laid out: the part of a frame that is not painting.
//
//   npx tsx bench/layout.ts [FILE.prof]

import { readFileSync } from 'node:fs';
import { analyzeBytes } from '../src/core/pipeline';
import { layoutFlameGraph } from '../src/flamegraph/layout';
import { FULL, panViewport, type Viewport, zoomViewport } from '../src/flamegraph/navigation';

const file = process.argv[2] ?? 'bench/out/synthetic-100mb.prof';
const { tree } = analyzeBytes(new Uint8Array(readFileSync(file)), { fileName: file });
const width = 1280;
const maxRows = 64;
let seed = 7;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const times: number[] = [];
const bars: number[] = [];
let v: Viewport = FULL;
for (let round = 0; round < 3; round++) {
  v = FULL;
  for (let i = 0; i < 100; i++) {
    const at = (20 + rnd() * (width - 40)) / width;
    rnd();
    if (i % 10 < 4) v = zoomViewport(v, Math.exp(-(i % 2 ? 120 : -240) * 0.002), at);
    else if (i % 10 < 7) v = panViewport(v, -((rnd() - 0.5) * 300) / width);
    else continue; // hover: no new layout
    const t0 = performance.now();
    const l = layoutFlameGraph(tree, { focus: 0, width, viewport: v, maxRows, minWidth: 2 });
    times.push(performance.now() - t0);
    bars.push(l.rects.length);
  }
}
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * p)];
console.log(
  `layout (${times.length} layouts): median ${q(times, 0.5).toFixed(1)} ms, p95 ${q(times, 0.95).toFixed(1)} ms; bars median ${q(bars, 0.5)}, max ${Math.max(...bars)}`,
);
const slowest = times
  .map((t, i) => [t, bars[i]])
  .sort((a, b) => b[0] - a[0])
  .slice(0, 8);
console.log(`slowest (ms/bars): ${slowest.map(([t, b]) => `${t.toFixed(1)}/${b}`).join(' ')}`);
