// Lines and inlined functions from DWARF in the browser: drop a profile with its -O2 -g binary and
// the source file, pick a function, see its lines with their counts beside the source text.

import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { dropFiles, FIXTURES, hoverName, paintedGraph, SHOTS } from './helpers';

const D = `${FIXTURES}/dwarf`;

test('the source panel shows a function’s lines and counts beside the dropped source', async ({ page }) => {
  await page.goto('./');
  await dropFiles(page, [
    { path: `${D}/inline5.prof`, name: 'inline5.prof' },
    { path: `${D}/bin/inline5`, name: 'inline5' },
    { path: `${D}/src/inline.cpp`, name: 'inline.cpp' },
  ]);
  await paintedGraph(page);
  // Inlined functions are frames of their own: the table lists the template the loop inlined.
  const table = page.getByRole('region', { name: 'Function table' });
  await page.getByPlaceholder('Filter functions').fill('hot_chain');
  await table
    .locator('tbody tr[aria-rowindex] td.fn', { hasText: /^fx::hot_chain$/ })
    .first()
    .click();
  const panel = page.getByRole('region', { name: 'Source' });
  await expect(panel).toContainText('Source of fx::hot_chain');
  const hot = panel.locator('tr.hot').first();
  await expect(hot).toBeVisible();
  // The hot row's text is that line of the file, and it has samples.
  const n = Number(await hot.locator('td').first().textContent());
  const source = readFileSync(`${D}/src/inline.cpp`, 'utf8').split('\n');
  await expect(hot.locator('code')).toHaveText(source[n - 1]);
  expect(Number(await hot.locator('td').nth(1).textContent())).toBeGreaterThan(0);
  await page.screenshot({ path: `${SHOTS}/source.png` });
  await panel.getByRole('tab', { name: 'Addresses' }).click();
  await expect(panel.getByTestId('source-addresses')).toContainText('inline.cpp:');
});

/** inline5 opened with its binary (and the source file) at a granularity the URL keeps. */
async function openInline5(page: Page, granularity: 'lines' | 'addresses', withSource: boolean) {
  await page.goto('./');
  await dropFiles(page, [
    { path: `${D}/inline5.prof`, name: 'inline5.prof' },
    { path: `${D}/bin/inline5`, name: 'inline5' },
    ...(withSource ? [{ path: `${D}/src/inline.cpp`, name: 'inline.cpp' }] : []),
  ]);
  await paintedGraph(page);
  await page.getByRole('combobox', { name: 'Granularity' }).selectOption(granularity);
  await expect(page).toHaveURL(new RegExp(`gran=${granularity}`));
}

/**
 * Searches the graph (`pattern`, a regular expression), Enter selects the first match, the graph
 * zooms to it (Enter on the graph), then hovers the middle of each row from the root up until the
 * tooltip names a frame `label` matches: zoomed, the match and its callers span the whole width.
 */
async function hoverMatch(page: Page, pattern: string, label: RegExp): Promise<void> {
  const search = page.getByRole('searchbox', { name: 'Search functions' });
  await search.fill(pattern);
  // Enter steps through the places the worker found: only once it has said what matched.
  const count = page.getByTestId('search-count');
  await expect(count).toHaveText(/^matched: /);
  await search.press('Enter');
  await expect(count).toHaveText(/ · 1\/\d+$/);
  const graph = page.getByTestId('main-graph').locator('.fg-scroll');
  await graph.focus();
  await graph.press('Enter');
  const crumbs = page.getByRole('navigation', { name: 'Zoom path' }).getByRole('button');
  await expect(crumbs).not.toHaveCount(1);
  const box = (await page.getByTestId('main-graph').getByRole('img').boundingBox())!;
  // The zoomed frame's row: the crumbs but 'all' are it and its callers, the outermost in row 0.
  const depth = (await crumbs.count()) - 2;
  await expect
    .poll(() => hoverName(page, { x: box.x + box.width / 2, y: box.y + box.height - 18 * depth - 9 }))
    .toMatch(label);
}

test('lines granularity: `function file:line` frames, labelled and listed from their fields; the URL keeps it', async ({
  page,
}) => {
  await openInline5(page, 'lines', true);
  // The table: the function and the file's base name; the whole path in the cell's title.
  await page.getByPlaceholder('Filter functions').fill('hot_chain');
  const cell = page
    .getByRole('region', { name: 'Function table' })
    .locator('tbody tr[aria-rowindex] td.fn')
    .first();
  await expect(cell).toHaveText(/^fx::hot_chain inline\.cpp:\d+$/);
  await expect(cell).toHaveAttribute('title', /^fx::hot_chain\nat \/fixtures\/dwarf\/src\/inline\.cpp:\d+$/);
  // The source panel of a line frame is its function's.
  await cell.click();
  const panel = page.getByRole('region', { name: 'Source' });
  await expect(panel).toContainText('Source of fx::hot_chain');
  await expect(panel.locator('tr.hot').first()).toBeVisible();
  // The graph: a line frame's label and tooltip say the line, the tooltip the whole path too.
  await hoverMatch(page, 'hot_chain', /^fx::hot_chain inline\.cpp:\d+$/);
  await expect(page.getByTestId('tt-at')).toHaveText(/^\/fixtures\/dwarf\/src\/inline\.cpp:\d+$/);
  await page.screenshot({ path: `${SHOTS}/lines.png` });
});

test('addresses granularity: a `function+0xOFFSET` frame’s tooltip says where it is in its module', async ({
  page,
}) => {
  await openInline5(page, 'addresses', false);
  await hoverMatch(page, 'hot_chain\\+0x', /^fx::hot_chain\+0x[0-9a-f]+$/);
  await expect(page.getByTestId('tt-address')).toHaveText(/^at inline5\+0x[0-9a-f]+$/);
  await expect(page.getByTestId('tt-full')).toHaveText('fx::hot_chain(unsigned long)');
  await page.screenshot({ path: `${SHOTS}/addresses.png` });
});
