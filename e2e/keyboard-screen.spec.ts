// The app by keyboard and on screens of other sizes, as a person finds it: the focus seen on every
// control, the context menu and the search's steps from the keyboard, the table and the graph in
// a window made smaller. simple.folded (total 100):
//   main ─ parse (60) ─ read (40), lex (20)
//        ─ render (35) ─ draw (25) ─ fill (25); layout (10)

import { expect, type Page, test } from '@playwright/test';
import { dropFile, FIXTURES, hoverName, paintedGraph, ROW, SHOTS } from './helpers';

async function openSimple(page: Page) {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/folded/simple.folded`, 'simple.folded');
  return paintedGraph(page);
}

test('Tab onto Open profile… and Compare with… shows where the focus is', async ({ page }) => {
  await openSimple(page);
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  for (const name of ['Open profile', 'Compare with another profile']) {
    await page.keyboard.press('Tab');
    await expect(page.getByLabel(name, { exact: true })).toBeFocused();
    // The input is hidden; its label is the control seen, and shows the focus ring.
    const label = page.locator('label.file-label', {
      hasText: name === 'Open profile' ? 'Open profile…' : 'Compare with…',
    });
    await expect(label).toHaveCSS('outline-style', 'solid');
  }
  // The focus gone on, the first label has no ring left.
  await page.keyboard.press('Tab');
  await expect(page.locator('label.file-label', { hasText: 'Open profile…' })).toHaveCSS(
    'outline-style',
    'none',
  );
});

test('Shift+F10 on a bar zoomed with + opens the menu on screen, under the bar', async ({ page }) => {
  const canvas = await openSimple(page);
  const box = (await canvas.boundingBox())!;
  const graph = page.getByTestId('main-graph').locator('.fg-scroll');
  const status = page.getByTestId('selection-status');
  await graph.focus();
  await graph.press('ArrowUp');
  await graph.press('ArrowUp');
  await graph.press('ArrowRight');
  await expect(status).toHaveText(/Selected render/);
  // render is the right part of the graph: zoomed around it, its bar starts far left of the box.
  for (let i = 0; i < 4; i++) await graph.press('+');
  await graph.press('Shift+F10');
  const menu = page.getByRole('menu', { name: 'Actions for render' });
  await expect(menu).toBeVisible();
  const m = (await menu.boundingBox())!;
  const viewport = page.viewportSize()!;
  expect(m.x).toBeGreaterThanOrEqual(0);
  expect(m.x + m.width).toBeLessThanOrEqual(viewport.width);
  // Just below render's row (depth 1, the second from the bottom), not at the top of the graph.
  const renderRowTop = box.y + box.height - 2 * ROW;
  expect(m.y).toBeGreaterThanOrEqual(renderRowTop);
  expect(m.y).toBeLessThanOrEqual(renderRowTop + 2 * ROW);
  await expect(page.getByRole('menuitem', { name: /Focus on function render/ })).toBeFocused();
  await page.screenshot({ path: `${SHOTS}/kb-menu-zoomed.png` });
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  await expect(graph).toBeFocused();
});

test('Enter in the search selects each match as a click does: the table row and the link follow', async ({
  page,
}) => {
  await openSimple(page);
  await page.keyboard.press('Control+f');
  const search = page.getByRole('searchbox', { name: 'Search functions' });
  await search.fill('^(read|fill)$');
  const count = page.getByTestId('search-count');
  await expect(count).toHaveText('matched: 65 samples (65.0 %)');
  const selectedRow = page
    .getByRole('region', { name: 'Function table' })
    .locator('tbody tr[aria-selected="true"]');
  await search.press('Enter');
  await expect(count).toHaveText(/ · 1\/2$/);
  await expect(page.getByTestId('selection-status')).toHaveText(/Selected read: 40 samples/);
  await expect(selectedRow).toHaveCount(1);
  await expect(selectedRow.locator('td.fn')).toHaveText('read');
  await expect
    .poll(() => page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('fn')))
    .toBe('read');
  // The step's own selection re-renders the page: the count keeps its place and Enter goes on.
  await search.press('Enter');
  await expect(count).toHaveText(/ · 2\/2$/);
  await expect(selectedRow.locator('td.fn')).toHaveText('fill');
  await search.press('Shift+Enter');
  await expect(count).toHaveText(/ · 1\/2$/);
  await expect(selectedRow.locator('td.fn')).toHaveText('read');
});

test('at 800×600 the Function column takes the room the numbers leave, none left blank', async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 600 });
  await page.goto('./');
  await page.getByRole('button', { name: /Open the example profile/ }).click();
  await paintedGraph(page);
  const table = page.getByRole('region', { name: 'Function table' }).getByRole('table');
  // 75 functions: more rows than the window draws, so spacer rows stand for the others.
  await expect(page.getByRole('region', { name: 'Function table' })).toContainText('75 functions');
  const t = (await table.boundingBox())!;
  const headers = table.getByRole('columnheader');
  const last = (await headers.last().boundingBox())!;
  expect(Math.abs(last.x + last.width - (t.x + t.width))).toBeLessThanOrEqual(1);
  const fn = (await headers.first().boundingBox())!;
  // The four number columns are 70 + 80 + 70 + 80 px; the Module column gives way.
  const numbers = await table
    .locator('th.num')
    .evaluateAll((ths) => ths.reduce((w, th) => w + th.getBoundingClientRect().width, 0));
  expect(numbers).toBeCloseTo(300, 0);
  expect(fn.width).toBeGreaterThanOrEqual(t.width - numbers - 2);
  // "outer::inner::Matrix::operator*" fits whole: no ellipsis where there is room.
  const cell = table.locator('tbody tr', { hasText: 'Matrix::operator*' }).locator('td.fn');
  expect(await cell.evaluate((td) => td.scrollWidth <= td.clientWidth)).toBe(true);
  await page.screenshot({ path: `${SHOTS}/kb-table-800.png` });
});

test('a window made shorter keeps the flame graph’s root row at its bottom', async ({ page }) => {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/gperf/deep_recursion.prof`, 'deep_recursion.prof');
  const canvas = await paintedGraph(page);
  const bottomName = async () => {
    const b = (await canvas.boundingBox())!;
    return hoverName(page, { x: b.x + b.width / 2, y: b.y + b.height - ROW / 2 });
  };
  const root = await bottomName();
  expect(root).not.toBe('');
  const more = page.getByTestId('more-rows');
  const hidden = async () => Number((await more.textContent())!.match(/\d+/)![0]);
  const before = await hidden();
  await page.setViewportSize({ width: 1000, height: 640 });
  await expect.poll(bottomName).toBe(root);
  // The rows the shorter box leaves out are on the leaf side, and the cue counts them.
  await expect.poll(hidden).toBeGreaterThan(before);
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect.poll(bottomName).toBe(root);
  await expect.poll(hidden).toBe(before);
  await page.screenshot({ path: `${SHOTS}/kb-resized.png` });
});

test('the view tabs are one stop in the Tab order; ←/→, Home and End move between them and show each', async ({
  page,
}) => {
  await openSimple(page);
  const tabs = page.getByRole('tablist', { name: 'View' }).getByRole('tab');
  await expect(tabs).toHaveText(['Flame graph', 'Call tree', 'Call graph', 'Flame chart']);
  const flame = page.getByRole('tab', { name: 'Flame graph' });
  await expect(flame).toHaveAttribute('aria-selected', 'true');
  // Tab reaches the selected tab, and the next Tab leaves the row, not the next tab.
  await page.getByRole('searchbox', { name: 'Search functions' }).focus();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(flame).toBeFocused();
  await page.keyboard.press('ArrowRight');
  const callTree = page.getByRole('tab', { name: 'Call tree' });
  await expect(callTree).toBeFocused();
  await expect(callTree).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('call-tree')).toBeVisible();
  await page.keyboard.press('End');
  await expect(page.getByRole('tab', { name: 'Flame chart' })).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(flame).toBeFocused();
  await expect(flame).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByRole('tab', { name: 'Flame chart' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Home');
  await expect(flame).toHaveAttribute('aria-selected', 'true');
  // Out of the row: the graph's zoom path is next.
  await page.keyboard.press('Tab');
  await expect(
    page.getByRole('navigation', { name: 'Zoom path' }).getByRole('button', { name: 'all' }),
  ).toBeFocused();
});

test('zoomed to a shallow frame, the graph is as tall as its rows: no cue of rows above, nothing to scroll', async ({
  page,
}) => {
  await page.goto('./');
  await page.getByRole('button', { name: /Open the example profile/ }).click();
  await paintedGraph(page);
  const more = page.getByTestId('more-rows');
  await expect(more).toContainText(/▲ \d+ more rows/);
  const search = page.getByRole('searchbox', { name: 'Search functions' });
  await search.fill('Matrix::operator\\*');
  await expect(page.getByTestId('search-count')).toHaveText(/^matched: /);
  await search.press('Enter');
  const graph = page.getByTestId('main-graph').locator('.fg-scroll');
  await graph.focus();
  await graph.press('Enter');
  const crumbs = page.getByRole('navigation', { name: 'Zoom path' });
  await expect(crumbs).toContainText('› outer::inner::Matrix::operator*');
  // outer::inner::Matrix::operator* and its one callee are 8 rows: the box holds them all.
  await expect(more).toHaveCount(0);
  expect(await graph.evaluate((el) => el.scrollHeight - el.clientHeight)).toBe(0);
  await graph.press('0');
  await expect(more).toContainText(/▲ \d+ more rows/);
});
