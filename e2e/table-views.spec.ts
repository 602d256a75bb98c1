// The function table and the views derived from it: sort, filter, select → highlight and sandwich,
// inverted graph, and each transform with its removal.

import { expect, type Locator, type Page, test } from '@playwright/test';
import { dropFile, FIXTURES, hoverName as hoverAt, paintedGraph, ROW, SHOTS } from './helpers';

async function open(page: Page, file = 'simple.folded') {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/folded/${file}`, file);
  const canvas = await paintedGraph(page);
  return { canvas, box: (await canvas.boundingBox())! };
}

type Box = { x: number; y: number; width: number; height: number };
const at = (box: Box, fx: number, depth: number) => ({
  x: box.x + fx * box.width,
  y: box.y + box.height - ROW * depth - ROW / 2,
});

/** A point of the main graph, from its current box (chips and bars move it). */
function point(page: Page, fx: number, depth: number) {
  return { page, fx, depth };
}

async function resolve(
  p: { x: number; y: number } | ReturnType<typeof point>,
): Promise<{ x: number; y: number }> {
  if ('x' in p) return p;
  const b = (await p.page.getByTestId('main-graph').getByRole('img').boundingBox())!;
  return at(b, p.fx, p.depth);
}

async function hoverName(
  page: Page,
  q: { x: number; y: number } | ReturnType<typeof point>,
): Promise<string> {
  return hoverAt(page, await resolve(q));
}

const firstCells = (table: Locator) => table.locator('tbody tr td.fn');

test('sort by any column, again to reverse; filter; keyboard rows', async ({ page }) => {
  await open(page);
  const table = page.getByRole('table');
  await expect(page.getByTestId('row-count')).toHaveText('8 functions');
  // Default: Self, descending.
  await expect(firstCells(table).first()).toHaveText('read');
  await table
    .getByRole('button', { name: /^Total/ })
    .first()
    .click();
  await expect(table.getByRole('columnheader', { name: /^Total/ }).first()).toHaveAttribute(
    'aria-sort',
    'descending',
  );
  await expect(firstCells(table).first()).toHaveText('main');
  await table
    .getByRole('button', { name: /^Total/ })
    .first()
    .click();
  await expect(table.getByRole('columnheader', { name: /^Total/ }).first()).toHaveAttribute(
    'aria-sort',
    'ascending',
  );
  await table.getByRole('button', { name: /^Function/ }).click();
  await expect(firstCells(table)).toHaveText([
    'draw',
    'fill',
    'layout',
    'lex',
    'main',
    'parse',
    'read',
    'render',
  ]);
  await page.getByRole('searchbox', { name: 'Filter functions' }).fill('re');
  await expect(firstCells(table)).toHaveText(['read', 'render']);
  await expect(page.getByTestId('row-count')).toHaveText('2 functions');
  await page.getByRole('searchbox', { name: 'Filter functions' }).fill('');
  // Keyboard: focus the rows, arrow down selects.
  await page.locator('.ftable-scroll').focus();
  await page.keyboard.press('ArrowDown');
  await expect(table.locator('tr[aria-selected="true"] td.fn')).toHaveText('draw');
  await page.keyboard.press('ArrowDown');
  await expect(table.locator('tr[aria-selected="true"] td.fn')).toHaveText('fill');
  await page.screenshot({ path: `${SHOTS}/table-sorted.png` });
});

test('selecting a row highlights its frames; the sandwich shows callers above and callees below', async ({
  page,
}) => {
  await open(page);
  const table = page.getByRole('table');
  await table.locator('td.fn', { hasText: /^parse$/ }).click();
  await expect(table.locator('tr[aria-selected="true"] td.fn')).toHaveText('parse');
  await page.getByRole('button', { name: /^Sandwich: parse/ }).click();
  const sw = page.getByTestId('sandwich');
  await expect(sw).toContainText('Sandwich for parse: total 60 samples');
  const callers = await paintedGraph(page, 'sandwich-callers');
  const callees = await paintedGraph(page, 'sandwich-callees');
  // Callers: parse at the bottom, main above it.
  const cb = (await callers.boundingBox())!;
  expect(await hoverName(page, { x: cb.x + cb.width / 2, y: cb.y + cb.height - ROW / 2 })).toBe('parse');
  expect(await hoverName(page, { x: cb.x + cb.width / 2, y: cb.y + cb.height - ROW - ROW / 2 })).toBe('main');
  // Callees: parse at the top, read and lex below.
  const eb = (await callees.boundingBox())!;
  expect(await hoverName(page, { x: eb.x + eb.width / 2, y: eb.y + ROW / 2 })).toBe('parse');
  expect(await hoverName(page, { x: eb.x + 0.2 * eb.width, y: eb.y + ROW + ROW / 2 })).toBe('read');
  expect(await hoverName(page, { x: eb.x + 0.8 * eb.width, y: eb.y + ROW + ROW / 2 })).toBe('lex');
  await page.screenshot({ path: `${SHOTS}/sandwich.png` });
  await page.getByRole('button', { name: 'Back to flame graph' }).click();
  await paintedGraph(page);
});

test('inverted: leaves become roots', async ({ page }) => {
  await open(page);
  await page.getByRole('checkbox', { name: 'Inverted' }).check();
  await expect(page.getByRole('region', { name: 'Inverted flame graph' })).toBeVisible();
  await paintedGraph(page);
  expect(await hoverName(page, point(page, 0.2, 0))).toBe('read');
  expect(await hoverName(page, point(page, 0.2, 1))).toBe('parse');
  await page.screenshot({ path: `${SHOTS}/inverted.png` });
  await page.getByRole('checkbox', { name: 'Inverted' }).uncheck();
  await expect.poll(() => hoverName(page, point(page, 0.2, 0))).toBe('main');
});

async function transform(page: Page, q: { x: number; y: number } | ReturnType<typeof point>, item: RegExp) {
  const p = await resolve(q);
  await page.mouse.click(p.x, p.y, { button: 'right' });
  await page.getByRole('menu').getByRole('menuitem', { name: item }).click();
}

test('the selected function stays selected when the view is inverted or transformed, not once it is hidden', async ({
  page,
}) => {
  await open(page);
  const table = page.getByRole('table');
  const selected = table.locator('tr[aria-selected="true"] td.fn');
  await table.locator('td.fn', { hasText: /^parse$/ }).click();
  await expect(selected).toHaveText('parse');
  await expect(page).toHaveURL(/fn=parse/);
  // Inverted: parse is still a function of the view (it was unselected, the link forgot it).
  await page.getByRole('checkbox', { name: 'Inverted' }).check();
  await expect(page.getByRole('region', { name: 'Inverted flame graph' })).toBeVisible();
  await expect(page).toHaveURL(/inverted=1/);
  await expect(selected).toHaveText('parse');
  await expect(page).toHaveURL(/fn=parse/);
  await page.getByRole('checkbox', { name: 'Inverted' }).uncheck();
  await expect(page).not.toHaveURL(/inverted=1/);
  await expect(selected).toHaveText('parse');
  // Hidden from its row's menu: parse is no longer in the view, nothing is selected.
  await table.locator('td.fn', { hasText: /^parse$/ }).click({ button: 'right' });
  await page
    .getByRole('menu')
    .getByRole('menuitem', { name: /^Hide function parse/ })
    .click();
  await expect(page.getByRole('list', { name: 'Transforms' })).toContainText('Hide: parse');
  await expect(table.locator('td.fn', { hasText: /^parse$/ })).toHaveCount(0);
  await expect(selected).toHaveCount(0);
  await expect(page).not.toHaveURL(/fn=/);
});

test('each transform from the context menu, shown as a chip, and removed again', async ({ page }) => {
  await open(page);
  const chips = page.getByRole('list', { name: 'Transforms' });

  await transform(page, point(page, 0.3, 1), /^Hide function parse/);
  await expect(chips).toContainText('Hide: parse');
  await expect.poll(() => hoverName(page, point(page, 0.2, 1))).toBe('read'); // joined to main
  await page.screenshot({ path: `${SHOTS}/transform-hide.png` });
  await chips.getByRole('button', { name: 'Remove Hide: parse' }).click();
  await expect(chips).toHaveCount(0);
  await expect.poll(() => hoverName(page, point(page, 0.2, 1))).toBe('parse');

  await transform(page, point(page, 0.75, 1), /^Focus on function render/);
  await expect(chips).toContainText('Focus: render');
  await expect.poll(() => hoverName(page, point(page, 0.5, 0))).toBe('render');
  await expect(page.getByRole('table').locator('td.fn')).toHaveText(['fill', 'layout', 'render', 'draw']);

  // Composed: then focus on a subtree of the focused view (render › draw).
  await transform(page, point(page, 0.3, 1), /^Focus on subtree/);
  await expect(chips.getByRole('listitem')).toHaveCount(2);
  await expect.poll(() => hoverName(page, point(page, 0.5, 0))).toBe('draw');
  await chips.getByRole('button', { name: /^Remove Focus subtree/ }).click();
  await chips.getByRole('button', { name: 'Remove Focus: render' }).click();
  await expect.poll(() => hoverName(page, point(page, 0.5, 0))).toBe('main');
});

test('a transform chosen with the keyboard gives the focus back: the keys move on in the graph and the table', async ({
  page,
}) => {
  await open(page);
  const graph = page.getByTestId('main-graph').locator('.fg-scroll');
  const status = page.getByTestId('selection-status');
  await graph.focus();
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await expect(status).toHaveText(/Selected parse/);
  // Shift+F10, down to "Hide function parse", Enter: it was lost on the page's body.
  await page.keyboard.press('Shift+F10');
  const menu = page.getByRole('menu');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(menu.getByRole('menuitem', { name: /^Hide function parse/ })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(menu).toHaveCount(0);
  await expect(page.getByRole('list', { name: 'Transforms' })).toContainText('Hide: parse');
  await expect(graph).toBeFocused();
  await page.keyboard.press('0');
  await page.keyboard.press('ArrowUp');
  await expect(status).toHaveText(/Selected main/);
  await page.keyboard.press('ArrowUp');
  await expect(status).toHaveText(/Selected read/);

  // The table: a row, its menu, Focus on function; the rows then follow the keys.
  const table = page.getByRole('table');
  await table.locator('td.fn', { hasText: /^render$/ }).click();
  const rows = page.locator('.ftable-scroll');
  await expect(rows).toBeFocused();
  await page.keyboard.press('Shift+F10');
  await expect(menu.getByRole('menuitem', { name: /^Focus on function render/ })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('list', { name: 'Transforms' })).toContainText('Focus: render');
  await expect(rows).toBeFocused();
  await expect(firstCells(table)).toHaveText(['fill', 'layout', 'render', 'draw']);
  await page.keyboard.press('ArrowDown');
  await expect(table.locator('tr[aria-selected="true"] td.fn')).not.toHaveText('render');
});

test('collapse recursion and merge module', async ({ page }) => {
  await open(page, 'recursive.folded');
  // main;f;f;f;g — f repeated: collapse it.
  expect(await hoverName(page, point(page, 0.3, 2))).toBe('f');
  await transform(page, point(page, 0.3, 1), /^Collapse recursion/);
  await expect(page.getByRole('list', { name: 'Transforms' })).toContainText('Collapse recursion: f');
  await expect.poll(() => hoverName(page, point(page, 0.3, 2))).toBe('g');

  // A gperftools profile: merge the libc module into one frame.
  await dropFile(page, `${FIXTURES}/gperf/tiny.prof`, 'tiny.prof');
  await paintedGraph(page);
  await expect.poll(() => hoverName(page, point(page, 0.5, 1))).toBe('[libc.so.6]');
  // Keyboard: select the frame, then the context-menu key.
  const graph = page.getByTestId('main-graph').locator('.fg-scroll');
  await graph.focus();
  await graph.press('ArrowUp');
  await graph.press('ArrowUp');
  await graph.press('Shift+F10');
  await page
    .getByRole('menu')
    .getByRole('menuitem', { name: /^Merge module libc\.so\.6/ })
    .click();
  await expect(page.getByRole('list', { name: 'Transforms' })).toContainText('Merge module: libc.so.6');
  await expect.poll(() => hoverName(page, point(page, 0.5, 1))).toBe('libc.so.6');
  await page.screenshot({ path: `${SHOTS}/transform-merge.png` });
});
