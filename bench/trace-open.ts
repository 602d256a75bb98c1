// Where an open's time goes, thread by thread: opens files in the built app (headless Chromium,
// as `npm run bench` does) under a trace with V8's CPU profiler on every thread (the page, the
// worker, the worker's reader), then prints each thread's busiest functions (self time) from the
// drop to the first paint and from the first paint to the full tree, and with TIMELINE=1 what each
// thread ran in every 100 ms. Workers cannot be profiled through the page's DevTools session; the
// trace's `disabled-by-default-v8.cpu_profiler` samples every thread.
//
//   npx tsx bench/trace-open.ts FILE [FILE…]     HASH='#gran=addresses' (the view), TOP=12,
//                                                TIMELINE=1, DIST=dist (default: an unminified
//                                                build in bench/out/dist-unminified, made first)

import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from '../e2e/browser';
import { servePreview } from './preview';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: npx tsx bench/trace-open.ts FILE [FILE…]');
  process.exit(2);
}
const DIST = process.env.DIST ?? 'bench/out/dist-unminified';
const PORT = Number(process.env.BENCH_PORT ?? 4393);
const TOP = Number(process.env.TOP ?? 12);
const TRACE = 'bench/out/trace-open.json';

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  pid: number;
  tid: number;
  id?: string;
  args: {
    name?: string;
    data?: {
      startTime?: number;
      cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] };
      timeDeltas?: number[];
    };
  };
}
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url?: string; lineNumber: number };
}
interface ThreadProfile {
  thread: string;
  start: number;
  nodes: Map<number, ProfileNode>;
  samples: number[];
  deltas: number[];
}

if (!process.env.DIST || !existsSync(`${DIST}/index.html`))
  execSync(`npx vite build --outDir ${DIST} --emptyOutDir --minify false`, { stdio: 'ignore' });
const stopServer = await servePreview(DIST, PORT);
try {
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`http://127.0.0.1:${PORT}/${process.env.HASH ?? ''}`);
    await page.waitForLoadState('networkidle');
    await browser.startTracing(page, {
      path: TRACE,
      categories: ['disabled-by-default-v8.cpu_profiler', 'blink.user_timing', 'v8', 'devtools.timeline'],
    });
    await page.getByLabel('Open profile').setInputFiles(files);
    await page.waitForFunction(() => performance.getEntriesByName('flamelens:ready').length > 0, null, {
      timeout: 300_000,
    });
    await page.waitForTimeout(300);
    await browser.stopTracing();
  } finally {
    await browser.close();
  }
} finally {
  stopServer();
}

const events: TraceEvent[] = JSON.parse(readFileSync(TRACE, 'utf8')).traceEvents;
const threadNames = new Map<string, string>();
for (const e of events)
  if (e.ph === 'M' && e.name === 'thread_name') threadNames.set(`${e.pid}:${e.tid}`, e.args.name ?? '');
const mark = (name: string) => events.find((e) => e.name === name && e.ph !== 'M')?.ts ?? Number.NaN;
const t0 = mark('flamelens:file-received');
const paint = mark('flamelens:first-paint');
const ready = mark('flamelens:ready');
const profiles = new Map<string, ThreadProfile>();
for (const e of events) {
  const key = `${e.pid}:${e.id}`;
  if (e.name === 'Profile') {
    profiles.set(key, {
      thread: threadNames.get(`${e.pid}:${e.tid}`) ?? String(e.tid),
      start: e.args.data?.startTime ?? 0,
      nodes: new Map(),
      samples: [],
      deltas: [],
    });
  } else if (e.name === 'ProfileChunk') {
    const p = profiles.get(key);
    if (!p) continue;
    for (const n of e.args.data?.cpuProfile?.nodes ?? []) p.nodes.set(n.id, n);
    p.samples.push(...(e.args.data?.cpuProfile?.samples ?? []));
    p.deltas.push(...(e.args.data?.timeDeltas ?? []));
  }
}

/** Each sample of a thread's profile: its time (trace µs), the function, and the ms it stands for. */
function* samplesOf(p: ThreadProfile): Generator<[number, string, number]> {
  let t = p.start;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.deltas[i];
    const f = p.nodes.get(p.samples[i])?.callFrame;
    if (!f || f.functionName === '(idle)' || f.functionName === '(program)') continue;
    const url = f.url ?? '';
    const name = `${f.functionName || '(anonymous)'} ${url.slice(url.lastIndexOf('/') + 1)}:${f.lineNumber + 1}`;
    yield [t, name, (p.deltas[i + 1] ?? 0) / 1000];
  }
}

const ms = (us: number) => (us / 1000).toFixed(0);
console.log(
  `drop → first paint ${ms(paint - t0)} ms, → full tree ${ms(ready - t0)} ms (traced: slower than untraced)`,
);
// A small profile's full tree can come before its first paint: then one window, to the later.
const windows: [string, number, number][] =
  ready > paint
    ? [
        ['drop → first paint', t0, paint],
        ['first paint → full tree', paint, ready],
      ]
    : [['drop → first paint (the full tree came first)', t0, paint]];
for (const [what, a, b] of windows) {
  console.log(`\n${what}: ${ms(b - a)} ms`);
  for (const p of profiles.values()) {
    const self = new Map<string, number>();
    let busy = 0;
    for (const [t, name, d] of samplesOf(p)) {
      if (t < a || t > b) continue;
      self.set(name, (self.get(name) ?? 0) + d);
      busy += d;
    }
    if (busy < 5) continue;
    console.log(`  [${p.thread}] busy ${busy.toFixed(0)} ms`);
    for (const [name, d] of [...self].sort((x, y) => y[1] - x[1]).slice(0, TOP))
      console.log(`    ${d.toFixed(0).padStart(5)}  ${name}`);
  }
}
if (process.env.TIMELINE === '1') {
  for (const p of profiles.values()) {
    const bins = new Map<number, Map<string, number>>();
    for (const [t, name, d] of samplesOf(p)) {
      if (t < t0 || t > Math.max(paint, ready)) continue;
      const bin = Math.floor((t - t0) / 100_000);
      const m = bins.get(bin) ?? new Map<string, number>();
      bins.set(bin, m);
      const fn = name.slice(0, name.indexOf(' '));
      m.set(fn, (m.get(fn) ?? 0) + d);
    }
    if (bins.size < 2) continue;
    console.log(`\n[${p.thread}] per 100 ms from the drop:`);
    for (const [bin, m] of [...bins].sort((x, y) => x[0] - y[0]))
      console.log(
        `  ${String(bin * 100).padStart(6)}  ${[...m]
          .sort((x, y) => y[1] - x[1])
          .slice(0, 4)
          .map(([f, d]) => `${f} ${d.toFixed(0)}`)
          .join(', ')}`,
      );
  }
}
