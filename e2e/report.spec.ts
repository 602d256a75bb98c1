// Export → HTML report: one .html file with the app, the profile(s) symbolized and the view. Opened
// from file:// in a browser with no network, it shows the same flame graph (same tooltips at the
// same places) and the same table as the app that made it, a comparison included; and it is no
// larger than 1.5 × (the folded profile + the app's bundle).

import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BrowserContext, expect, type Page, test } from '@playwright/test';
import { makeSyntheticProfile } from '../bench/gen-synthetic';
import { FIXTURES, hoverName, offlineAfterOneVisit, paintedGraph, recordWorkerNames, SHOTS } from './helpers';

const DIST = process.env.FLAMELENS_DIST ?? 'dist';
const OUT = mkdtempSync(join(tmpdir(), 'flamelens-report-'));

async function exportAs(page: Page, item: string): Promise<{ name: string; path: string }> {
  await page.getByRole('button', { name: 'Export' }).click();
  const menu = page.getByRole('menu', { name: 'Export' });
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    menu.getByRole('menuitem', { name: item }).click(),
  ]);
  await expect(menu).toHaveCount(0);
  const path = join(OUT, download.suggestedFilename());
  await download.saveAs(path);
  return { name: download.suggestedFilename(), path };
}

/**
 * A new browser context with the network gone (offline, and any request that is not for the
 * report's own file aborted and recorded), with the report opened from file://.
 */
async function openOffline(context: BrowserContext, path: string, hash = '') {
  const tried: string[] = [];
  await context.setOffline(true);
  const fileUrl = `file://${resolve(path)}`;
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url === fileUrl) return route.continue();
    tried.push(url);
    return route.abort();
  });
  context.on('request', (r) => {
    const url = r.url();
    if (url !== fileUrl && !url.startsWith('blob:') && !url.startsWith('data:')) tried.push(url);
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(fileUrl + hash);
  return { page, tried, errors };
}

/** What the graph and the table show: frame names under a grid of points, and the top rows. */
/** The C++ example profile with its binary, opened and drawn. */
async function openCxxDemangle(page: Page) {
  await page.goto('./');
  await page
    .getByLabel('Open profile')
    .setInputFiles([`${FIXTURES}/gperf/cxx_demangle.prof`, `${FIXTURES}/gperf/bin/cxx_demangle`]);
  await paintedGraph(page);
}

async function picture(page: Page, testId = 'main-graph') {
  const canvas = await paintedGraph(page, testId);
  const box = (await canvas.boundingBox())!;
  const names: string[] = [];
  for (let row = 0; row < 6; row++)
    for (const fx of [0.05, 0.3, 0.55, 0.8])
      names.push(await hoverName(page, { x: box.x + fx * box.width, y: box.y + box.height - 18 * row - 9 }));
  await page.mouse.move(0, 0);
  const rows = await page
    .getByRole('table')
    .locator('tbody tr')
    .evaluateAll((trs) =>
      trs.slice(0, 8).map((tr) => (tr as HTMLElement).innerText.replace(/\s+/g, ' ').trim()),
    );
  return { label: await canvas.getAttribute('aria-label'), names, rows };
}

test('an HTML report opens from file:// offline with the same graph, table and view', async ({
  page,
  browser,
}) => {
  await openCxxDemangle(page);
  await expect(page.getByRole('table')).toContainText('(anonymous namespace)::Circle::area');
  // A view worth keeping: a search, and a zoom two rows up from the root.
  await page.getByRole('searchbox', { name: 'Search functions' }).fill('area');
  const canvas = page.getByRole('img', { name: /Flame graph of/ });
  const box = (await canvas.boundingBox())!;
  await page.mouse.click(box.x + 40, box.y + box.height - 9 - 18 * 2);
  await expect(page.getByTestId('reset-zoom')).toBeVisible();
  const shown = await picture(page);
  expect(shown.names.filter((n) => n !== '').length).toBeGreaterThan(6);
  await expect.poll(() => new URL(page.url()).hash).toContain('zoom=');
  const hash = new URL(page.url()).hash;

  const report = await exportAs(page, 'HTML report (.html)');
  expect(report.name).toBe('cxx_demangle.report.html');

  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const { page: r, tried, errors } = await openOffline(ctx, report.path);
  await expect(r.getByTestId('report-badge')).toContainText('Report of cxx_demangle.prof');
  await expect(r.locator('.current-file')).toHaveText('cxx_demangle.prof');
  await expect(r.getByTestId('reset-zoom')).toBeVisible();
  await expect(r.getByRole('searchbox', { name: 'Search functions' })).toHaveValue('area');
  // Its names were resolved when it was made: the granularity is fixed.
  await expect(r.getByRole('combobox', { name: 'Granularity' })).toBeDisabled();
  // …and the Symbols panel says so, offering no binaries to drop.
  const symbols = r.getByRole('region', { name: 'Symbols' });
  await expect(symbols).toContainText('Names were resolved when this report was made (from cxx_demangle)');
  await expect(symbols.getByRole('button')).toHaveCount(0);
  expect(await picture(r)).toEqual(shown);
  // The same view in the URL, less the app's local id of the profile.
  expect(new URL(r.url()).hash).toBe(hash.replace(/ws=[^&]*&/, ''));
  await r.screenshot({ path: `${SHOTS}/report.png` });
  // A reload keeps the report and its view (now in the report's own URL).
  await r.reload();
  await expect(r.getByTestId('reset-zoom')).toBeVisible();
  expect(await picture(r)).toEqual(shown);

  // Fully interactive: the sandwich of a function from the table, then back.
  await r.getByRole('table').locator('tbody tr td.fn', { hasText: 'Circle::area' }).first().dblclick();
  await expect(r.getByTestId('sandwich')).toBeVisible();
  await paintedGraph(r, 'sandwich-callers');
  await r.screenshot({ path: `${SHOTS}/report-sandwich.png` });
  // No HTML report from a report: it has no template to make one from.
  await r.getByRole('button', { name: 'Export' }).click();
  await expect(r.getByRole('menuitem', { name: 'HTML report (.html)' })).toHaveCount(0);
  await expect(r.getByRole('menuitem', { name: 'Folded stacks (.txt)' })).toBeVisible();
  expect(tried).toEqual([]);
  expect(errors).toEqual([]);
  await ctx.close();
});

test('the call tree, the call graph and the hottest functions disassembled travel in a report, offline', async ({
  page,
  browser,
}) => {
  await openCxxDemangle(page);
  const hottestRow = (p: Page) =>
    p.locator('.ftable tbody tr[aria-rowindex]', { hasText: 'cxx_demangle' }).first();
  await hottestRow(page).click();
  const source = (p: Page) => p.getByRole('region', { name: 'Source' });
  await source(page).getByRole('tab', { name: 'Assembly' }).click();
  const asm = (p: Page) => source(p).getByTestId('asm-instructions').first();
  await expect(asm(page)).toBeVisible({ timeout: 20_000 });
  const instructions = async (p: Page) =>
    (await asm(p).locator('tbody tr[data-address]').allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
  const shownAsm = await instructions(page);
  expect(shownAsm.length).toBeGreaterThan(3);
  const report = await exportAs(page, 'HTML report (.html)');

  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const { page: r, tried, errors } = await openOffline(ctx, report.path);
  await paintedGraph(r);
  // The hottest function's instructions, with the samples the app showed on them.
  await expect(source(r).getByRole('tab', { name: 'Assembly' })).toHaveAttribute('aria-selected', 'true');
  await expect(asm(r)).toBeVisible();
  expect(await instructions(r)).toEqual(shownAsm);
  await expect(source(r).getByText('Intel syntax')).toHaveCount(0);
  // A function the report does not carry says so.
  await r.getByPlaceholder('Filter functions').fill('main');
  await r.locator('.ftable tbody tr[aria-rowindex] td.fn', { hasText: /^main$/ }).click();
  await expect(source(r)).toContainText(
    /This report carries the disassembly of its \d+ heaviest functions; main is not one of them/,
  );
  await r.getByPlaceholder('Filter functions').fill('');
  // The call tree and the call graph, from the report's own profile.
  const tab = (name: string) => r.getByRole('tablist', { name: 'View' }).getByRole('tab', { name });
  await tab('Call tree').click();
  await expect(r.getByTestId('call-tree').locator('tbody tr[aria-rowindex]').first()).toContainText('_start');
  await tab('Call graph').click();
  await expect
    .poll(
      () =>
        r
          .getByTestId('call-graph-svg')
          .evaluate(
            (el) =>
              [...el.querySelectorAll('g.node > title')].filter((t) => /^N\d+$/.test(t.textContent ?? ''))
                .length,
          )
          .catch(() => 0),
      { timeout: 20_000 },
    )
    .toBeGreaterThan(5);
  await r.screenshot({ path: `${SHOTS}/report-callgraph.png` });
  expect(tried).toEqual([]);
  expect(errors).toEqual([]);
  await ctx.close();
});

test('a comparison travels as an HTML report, both sides symbolized', async ({ page, browser }) => {
  await page.goto('./');
  await page
    .getByLabel('Open profile')
    .setInputFiles([`${FIXTURES}/diff/workload_b.prof`, `${FIXTURES}/diff/bin/workload`]);
  await paintedGraph(page);
  await page.getByLabel('Compare with another profile').setInputFiles(`${FIXTURES}/diff/workload_a.prof`);
  await expect(page.getByRole('region', { name: 'Differential flame graph' })).toBeVisible();
  await page.getByRole('combobox', { name: 'Width' }).selectOption('both');
  const shown = await picture(page);
  expect(shown.names).toContain('sort_records');

  const report = await exportAs(page, 'HTML report (.html)');
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const { page: r, tried, errors } = await openOffline(ctx, report.path);
  await expect(r.getByRole('region', { name: 'Differential flame graph' })).toBeVisible();
  await expect(r.getByTestId('report-badge')).toContainText(
    'Report of workload_b.prof compared with workload_a.prof',
  );
  await expect(r.getByTestId('diff-sides')).toHaveText(
    /baseline workload_a\.prof → comparison workload_b\.prof/,
  );
  await expect(r.getByRole('combobox', { name: 'Width' })).toHaveValue('both');
  expect(await picture(r)).toEqual(shown);
  // The tooltip has both sides and the change.
  const canvas = await paintedGraph(r);
  const box = (await canvas.boundingBox())!;
  await r.mouse.move(box.x + box.width / 2, box.y + box.height - 9);
  await expect(r.getByTestId('tt-delta')).toBeVisible();
  await r.screenshot({ path: `${SHOTS}/report-diff.png` });
  expect(tried).toEqual([]);
  expect(errors).toEqual([]);
  await ctx.close();
});

test('a report is at most 1.5 × (the folded profile + the app bundle)', async ({ page }) => {
  await page.goto('./');
  await page
    .getByLabel('Open profile')
    .setInputFiles([`${FIXTURES}/gperf/big_synth_small.prof`, `${FIXTURES}/gperf/bin/big_synth`]);
  await paintedGraph(page);
  const folded = statSync((await exportAs(page, 'Folded stacks (.txt)')).path).size;
  const report = statSync((await exportAs(page, 'HTML report (.html)')).path).size;
  // The app's bundle: the scripts and styles it loads (the worker's included; not the demangler's
  // wasm, which a report does without).
  const assets = join(DIST, 'assets');
  const app = readdirSync(assets)
    .filter((f) => /\.(js|css)$/.test(f))
    .reduce((t, f) => t + statSync(join(assets, f)).size, 0);
  const template = statSync(join(DIST, 'report-template.html')).size;
  const ratio = report / (folded + app);
  writeFileSync(
    join('test-results', 'report-size.json'),
    JSON.stringify({ folded, app, template, report, ratio }, null, 2),
  );
  console.log(
    `report ${report} B = template ${template} + data ${report - template}; folded ${folded}, app ${app}: ` +
      `${ratio.toFixed(2)} × (folded + app); data ${((report - template) / folded).toFixed(2)} × folded`,
  );
  expect(folded).toBeGreaterThan(1_000_000);
  expect(ratio).toBeLessThanOrEqual(1.5);
  expect(readFileSync(join(DIST, 'report-template.html'), 'utf8')).toContain("connect-src 'none'");
});

test('the installed app makes a report offline: the service worker keeps the template', async ({
  page,
  context,
}) => {
  await offlineAfterOneVisit(page, context);
  await page.getByLabel('Open profile').setInputFiles(`${FIXTURES}/gperf/tiny.prof`);
  await paintedGraph(page);
  const report = await exportAs(page, 'HTML report (.html)');
  expect(report.name).toBe('tiny.report.html');
  expect(readFileSync(report.path, 'utf8')).toContain('id="flamelens-report"');
  await context.setOffline(false);
});

test("a report's worker starts its own workers from the code inlined in the report", async ({ browser }) => {
  test.setTimeout(60_000);
  // From 64 MB (read.ts PREFAULT_FROM_BYTES), in a view of a frame per address (the one that asks
  // for a large tree's memory), the worker starts its memory helper (prefault.worker.ts, inlined
  // by ?worker&inline): a classic worker from a Blob URL, made by a worker that is itself one, in
  // a page from file://.
  const big = join(OUT, 'synthetic-66mb.prof');
  writeFileSync(big, makeSyntheticProfile(66 << 20, 24));
  const context = await browser.newContext();
  const { page, tried, errors } = await openOffline(
    context,
    join(DIST, 'report-template.html'),
    '#gran=addresses',
  );
  const workers = recordWorkerNames(page);
  await page.getByLabel('Open profile').setInputFiles(big);
  await expect(page.getByTestId('row-count')).toHaveText(/^[1-9][\d,]* functions?$/, { timeout: 45_000 });
  // (The page, and its profile worker, started before the recording: only the helper is asked.)
  expect(await workers()).toContain('flamelens-prefault');
  expect(tried).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
});
