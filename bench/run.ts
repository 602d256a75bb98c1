// `npm run bench`: figures from one run of the built app in headless Chromium, each next to a
// baseline measured in the same run on the same machine. Prints; asserts nothing.
//
//   drop → first paint      performance marks flamelens:file-received → flamelens:first-paint
//   worker parse+fold+tree  the timings the worker reports (shown in the metadata panel too)
//   baseline                read the same file, transfer it to a worker, hash every record's stack

import { execSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { chromium, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath, NO_BROWSER_MESSAGE } from '../e2e/browser';
import { makeSyntheticProfile } from './gen-synthetic';

const MB = Number(process.env.BENCH_MB ?? 100);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PORT = Number(process.env.BENCH_PORT ?? 4391);
const OUT = 'bench/out';
const PROFILE = `${OUT}/synthetic-${MB}mb.prof`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

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
  await page.evaluate(() => {
    const input = document.createElement('input');
    input.type = 'file';
    input.id = 'bench-baseline';
    input.style.display = 'none';
    document.body.append(input);
  });
  await page.setInputFiles('#bench-baseline', PROFILE);
  return page.evaluate(async (src) => {
    const input = document.getElementById('bench-baseline') as HTMLInputElement;
    const file = input.files![0];
    const worker = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
    const t0 = performance.now();
    const buf = await file.arrayBuffer();
    const done = new Promise<number>((resolve) => {
      worker.onmessage = () => resolve(performance.now() - t0);
    });
    worker.postMessage(buf, [buf]);
    const ms = await done;
    worker.terminate();
    input.remove();
    return ms;
  }, BASELINE_WORKER);
}

async function openInApp(page: Page): Promise<{ paint: number; parse: number; fold: number; tree: number }> {
  await page.goto(`http://127.0.0.1:${PORT}/`);
  await page.evaluate(() => performance.clearMarks());
  await page.getByLabel('Open profile').setInputFiles(PROFILE);
  await page.getByRole('img', { name: /Flame graph of/ }).waitFor({ timeout: 120_000 });
  await page.waitForFunction(() => performance.getEntriesByName('flamelens:first-paint').length > 0, null, {
    timeout: 120_000,
  });
  // A string, not a function: tsx's name helpers do not exist in the page.
  return page.evaluate(`(() => {
    const mark = (n) => performance.getEntriesByName(n)[0].startTime;
    const t = JSON.parse(document.querySelector('[data-timings]').getAttribute('data-timings'));
    return {
      paint: mark('flamelens:first-paint') - mark('flamelens:file-received'),
      parse: t.parseMs, fold: t.foldMs, tree: t.treeMs,
    };
  })()`);
}

async function main() {
  const exe = chromiumPath();
  if (!exe) {
    console.error(NO_BROWSER_MESSAGE);
    process.exit(1);
  }
  mkdirSync(OUT, { recursive: true });
  if (!existsSync(PROFILE)) {
    console.log(`generating ${PROFILE} …`);
    writeFileSync(PROFILE, makeSyntheticProfile(MB * 1024 * 1024, 42));
  }
  const bytes = statSync(PROFILE).size;
  if (!existsSync('dist/index.html') || process.env.BENCH_BUILD !== '0')
    execSync('npx vite build', { stdio: 'ignore' });
  const server = spawn(
    'npx',
    ['vite', 'preview', '--host', '127.0.0.1', '--port', String(PORT), '--strictPort'],
    {
      stdio: 'ignore',
      detached: true,
    },
  );
  try {
    for (let i = 0; i < 50; i++) {
      try {
        if ((await fetch(`http://127.0.0.1:${PORT}/`)).ok) break;
      } catch {}
      await new Promise((r) => setTimeout(r, 200));
    }
    const browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const base: number[] = [];
    const app: Awaited<ReturnType<typeof openInApp>>[] = [];
    for (let r = 0; r < RUNS; r++) {
      app.push(await openInApp(page));
      base.push(await baseline(page));
    }
    await browser.close();
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
    console.log(`targets: first paint ≤ 3× baseline and ≤ 1500 ms`);
  } finally {
    if (server.pid) process.kill(-server.pid);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
