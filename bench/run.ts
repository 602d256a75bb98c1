// `npm run bench`: figures from one run of the built app in headless Chromium, each next to a
// baseline measured in the same run on the same machine. Prints; asserts nothing.
//
//   drop → first paint      performance marks flamelens:file-received → flamelens:first-paint
//   worker parse+fold+tree  the timings the worker reports (shown in the metadata panel too)
//   baseline                read the same file, transfer it to a worker, hash every record's stack
//   symbolization           the same profile dropped together with its binary (bench/out/bench, a
//                           synthetic ELF with 100k symbols from gen-elf.ts) vs without it: drop →
//                           flamelens:ready, each run paired; includes reading the ELF, the
//                           demangler's lazy load in the worker, the symbol table and the lookups
//
// New parts, each next to its own same-run figure (BENCH_ONLY=gperf,diff,pprof,perf picks parts;
// default all; gperf is everything above):
//   diff                    open the synthetic profile, then compare it with a perturbed copy (a
//                           tenth of its records changed, gen-synthetic.ts): "Compare with another
//                           profile" → flamelens:compare-received → flamelens:diff-painted, as a
//                           ratio to drop → flamelens:ready of opening one (the same runs); then
//                           the interaction sequence on the differential graph
//   pprof                   a ~100 MB (uncompressed) gzipped profile.proto (gen-pprof.ts): drop →
//                           first paint vs the floor: read, transfer to a worker, fflate's
//                           gunzipSync (as the app), the varint walk of floors.ts
//   perf                    ~100 MB of `perf script` text (gen-perf.ts): drop → first paint vs the
//                           floor: read, transfer to a worker, one byte scan over the lines (no
//                           TextDecoder: floors.ts's scanLines)
//   heap, folded,           ~100 MB each of a gperftools heap profile, folded stacks and
//   difffolded              difffolded.pl's `stack BASE NEW` (gen-text.ts): as perf, the same floor
//   dcpi                    ~100 MB DCPI profile (gen-text.ts): the floor reads, transfers and sums
//                           every count of every chunk (floors.ts's dcpiWalk)
//                           Each format part prints the floor, drop → first paint (and its ratio to
//                           the floor), drop → full call tree and peak renderer RSS; at the end a
//                           table of them all (the README's). BENCH_PEERS=1 also opens the same file
//                           in speedscope (the npm package's release build, served here) in the same
//                           run, alternating with ours: file chosen → its first flame chart drawn;
//                           speedscope reads perf script, pprof and folded stacks (not heap, DCPI
//                           or difffolded: n/a).
//   open                    only the gperftools file's open, for large BENCH_MB (400, 1000, 2000):
//                           first paint, full call tree, peak renderer RSS, the baseline; a
//                           fresh page per run
//   dwarf                   DWARF lines and inlines against a large -g binary (gen-dwarf.ts, ~100 MB
//                           of .debug_*, built once into bench/out/dwarf-v<VERSION>-4tu, ~4 min,
//                           reused while the generator version and compiler are the same): the
//                           100 MB profile (its functions spread over that binary's code; first
//                           checked in node: every sampled address of the binary gets file:line
//                           from DWARF) opened at BENCH_DWARF_GRAN (default lines; functions:
//                           inlined functions as frames; or both, `lines,functions`) with the
//                           binary vs with its --strip-debug copy (ELF symbols only), the same
//                           granularity, each run paired: drop → full tree, the difference
//                           (target ≤ 2 s), peak RSS
//   views                   the call graph, the call tree and the disassembly on the profile
//                           symbolized by its binary: tab → graph drawn (target ≤ 2 s), the tree
//                           opened below its root and scrolled (frame times), the heaviest
//                           function's disassembly; each with the longest main-thread task
//   short                   the other gperftools shape: ~1.2M short records over 100k distinct
//                           stacks and 50k PCs (gen-synthetic.ts makeShortRecordsProfile): drop →
//                           first paint vs the baseline above (read, transfer, hash each stack)
//   perfdata                a real perf.data of BENCH_PERFDATA_MB (default 200) MB: perf record -g
//                           -F 20000 of bench/perfdata-prog.c (gen-perfdata.ts; needs gcc and perf),
//                           dropped with its program: drop → first paint vs the read floor (read,
//                           transfer, walk every record and hash each sample's words; target ≤ 2×);
//                           the same recording as `perf script` text opened in speedscope (its
//                           release build, served beside ours) in the same run: file chosen →
//                           its title names the profile, then two frames; the longest main-thread
//                           task while the timeline is dragged, zoomed, and the flame chart zoomed
//                           and panned (target ≤ 100 ms); BENCH_SPEEDSCOPE=0 leaves speedscope out
//                           (before/after runs of our own builds)
// Memory (new parts): the peak RSS of the page's renderer process, VmHWM in /proc/<pid>/status
// of the largest of the renderers this run launched, reset (clear_refs 5) just before the measured
// drop; each run in a new page of its own browser context, so a renderer of its own. The page's
// dedicated workers run in its renderer: this covers the page, its workers, the file buffers; not
// the browser or GPU process. Printed with the RSS at the reset (the app loaded, no profile).
//
// BENCH_TRACE=1 also records a Chromium trace of the last run of the gperf part and of each format
// part (bench/out/trace.json: the last one traced) and prints where the time between the two marks
// went, per thread (page main thread, the worker).
// BENCH_BUILD=0 reuses the last build (bench/out/dist, not the e2e tests' dist/); BENCH_DIST=DIR
// measures a build made elsewhere as it is (never rebuilt): to compare two versions, build each
// (`npx vite build --outDir DIR`) and alternate runs of them, as this VM's figures move by ±15–30 %
// between runs of one build. BENCH_PORT picks the preview port (the run fails if it is taken:
// another engineer's server on it would be measured instead of ours).

import { execSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { gzipSync } from 'fflate';
import { CHROMIUM_ARGS, chromiumPath, NO_BROWSER_MESSAGE } from '../e2e/browser';
import { parse, symbolize } from '../src/core/pipeline';
import { readElf } from '../src/core/symbols/elf';
import { dcpiWalk, floorWalk, scanLines } from './floors';
import { dwarfBenchDir, ensureDwarfBench } from './gen-dwarf';
import { benchElfOptions, makeSyntheticElf } from './gen-elf';
import { makeSyntheticPerfScript } from './gen-perf';
import { ensurePerfData, perfDataPaths } from './gen-perfdata';
import { makeSyntheticPprof } from './gen-pprof';
import { makeShortRecordsProfile, makeSyntheticProfile } from './gen-synthetic';
import { makeTextBenchInput, TEXT_BENCH_IDS, type TextBenchId, textBenchFile } from './gen-text';
import { servePreview } from './preview';

const MB = Number(process.env.BENCH_MB ?? 100);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PORT = Number(process.env.BENCH_PORT ?? 4391);
const TRACE = process.env.BENCH_TRACE === '1';
/**
 * BENCH_GRAN=addresses (the default here): one frame per address, the heavy shape the targets were
 * set on (12.6M call-tree nodes). At the app's default, `functions`, this unsymbolized file folds
 * into a few `[module]` frames and opens in a few hundred ms.
 */
const GRAN = process.env.BENCH_GRAN ?? 'addresses';
const GRAN_HASH = GRAN === 'functions' ? '' : `#gran=${GRAN}`;
const OUT = 'bench/out';
const PROFILE = `${OUT}/synthetic-${MB}mb.prof`;
/** The profile's main binary (named like its mapping, /opt/bench/bin/bench), ELF_SYMBOLS functions. */
const ELF = `${OUT}/bench`;
const ELF_SYMBOLS = 100_000;
/** BENCH_PROFILE=1: an unminified build, and CPU profiles of the page's main thread (last open, views). */
const PROFILE_MAIN = process.env.BENCH_PROFILE === '1';
/** Our own build directory: dist/ belongs to the e2e tests, which may run at the same time. */
const DIST = process.env.BENCH_DIST ?? (PROFILE_MAIN ? `${OUT}/dist-unminified` : `${OUT}/dist`);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
/** Renderer memory of runs (see resetPeaks): medians of the peak and of the RSS before the drop. */
const mem = (xs: { peakMB: number; beforeMB: number }[]) =>
  `peak RSS ${median(xs.map((x) => x.peakMB)).toFixed(0)} MB (${median(xs.map((x) => x.beforeMB)).toFixed(0)} MB before the drop)`;
const PARTS = [
  'gperf',
  'diff',
  'pprof',
  'perf',
  'heap',
  'dcpi',
  'folded',
  'difffolded',
  'short',
  'open',
  'dwarf',
  'views',
  'perfdata',
];
/** BENCH_PEERS=1: speedscope's first draw of each format part's file, in the same run. */
const PEERS = process.env.BENCH_PEERS === '1';
/** BENCH_SPEEDSCOPE=0: the perfdata part without speedscope (minutes a run on the 200 MB text). */
const PERFDATA_SPEEDSCOPE = process.env.BENCH_SPEEDSCOPE !== '0';
const ONLY = new Set((process.env.BENCH_ONLY ?? PARTS.join(',')).split(',').map((p) => p.trim()));
for (const p of ONLY) {
  if (!PARTS.includes(p)) {
    console.error(`BENCH_ONLY: unknown part ${p} (parts: ${PARTS.join(',')})`);
    process.exit(2);
  }
}
/** The comparison's second profile: the first with a tenth of its records changed. */
const PROFILE_B = `${OUT}/synthetic-${MB}mb-b.prof`;
/** The same bytes as `npx tsx bench/gen-pprof.ts bench/out/synthetic-100mb.pb.gz` at 100 MB. */
const PPROF = `${OUT}/synthetic-${MB}mb.pb.gz`;
const PERF = `${OUT}/synthetic-${MB}mb.perf.txt`;
const SHORT = `${OUT}/synthetic-${MB}mb-short.prof`;
/** The perf.data part's recording (gen-perfdata.ts) and its perf script text. */
const PERFDATA_MB = Number(process.env.BENCH_PERFDATA_MB ?? 200);
const PERFDATA = perfDataPaths(PERFDATA_MB);
/** gen-dwarf.ts's cache: the -g binary and what is derived from it, keyed by its version. */
const DWARF_DIR = dwarfBenchDir(OUT, 4);
/** BENCH_DWARF_GRAN: lines (`function file:line` frames), functions (inlined functions as frames), or both. */
const DWARF_GRANS = (process.env.BENCH_DWARF_GRAN ?? 'lines').split(',').map((g) => g.trim());
for (const g of DWARF_GRANS) {
  if (g !== 'lines' && g !== 'functions') {
    console.error(`BENCH_DWARF_GRAN: lines or functions, not ${g}`);
    process.exit(2);
  }
}
/** The profile over the binary's code (depends on the binary: kept with it). */
const DWARF_PROFILE = `${DWARF_DIR}/synthetic-${MB}mb.prof`;
/** The -g binary and its --strip-debug copy, each named like the profile's mapping (`bench`). */
const DWARF_BIN = `${DWARF_DIR}/with-debug/bench`;
const NODEBUG_BIN = `${DWARF_DIR}/symbols-only/bench`;

/** Renderer processes among this process's descendants (not another run's Chromium). */
function rendererPids(): number[] {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const todo = [process.pid];
  while (todo.length) {
    for (const c of children.get(todo.pop()!) ?? []) {
      todo.push(c);
      try {
        if (readFileSync(`/proc/${c}/cmdline`, 'utf8').includes('--type=renderer')) out.push(c);
      } catch {}
    }
  }
  return out;
}

/** A /proc/<pid>/status field in MB (0 if the process is gone). */
function statusMB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return Number(m?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** Resets the renderers' peak RSS (VmHWM) to their current RSS; returns that RSS (MB) by pid. */
function resetPeaks(): Map<number, number> {
  const rss = new Map<number, number>();
  for (const pid of rendererPids()) {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
      rss.set(pid, statusMB(pid, 'VmRSS'));
    } catch {}
  }
  return rss;
}

/**
 * The page's renderer's peak RSS since resetPeaks, and its RSS then (MB): the renderer with the
 * largest VmHWM (the others are idle: a spare renderer, the start page's).
 */
function peakRss(before: Map<number, number>): { peakMB: number; beforeMB: number } {
  let best = { peakMB: 0, beforeMB: 0 };
  for (const pid of rendererPids()) {
    const peakMB = statusMB(pid, 'VmHWM');
    if (peakMB > best.peakMB) best = { peakMB, beforeMB: before.get(pid) ?? 0 };
  }
  return best;
}

/** Source text of a bench function for a worker (tsx wraps inner functions in __name()). */
const workerFn = (f: (...args: never[]) => unknown) => `var __name = (f) => f;\n${f.toString()}\n`;
/** fflate's browser build (the package exports no path to it; it sits next to lib/). */
const FFLATE_UMD = readFileSync(
  join(dirname(createRequire(import.meta.url).resolve('fflate')), '../umd/index.js'),
  'utf8',
);

/** pprof's floor: fflate's gunzipSync (the app's) and the varint walk of floors.ts. */
const PPROF_FLOOR_WORKER = `${FFLATE_UMD}
${workerFn(floorWalk)}
onmessage = (e) => {
  const t0 = performance.now();
  const data = fflate.gunzipSync(new Uint8Array(e.data));
  const t1 = performance.now();
  const h = floorWalk(data);
  postMessage({ h, ms: { gunzip: t1 - t0, walk: performance.now() - t1 } });
};`;

/** Line formats' floor (perf script, heap, folded): the byte scan over lines of floors.ts. */
const LINES_FLOOR_WORKER = `${workerFn(scanLines)}
onmessage = (e) => {
  const t0 = performance.now();
  const r = scanLines(new Uint8Array(e.data));
  postMessage({ lines: r.lines, h: r.h, ms: { 'scan lines': performance.now() - t0 } });
};`;

/** DCPI's floor: every count of every chunk summed (floors.ts). */
const DCPI_FLOOR_WORKER = `${workerFn(dcpiWalk)}
onmessage = (e) => {
  const t0 = performance.now();
  const r = dcpiWalk(new Uint8Array(e.data));
  postMessage({ total: r.total, ms: { 'walk counts': performance.now() - t0 } });
};`;

/** perf.data's floor: walk every record of the data section, hash each sample's words. */
const PERFDATA_FLOOR_WORKER = `
onmessage = (e) => {
  const t0 = performance.now();
  const buf = e.data;
  const dv = new DataView(buf);
  const w = new Uint32Array(buf, 0, buf.byteLength >> 2);
  const u64 = (o) => dv.getUint32(o, true) + dv.getUint32(o + 4, true) * 4294967296;
  let at = u64(40);
  const end = Math.min(buf.byteLength, at + u64(48));
  let n = 0, h = 0;
  while (at + 8 <= end) {
    const type = dv.getUint32(at, true), size = dv.getUint16(at + 6, true);
    if (size < 8) break;
    if (type === 9) {
      let x = 0x811c9dc5;
      for (let k = (at + 8) >> 2, last = (at + size) >> 2; k < last; k++) x = Math.imul(x ^ w[k], 16777619);
      h ^= x; n++;
    }
    at += size;
  }
  postMessage({ n, h, ms: { 'walk + hash': performance.now() - t0 } });
};`;

/** The baseline: the least any viewer must do. Read, transfer to a worker, hash each stack. */
const BASELINE_WORKER = `
onmessage = (e) => {
  const buf = e.data;
  const w = new Uint32Array(buf, 0, buf.byteLength >> 2);
  let i = 10, n = 0, h = 0;
  while (i + 4 <= w.length) {
    const count = w[i], npcs = w[i + 2];
    i += 4;
    if (count === 0 && npcs === 1 && w[i] === 0 && w[i + 1] === 0) break;
    let x = 0x811c9dc5;
    const end = Math.min(w.length, i + npcs * 2);
    for (let k = i; k < end; k++) x = Math.imul(x ^ w[k], 16777619);
    h ^= x; n++; i = end;
  }
  postMessage({ n, h });
};`;

async function baseline(page: Page): Promise<number> {
  return (await floorInPage(page, PROFILE, BASELINE_WORKER)).total;
}

/**
 * A floor in the page: read `file` (a hidden file input), transfer it to a worker running `src`,
 * until the worker answers. `parts`: the worker's own timings (the numbers in its answer).
 */
async function floorInPage(
  page: Page,
  file: string,
  src: string,
): Promise<{ total: number; parts: Record<string, number> }> {
  await page.evaluate(() => {
    const input = document.createElement('input');
    input.type = 'file';
    input.id = 'bench-baseline';
    input.style.display = 'none';
    document.body.append(input);
  });
  await page.setInputFiles('#bench-baseline', file);
  return page.evaluate(async (src) => {
    const input = document.getElementById('bench-baseline') as HTMLInputElement;
    const file = input.files![0];
    const worker = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
    const t0 = performance.now();
    const buf = await file.arrayBuffer();
    const read = performance.now() - t0;
    const done = new Promise<{ total: number; data: unknown }>((resolve, reject) => {
      worker.onmessage = (e) => resolve({ total: performance.now() - t0, data: e.data });
      worker.onerror = (e) => reject(new Error(`floor worker: ${e.message}`));
    });
    worker.postMessage(buf, [buf]);
    const { total, data } = await done;
    worker.terminate();
    input.remove();
    const ms = (data as { ms?: Record<string, number> } | null)?.ms;
    const parts: Record<string, number> = { read, ...ms };
    return { total, parts };
  }, src);
}

/** Opens the files (one profile, maybe binaries) through the "Open profile" input, as one drop. */
async function openInApp(
  page: Page,
  files: string[] = [PROFILE],
  hash = GRAN_HASH,
): Promise<{
  paint: number;
  ready: number;
  parse: number;
  fold: number;
  tree: number;
  peakMB: number;
  beforeMB: number;
}> {
  await page.goto(`http://127.0.0.1:${PORT}/${hash}`);
  // A user drops a file into a page that has finished loading: let the service worker finish
  // precaching first (on the first visit it competes with reading the file, adding ~300 ms).
  await page.evaluate(`navigator.serviceWorker ? navigator.serviceWorker.ready.then(() => true) : true`);
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => performance.clearMarks());
  const before = resetPeaks();
  await page.getByLabel('Open profile').setInputFiles(files);
  await page.getByRole('img', { name: /[Ff]lame graph of/ }).waitFor({ timeout: 120_000 });
  // First paint may come from the coarse preview tree; `ready` is when the full tree is in.
  await page.waitForFunction(() => performance.getEntriesByName('flamelens:ready').length > 0, null, {
    timeout: 120_000,
  });
  await page.waitForFunction(() => performance.getEntriesByName('flamelens:first-paint').length > 0, null, {
    timeout: 120_000,
  });
  const memory = peakRss(before);
  // A string, not a function: tsx's name helpers do not exist in the page.
  const t: { paint: number; ready: number; parse: number; fold: number; tree: number } =
    await page.evaluate(`(() => {
    const mark = (n) => performance.getEntriesByName(n)[0].startTime;
    const t = JSON.parse(document.querySelector('[data-timings]').getAttribute('data-timings'));
    return {
      paint: mark('flamelens:first-paint') - mark('flamelens:file-received'),
      ready: mark('flamelens:ready') - mark('flamelens:file-received'),
      parse: t.parseMs, fold: t.foldMs, tree: t.treeMs,
    };
  })()`);
  return { ...t, ...memory };
}

/**
 * With a profile open, compares it with `file` through "Compare with another profile" (what a
 * drop on the overlay's compare target calls too): flamelens:compare-received →
 * flamelens:diff-painted, the differential graph's first paint.
 */
async function compareInApp(
  page: Page,
  file: string,
): Promise<{ painted: number; peakMB: number; beforeMB: number }> {
  await page.evaluate(() => performance.clearMarks());
  const before = resetPeaks();
  await page.getByLabel('Compare with another profile').setInputFiles(file);
  await page.getByRole('region', { name: 'Differential flame graph' }).waitFor({ timeout: 300_000 });
  await page.waitForFunction(() => performance.getEntriesByName('flamelens:diff-painted').length > 0, null, {
    timeout: 300_000,
  });
  const memory = peakRss(before);
  const painted = (await page.evaluate(`(() => {
    const mark = (n) => performance.getEntriesByName(n)[0].startTime;
    return mark('flamelens:diff-painted') - mark('flamelens:compare-received');
  })()`)) as number;
  return { painted, ...memory };
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** The page main thread's busiest functions (self time) during the open, from a CDP profile. */
function summarizeCpuProfile(p: CpuProfile): void {
  const byId = new Map(p.nodes.map((n) => [n.id, n.callFrame]));
  const self = new Map<string, number>();
  const samples = p.samples ?? [];
  for (let i = 0; i < samples.length; i++) {
    const f = byId.get(samples[i])!;
    if (f.functionName === '(idle)') continue;
    const key = `${f.functionName || '(anonymous)'} ${f.url.slice(f.url.lastIndexOf('/') + 1)}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (p.timeDeltas?.[i] ?? 0) / 1000);
  }
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15);
  console.log('page main thread, self time (ms):');
  for (const [k, ms] of top) console.log(`  ${ms.toFixed(0).padStart(5)}  ${k}`);
}

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: { url?: string; functionName?: string } };
}

/**
 * Where the time between file-received and first-paint went: per thread, the top-level tasks
 * (RunTask) and the busiest event names inside them, in ms. Read from a Chromium trace.
 */
function summarizeTrace(path: string): void {
  const events: TraceEvent[] = JSON.parse(readFileSync(path, 'utf8')).traceEvents;
  const names = new Map<string, string>();
  for (const e of events)
    if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args!.name!);
  const mark = (n: string) => events.find((e) => e.name === n && e.ph !== 'M');
  const t0 = mark('flamelens:file-received')?.ts;
  const t1 = mark('flamelens:first-paint')?.ts;
  if (t0 === undefined || t1 === undefined) {
    console.log('trace: marks not found');
    return;
  }
  console.log(
    `trace: file-received → first-paint = ${((t1 - t0) / 1000).toFixed(0)} ms; busy time by thread:`,
  );
  const byThread = new Map<string, Map<string, number>>();
  for (const e of events) {
    if (e.ph !== 'X' || e.dur === undefined || e.ts < t0 || e.ts > t1) continue;
    const thread = names.get(`${e.pid}:${e.tid}`) ?? `${e.pid}:${e.tid}`;
    if (!/CrRendererMain|DedicatedWorker|Compositor|VizCompositor/.test(thread)) continue;
    const m = byThread.get(thread) ?? new Map<string, number>();
    byThread.set(thread, m);
    m.set(e.name, (m.get(e.name) ?? 0) + e.dur / 1000);
  }
  for (const [thread, m] of byThread) {
    const top = [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10);
    console.log(`  ${thread}: ${top.map(([n, ms]) => `${n} ${ms.toFixed(0)}`).join(', ')}`);
  }
}

/**
 * 100 scripted interactions on the loaded graph (wheel zoom, drag pan, hover), dispatched inside
 * the page; each one's frame time is from dispatch to the paint that follows it.
 */
const INTERACTIONS = `(async () => {
  const el = document.querySelector('[data-testid="main-graph"] .fg-scroll');
  const box = el.getBoundingClientRect();
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const paintAfter = (t0) => new Promise((resolve) => {
    const started = performance.now();
    const check = () => {
      const m = performance.getEntriesByName('flamelens:paint')[0];
      if (m && m.startTime >= t0) resolve(m.startTime + 0 - t0);
      else if (performance.now() - started > 1000) resolve(null);
      else requestAnimationFrame(check);
    };
    check();
  });
  const times = [];
  for (let i = 0; i < 100; i++) {
    const x = box.left + 20 + rnd() * (box.width - 40);
    const y = box.top + box.height - 10 - rnd() * Math.min(box.height - 20, 18 * 30);
    const t0 = performance.now();
    if (i % 10 < 4) {
      el.dispatchEvent(new WheelEvent('wheel', { deltaY: i % 2 ? 120 : -240, clientX: x, clientY: y, bubbles: true, cancelable: true }));
    } else if (i % 10 < 7) {
      el.dispatchEvent(new MouseEvent('mousedown', { button: 0, buttons: 1, clientX: x, clientY: y, bubbles: true }));
      el.dispatchEvent(new MouseEvent('mousemove', { button: 0, buttons: 1, clientX: x + (rnd() - 0.5) * 300, clientY: y, bubbles: true }));
      el.dispatchEvent(new MouseEvent('mouseup', { button: 0, clientX: x, clientY: y, bubbles: true }));
    } else {
      el.dispatchEvent(new MouseEvent('mousemove', { clientX: x, clientY: y, bubbles: true }));
    }
    const t = await paintAfter(t0);
    if (t !== null) times.push(t);
    await new Promise((r) => setTimeout(r, 20));
  }
  return times;
})()`;

/**
 * Watches the page's long main-thread tasks: `settle(what)` waits for the worker to be done (no
 * progress shown) and a pause, then notes `what` with the longest task since the last step (as
 * `format` writes it); `tasks()` gives every one seen.
 */
async function watchLongTasks(
  page: Page,
  pauseMs: number,
  format: (what: string, longest: number | null) => string,
) {
  await page.evaluate(`(() => {
    window.__longTasks = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push(e.duration); })
      .observe({ type: 'longtask' });
  })()`);
  const steps: string[] = [];
  let seen = 0;
  const tasks = async () => (await page.evaluate('window.__longTasks')) as number[];
  const settle = async (what: string) => {
    await page.waitForFunction(() => !document.querySelector('.progress'), null, { timeout: 120_000 });
    await page.waitForTimeout(pauseMs);
    const all = await tasks();
    const mine = all.slice(seen);
    seen = all.length;
    steps.push(format(what, mine.length ? Math.max(...mine) : null));
  };
  return { steps, settle, tasks };
}

/** Long main-thread tasks while the worker applies views: invert, sandwich, a transform. */
async function viewLongTasks(page: Page): Promise<{ longest: number; count: number; steps: string[] }> {
  const {
    steps,
    settle,
    tasks: all,
  } = await watchLongTasks(page, 300, (what, longest) =>
    longest === null ? what : `${what} ${longest.toFixed(0)}`,
  );
  const inverted = page.getByRole('checkbox', { name: 'Inverted' });
  await inverted.check();
  await settle('invert');
  await inverted.uncheck();
  await settle('un-invert');
  await page.locator('.ftable tbody td.fn').first().click();
  await page.getByRole('button', { name: /^Sandwich:/ }).click();
  await page.getByTestId('sandwich').waitFor({ timeout: 120_000 });
  await settle('sandwich');
  await page.getByRole('button', { name: 'Back to flame graph' }).click();
  await settle('back');
  const canvas = page.getByTestId('main-graph').getByRole('img');
  const box = (await canvas.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height - 18 * 3.5, { button: 'right' });
  await page.getByRole('menuitem', { name: /^Hide function/ }).click();
  await settle('hide a function');
  await page.getByRole('button', { name: /^Remove Hide/ }).click();
  await settle('remove the chip');
  const tasks = await all();
  return { longest: tasks.length ? Math.max(...tasks) : 0, count: tasks.length, steps };
}

/**
 * viewLongTasks, with BENCH_PROFILE=1 under a CPU profile of the page's main thread (written to
 * bench/out/views-main-thread.cpuprofile, its busiest functions printed).
 */
async function viewsProfiled(page: Page): ReturnType<typeof viewLongTasks> {
  const cdp = PROFILE_MAIN ? await page.context().newCDPSession(page) : null;
  if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  const views = await viewLongTasks(page);
  if (cdp) {
    const { profile } = await cdp.send('Profiler.stop');
    writeFileSync(`${OUT}/views-main-thread.cpuprofile`, JSON.stringify(profile));
    console.log('while applying views:');
    summarizeCpuProfile(profile);
  }
  return views;
}

/** Median and p95 of frame times. */
function frameStats(frames: number[]): { median: number; p95: number } {
  const sorted = [...frames].sort((a, c) => a - c);
  const p95 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0;
  return { median: median(frames) ?? 0, p95 };
}

type Open = Awaited<ReturnType<typeof openInApp>>;

/** The gperftools profile: first paint, worker stages, interactions, views, symbolization. */
async function benchGperf(page: Page, browser: import('@playwright/test').Browser): Promise<() => void> {
  const bytes = statSync(PROFILE).size;
  const base: number[] = [];
  const app: Open[] = [];
  for (let r = 0; r < RUNS; r++) {
    const traced = TRACE && r === RUNS - 1;
    if (traced) {
      await browser.startTracing(page, {
        path: `${OUT}/trace.json`,
        categories: ['devtools.timeline', 'blink.user_timing', 'v8', 'disabled-by-default-devtools.timeline'],
      });
    }
    const cdp = PROFILE_MAIN && r === RUNS - 1 ? await page.context().newCDPSession(page) : null;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
    }
    app.push(await openInApp(page));
    if (traced) await browser.stopTracing();
    if (cdp) {
      const { profile } = await cdp.send('Profiler.stop');
      writeFileSync(`${OUT}/main-thread.cpuprofile`, JSON.stringify(profile));
      summarizeCpuProfile(profile);
    }
    base.push(await baseline(page));
  }
  // Interactions and views on the profile the last run opened (reopen it: the baseline ran since).
  await openInApp(page);
  const frames = (await page.evaluate(INTERACTIONS)) as number[];
  const views = await viewsProfiled(page);
  // Symbolization: each run opens the profile without and with its binary, alternating which
  // goes first (a fresh page each: the worker loads the demangler again, as on a user's first
  // drop with binaries).
  const plain: Open[] = [];
  const symbolized: Open[] = [];
  const openSymbolized = async () => {
    symbolized.push(await openInApp(page, [PROFILE, ELF]));
    const ok = await page.locator('section[aria-label="Symbols"] li.ok').allInnerTexts();
    if (!ok.some((t) => t.includes('from bench'))) {
      throw new Error(`the binary did not symbolize the profile (Symbols panel: ${JSON.stringify(ok)})`);
    }
  };
  for (let r = 0; r < RUNS; r++) {
    if (r % 2) await openSymbolized();
    plain.push(await openInApp(page));
    if (r % 2 === 0) await openSymbolized();
  }
  return () => {
    const paint = median(app.map((a) => a.paint));
    const b = median(base);
    const worker = median(app.map((a) => a.parse + a.fold + a.tree));
    console.log(`profile: ${PROFILE} (${(bytes / 1048576).toFixed(1)} MB), ${RUNS} runs, medians`);
    console.log(`baseline (read + transfer + hash every stack in a worker): ${fmt(b)}`);
    console.log(
      `drop → first paint:                                    ${fmt(paint)}  (${(paint / b).toFixed(2)}× baseline)`,
    );
    console.log(
      `worker parse + fold + tree:                            ${fmt(worker)}  (parse ${fmt(median(app.map((a) => a.parse)))}, fold ${fmt(median(app.map((a) => a.fold)))}, tree ${fmt(median(app.map((a) => a.tree)))})`,
    );
    console.log(
      `drop → full call tree in the page:                    ${fmt(median(app.map((a) => a.ready)))}  (${(median(app.map((a) => a.ready)) / paint).toFixed(2)}× first paint, which shows a coarse tree of what is wide enough to draw)`,
    );
    console.log(`memory while opening: ${mem(app)}; the file is ${(bytes / 1048576).toFixed(0)} MB`);
    console.log(`targets: first paint ≤ 3× baseline and ≤ 1500 ms`);
    const f = frameStats(frames);
    console.log(
      `interaction (wheel zoom, pan, hover; ${frames.length} painted of 100): median frame ${fmt(f.median)}, p95 ${fmt(f.p95)}  (targets ≤ 16 ms, ≤ 33 ms)`,
    );
    console.log(
      `views (step + its longest task in ms: ${views.steps.join(', ')}): longest main-thread task ${fmt(views.longest)}, ${views.count} tasks over 50 ms  (target ≤ 100 ms)`,
    );
    const readyPlain = median(plain.map((a) => a.ready));
    const readySym = median(symbolized.map((a) => a.ready));
    const runs = (xs: { ready: number }[]) => xs.map((a) => a.ready.toFixed(0)).join(', ');
    console.log(
      `symbolizing against a ${ELF_SYMBOLS / 1000}k-symbol binary adds: ${fmt(readySym - readyPlain)} (ready ${fmt(readySym)} vs ${fmt(readyPlain)} without)  (target ≤ 1000 ms)`,
    );
    console.log(`  drop → ready per run, ms: with the binary ${runs(symbolized)}; without ${runs(plain)}`);
    console.log(
      `  worker with vs without the binary: fold ${fmt(median(symbolized.map((a) => a.fold)))} vs ${fmt(median(plain.map((a) => a.fold)))}, tree ${fmt(median(symbolized.map((a) => a.tree)))} vs ${fmt(median(plain.map((a) => a.tree)))}, parse ${fmt(median(symbolized.map((a) => a.parse)))} vs ${fmt(median(plain.map((a) => a.parse)))}  (${(statSync(ELF).size / 1048576).toFixed(1)} MB ELF; the rest of the difference is reading it, the demangler's load, the symbol table)`,
    );
    if (TRACE) summarizeTrace(`${OUT}/trace.json`);
  };
}

/**
 * A comparison of two profiles: each run opens the first and compares it with the second; the
 * ratio is to the same runs' drop → full call tree of the first. Then the interactions on the
 * differential graph the last run painted.
 */
async function benchDiff(fresh: () => Promise<Page>): Promise<() => void> {
  const opens: Open[] = [];
  const diffs: Awaited<ReturnType<typeof compareInApp>>[] = [];
  let page: Page | undefined;
  for (let r = 0; r < RUNS; r++) {
    page = await fresh();
    opens.push(await openInApp(page));
    diffs.push(await compareInApp(page, PROFILE_B));
  }
  const frames = page ? ((await page.evaluate(INTERACTIONS)) as number[]) : [];
  return () => {
    const ready = median(opens.map((a) => a.ready));
    const painted = median(diffs.map((d) => d.painted));
    const f = frameStats(frames);
    console.log(
      `diff: ${PROFILE} compared with ${PROFILE_B} (${(statSync(PROFILE_B).size / 1048576).toFixed(1)} MB, a tenth of the records changed), ${RUNS} runs, medians`,
    );
    console.log(`  opening the first, drop → full call tree:             ${fmt(ready)}  ${mem(opens)}`);
    console.log(
      `  compare → differential graph painted:                ${fmt(painted)}  (${(painted / ready).toFixed(2)}× opening one; target ≤ 2×)  ${mem(diffs)}`,
    );
    console.log(
      `  per run, ms: open ${opens.map((a) => a.ready.toFixed(0)).join(', ')}; compare ${diffs.map((d) => d.painted.toFixed(0)).join(', ')}`,
    );
    console.log(
      `  interaction on the differential graph (${frames.length} painted of 100): median frame ${fmt(f.median)}, p95 ${fmt(f.p95)}  (targets ≤ 16 ms, ≤ 33 ms)`,
    );
  };
}

/** The gperftools file opened, only: for the large sizes, where a run takes tens of seconds. */
async function benchOpen(fresh: () => Promise<Page>): Promise<() => void> {
  const opens: Open[] = [];
  const base: number[] = [];
  let views: Awaited<ReturnType<typeof viewLongTasks>> | null = null;
  for (let r = 0; r < RUNS; r++) {
    const page = await fresh();
    opens.push(await openInApp(page));
    if (r === RUNS - 1) views = await viewsProfiled(page);
    // Past 2 GiB Chromium cannot read a file into one buffer: no baseline (the app samples it).
    base.push(await baseline(page).catch(() => Number.NaN));
  }
  return () => {
    const b = median(base);
    const paint = median(opens.map((a) => a.paint));
    const ready = median(opens.map((a) => a.ready));
    const mb = statSync(PROFILE).size / 1048576;
    const peak = median(opens.map((a) => a.peakMB));
    console.log(`open: ${PROFILE} (${mb.toFixed(0)} MB), ${RUNS} runs, medians`);
    console.log(
      `  baseline (read + transfer + hash every stack): ${Number.isNaN(b) ? 'none (the page cannot read the file into one buffer)' : fmt(b)}`,
    );
    console.log(`  drop → first paint: ${fmt(paint)} (${(paint / b).toFixed(2)}× baseline; target ≤ 2×)`);
    console.log(
      `  drop → full call tree + table: ${fmt(ready)} (${(ready / paint).toFixed(2)}× first paint; target ≤ 2×); worker parse / fold / tree ${fmt(median(opens.map((a) => a.parse)))} / ${fmt(median(opens.map((a) => a.fold)))} / ${fmt(median(opens.map((a) => a.tree)))}`,
    );
    console.log(
      `  per run, first paint / full tree (ratio): ${opens.map((o) => `${o.paint.toFixed(0)} / ${o.ready.toFixed(0)} (${(o.ready / o.paint).toFixed(2)}×)`).join(', ')}`,
    );
    console.log(`  ${mem(opens)}: ${(peak / mb).toFixed(1)}× the file (target ≤ 2×)`);
    if (views)
      console.log(
        `  views (step + its longest task in ms: ${views.steps.join(', ')}): longest main-thread task ${fmt(views.longest)} (target ≤ 100 ms)`,
      );
  };
}

/** Long tasks from now on, recorded in the page (window.__viewTasks). */
const WATCH_TASKS = `(() => {
  window.__viewTasks = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__viewTasks.push(e.duration); })
    .observe({ type: 'longtask' });
})()`;
/** The longest task since the last call (0 without one), and forgets them. */
const TAKE_LONGEST = `(() => { const t = window.__viewTasks; window.__viewTasks = []; return t.length ? Math.max(...t) : 0; })()`;

/**
 * Scrolls the call tree down by a screen's third per frame for 120 frames: the frame times (rAF to
 * rAF) and how many rows it went through.
 */
const SCROLL_TREE = `(async () => {
  const el = document.querySelector('.calltree-scroll');
  const times = [];
  let last = await new Promise((r) => requestAnimationFrame(r));
  for (let i = 0; i < 120; i++) {
    el.scrollTop += el.clientHeight / 3;
    const now = await new Promise((r) => requestAnimationFrame(r));
    times.push(now - last);
    last = now;
  }
  return { times, top: el.scrollTop };
})()`;

/**
 * The views of issue 30 on the profile symbolized by the 100k-symbol binary, at Frames = functions: the call graph drawn
 * (the Call graph tab clicked → its SVG in the page: the derivation in the worker, the layout in
 * its own worker), the call tree expanded (`*` on its root: ~20k rows) and scrolled, and the
 * disassembly of the heaviest function; each with the page's longest main-thread task.
 */
async function benchViews(fresh: () => Promise<Page>): Promise<() => void> {
  const graph: { ms: number; longest: number; nodes: number }[] = [];
  const tree: { expand: number; longest: number; frames: number[]; rows: number }[] = [];
  const asm: { ms: number; longest: number }[] = [];
  const opens: Open[] = [];
  for (let r = 0; r < RUNS; r++) {
    const page = await fresh();
    opens.push(await openInApp(page, [PROFILE, ELF], ''));
    await page.evaluate(WATCH_TASKS);
    const tab = (name: string) => page.getByRole('tablist', { name: 'View' }).getByRole('tab', { name });
    // The call graph: from the click to pprof's nodes in the SVG.
    const t0 = (await page.evaluate('performance.now()')) as number;
    await tab('Call graph').click();
    const drawn = (await (
      await page.waitForFunction(
        () => {
          const n = document.querySelectorAll('[data-testid="call-graph-svg"] g.node').length;
          return n > 1 ? [performance.now(), n] : null;
        },
        null,
        { timeout: 120_000, polling: 'raf' },
      )
    ).jsonValue()) as [number, number];
    graph.push({
      ms: drawn[0] - t0,
      longest: (await page.evaluate(TAKE_LONGEST)) as number,
      nodes: drawn[1],
    });
    // The call tree: everything below the root opened, then scrolled.
    await tab('Call tree').click();
    const rows = page.getByTestId('call-tree').locator('tbody tr[aria-rowindex]');
    await rows.first().click();
    const before = await rows.count();
    const t1 = (await page.evaluate('performance.now()')) as number;
    await page.keyboard.press('*');
    await page.waitForFunction(
      (n) =>
        Number(document.querySelector('[data-testid="call-tree"] table')?.getAttribute('aria-rowcount')) > n,
      before + 1,
    );
    const expand = ((await page.evaluate('performance.now()')) as number) - t1;
    const total =
      Number(await page.getByTestId('call-tree').locator('table').getAttribute('aria-rowcount')) - 1;
    const scrolled = (await page.evaluate(SCROLL_TREE)) as { times: number[] };
    tree.push({
      expand,
      longest: (await page.evaluate(TAKE_LONGEST)) as number,
      frames: scrolled.times,
      rows: total,
    });
    // The heaviest function disassembled (the table's first row of the binary's code).
    await tab('Flame graph').click();
    await page.locator('.ftable-scroll').evaluate((el) => {
      el.scrollTop = 0;
    });
    await page.locator('.ftable tbody tr[aria-rowindex]', { hasText: 'bench' }).first().click();
    const t2 = (await page.evaluate('performance.now()')) as number;
    await page.getByRole('region', { name: 'Source' }).getByRole('tab', { name: 'Assembly' }).click();
    await page.getByTestId('asm-instructions').first().waitFor({ timeout: 120_000 });
    asm.push({
      ms: ((await page.evaluate('performance.now()')) as number) - t2,
      longest: (await page.evaluate(TAKE_LONGEST)) as number,
    });
  }
  return () => {
    const mb = statSync(PROFILE).size / 1048576;
    console.log(`views: ${PROFILE} (${mb.toFixed(0)} MB) with its 100k-symbol binary, ${RUNS} runs, medians`);
    console.log(`  (opened: drop → full tree ${fmt(median(opens.map((o) => o.ready)))})`);
    console.log(
      `  call graph: tab clicked → drawn ${fmt(median(graph.map((g) => g.ms)))} (target ≤ 2000 ms; ${graph.map((g) => g.ms.toFixed(0)).join(', ')}), ${graph[0]?.nodes ?? 0} nodes; longest main-thread task ${fmt(Math.max(...graph.map((g) => g.longest)))}`,
    );
    const frames = tree.flatMap((t) => t.frames);
    const f = frameStats(frames);
    console.log(
      `  call tree: * (open all below the root) → ${tree[0]?.rows ?? 0} rows in ${fmt(median(tree.map((t) => t.expand)))}; scrolling a third of a screen a frame: median frame ${fmt(f.median)}, p95 ${fmt(f.p95)} (targets ≤ 16 ms, ≤ 33 ms); longest main-thread task ${fmt(Math.max(...tree.map((t) => t.longest)))}`,
    );
    console.log(
      `  disassembly of the heaviest function: ${fmt(median(asm.map((a) => a.ms)))}; longest main-thread task ${fmt(Math.max(...asm.map((a) => a.longest)))} (target ≤ 100 ms)`,
    );
  };
}

/**
 * In node, before the browser: the profile's addresses in the binary's mapping, how many the -g
 * binary gives file:line (DWARF: lookupFrames) and inline frames for, how many its stripped copy
 * names. Throws unless DWARF answers (nearly) every one: else the bench would time nothing.
 */
function dwarfCoverage(): string {
  const raw = parse(new Uint8Array(readFileSync(DWARF_PROFILE)), 'bench.prof').raw;
  const withDebug = symbolize(raw, [{ name: 'bench', bytes: new Uint8Array(readFileSync(DWARF_BIN)) }], {
    mangled: true,
  })!.symbolizer;
  const stripped = symbolize(raw, [{ name: 'bench', bytes: new Uint8Array(readFileSync(NODEBUG_BIN)) }], {
    mangled: true,
  })!.symbolizer;
  const map = raw.meta.mappings.find((m) => m.path.endsWith('/bench'));
  if (!map) throw new Error(`${DWARF_PROFILE}: no mapping of bench`);
  let inBin = 0;
  let withLines = 0;
  let frames = 0;
  let named = 0;
  let namedWithLines = 0;
  const { addrHi, addrLo, hasAddr, count } = raw.locations;
  for (let i = 0; i < count; i++) {
    if (!hasAddr[i]) continue;
    const a = (BigInt(addrHi[i]) << 32n) | BigInt(addrLo[i]);
    if (a < map.start || a >= map.end) continue;
    inBin++;
    const f = withDebug.lookupFrames!(addrHi[i], addrLo[i]);
    const lines = f?.some((x) => x.line !== undefined) ?? false;
    if (lines) {
      withLines++;
      frames += f!.length;
    }
    if (stripped.lookup(addrHi[i], addrLo[i]) !== null) {
      named++;
      if (lines) namedWithLines++;
    }
  }
  // The synthetic sites are spread over the code without regard to instructions: a few fall in
  // the alignment padding between functions, which neither symbols nor DWARF cover.
  if (named < inBin * 0.9 || namedWithLines < named * 0.99)
    throw new Error(
      `of ${inBin} addresses in bench, the symbols name ${named} and DWARF gives file:line to ${namedWithLines} of those: the bench would not measure DWARF`,
    );
  return `${inBin} distinct addresses in bench: the stripped copy's symbols name ${named} (the others are padding between functions); DWARF gives file:line to ${withLines} (${namedWithLines} of the named; ${(frames / withLines).toFixed(1)} frames each, inlined included)`;
}

/** DWARF lines and inlines vs ELF symbols only: the same profile and binary, paired runs. */
async function benchDwarf(fresh: () => Promise<Page>, gran: string, coverage: string): Promise<() => void> {
  const withDwarf: Open[] = [];
  const symbolsOnly: Open[] = [];
  let rows = 0;
  const openWith = async (bin: string, into: Open[]) => {
    const page = await fresh();
    into.push(await openInApp(page, [DWARF_PROFILE, bin], gran === 'functions' ? '' : `#gran=${gran}`));
    const ok = await page.locator('section[aria-label="Symbols"] li.ok').allInnerTexts();
    if (!ok.some((t) => t.includes('from bench')))
      throw new Error(`the binary did not symbolize the profile (Symbols panel: ${JSON.stringify(ok)})`);
    // Frames only DWARF gives: inlined `deep<N>`, or at lines granularity `function tuN.cpp:LINE`.
    await page.getByPlaceholder('Filter functions').fill(gran === 'lines' ? '.cpp:' : 'deep');
    const found = await page
      .locator('.ftable tbody td.fn')
      .first()
      .waitFor({ timeout: bin === DWARF_BIN ? 10_000 : 2_000 })
      .then(() => true)
      .catch(() => false);
    if (found !== (bin === DWARF_BIN))
      throw new Error(bin === DWARF_BIN ? 'no DWARF frames in the table' : 'DWARF frames without DWARF');
    if (found) rows = await page.locator('.ftable tbody td.fn').count();
  };
  for (let r = 0; r < RUNS; r++) {
    if (r % 2) await openWith(DWARF_BIN, withDwarf);
    await openWith(NODEBUG_BIN, symbolsOnly);
    if (r % 2 === 0) await openWith(DWARF_BIN, withDwarf);
  }
  return () => {
    const debugMB = statSync(DWARF_BIN).size / 1048576;
    const a = median(withDwarf.map((x) => x.ready));
    const b = median(symbolsOnly.map((x) => x.ready));
    const stages = (xs: Open[]) =>
      `${fmt(median(xs.map((x) => x.parse)))} / ${fmt(median(xs.map((x) => x.fold)))} / ${fmt(median(xs.map((x) => x.tree)))}`;
    console.log(
      `dwarf: ${DWARF_PROFILE} (${(statSync(DWARF_PROFILE).size / 1048576).toFixed(0)} MB) at granularity ${gran} with ${DWARF_DIR}'s -g binary (${debugMB.toFixed(0)} MB file) vs its --strip-debug copy, ${RUNS} runs, medians`,
    );
    console.log(`  ${coverage}`);
    console.log(
      `  drop → full call tree: with DWARF ${fmt(a)}, ELF symbols only ${fmt(b)}: DWARF adds ${fmt(a - b)} (target ≤ 2000 ms)  [per run: ${withDwarf.map((x) => x.ready.toFixed(0)).join(', ')} vs ${symbolsOnly.map((x) => x.ready.toFixed(0)).join(', ')}]`,
    );
    console.log(
      `  worker parse / fold (symbolize + fold) / tree: ${stages(withDwarf)} vs ${stages(symbolsOnly)}; ${rows} table rows in view are DWARF's; with DWARF ${mem(withDwarf)}; symbols only ${mem(symbolsOnly)}`,
    );
  };
}

/** One format part's medians, for the table printed at the end (the README's). */
interface FormatRow {
  label: string;
  fileMB: number;
  floor: number;
  paint: number;
  ready: number;
  peakMB: number;
  peer?: number;
}
const formatRows: FormatRow[] = [];
/** How long speedscope is given to draw a file (its pprof import of the bench's file is slow). */
const PEER_TIMEOUT_MS = Number(process.env.BENCH_PEER_TIMEOUT_S ?? 300) * 1000;

/**
 * speedscope's release build (the devDependency) served from this process on a free port; null
 * when the package is not installed.
 */
async function serveSpeedscope(): Promise<{ url: string; stop: () => void } | null> {
  let dir: string;
  try {
    dir = join(dirname(createRequire(import.meta.url).resolve('speedscope/package.json')), 'dist/release');
  } catch {
    return null;
  }
  const types: Record<string, string> = {
    '.html': 'text/html',
    '.js': 'text/javascript',
    '.css': 'text/css',
    '.wasm': 'application/wasm',
    '.png': 'image/png',
    '.json': 'application/json',
  };
  const server = createServer((req, res) => {
    const name = (req.url ?? '/').split('?')[0].replace(/^\/+/, '') || 'index.html';
    const path = join(dir, name);
    if (!path.startsWith(dir) || !existsSync(path) || statSync(path).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream' });
    res.end(readFileSync(path));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, stop: () => server.close() };
}

/**
 * Another format: drop → first paint next to its floor in a worker, each run paired; with
 * BENCH_PEERS=1 and `peer`, speedscope's first draw of the same file in each run too.
 */
async function benchFormat(
  fresh: () => Promise<Page>,
  label: string,
  file: string,
  floorSrc: string,
  floorWhat: string,
  target = 1.5,
  peer: { url: string } | null = null,
) {
  const opens: Open[] = [];
  const floors: Awaited<ReturnType<typeof floorInPage>>[] = [];
  const peers: SpeedscopeOpen[] = [];
  for (let r = 0; r < RUNS; r++) {
    if (peer && r % 2 === 1)
      peers.push(await openInSpeedscope(await fresh(), file, peer.url, PEER_TIMEOUT_MS));
    const page = await fresh();
    const traced = TRACE && r === RUNS - 1;
    const browser = page.context().browser();
    if (traced && browser) {
      await browser.startTracing(page, {
        path: `${OUT}/trace.json`,
        categories: ['devtools.timeline', 'blink.user_timing', 'v8', 'disabled-by-default-devtools.timeline'],
      });
    }
    opens.push(await openInApp(page, [file]));
    if (traced && browser) await browser.stopTracing();
    floors.push(await floorInPage(page, file, floorSrc));
    if (peer && r % 2 === 0)
      peers.push(await openInSpeedscope(await fresh(), file, peer.url, PEER_TIMEOUT_MS));
  }
  return () => {
    const floor = median(floors.map((x) => x.total));
    const paint = median(opens.map((a) => a.paint));
    const ready = median(opens.map((a) => a.ready));
    const parts = Object.keys(floors[0].parts)
      .map((k) => `${k} ${fmt(median(floors.map((x) => x.parts[k])))}`)
      .join(', ');
    const fileMB = statSync(file).size / 1048576;
    console.log(`${label}: ${file} (${fileMB.toFixed(1)} MB file), ${RUNS} runs, medians`);
    console.log(`  floor (${floorWhat}):  ${fmt(floor)}  (${parts})`);
    console.log(
      `  drop → first paint:  ${fmt(paint)}  (${(paint / floor).toFixed(2)}× floor; target ≤ ${target}×)  ${mem(opens)}  [per run: ${opens.map((o) => o.paint.toFixed(0)).join(', ')}; floors ${floors.map((f) => f.total.toFixed(0)).join(', ')}]`,
    );
    console.log(
      `  drop → full call tree: ${fmt(ready)}; worker parse / fold / tree ${fmt(median(opens.map((a) => a.parse)))} / ${fmt(median(opens.map((a) => a.fold)))} / ${fmt(median(opens.map((a) => a.tree)))}`,
    );
    const drawn = peers.flatMap((x) => (x.ms === null ? [] : [x.ms]));
    if (peer)
      console.log(
        drawn.length > 0
          ? `  speedscope ${speedscopeVersion()}, file chosen → first draw: ${fmt(median(drawn))} (${(median(drawn) / paint).toFixed(1)}× our first paint)  [per run: ${speedscopeRuns(peers)}]`
          : `  speedscope: drew nothing  [per run: ${speedscopeRuns(peers)}]`,
      );
    formatRows.push({
      label,
      fileMB,
      floor,
      paint,
      ready,
      peakMB: median(opens.map((o) => o.peakMB)),
      ...(drawn.length > 0 && { peer: median(drawn) }),
    });
    if (TRACE) summarizeTrace(`${OUT}/trace.json`);
  };
}

/** speedscope's open of a file: drawn (ms), or why not; its own import time when it logged it. */
interface SpeedscopeOpen {
  ms: number | null;
  importMs: number | null;
  /** Why nothing was drawn: speedscope's error, the time limit, or the renderer crashed (out of memory). */
  failed: string | null;
}

/**
 * speedscope opening `file` (its file input, as its Browse button): the time from choosing the file
 * to its title naming the profile (set when the import is done and the flame chart is first
 * rendered), then two animation frames: its first draw. An error it shows, a renderer that crashes
 * (out of memory on a large file) and `timeoutMs` without a draw are results too, with the import
 * time speedscope logged before it (`import: N ms`).
 */
async function openInSpeedscope(
  page: Page,
  file: string,
  url: string,
  timeoutMs = 1_200_000,
): Promise<SpeedscopeOpen> {
  let importMs: number | null = null;
  page.on('console', (m) => {
    const t = /^import: ([\d.]+) ms$/.exec(m.text());
    if (t) importMs = Number(t[1]);
  });
  await page.goto(`${url}index.html`);
  await page.waitForLoadState('networkidle');
  await page.evaluate(`(() => {
    window.__loaded = new Promise((resolve) => {
      new MutationObserver(() => {
        if (!document.title.endsWith(' - speedscope')) return;
        requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now())));
      }).observe(document.querySelector('title'), { childList: true, subtree: true, characterData: true });
    });
    document.getElementById('file').addEventListener('change', () => { window.__chosen = performance.now(); }, { capture: true });
  })()`);
  const chosen = Date.now();
  const after = () => `after ${((Date.now() - chosen) / 1000).toFixed(0)} s`;
  await page.setInputFiles('#file', file);
  const drawn = page.evaluate('window.__loaded.then((t) => t - window.__chosen)') as Promise<number>;
  const said = page
    .getByText(/Something went wrong|Unrecognized format|Failed to/i)
    .first()
    .waitFor({ timeout: timeoutMs })
    .then(
      () => 'it said it failed',
      () => 'nothing drawn in time',
    );
  try {
    const r = await Promise.race([drawn, said]);
    return typeof r === 'number'
      ? { ms: r, importMs, failed: null }
      : { ms: null, importMs, failed: `${r} ${after()}` };
  } catch (e) {
    const why = e instanceof Error ? e.message.split('\n')[0] : String(e);
    return { ms: null, importMs, failed: `${why} ${after()}` };
  } finally {
    await page.close().catch(() => undefined);
  }
}

/** Each speedscope open of a part, for its line: the time, or why nothing was drawn. */
function speedscopeRuns(opens: SpeedscopeOpen[]): string {
  return opens
    .map((x) =>
      x.ms !== null
        ? `${x.ms.toFixed(0)} ms`
        : `${x.failed}${x.importMs !== null ? `; its import had taken ${fmt(x.importMs)}` : ''}`,
    )
    .join(', ');
}

/**
 * The longest main-thread tasks while time is explored on an open perf.data: a range dragged on
 * the timeline, zoomed into, the breadcrumb back; the flame chart tab, wheel zooms, drags.
 */
async function timeLongTasks(page: Page): Promise<{ longest: number; steps: string[] }> {
  const {
    steps,
    settle,
    tasks: all,
  } = await watchLongTasks(
    page,
    400,
    (what, longest) => `${what} ${longest === null ? '0' : longest.toFixed(0)}`,
  );
  const drag = async (box: { x: number; y: number; width: number }, y: number, a: number, b: number) => {
    await page.mouse.move(box.x + box.width * a, y);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + box.width * (a + ((b - a) * i) / 10), y);
    await page.mouse.up();
  };
  const timeline = page.getByTestId('timeline-canvas');
  const tl = (await timeline.boundingBox())!;
  for (let i = 0; i < 20; i++)
    await page.mouse.move(tl.x + tl.width * (0.1 + i * 0.04), tl.y + 20 + 26 * 0.5);
  await settle('hover');
  await drag(tl, tl.y + 20 + 13, 0.3, 0.6);
  await settle('select');
  await page.getByRole('button', { name: 'Zoom into the selection' }).click();
  await settle('zoom in');
  await drag(tl, tl.y + 20 + 13, 0.2, 0.4);
  await settle('select again');
  await page.getByTestId('timeline-crumbs').getByRole('button').first().click();
  await settle('whole profile');
  await page.getByRole('tab', { name: 'Flame chart' }).click();
  const chart = page.getByTestId('flamechart-canvas');
  await chart.waitFor();
  await settle('flame chart');
  const fc = (await chart.boundingBox())!;
  await page.mouse.move(fc.x + fc.width * 0.4, fc.y + 60);
  for (let i = 0; i < 12; i++) await page.mouse.wheel(0, -240);
  await settle('wheel zoom');
  await drag(fc, fc.y + 60, 0.7, 0.2);
  await settle('pan');
  for (let i = 0; i < 12; i++) await page.mouse.wheel(0, 240);
  await settle('wheel out');
  const tasks = await all();
  return { longest: tasks.length ? Math.max(...tasks) : 0, steps };
}

/** A real perf.data: first paint vs its floor, speedscope on its perf script text, time's long tasks. */
async function benchPerfData(fresh: () => Promise<Page>): Promise<() => void> {
  const opens: Open[] = [];
  const floors: Awaited<ReturnType<typeof floorInPage>>[] = [];
  const speedscope: SpeedscopeOpen[] = [];
  let time: Awaited<ReturnType<typeof timeLongTasks>> | null = null;
  const server = PERFDATA_SPEEDSCOPE ? await serveSpeedscope() : null;
  if (PERFDATA_SPEEDSCOPE && server === null)
    throw new Error('the perfdata part needs speedscope (npm install; or BENCH_SPEEDSCOPE=0)');
  try {
    for (let r = 0; r < RUNS; r++) {
      const page = await fresh();
      opens.push(await openInApp(page, [PERFDATA.data, PERFDATA.prog], ''));
      if (r === RUNS - 1) time = await timeLongTasks(page);
      floors.push(await floorInPage(page, PERFDATA.data, PERFDATA_FLOOR_WORKER));
      if (server) speedscope.push(await openInSpeedscope(await fresh(), PERFDATA.text, server.url));
    }
  } finally {
    server?.stop();
  }
  return () => {
    const floor = median(floors.map((x) => x.total));
    const paint = median(opens.map((a) => a.paint));
    const painted = speedscope.flatMap((x) => (x.ms === null ? [] : [x.ms]));
    const ss = painted.length > 0 ? median(painted) : null;
    const parts = Object.keys(floors[0].parts)
      .map((k) => `${k} ${fmt(median(floors.map((x) => x.parts[k])))}`)
      .join(', ');
    console.log(
      `perf.data: ${PERFDATA.data} (${(statSync(PERFDATA.data).size / 1048576).toFixed(0)} MB) with its program, ${RUNS} runs, medians`,
    );
    console.log(`  floor (read + transfer + walk the records, hash each sample): ${fmt(floor)}  (${parts})`);
    console.log(
      `  drop → first paint: ${fmt(paint)}  (${(paint / floor).toFixed(2)}× floor; target ≤ 2×)  ${mem(opens)}`,
    );
    console.log(
      `  drop → full call tree: ${fmt(median(opens.map((a) => a.ready)))}; worker parse / fold / tree ${fmt(median(opens.map((a) => a.parse)))} / ${fmt(median(opens.map((a) => a.fold)))} / ${fmt(median(opens.map((a) => a.tree)))}`,
    );
    const runs = speedscopeRuns(speedscope);
    if (PERFDATA_SPEEDSCOPE)
      console.log(
        `  speedscope ${speedscopeVersion()}, the same recording as perf script text (${(statSync(PERFDATA.text).size / 1048576).toFixed(0)} MB): file chosen → painted ${ss === null ? 'never' : `${fmt(ss)}  (${(ss / paint).toFixed(1)}× ours)`}  [per run: ${runs}]`,
      );
    if (time)
      console.log(
        `  time (step + its longest task in ms: ${time.steps.join(', ')}): longest main-thread task ${fmt(time.longest)} (target ≤ 100 ms)`,
      );
  };
}

function speedscopeVersion(): string {
  const pkg = createRequire(import.meta.url).resolve('speedscope/package.json');
  return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
}

/** The format parts' figures as one Markdown table (the README's). */
function printFormatTable(peers: boolean): void {
  if (formatRows.length === 0) return;
  console.log(
    '\n| format | file | floor | first paint | ratio | full tree | peak RSS |' +
      (peers ? ' speedscope first draw | speedscope ÷ first paint |' : ''),
  );
  console.log(`|---|---|---|---|---|---|---|${peers ? '---|---|' : ''}`);
  for (const r of formatRows) {
    const peer = peers
      ? ` ${r.peer !== undefined ? fmt(r.peer) : 'n/a'} | ${r.peer !== undefined ? `${(r.peer / r.paint).toFixed(1)}×` : 'n/a'} |`
      : '';
    console.log(
      `| ${r.label} | ${r.fileMB.toFixed(0)} MB | ${fmt(r.floor)} | ${fmt(r.paint)} | ${(r.paint / r.floor).toFixed(2)}× | ${fmt(r.ready)} | ${r.peakMB.toFixed(0)} MB |${peer}`,
    );
  }
}

/** writeFileSync for files past 2 GiB (one write call takes at most that). */
function writeLarge(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, 'w');
  try {
    for (let at = 0; at < bytes.length; at += 1 << 30)
      writeSync(fd, bytes.subarray(at, Math.min(bytes.length, at + (1 << 30))));
  } finally {
    closeSync(fd);
  }
}

async function main() {
  const exe = chromiumPath();
  if (!exe) {
    console.error(NO_BROWSER_MESSAGE);
    process.exit(1);
  }
  mkdirSync(OUT, { recursive: true });
  if (
    (ONLY.has('gperf') || ONLY.has('diff') || ONLY.has('open') || ONLY.has('views')) &&
    !existsSync(PROFILE)
  ) {
    console.log(`generating ${PROFILE} …`);
    writeLarge(PROFILE, makeSyntheticProfile(MB * 1024 * 1024, 42));
  }
  if (ONLY.has('diff') && !existsSync(PROFILE_B)) {
    console.log(`generating ${PROFILE_B} …`);
    writeFileSync(PROFILE_B, makeSyntheticProfile(MB * 1024 * 1024, 42, { seed: 43, fraction: 0.1 }));
  }
  if ((ONLY.has('gperf') || ONLY.has('views')) && !existsSync(ELF)) {
    console.log(`generating ${ELF} (${ELF_SYMBOLS} symbols) …`);
    writeFileSync(ELF, makeSyntheticElf(benchElfOptions(ELF_SYMBOLS)));
  }
  if (ONLY.has('pprof') && !existsSync(PPROF)) {
    console.log(`generating ${PPROF} …`);
    writeFileSync(PPROF, gzipSync(makeSyntheticPprof(Math.round(MB * 1e6), 1), { level: 6 }));
  }
  let dwarfCovered = '';
  if (ONLY.has('dwarf')) {
    const { bin, built } = await ensureDwarfBench(OUT, 4);
    if (built || !existsSync(DWARF_BIN) || !existsSync(NODEBUG_BIN)) {
      mkdirSync(dirname(DWARF_BIN), { recursive: true });
      mkdirSync(dirname(NODEBUG_BIN), { recursive: true });
      copyFileSync(bin, DWARF_BIN);
      execSync(`objcopy --strip-debug ${bin} ${NODEBUG_BIN}`);
    }
  }
  if (ONLY.has('dwarf') && !existsSync(DWARF_PROFILE)) {
    // The profile's main-binary functions spread over the -g binary's code (mapped at file
    // offset 0x1000, as the synthetic profile's maps say).
    const elf = readElf(new Uint8Array(readFileSync(DWARF_BIN)), 'bench');
    const text = elf.loadSegments.find((sg) => sg.flags & 1)!;
    const textSize = Math.min(0x400000, text.offset + text.filesz - 0x1000);
    console.log(`generating ${DWARF_PROFILE} (over ${textSize} bytes of code) …`);
    writeLarge(DWARF_PROFILE, makeSyntheticProfile(MB * 1024 * 1024, 42, undefined, textSize));
  }
  if (ONLY.has('dwarf')) {
    dwarfCovered = dwarfCoverage();
    console.log(`dwarf: ${dwarfCovered}`);
  }
  if (ONLY.has('short') && !existsSync(SHORT)) {
    console.log(`generating ${SHORT} …`);
    writeFileSync(SHORT, makeShortRecordsProfile(MB * 1024 * 1024, 42));
  }
  if (ONLY.has('perfdata')) ensurePerfData(PERFDATA_MB);
  if (ONLY.has('perf') && !existsSync(PERF)) {
    console.log(`generating ${PERF} …`);
    makeSyntheticPerfScript(PERF, MB);
  }
  for (const id of TEXT_BENCH_IDS) {
    const file = textBenchFile(OUT, id, MB);
    if (!ONLY.has(id) || existsSync(file)) continue;
    console.log(`generating ${file} …`);
    writeLarge(file, makeTextBenchInput(id, MB * 1024 * 1024));
  }
  if (process.env.BENCH_DIST !== undefined && !existsSync(`${DIST}/index.html`))
    throw new Error(`BENCH_DIST=${DIST}: no build there`);
  if (
    process.env.BENCH_DIST === undefined &&
    (!existsSync(`${DIST}/index.html`) || process.env.BENCH_BUILD !== '0')
  )
    execSync(`npx vite build --outDir ${DIST} --emptyOutDir${PROFILE_MAIN ? ' --minify false' : ''}`, {
      stdio: 'ignore',
    });
  const stopServer = await servePreview(DIST, PORT);
  let stopPeer: (() => void) | null = null;
  try {
    const browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS });
    const viewport = { width: 1280, height: 800 };
    let page = await browser.newPage({ viewport });
    // The new parts open each run in a new page of its own context: a new renderer process, so
    // its peak RSS is this run's, not what an earlier page left in the process.
    const fresh = async () => {
      await page.close();
      page = await browser.newPage({ viewport });
      return page;
    };
    const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const loadAtStart = load();
    const reports: (() => void)[] = [];
    if (ONLY.has('gperf')) reports.push(await benchGperf(page, browser));
    if (ONLY.has('diff')) reports.push(await benchDiff(fresh));
    const speedscope = PEERS ? await serveSpeedscope() : null;
    if (PEERS && speedscope === null) console.log('BENCH_PEERS: speedscope is not installed (npm install)');
    stopPeer = speedscope?.stop ?? null;
    if (ONLY.has('pprof'))
      reports.push(
        await benchFormat(
          fresh,
          'pprof',
          PPROF,
          PPROF_FLOOR_WORKER,
          'read + transfer + gunzip + varint walk',
          1.5,
          speedscope,
        ),
      );
    if (ONLY.has('perf'))
      reports.push(
        await benchFormat(
          fresh,
          'perf script',
          PERF,
          LINES_FLOOR_WORKER,
          'read + transfer + byte scan of the lines',
          1.5,
          speedscope,
        ),
      );
    const textParts: { id: TextBenchId; label: string; peer: boolean }[] = [
      { id: 'heap', label: 'heap', peer: false },
      { id: 'dcpi', label: 'DCPI', peer: false },
      { id: 'folded', label: 'folded', peer: true },
      { id: 'difffolded', label: 'difffolded', peer: false },
    ];
    for (const { id, label, peer } of textParts) {
      if (!ONLY.has(id)) continue;
      reports.push(
        await benchFormat(
          fresh,
          label,
          textBenchFile(OUT, id, MB),
          id === 'dcpi' ? DCPI_FLOOR_WORKER : LINES_FLOOR_WORKER,
          id === 'dcpi' ? 'read + transfer + sum of every count' : 'read + transfer + byte scan of the lines',
          1.5,
          peer ? speedscope : null,
        ),
      );
    }
    if (ONLY.has('open')) reports.push(await benchOpen(fresh));
    if (ONLY.has('views')) reports.push(await benchViews(fresh));
    if (ONLY.has('perfdata')) reports.push(await benchPerfData(fresh));
    if (ONLY.has('dwarf'))
      for (const g of DWARF_GRANS) reports.push(await benchDwarf(fresh, g, dwarfCovered));
    if (ONLY.has('short'))
      reports.push(
        await benchFormat(
          fresh,
          'gperftools, short records',
          SHORT,
          BASELINE_WORKER,
          'read + transfer + hash each stack',
          2,
        ),
      );
    await browser.close();
    console.log(
      `load average (1, 5, 15 min): ${loadAtStart} at the start, ${load()} at the end (2 cores; ${RUNS} runs)`,
    );
    for (const report of reports) report();
    printFormatTable(speedscope !== null);
  } finally {
    stopServer();
    stopPeer?.();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
