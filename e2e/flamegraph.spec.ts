// The flame graph view as a person uses it: hover, click-zoom and breadcrumbs, wheel zoom, double-
// click fit, search, keyboard, icicle and theme. simple.folded has a known shape (total 100):
//   main ─ parse (60) ─ read (40), lex (20)
//        ─ render (35) ─ draw (25) ─ fill (25); layout (10)
//        + 5 self

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Locator, type Page, test } from '@playwright/test';
import { dropFile, FIXTURES, hoverName, paintedGraph, pixelAt, ROW, SHOTS } from './helpers';

async function open(
  page: Page,
): Promise<{ canvas: Locator; box: { x: number; y: number; width: number; height: number } }> {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/folded/simple.folded`, 'simple.folded');
  const canvas = await paintedGraph(page);
  const box = (await canvas.boundingBox())!;
  return { canvas, box };
}

/** The centre of row `depth` (0 = root) at fraction `fx` of the width, flame orientation. */
const at = (box: { x: number; y: number; width: number; height: number }, fx: number, depth: number) => ({
  x: box.x + fx * box.width,
  y: box.y + box.height - ROW * depth - ROW / 2,
});

test('hover shows name, self, total, % of the whole and of the zoomed frame', async ({ page }) => {
  const { box } = await open(page);
  await page.mouse.move(at(box, 0.3, 1).x, at(box, 0.3, 1).y);
  const tip = page.getByTestId('tooltip');
  await expect(tip).toContainText('parse');
  await expect(tip).toContainText('Total60 samples · 60.0 %');
  await expect(tip).toContainText('Self0 samples');
  await page.screenshot({ path: `${SHOTS}/fg-hover.png` });
});

test('click zooms with ancestors kept; breadcrumbs and Reset zoom back', async ({ page }) => {
  const { box } = await open(page);
  await page.mouse.click(at(box, 0.3, 1).x, at(box, 0.3, 1).y); // parse
  const crumbs = page.getByRole('navigation', { name: 'Zoom path' });
  await expect(crumbs.getByRole('button')).toHaveText(['all', 'main', 'parse']);
  // parse now spans the width: read (40 of 60) covers two thirds, and main stays below.
  expect(await hoverName(page, at(box, 0.5, 2))).toBe('read');
  await expect(page.getByTestId('tooltip')).toContainText('66.7 % of zoomed');
  expect(await hoverName(page, at(box, 0.9, 0))).toBe('main');
  await page.screenshot({ path: `${SHOTS}/fg-zoomed.png` });
  await crumbs.getByRole('button', { name: 'main' }).click();
  await expect(crumbs.getByRole('button')).toHaveText(['all', 'main']);
  await page.getByTestId('reset-zoom').click();
  await expect(crumbs.getByRole('button')).toHaveText(['all']);
});

test('wheel zooms around the cursor, drag pans, double-click fits a frame', async ({ page }) => {
  const { box } = await open(page);
  expect(await hoverName(page, at(box, 0.5, 1))).toBe('parse');
  await page.mouse.move(at(box, 0.9, 1).x, at(box, 0.9, 1).y);
  await page.mouse.wheel(0, -500);
  await expect.poll(() => hoverName(page, at(box, 0.5, 1))).toBe('render');
  await page.screenshot({ path: `${SHOTS}/fg-wheel.png` });
  // Drag right pans back towards parse.
  await page.mouse.move(at(box, 0.2, 3).x, at(box, 0.2, 3).y);
  await page.mouse.down();
  await page.mouse.move(at(box, 0.95, 3).x, at(box, 0.95, 3).y, { steps: 5 });
  await page.mouse.up();
  await expect.poll(() => hoverName(page, at(box, 0.5, 1))).toBe('parse');
  // Double-click lex (0.4–0.6 of the whole): it fills the width.
  const graph = page.getByTestId('main-graph').locator('.fg-scroll');
  await graph.focus();
  await graph.press('0');
  await page.mouse.dblclick(at(box, 0.5, 2).x, at(box, 0.5, 2).y);
  await expect.poll(() => hoverName(page, at(box, 0.05, 2))).toBe('lex');
  expect(await hoverName(page, at(box, 0.95, 2))).toBe('lex');
});

test('search highlights matches, dims the rest, counts each sample once; Enter moves', async ({ page }) => {
  const { canvas, box } = await open(page);
  const cx = (fx: number) => fx * box.width;
  const cy = (depth: number) => box.height - ROW * depth - ROW / 2;
  const lexBefore = await pixelAt(canvas, cx(0.5), cy(2));
  await page.keyboard.press('Control+f');
  const search = page.getByRole('searchbox', { name: 'Search functions' });
  await expect(search).toBeFocused();
  await search.fill('^(read|fill)$');
  await expect(page.getByTestId('search-count')).toHaveText('matched: 65 samples (65.0 %)');
  await expect.poll(async () => (await pixelAt(canvas, cx(0.5), cy(2))).join()).not.toBe(lexBefore.join());
  const readPx = await pixelAt(canvas, cx(0.2), cy(2));
  const lexPx = await pixelAt(canvas, cx(0.5), cy(2));
  // Dimmed bars are paler (closer to the white background) than highlighted ones.
  expect(lexPx[0] + lexPx[1] + lexPx[2]).toBeGreaterThan(readPx[0] + readPx[1] + readPx[2]);
  await page.screenshot({ path: `${SHOTS}/fg-search.png` });
  await search.press('Enter');
  await expect(page.getByTestId('selection-status')).toHaveText(/Selected read: 40 samples/);
  await search.press('Enter');
  await expect(page.getByTestId('selection-status')).toHaveText(/Selected fill: 25 samples/);
  await search.press('Shift+Enter');
  await expect(page.getByTestId('selection-status')).toHaveText(/Selected read/);
  // Plain text: "re" matches read and render; main;render;draw;fill counts once.
  await page.getByTitle('Treat the search as a regular expression').click();
  await search.fill('re');
  await expect(page.getByTestId('search-count')).toHaveText(/^matched: 75 samples \(75\.0 %\)/);
  await search.fill('(');
  await expect(page.getByTestId('search-count')).toHaveText(/^matched: 0 samples/);
  await page.getByTitle('Treat the search as a regular expression').click();
  await expect(page.getByTestId('search-count')).toContainText('bad pattern');
});

test('keyboard: arrows move a visible selection, Enter zooms, +/− zoom, 0 resets; announced', async ({
  page,
}) => {
  await open(page);
  const graph = page.getByTestId('main-graph').locator('.fg-scroll');
  const status = page.getByTestId('selection-status');
  await graph.focus();
  await graph.press('ArrowUp');
  await expect(status).toHaveText(/Selected main: 100 samples, 100.0 %/);
  await graph.press('ArrowUp');
  await expect(status).toHaveText(/Selected parse/);
  await graph.press('ArrowRight');
  await expect(status).toHaveText(/Selected render/);
  await graph.press('ArrowUp');
  await expect(status).toHaveText(/Selected draw/);
  await graph.press('ArrowDown');
  await expect(status).toHaveText(/Selected render/);
  await graph.press('Enter');
  const crumbs = page.getByRole('navigation', { name: 'Zoom path' }).getByRole('button');
  await expect(crumbs).toHaveText(['all', 'main', 'render']);
  await graph.press('+');
  await graph.press('-');
  await graph.press('0');
  await expect(crumbs).toHaveText(['all']);
  await expect(page.getByTestId('main-graph').getByRole('img')).toHaveAttribute(
    'aria-label',
    /Arrow keys select frames/,
  );
});

test('icicle puts the root at the top; the theme toggle repaints dark', async ({ page }) => {
  const { canvas, box } = await open(page);
  const topBefore = await pixelAt(canvas, 10, ROW / 2);
  await page.getByRole('radio', { name: 'Icicle' }).check();
  await expect(page.getByRole('region', { name: 'Icicle graph' })).toBeVisible();
  await expect.poll(async () => (await pixelAt(canvas, 10, ROW / 2)).join()).not.toBe(topBefore.join());
  expect(await hoverName(page, { x: box.x + 0.3 * box.width, y: box.y + ROW + ROW / 2 })).toBe('parse');
  await page.screenshot({ path: `${SHOTS}/fg-icicle.png` });

  // Children by name: layout before parse... (alphabetical: parse < render; lex < read)
  await page.getByLabel('Order').selectOption('name');
  expect(await hoverName(page, { x: box.x + 0.05 * box.width, y: box.y + 2 * ROW + ROW / 2 })).toBe('lex');

  await page.getByRole('button', { name: 'Toggle dark theme' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  const bg = await pixelAt(canvas, box.width - 5, box.height - 5);
  expect(bg[0] + bg[1] + bg[2]).toBeLessThan(150);
  await page.getByLabel('Colour').selectOption('heat');
  await page.screenshot({ path: `${SHOTS}/fg-dark-heat.png` });
});

test('a graph deeper than its view says how many rows are above; Shift+wheel scrolls to them', async ({
  page,
}) => {
  await page.goto('./');
  await dropFile(page, 'test/fixtures/gperf/deep_recursion.prof', 'deep_recursion.prof');
  const canvas = await paintedGraph(page);
  const more = page.getByTestId('more-rows');
  await expect(more).toContainText(/▲ \d+ more rows/);
  const before = Number((await more.textContent())!.match(/\d+/)![0]);
  const box = (await canvas.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.keyboard.down('Shift');
  await page.mouse.wheel(0, -18 * 10);
  await page.keyboard.up('Shift');
  await expect
    .poll(async () => Number(((await more.textContent()) ?? '0').match(/\d+/)?.[0] ?? 0))
    .toBeLessThan(before);
  await page.screenshot({ path: `${SHOTS}/deep.png` });
});

test('a deep graph replaced by a shallow one: every paint is drawn where the box is scrolled', async ({
  page,
}) => {
  await page.goto('./');
  await dropFile(page, 'test/fixtures/gperf/deep_recursion.prof', 'deep_recursion.prof');
  await paintedGraph(page);
  await expect(page.getByTestId('more-rows')).toContainText(/more rows/); // scrolled to its root, far down
  // Each paint: the canvas's place (the scroll the graph was drawn for) and the box's scroll.
  await page.evaluate(() => {
    const w = window as unknown as { paints: string[] };
    w.paints = [];
    const canvas = document.querySelector('[data-testid="main-graph"] canvas') as HTMLCanvasElement;
    new MutationObserver(() => {
      const box = canvas.closest('.fg-scroll') as HTMLElement;
      w.paints.push(
        `${canvas.dataset.painted} drawn for ${parseFloat(canvas.style.top)}, box at ${box.scrollTop}`,
      );
    }).observe(canvas, { attributes: true, attributeFilter: ['data-painted'] });
  });
  await dropFile(page, `${FIXTURES}/gperf/tiny.prof`, 'tiny.prof');
  await paintedGraph(page);
  await expect(page.locator('.current-file')).toHaveText('tiny.prof');
  const paints = await page.evaluate(() => (window as unknown as { paints: string[] }).paints);
  expect(paints.length).toBeGreaterThan(0);
  for (const p of paints) {
    const [, drawn, box] = /drawn for (\d+), box at (\d+)/.exec(p)!;
    expect(p, 'a paint drawn for another scroll than the box shows').toBe(p.replace(drawn, box));
  }
  await expect(page.getByTestId('more-rows')).toHaveCount(0);
});

test('a new graph under a pointer that has not moved: the tooltip names the bar under it now', async ({
  page,
}) => {
  const { box } = await open(page);
  const p = at(box, 0.3, 1);
  await page.mouse.move(p.x, p.y);
  const name = page.getByTestId('tooltip').locator('.tt-name');
  await expect(name).toHaveText('parse');
  // Another profile dropped while the pointer rests there: main, then zeta over 7/8 of the width
  // from the left, and alpha (1 sample) the node whose id parse had.
  const other = join(mkdtempSync(join(tmpdir(), 'flamelens-e2e-hover-')), 'other.folded');
  writeFileSync(other, 'main;alpha 1\nmain;zeta 7\n');
  await dropFile(page, other, 'other.folded');
  await expect(page.getByRole('img', { name: /other\.folded/ })).toBeVisible();
  await expect(name).toHaveText('zeta');
  await expect(page.getByTestId('tooltip')).toContainText('Total7 samples · 87.5 %');
});
