// What a user trips over on the page (issue 32): at 800×600 the function table's Function column
// has the room and ten rows show; the graph/table split is a drag handle kept in the link; a line
// frame opens its source; switching Frames keeps the zoom and says so; a comparison's table follows
// Normalized with one minus sign; the Symbols panel says what a stripped binary gives; every
// control is in the dark theme's colours. Screenshots at 800×600 and 1280×800, light and dark.

import { expect, type Page, test } from '@playwright/test';
import { dropFiles, FIXTURES, hoverName, paintedGraph, ROW, SHOTS } from './helpers';

const DIFF = `${FIXTURES}/diff`;
const D = `${FIXTURES}/dwarf`;
const WORKLOAD = [
  { path: `${DIFF}/workload_b.prof`, name: 'workload_b.prof' },
  { path: `${DIFF}/bin/workload`, name: 'workload' },
];

async function openWorkload(page: Page, width: number, height: number) {
  await page.setViewportSize({ width, height });
  await page.goto('./');
  await dropFiles(page, WORKLOAD);
  await paintedGraph(page);
}

/** The Function column's share of the function table's width, and how many rows show whole. */
async function tableRoom(page: Page): Promise<{ share: number; rows: number }> {
  const table = page.getByRole('region', { name: 'Function table' });
  const scroll = table.locator('.ftable-scroll');
  const box = (await scroll.boundingBox())!;
  const fn = (await table.locator('thead th').first().boundingBox())!;
  const head = (await table.locator('thead').boundingBox())!;
  const rows = Math.floor((box.height - head.height) / ROW);
  return { share: fn.width / box.width, rows };
}

/** inline5.prof with its binary and its source file, opened at the view `hash` names. */
async function openInline(page: Page, hash = '') {
  await page.goto(`./${hash}`);
  await dropFiles(page, [
    { path: `${D}/inline5.prof`, name: 'inline5.prof' },
    { path: `${D}/bin/inline5`, name: 'inline5' },
    { path: `${D}/src/inline.cpp`, name: 'inline.cpp' },
  ]);
  await paintedGraph(page);
}

/** A point up the main graph's middle whose bar's name `wanted` accepts, with that name; null if none. */
async function barUpTheMiddle(
  page: Page,
  wanted: (name: string) => boolean,
): Promise<{ x: number; y: number; name: string } | null> {
  const g = (await page.getByTestId('main-graph').getByRole('img').boundingBox())!;
  for (let depth = 0; depth < 20; depth++) {
    const p = { x: g.x + g.width / 2, y: g.y + g.height - ROW * depth - 9 };
    const name = await hoverName(page, p);
    if (wanted(name)) return { ...p, name };
  }
  return null;
}

const compare = (page: Page) =>
  page.getByLabel('Compare with another profile').setInputFiles(`${DIFF}/workload_a.prof`);

test('800×600: the Function column takes ≥ 40 % of the table and ten rows show, alone and in a comparison', async ({
  page,
}) => {
  await openWorkload(page, 800, 600);
  await expect(page.getByRole('region', { name: 'Function table' }).locator('thead th').first()).toHaveText(
    /Function/,
  );
  const one = await tableRoom(page);
  expect(one.share).toBeGreaterThanOrEqual(0.4);
  expect(one.rows).toBeGreaterThanOrEqual(10);
  await expect(page.locator('tbody td.fn').first()).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/page-800-light.png` });

  await compare(page);
  await expect(page.getByRole('region', { name: 'Differential flame graph' })).toBeVisible();
  await paintedGraph(page);
  const two = await tableRoom(page);
  expect(two.share).toBeGreaterThanOrEqual(0.4);
  expect(two.rows).toBeGreaterThanOrEqual(10);
  const firstFn = page.locator('tbody td.fn').first();
  await expect(firstFn).toBeVisible();
  expect((await firstFn.boundingBox())!.width).toBeGreaterThan(200);
  await page.getByRole('button', { name: 'Toggle dark theme' }).click();
  await page.screenshot({ path: `${SHOTS}/page-800-diff-dark.png` });
});

test('the graph/table split is a drag handle; the link says it', async ({ page }) => {
  await openWorkload(page, 1280, 800);
  const handle = page.getByRole('separator', { name: 'Resize the graph and the function table' });
  const table = page.getByRole('region', { name: 'Function table' });
  const before = (await table.boundingBox())!.height;
  const h = (await handle.boundingBox())!;
  await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
  await page.mouse.down();
  await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2 - 150, { steps: 5 });
  await page.mouse.up();
  const after = (await table.boundingBox())!.height;
  expect(after).toBeGreaterThan(before + 100);
  await expect(page).toHaveURL(/split=0\.\d+/);
  // The workspace's link reopens with the split as dragged.
  await expect(page).toHaveURL(/ws=/);
  await page.reload();
  await paintedGraph(page);
  await expect.poll(async () => Math.abs((await table.boundingBox())!.height - after)).toBeLessThan(3);
});

test('Frames = lines: a line frame opens its source; switching Frames keeps the zoom and says so', async ({
  page,
}) => {
  await openInline(page);
  // Zoom: a double click on fx::hot_chain's row (the zoom goes to the bar under the pointer).
  const bar = await barUpTheMiddle(page, (n) => n === 'fx::hot_chain');
  expect(bar).not.toBeNull();
  await page.mouse.dblclick(bar!.x, bar!.y);
  const crumbs = page.getByRole('navigation', { name: 'Zoom path' });
  await expect(crumbs).toContainText('main');
  await page.getByRole('combobox', { name: 'Granularity' }).selectOption('lines');
  await expect(page).toHaveURL(/gran=lines/);
  const notice = page.getByTestId('notice');
  await expect(notice).toContainText(
    /^Zoom kept at `main inline\.cpp:\d+` \(the heaviest of the \d+ line frames of `main`\)\./,
  );
  await expect(crumbs).toContainText(/main \S*inline/);
  // Back to functions: the line frame's function.
  await page.getByRole('combobox', { name: 'Granularity' }).selectOption('functions');
  await expect(notice).toContainText('Zoom kept at `main`.');

  // Select a line frame (the table's row of it): its function's lines, never "No line information".
  await page.getByRole('combobox', { name: 'Granularity' }).selectOption('lines');
  await paintedGraph(page);
  await page.getByPlaceholder('Filter functions').fill('hot_chain');
  const cell = page
    .getByRole('region', { name: 'Function table' })
    .locator('tbody tr[aria-rowindex] td.fn')
    .first();
  await expect(cell).toHaveText(/^fx::hot_chain inline\.cpp:\d+$/);
  await cell.click();
  const panel = page.getByRole('region', { name: 'Source' });
  await expect(panel).toBeVisible();
  await expect(panel.locator('tr.hot').first()).toBeVisible();
  await expect(panel).not.toContainText('No line information');
  // At 1280 px the source text is whole: no line runs past the panel's edge (long ones wrap).
  await expect(panel.locator('td.code').first()).toBeVisible();
  const past = await panel.evaluate((el) => {
    const edge = el.getBoundingClientRect().right;
    const side = el.closest('aside')!.getBoundingClientRect().right;
    return [...el.querySelectorAll('td.code')]
      .map((td) => td.getBoundingClientRect().right - Math.min(edge, side))
      .filter((over) => over > 1).length;
  });
  expect(past).toBe(0);
  await page.screenshot({ path: `${SHOTS}/page-1280-lines.png` });
});

test('the comparison table follows Normalized: Δ of shares with one minus sign', async ({ page }) => {
  await openWorkload(page, 1280, 800);
  await compare(page);
  await expect(page.getByRole('region', { name: 'Differential flame graph' })).toBeVisible();
  const table = page.getByRole('region', { name: 'Function table' });
  const normalized = page.getByRole('checkbox', { name: 'Normalized' });
  await normalized.uncheck();
  await expect(table.getByRole('columnheader', { name: /Δ self/ })).toBeVisible();
  const samples = await table.locator('tbody tr[aria-rowindex] td.delta').allTextContents();
  await normalized.check();
  await expect
    .poll(() => table.locator('tbody tr[aria-rowindex] td.delta').allTextContents())
    .not.toEqual(samples);
  const shares = await table.locator('tbody tr[aria-rowindex] td.delta').allTextContents();
  expect(shares.some((t) => t.includes('\u2212'))).toBe(true);
  for (const t of [...samples, ...shares]) expect(t).not.toMatch(/-/);
  await page.getByRole('button', { name: 'Toggle dark theme' }).click();
  await page.screenshot({ path: `${SHOTS}/page-1280-diff-dark.png` });
});

test('dark theme: every select, text field and button has the dark background', async ({ page }) => {
  await openWorkload(page, 1280, 800);
  await compare(page);
  await expect(page.getByRole('region', { name: 'Differential flame graph' })).toBeVisible();
  await page.getByRole('button', { name: 'Toggle dark theme' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  const light = await page.evaluate(() => {
    const lum = (c: string) => {
      const m = /rgba?\((\d+), (\d+), (\d+)(?:, ([\d.]+))?\)/.exec(c);
      if (!m || m[4] === '0') return null; // transparent: the page's background shows
      return (0.299 * Number(m[1]) + 0.587 * Number(m[2]) + 0.114 * Number(m[3])) / 255;
    };
    const out: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>(
      'select, input:not([type=checkbox]):not([type=radio]):not([type=file]):not([type=range]), button',
    )) {
      if (el.offsetParent === null) continue;
      const bg = getComputedStyle(el).backgroundColor;
      const l = lum(bg);
      if (l !== null && l > 0.5)
        out.push(`${el.tagName} ${el.getAttribute('aria-label') ?? el.textContent} ${bg}`);
    }
    return out;
  });
  expect(light).toEqual([]);
  const width = page.getByRole('combobox', { name: /Width/ });
  await expect(width).toBeVisible();
  const bg = await width.evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(bg).not.toBe('rgb(255, 255, 255)');
  await page.setViewportSize({ width: 800, height: 600 });
  await page.screenshot({ path: `${SHOTS}/page-800-dark.png` });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: `${SHOTS}/page-1280-dark.png` });
});

test('Symbols panel: a stripped binary dropped says its frames stay [module]; the tooltip says no symbol covers them', async ({
  page,
}) => {
  await page.goto('./');
  await dropFiles(page, [
    { path: `${FIXTURES}/perf/sorter-stripped.perf.txt`, name: 'sorter-stripped.perf.txt' },
    { path: `${FIXTURES}/perf/bin/sorter-stripped`, name: 'sorter-stripped' },
  ]);
  await paintedGraph(page);
  const item = page.getByRole('region', { name: 'Symbols' }).locator('li[data-status="stripped"]');
  await expect(item).toContainText('no symbol covers its code');
  await expect(item).toContainText('[sorter-stripped]');
  const search = page.getByRole('searchbox', { name: 'Search functions' });
  await search.fill('sorter-stripped');
  await search.press('Enter');
  const box = (await page.getByTestId('main-graph').getByRole('img').boundingBox())!;
  let name = '';
  for (let depth = 0; depth < 6 && name !== '[sorter-stripped]'; depth++)
    name = await hoverName(page, { x: box.x + box.width / 2, y: box.y + box.height - ROW * depth - 9 });
  expect(name).toBe('[sorter-stripped]');
  await expect(page.getByTestId('tooltip')).toContainText('No symbol covers these addresses');
  await expect(page.getByTestId('tooltip')).not.toContainText('No binary');
});

test('Symbols panel: a binary of another build, named like the mapped program, is said refused, not as matching no mapping', async ({
  page,
}) => {
  await page.goto('./');
  // threads.data recorded bin/threads; bin/spin under its name is a program rebuilt since
  await dropFiles(page, [
    { path: `${FIXTURES}/perf-data/threads.data`, name: 'threads.data' },
    { path: `${FIXTURES}/perf-data/bin/spin`, name: 'threads' },
  ]);
  await paintedGraph(page);
  const panel = page.getByRole('region', { name: 'Symbols' });
  await expect(panel.locator('li[data-status="mismatch"]')).toContainText('build-id mismatch: threads is');
  await expect(panel).toContainText(/threads: build-id [0-9a-f]{40} differs from .*threads's/);
  await expect(panel).not.toContainText('matches no mapping');
});

test('the Recent profiles list is aligned; the remembered-files count follows a drop', async ({ page }) => {
  await openWorkload(page, 1280, 800);
  const summary = page.locator('details.remembered summary').first();
  await expect(summary).toContainText(/Remembered symbol files \(1, /);
  const workspaceInLink = () => page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('ws'));
  await expect.poll(workspaceInLink).not.toBeNull();
  const first = await workspaceInLink();
  // A second profile with its binary: two workspaces, two remembered files.
  await dropFiles(page, [
    { path: `${D}/inline5.prof`, name: 'inline5.prof' },
    { path: `${D}/bin/inline5`, name: 'inline5' },
  ]);
  await expect(summary).toContainText(/Remembered symbol files \(2, /);
  // Kept once the link names it (its files are remembered before the workspace is written).
  await expect
    .poll(async () => {
      const ws = await workspaceInLink();
      return ws !== null && ws !== first;
    })
    .toBe(true);
  await page.goto('./');
  const recent = page.getByRole('region', { name: 'Recent profiles' });
  await expect(recent).toBeVisible();
  // Every row's Forget button starts at the same x.
  const xs = await recent
    .getByRole('button', { name: /^Forget (?!all$)/ })
    .evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().left)));
  expect(xs.length).toBe(2);
  expect(new Set(xs).size).toBe(1);
  await page.screenshot({ path: `${SHOTS}/page-1280-start.png` });
});

test('a bar clicked selects its frame, as a call tree row does: its table row and its source, at Frames = lines', async ({
  page,
}) => {
  await openInline(page, '#gran=lines');
  const at = await barUpTheMiddle(page, (n) => /^fx::hot_chain inline\.cpp:\d+$/.test(n));
  expect(at).not.toBeNull();
  await page.mouse.click(at!.x, at!.y);
  const panel = page.getByRole('region', { name: 'Source' });
  await expect(panel.getByRole('heading', { name: 'Source of fx::hot_chain' })).toBeVisible();
  await expect(panel.locator('tr.hot').first()).toBeVisible();
  await expect(
    page.getByRole('region', { name: 'Function table' }).locator('tr[aria-selected="true"] td.fn'),
  ).toHaveText(at!.name);
});
