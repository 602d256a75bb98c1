// A large gperftools profile paints first from its record headers (the worker's raw preview):
// the flame graph is drawn while the function table says it is being built; then the table fills
// and the graph keeps the same total.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { makeShortRecordsProfile, makeSyntheticProfile } from '../bench/gen-synthetic';
import { makeTextBenchInput } from '../bench/gen-text';
import { parseGperftools } from '../src/core/formats/gperftools';
import { PERFDATA_PREVIEW_FROM } from '../src/core/formats/perfdata-preview';
import { TEXT_PREVIEW_FROM } from '../src/core/formats/text-preview';
import { foldProfile } from '../src/core/model/fold';
import { functionsBySelf, functionTableOf } from '../src/core/model/functions';
import { samplesByMapping } from '../src/core/symbols/modules';
import { frameName } from '../src/core/text/frame-text';
import { formatCount, formatCounted } from '../src/core/text/units';
import { largePipeRecording } from '../test/helpers/perf-oracles';
import { FIXTURES, paintedGraph, ROW, recordWorkerNames, SHOTS } from './helpers';

const PROFILE = 'test-results/raw-preview/synthetic-16mb.prof';
const SHORT = 'test-results/raw-preview/short-records-40mb.prof';
/** threads.pipe.data with its samples repeated past the perf.data preview's threshold. */
const PERF_DATA = 'test-results/raw-preview/threads-32mb.pipe.data';
/** difffolded.pl's two counts per stack, past the size whose first picture is sampled. */
const DIFF_FOLDED = 'test-results/raw-preview/large.difffolded.txt';

test.beforeAll(() => {
  mkdirSync('test-results/raw-preview', { recursive: true });
  // ~2M PCs: above the raw preview's threshold, and big enough that the parse and fold after the
  // preview take long past its first paint.
  writeFileSync(PROFILE, makeSyntheticProfile(16 << 20, 21));
  // ~500k short records over 100k stacks (a server's profile): pictured from a sample first.
  writeFileSync(SHORT, makeShortRecordsProfile(40 << 20, 22));
  writeFileSync(PERF_DATA, largePipeRecording(PERFDATA_PREVIEW_FROM));
  writeFileSync(DIFF_FOLDED, makeTextBenchInput('difffolded', TEXT_PREVIEW_FROM + (4 << 20)));
});

interface Paint {
  painted: number;
  label: string;
  building: boolean;
  /** What the progress bar said then. */
  progress: string;
  /** What the Symbols panel said of the mapped files then. */
  symbols: string;
}

/** Records every paint of the main graph, with what the table and the progress bar showed then. */
async function recordPaints(page: Page): Promise<void> {
  await page.evaluate(() => {
    const paints: Paint[] = [];
    (window as unknown as { paints: Paint[] }).paints = paints;
    new MutationObserver(() => {
      const canvas = document.querySelector<HTMLCanvasElement>('[data-testid="main-graph"] canvas');
      const painted = Number(canvas?.dataset.painted ?? 0);
      if (!canvas || painted === 0) return;
      const table = document.querySelector('[aria-label="Function table"]');
      paints.push({
        painted,
        label: canvas.getAttribute('aria-label') ?? '',
        building: table?.textContent?.includes('Building the function table…') ?? false,
        progress: document.querySelector('.progress')?.textContent ?? '',
        symbols: document.querySelector('[aria-label="Mapped files"]')?.textContent ?? '',
      });
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-painted'] });
  });
}

/** The first paint recordPaints saw, once there is one. */
async function firstPaint(page: Page): Promise<Paint> {
  await page.waitForFunction(() => (window as unknown as { paints: Paint[] }).paints.length > 0);
  return page.evaluate(() => (window as unknown as { paints: Paint[] }).paints[0]);
}

/** Opens `file` at the default view: its first paint, a sampled picture while the table is built. */
async function openSampled(page: Page, file: string): Promise<Paint> {
  await page.goto('./');
  await recordPaints(page);
  await page.getByLabel('Open profile').setInputFiles(file);
  const first = await firstPaint(page);
  expect(first.building).toBe(true);
  expect(first.progress).toMatch(/the graph so far is drawn from 1 in \d+ records/);
  return first;
}

/** The whole file's table in, and the progress bar's note on the sample gone. */
async function wholeFileShown(page: Page, timeout: number): Promise<void> {
  await expect(page.getByTestId('row-count')).toHaveText(/^[1-9][\d,]* functions?$/, { timeout });
  await expect(page.getByRole('status').filter({ hasText: 'drawn from 1 in' })).toHaveCount(0);
}

test('the flame graph paints before the function table is built', async ({ page }) => {
  // One frame per address (the synthetic profile has no binaries: per module it would be a few frames).
  await page.goto('./#gran=addresses');
  await recordPaints(page);
  await page.getByLabel('Open profile').setInputFiles(PROFILE);

  // The first paint: the graph is drawn, the table is still being built.
  const first = await firstPaint(page);
  expect(first.building).toBe(true);
  expect(first.label).toMatch(/of synthetic-16mb\.prof: [\d,]+ samples/);

  // A zoom made now (on the raw preview, or on the coarse tree if that came already) stays on the
  // same frames through the analyses that follow, whose frame tables differ from the preview's.
  const graph = page.getByRole('img', { name: /Flame graph of/ });
  const box = (await graph.boundingBox())!;
  await page.mouse.click(box.x + 40, box.y + box.height - 8 - ROW * 2);
  const crumbs = page.getByRole('navigation', { name: 'Zoom path' }).getByRole('button');
  await expect(crumbs).toHaveCount(4);
  const zoomed = await crumbs.allTextContents();
  expect(zoomed.slice(1)).toEqual(['bench+0x1024', 'libc.so.6+0x27304', 'libc.so.6+0x27249']);

  // Then the table has rows and the graph shows the same samples.
  await expect(page.getByTestId('row-count')).toHaveText(/^[1-9][\d,]* functions?$/, { timeout: 20_000 });
  // (The click selected the zoomed frame: the table scrolled to its row, the first rows drawn are
  // around it.)
  await expect(
    page.getByRole('region', { name: 'Function table' }).locator('tbody tr[aria-rowindex]').first(),
  ).toContainText('bench+0x');
  await expect(page.getByRole('status').filter({ hasText: 'Building the function table' })).toHaveCount(0);
  const canvas = await paintedGraph(page);
  await expect(canvas).toHaveAttribute('aria-label', first.label);
  expect(await crumbs.allTextContents()).toEqual(zoomed);
  // The samples each mapped file holds: counted by the worker after the full analysis (the fold
  // took the parsed stacks over), as they are from the parsed file.
  const parsed = parseGperftools(new Uint8Array(readFileSync(PROFILE)));
  let total = 0;
  for (let s = 0; s < parsed.samples.count; s++) total += parsed.samples.weight[s];
  const pct = (n: number) => `${((100 * n) / total).toFixed(1)}%`;
  const mapped = page.getByRole('region', { name: 'Symbols' }).getByRole('list', { name: 'Mapped files' });
  const held = samplesByMapping(parsed);
  expect(held).toHaveLength(2);
  for (const h of held)
    await expect(mapped).toContainText(`${h.path} copy path ${pct(h.self)} self · ${pct(h.total)} total`);
  await page.screenshot({ path: `${SHOTS}/raw-preview-final.png` });
});

/** Opens the 16 MB synthetic per address and waits for its first picture, its table still being built. */
async function openingSynthetic(page: Page): Promise<void> {
  await page.goto('./#gran=addresses');
  await recordPaints(page);
  await page.getByLabel('Open profile').setInputFiles(PROFILE);
  expect((await firstPaint(page)).building).toBe(true);
}

/** The synthetic opened to the end, with no error. */
async function openedSynthetic(page: Page): Promise<void> {
  await expect(page.getByTestId('row-count')).toHaveText(/^[1-9][\d,]* functions?$/, { timeout: 20_000 });
  await expect(page.locator('.current-file')).toHaveText('synthetic-16mb.prof');
  await expect(page.getByRole('alert')).toHaveCount(0);
  await paintedGraph(page);
}

test('the profile view is not mounted beside the dropped file’s read; it shows while the file is parsed', async ({
  page,
}) => {
  // The page's layout of a profile view would slow the worker's read on two cores (opening.ts).
  await page.goto('./#gran=addresses');
  await page.evaluate(() => {
    const w = window as unknown as { before: string[]; first: unknown };
    w.before = [];
    new MutationObserver(() => {
      if (w.first) return;
      const progress = document.querySelector('.progress span')?.textContent ?? '';
      const view = document.querySelector('main.profile');
      if (!view) {
        if (progress && !w.before.includes(progress)) w.before.push(progress);
        return;
      }
      w.first = { building: view.textContent?.includes('Building the function table…') ?? false };
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  await page.getByLabel('Open profile').setInputFiles(PROFILE);
  await page.waitForFunction(() => (window as unknown as { first: unknown }).first !== undefined);
  const { before, first } = await page.evaluate(() => {
    const w = window as unknown as {
      before: string[];
      first: { building: boolean };
    };
    return { before: w.before, first: w.first };
  });
  // Not at the drop: the progress bar said the file was being read before the view came (at the
  // read's end, or 300 ms into a longer read: a loaded machine's).
  expect(before.some((p) => / — read\b/.test(p))).toBe(true);
  // It is the frame the first picture fills: the table is still being built.
  expect(first.building).toBe(true);
  await openedSynthetic(page);
});

test('a binary dropped while a profile opens is for it: the open goes on', async ({ page }) => {
  await openingSynthetic(page);
  await page.getByLabel('Open profile').setInputFiles(`${FIXTURES}/gperf/bin/tiny`); // another program's
  await openedSynthetic(page);
  // It was taken for the profile: it names none of its mapped files, and says so.
  await expect(page.getByRole('region', { name: 'Symbols' })).toContainText('tiny matches no mapping');
});

test('a folder added while a profile opens is for it: the open goes on', async ({ page }) => {
  await openingSynthetic(page);
  await page.getByLabel('Add a folder of binaries').setInputFiles(`${FIXTURES}/sysroot`);
  await openedSynthetic(page);
  await expect(page.getByRole('region', { name: 'Symbols' }).locator('.folder-note')).toContainText(
    'From folder sysroot',
  );
});

test('a search typed on the first picture stays when the full tree comes', async ({ page }) => {
  await openingSynthetic(page);
  const search = page.getByRole('searchbox', { name: 'Search functions' });
  await search.fill('libc');
  await openedSynthetic(page);
  await expect(search).toHaveValue('libc');
  // Matched in the full profile: every stack passes through libc's __libc_start_main.
  await expect(page.getByTestId('search-count')).toHaveText(/^matched: [\d,]+ samples \(100\.0 %\)/);
});

/**
 * In the task that paints the synthetic's first picture, clicks Cancel in the progress bar, or
 * drops an empty file (a drop that supersedes the open, then fails).
 */
async function atFirstPicture(page: Page, act: 'cancel' | 'drop an empty file'): Promise<void> {
  await page.evaluate((act) => {
    const w = window as unknown as { acted: boolean };
    w.acted = false;
    new MutationObserver(() => {
      const canvas = document.querySelector('[data-testid="main-graph"] canvas');
      if (w.acted || !canvas?.getAttribute('aria-label')?.includes('synthetic-16mb.prof')) return;
      // Its picture, not the empty frame shown while a first profile is read (it paints nothing).
      if (!/[1-9]/.test(canvas.getAttribute('data-painted') ?? '')) return;
      const cancel = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Cancel');
      if (!cancel) return;
      if (act === 'cancel') cancel.click();
      else {
        const dt = new DataTransfer();
        dt.items.add(new File([], 'empty.prof'));
        const target = document.querySelector('main') ?? document.body;
        for (const type of ['dragenter', 'dragover', 'drop'])
          target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
      }
      w.acted = true;
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  }, act);
  await page.getByLabel('Open profile').setInputFiles(PROFILE);
  await page.waitForFunction(() => (window as unknown as { acted: boolean }).acted);
}

const cancelAtFirstPicture = (page: Page) => atFirstPicture(page, 'cancel');

test('Cancel while a profile is being built keeps the profile shown before, or the start page', async ({
  page,
}) => {
  // No profile before: back to the start page (not a first picture that is never finished).
  await page.goto('./#gran=addresses');
  await cancelAtFirstPicture(page);
  await expect(page.getByRole('heading', { name: /Drop a CPU profile/ })).toBeVisible();
  await expect(page.getByRole('progressbar', { name: 'Parsing progress' })).toHaveCount(0);
  await expect(page.getByRole('alert')).toHaveCount(0);

  // A profile before: it comes back, and answers.
  await page.getByLabel('Open profile').setInputFiles(`${FIXTURES}/gperf/tiny.prof`);
  await paintedGraph(page);
  await cancelAtFirstPicture(page);
  await expect(page.locator('.current-file')).toHaveText('tiny.prof');
  await expect(page.getByTestId('row-count')).toHaveText(/^[1-9]\d* functions?$/);
  await page.getByRole('searchbox', { name: 'Search functions' }).fill('tiny');
  await expect(page.getByTestId('search-count')).toHaveText(/^matched: [1-9]/);
  await expect(page.getByRole('alert')).toHaveCount(0);
  // With its view: the link names it again (kept in this browser), so a reload reopens it.
  await expect.poll(() => page.evaluate(() => location.hash)).toMatch(/ws=\w+/);
  await page.reload();
  await expect(page.locator('.current-file')).toHaveText('tiny.prof');
});

test('a bad file dropped over a first picture takes the picture away: the profile before, or the start page', async ({
  page,
}) => {
  // The picture's open is abandoned for the drop; the drop fails. The picture stayed, never
  // finished ('Building the function table…' for good), before the lifecycle mended it.
  await page.goto('./#gran=addresses');
  await atFirstPicture(page, 'drop an empty file');
  await expect(page.getByRole('alert')).toContainText('Could not open empty.prof: empty file (at byte 0)');
  await expect(page.getByRole('heading', { name: /Drop a CPU profile/ })).toBeVisible();
  await expect(page.getByRole('progressbar', { name: 'Parsing progress' })).toHaveCount(0);

  await page.getByLabel('Open profile').setInputFiles(`${FIXTURES}/gperf/tiny.prof`);
  await paintedGraph(page);
  await atFirstPicture(page, 'drop an empty file');
  await expect(page.getByRole('alert')).toContainText('Could not open empty.prof: empty file (at byte 0)');
  await expect(page.locator('.current-file')).toHaveText('tiny.prof');
  await expect(page.getByTestId('row-count')).toHaveText(/^[1-9]\d* functions?$/);
  await expect(page.getByRole('progressbar', { name: 'Parsing progress' })).toHaveCount(0);
  await paintedGraph(page);
  await page.screenshot({ path: `${SHOTS}/bad-drop-over-picture.png` });
});

test('a profile of many short records paints first from a sample of them, and says so', async ({ page }) => {
  // The default granularity: one frame per module for unnamed code.
  const first = await openSampled(page, SHORT);
  // The picture weighs the sample up to the file's total: the final graph's label says the same.
  const label = first.label;
  await wholeFileShown(page, 20_000);
  const canvas = await paintedGraph(page);
  await expect(canvas).toHaveAttribute('aria-label', label);
  await expect(page.getByRole('region', { name: 'Function table' }).getByRole('row').nth(1)).toContainText(
    '[bench]',
  );
  await page.screenshot({ path: `${SHOTS}/raw-preview-short-final.png` });
});

test('a large perf.data dropped with its program paints first from a sample, symbolized, then whole', async ({
  page,
}) => {
  await page.goto('./');
  await recordPaints(page);
  const PD = `${FIXTURES}/perf-data`;
  await page.getByLabel('Open profile').setInputFiles([PERF_DATA, `${PD}/bin/threads`, `${PD}/kallsyms.txt`]);
  const first = await firstPaint(page);
  expect(first.building).toBe(true);
  expect(first.progress).toMatch(/the graph so far is drawn from 1 in \d+ records/);
  expect(first.label).toMatch(/of threads-32mb\.pipe\.data: /);
  // The picture is named by the program already: the panel does not call it unsymbolized meanwhile.
  expect(first.symbols).toContain('threads');
  expect(first.symbols).not.toContain('unsymbolized');
  // (That the sample's frames are named as the full tree's: session-preview.test.ts.) Then the
  // whole profile, symbolized by the program.
  const graph = page.getByRole('img', { name: /Flame graph of/ });
  await expect(page.getByRole('status').filter({ hasText: 'drawn from 1 in' })).toHaveCount(0, {
    timeout: 30_000,
  });
  await expect(page.getByTestId('row-count')).toHaveText(/^[1-9][\d,]* functions?$/);
  await expect(page.getByRole('region', { name: 'Function table' })).toContainText('worker');
  await expect(
    page.getByRole('list', { name: 'Mapped files' }).locator('[data-status="symbolized"]'),
  ).toContainText('threads');
  await expect(graph).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/raw-preview-perfdata-final.png` });
});

test('a large gperftools profile is parsed while it is read, to the same profile', async ({ page }) => {
  test.setTimeout(120_000);
  // Past READ_LIMITS.streamFrom (256 MB): read in chunks by a reader worker and parsed meanwhile.
  const LARGE = 'test-results/raw-preview/synthetic-272mb.prof';
  const bytes = makeSyntheticProfile(272 << 20, 23);
  writeFileSync(LARGE, bytes);
  // The same file parsed whole, here: its total and heaviest address.
  const folded = foldProfile(parseGperftools(bytes), { fileName: 'x', granularity: 'addresses' });
  const fns = functionTableOf(folded);
  const top = functionsBySelf(fns)[0];
  const workers = recordWorkerNames(page);
  await page.goto('./#gran=addresses');
  await page.getByLabel('Open profile').setInputFiles(LARGE);
  await expect(page.getByTestId('row-count')).toHaveText(/^[1-9][\d,]* functions?$/, { timeout: 90_000 });
  const canvas = await paintedGraph(page);
  await expect(canvas).toHaveAttribute(
    'aria-label',
    new RegExp(`: ${formatCount(folded.meta.totalSamples)} samples`),
  );
  await expect(page.getByTestId('row-count')).toHaveText(
    formatCounted(functionsBySelf(fns).length, 'function'),
  );
  await expect(page.getByRole('region', { name: 'Function table' }).getByRole('row').nth(1)).toContainText(
    frameName(folded.frames, top),
  );
  // The worker's own workers (reader.worker.ts, prefault.worker.ts) started: the chunks were read by
  // the reader, not by the profile worker after it failed to start one.
  expect((await workers()).sort()).toEqual(['flamelens', 'flamelens-prefault', 'flamelens-reader']);
});

test('a large two-count folded file paints first as a comparison of a sample, once, then whole', async ({
  page,
}) => {
  const first = await openSampled(page, DIFF_FOLDED);
  expect(first.label).toMatch(/large\.difffolded\.txt/);
  await expect(page.getByRole('region', { name: /Differential flame graph/ })).toBeVisible();
  // Then the whole file: the table of both sides, and the note on the sample gone.
  await wholeFileShown(page, 30_000);
  await expect(page.getByTestId('meta-baseline')).toContainText('large.difffolded.txt (baseline)');
  // One sampled picture only (drawn from windows read before the file was): every paint while
  // the progress bar said "drawn from 1 in" was of that picture.
  const sampledLabels = await page.evaluate(() => [
    ...new Set(
      (window as unknown as { paints: Paint[] }).paints
        .filter((p) => p.progress.includes('drawn from 1 in'))
        .map((p) => p.label),
    ),
  ]);
  expect(sampledLabels).toEqual([first.label]);
  await page.screenshot({ path: `${SHOTS}/raw-preview-difffolded-final.png` });
});
