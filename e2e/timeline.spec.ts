// Time, as a person uses it: drop perf.data with its program and libraries, see the timeline above
// the symbolized graph, drag a range on it (the table's totals follow: checked against perf's own
// samples of the same file, `perf script --ns -F …` and `perf script --time`), zoom into it, the
// flame chart of a thread, the range in the link across a reload, two ranges compared as a
// differential flame graph.

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { expect, type Locator, type Page, test } from '@playwright/test';
import { dropFiles, FIXTURES, paintedGraph, SHOTS } from './helpers';

const PD = `${FIXTURES}/perf-data`;
const SYSROOT = `${FIXTURES}/sysroot/usr/lib`;
const FILES = [
  { path: `${PD}/threads.data`, name: 'threads.data' },
  { path: `${PD}/bin/threads`, name: 'threads' },
  { path: `${SYSROOT}/x86_64-linux-gnu/libc.so.6`, name: 'libc.so.6' },
  { path: `${SYSROOT}/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug`, name: 'libc.debug' },
  { path: `${PD}/kallsyms.txt`, name: 'kallsyms.txt' },
];

const text = (name: string) => {
  const bytes = readFileSync(`${PD}/${name}`);
  return (name.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
};

/**
 * perf's samples of threads.data: each one's thread and time (ns, `--ns -F` fields) and frames
 * (perf script, same order).
 */
const SAMPLES = (() => {
  const fields = text('threads.fields.txt')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => /\d+\/(\d+)\s.*\s(\d+)\.(\d{9}):/.exec(l)!);
  const times = fields.map((m) => BigInt(m[2]) * 1_000_000_000n + BigInt(m[3]));
  const blocks = text('threads.perf.txt.gz')
    .split('\n\n')
    .filter((b) => b.trim() !== '');
  expect(blocks.length).toBe(times.length);
  const first = times.reduce((m, t) => (t < m ? t : m));
  return times.map((t, i) => ({
    tid: fields[i][1],
    time: Number(t - first),
    frames: blocks[i]
      .split('\n')
      .slice(1)
      .map((l) => /^\s+[0-9a-f]+ (.*?)(\+0x[0-9a-f]+)? \(/.exec(l)![1]),
  }));
})();

/** Samples of [start, end] (ns since the first) with `fn` on their stack: what the table's Total says. */
const perfTotal = (fn: string, start: number, end: number) =>
  SAMPLES.filter((s) => s.time >= start && s.time <= end && s.frames.includes(fn)).length;

/** Samples in a perf script text with `fn` on their stack. */
const perfTextTotal = (t: string, fn: string) =>
  t.split('\n\n').filter((b) => b.split('\n').some((l) => new RegExp(` ${fn}\\+0x`).test(l))).length;

async function openThreads(page: Page) {
  await page.goto('./');
  await dropFiles(page, FILES);
  await paintedGraph(page);
  await expect(page.getByTestId('timeline-canvas')).toHaveAttribute('data-painted', '4');
  // totals as sample counts, as perf script's samples are counted
  await page.getByRole('combobox', { name: 'Value', exact: true }).selectOption({ label: 'samples (count)' });
  await expect(
    page.getByRole('combobox', { name: 'Value', exact: true }).locator('option:checked'),
  ).toHaveText('samples (count)');
}

/** The table's Total of a function (a count of samples). */
async function tableTotal(page: Page, fn: string): Promise<number> {
  const row = page
    .getByRole('table')
    .locator('tbody tr')
    .filter({ has: page.locator('td.fn', { hasText: new RegExp(`^${fn}$`) }) });
  if ((await row.count()) === 0) return 0;
  const cell = row.locator('td.num').nth(2);
  return Number((await cell.textContent())!.replace(/,/g, ''));
}

/** Drags over the timeline from fraction `a` to `b` of its width. */
async function dragTimeline(canvas: Locator, page: Page, a: number, b: number) {
  const box = (await canvas.boundingBox())!;
  const y = box.y + 20 + 26 * 1.5;
  await page.mouse.move(box.x + box.width * a, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * ((a + b) / 2), y, { steps: 4 });
  await page.mouse.move(box.x + box.width * b, y, { steps: 4 });
  await page.mouse.up();
}

/** The selection the link says (`sel=START-END`), once it says one. */
async function linkedSelection(page: Page): Promise<{ start: number; end: number }> {
  await expect.poll(() => /[#&]sel=(\d+)-(\d+)/.test(new URL(page.url()).hash)).toBe(true);
  const m = /[#&]sel=(\d+)-(\d+)/.exec(new URL(page.url()).hash)!;
  return { start: Number(m[1]), end: Number(m[2]) };
}

const FNS = ['worker', 'mix', '__libc_start_call_main', 'start_thread'];

test('perf.data with its binaries: a symbolized graph and a timeline of its threads; hover shows the stack', async ({
  page,
}) => {
  await openThreads(page);
  const tracks = page.getByRole('list', { name: 'Tracks' }).getByRole('listitem');
  await expect(tracks).toHaveText(['threads 2462', 'hasher 2472', 'summer 2473', 'threads 2474']);
  for (const fn of FNS) expect(await tableTotal(page, fn)).toBe(perfTotal(fn, 0, Number.MAX_SAFE_INTEGER));
  // hover a thread's activity: a sample's stack, leaf first
  const canvas = page.getByTestId('timeline-canvas');
  const box = (await canvas.boundingBox())!;
  const hasher = SAMPLES.find((s) => s.tid === '2472' && s.time > 300e6)!;
  const last = SAMPLES[SAMPLES.length - 1].time;
  await expect
    .poll(async () => {
      // hasher's track is the second; each of its samples stands for the 2 ms before it
      await page.mouse.move(box.x + ((hasher.time - 1e6) / last) * box.width, box.y + 20 + 26 * 1.5);
      return page
        .getByTestId('timeline-tooltip-stack')
        .textContent({ timeout: 1000 })
        .catch(() => '');
    })
    .toMatch(/^mix.*worker.*start_thread/);
  await expect(page.getByTestId('timeline-tooltip')).toContainText('hasher 2472');
  await expect(page.getByTestId('timeline-tooltip')).toContainText(/CPU [01]/);
  await page.screenshot({ path: `${SHOTS}/timeline-hover.png` });
});

test('drag over the timeline: the totals are the range’s; zoom into it; a link’s range is perf script --time’s', async ({
  page,
}) => {
  await openThreads(page);
  const canvas = page.getByTestId('timeline-canvas');
  await dragTimeline(canvas, page, 0.2, 0.55);
  const sel = await linkedSelection(page);
  await expect(page.getByTestId('timeline-selection')).toContainText(/^Selected 0\.\d{3}–0\.\d{3} s/);
  for (const fn of FNS)
    await expect.poll(() => tableTotal(page, fn), { message: fn }).toBe(perfTotal(fn, sel.start, sel.end));
  expect(perfTotal('worker', sel.start, sel.end)).toBeLessThan(perfTotal('worker', 0, 1e12));
  await page.screenshot({ path: `${SHOTS}/timeline-selected.png` });

  // zoom into the selection: the breadcrumb gets it, the timeline's axis is the range's
  await page.getByRole('button', { name: 'Zoom into the selection' }).click();
  const crumbs = page.getByTestId('timeline-crumbs').getByRole('button');
  await expect(crumbs).toHaveCount(2);
  await expect(crumbs.nth(1)).toHaveAttribute('aria-current', 'true');
  await expect(page).toHaveURL(new RegExp(`range=${sel.start}-${sel.end}`));
  for (const fn of FNS) await expect.poll(() => tableTotal(page, fn)).toBe(perfTotal(fn, sel.start, sel.end));
  await page.screenshot({ path: `${SHOTS}/timeline-zoomed.png` });
  await crumbs.first().click();
  await expect(crumbs).toHaveCount(1);
  await expect.poll(() => tableTotal(page, 'worker')).toBe(perfTotal('worker', 0, 1e12));

  // the range perf script --time was given, in the link: the same samples as perf's
  const [first, early] = text('threads.time.txt').trim().split('\n');
  const ns = (t: string) => BigInt(t.replace('.', ''));
  const at = ns(first.split(' ')[1]);
  const [, s, e] = early.split(' ');
  const hash = new URL(page.url()).hash.replace(/&?sel=[^&]*/, '');
  await page.evaluate(
    (h) => {
      location.hash = h;
    },
    `${hash}&sel=${ns(s) - at}-${ns(e) - at}`,
  );
  await expect(page.getByTestId('timeline-selection')).toContainText('Selected 0.075–0.262 s');
  const perf = text('threads.range-early.perf.txt.gz');
  for (const fn of FNS)
    await expect.poll(() => tableTotal(page, fn), { message: fn }).toBe(perfTextTotal(perf, fn));
});

test('the flame chart of a thread: zoom with the wheel and the buttons, click selects the function', async ({
  page,
}) => {
  await openThreads(page);
  await page.getByRole('tab', { name: 'Flame chart' }).click();
  const chart = page.getByTestId('flamechart-canvas');
  await expect(chart).toHaveAttribute('data-painted', /[1-9]/);
  await expect(page.getByTestId('flamechart-track')).toHaveValue('1'); // the heaviest: hasher
  const windowOf = async () => {
    const [a, b] = (await chart.getAttribute('data-window'))!.split('-').map(Number);
    return b - a;
  };
  const whole = await windowOf();
  const box = (await chart.boundingBox())!;
  // around 550 ms, where hasher is busy
  await page.mouse.move(box.x + box.width * 0.73, box.y + 60);
  for (let i = 0; i < 5; i++) await page.mouse.wheel(0, -300);
  await expect.poll(windowOf).toBeLessThan(whole / 4);
  await expect(chart).toHaveAttribute('data-painted', /[1-9]/);
  await page.screenshot({ path: `${SHOTS}/flamechart-zoomed.png` });
  await page.getByRole('button', { name: 'Show the whole range' }).click();
  await expect.poll(windowOf).toBe(whole);
  await page.getByRole('button', { name: 'Zoom in', exact: true }).click();
  await expect.poll(windowOf).toBe(Math.round(whole / 2));
  await page.getByRole('button', { name: 'Show the whole range' }).click();
  // The whole range is the window again (until then the zoomed window's boxes were the ones drawn,
  // and the click below, placed by the window read, landed where the chart was about to change).
  await expect.poll(windowOf).toBe(whole);
  // a box of hasher's second row (worker, under start_thread), a millisecond after one of its
  // samples: a click selects its function in the table too
  await expect
    .poll(async () => (await chart.getAttribute('data-boxes')) === (await chart.getAttribute('data-window')))
    .toBe(true);
  const [w0, w1] = (await chart.getAttribute('data-window'))!.split('-').map(Number);
  const t = SAMPLES.find((x) => x.tid === '2472' && x.time > w0 + (w1 - w0) / 3)!.time + 1e6;
  const at = { x: box.x + ((t - w0) / (w1 - w0)) * box.width, y: box.y + 20 + 9 + 18 };
  await page.mouse.click(at.x, at.y);
  await expect(page.getByRole('table').locator('tbody tr[aria-selected="true"] td.fn')).toHaveText('worker');
  await page.mouse.move(at.x, at.y);
  await expect(page.getByTestId('flamechart-tooltip')).toContainText(/ms from /);
  await page.screenshot({ path: `${SHOTS}/flamechart.png` });
  // all tracks: every thread's samples in one time order, so the main thread's stacks too
  const hasher = Number(await chart.getAttribute('data-painted'));
  await page.getByTestId('flamechart-track').selectOption({ label: 'all tracks' });
  await expect(chart).toHaveAttribute('aria-label', /^Flame chart of all tracks from /);
  await expect.poll(async () => Number(await chart.getAttribute('data-painted'))).toBeGreaterThan(hasher);
  await page.mouse.move(box.x + 2, box.y + 2);
  await page.screenshot({ path: `${SHOTS}/flamechart-all.png` });
});

test('reload keeps the range; two ranges compared are a differential flame graph', async ({ page }) => {
  await openThreads(page);
  const canvas = page.getByTestId('timeline-canvas');
  await dragTimeline(canvas, page, 0.05, 0.4);
  const a = await linkedSelection(page);
  await page.getByRole('button', { name: 'Set as A' }).click();
  await dragTimeline(canvas, page, 0.55, 0.95);
  await expect.poll(async () => (await linkedSelection(page)).start).not.toBe(a.start);
  const b = await linkedSelection(page);
  await page.getByRole('button', { name: 'Set as B' }).click();
  await expect(page).toHaveURL(/[#&]ra=\d+-\d+&rb=\d+-\d+/);
  for (const fn of FNS) await expect.poll(() => tableTotal(page, fn)).toBe(perfTotal(fn, b.start, b.end));

  // a reload opens the workspace with its view: the range, A and B
  await page.reload();
  await paintedGraph(page);
  await expect(page.getByTestId('timeline-selection')).toContainText('Selected');
  for (const fn of FNS)
    await expect.poll(() => tableTotal(page, fn), { message: fn }).toBe(perfTotal(fn, b.start, b.end));

  // compare B with A
  await page.getByRole('button', { name: 'Compare A → B' }).click();
  const graph = await paintedGraph(page);
  await expect(page.getByTestId('main-graph').locator('.fg-title')).toHaveText('Differential flame graph');
  await expect(page.getByTestId('diff-sides')).toContainText(
    /baseline A 0\.\d+–0\.\d+ s of threads\.data → comparison B/,
  );
  const row = page
    .getByRole('table')
    .locator('tbody tr')
    .filter({ has: page.locator('td.fn', { hasText: /^worker$/ }) });
  // Baseline self, Baseline total, Comparison self, Comparison total
  await expect(row.locator('td.num').nth(1)).toHaveText(String(perfTotal('worker', a.start, a.end)));
  await expect(row.locator('td.num').nth(3)).toHaveText(String(perfTotal('worker', b.start, b.end)));
  await expect(graph).toHaveAttribute('aria-label', /^Differential flame graph/);
  await page.screenshot({ path: `${SHOTS}/timeline-compare.png` });
  // swap: A and B exchange
  await page.getByRole('button', { name: '⇄ Swap' }).click();
  await expect(row.locator('td.num').nth(1)).toHaveText(String(perfTotal('worker', b.start, b.end)));
  await page.getByRole('button', { name: 'Close comparison' }).click();
  await expect(page.getByTestId('main-graph').locator('.fg-title')).toHaveText('Flame graph');
});

test('a profile without time stamps says so where the timeline would be', async ({ page }) => {
  await page.goto('./');
  await dropFiles(page, [{ path: `${FIXTURES}/gperf/tiny.prof`, name: 'tiny.prof' }]);
  await paintedGraph(page);
  await expect(page.getByTestId('timeline-none')).toHaveText('Timeline: this profile has no time stamps.');
  await page.getByRole('tab', { name: 'Flame chart' }).click();
  await expect(page.getByTestId('flamechart-none')).toContainText('this profile has no time stamps');
});
