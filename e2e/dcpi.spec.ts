// DCPI profiles: a flat profile drawn as image → address, the header shown line by line, and a
// clear error naming the line or byte offset for a bad file.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { dropFile, FIXTURES, paintedGraph, ROW, SHOTS } from './helpers';

test('a DCPI profile shows a flat flame graph, its addresses in the table by default, and its header', async ({
  page,
}) => {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/dcpi/valid_unknown_lines.dcpi`, 'xemacs.dcpi');
  const canvas = await paintedGraph(page);
  const box = (await canvas.boundingBox())!;
  // Root row: the image.
  await page.mouse.move(box.x + box.width / 2, box.y + box.height - ROW / 2);
  await expect(page.getByTestId('tooltip').locator('.tt-name')).toHaveText('xemacs');
  await expect(page.getByTestId('tooltip')).toContainText('1,000,028 samples');
  // Counts only: DCPI periods are events, not time.
  await expect(page.getByTestId('tooltip')).not.toContainText(' ms');

  const meta = page.getByRole('region', { name: 'Profile metadata' });
  await expect(meta).toContainText('dcpi');
  await expect(meta).toContainText('1998-05-19T17:24:00Z');
  await expect(meta).toContainText('cycles');
  await expect(meta).toContainText('63488');
  await expect(meta.locator('.header-lines')).toContainText('label my run #1   (unknown line)');
  await expect(meta.locator('.header-lines')).toContainText('cpuspeed 300');

  // Without the image's ELF there are no functions: the table shows where the samples are, the
  // addresses (self > 0); unticking "Per address" leaves the image row alone.
  await page.mouse.move(0, 0); // the tooltip (it holds a table too) goes away
  const table = page.getByRole('table');
  await expect(page.getByRole('checkbox', { name: 'Per address' })).toBeChecked();
  await expect(page.getByTestId('row-count')).toHaveText('9 functions');
  await expect(table).toContainText('xemacs+0x');
  await expect(table.locator('tbody tr[aria-rowindex]').first().locator('td.num').first()).not.toHaveText(
    '0',
  );
  await page.getByRole('checkbox', { name: 'Per address' }).uncheck();
  await expect(page.getByTestId('row-count')).toHaveText('1 function');
  await page.getByRole('checkbox', { name: 'Per address' }).check();
  await page.screenshot({ path: `${SHOTS}/dcpi.png` });
});

test('a malformed DCPI file names the line of the problem', async ({ page }) => {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/dcpi/bad_duplicate_image.dcpi`, 'bad_duplicate_image.dcpi');
  await expect(page.getByRole('alert')).toContainText(/line \d+/);
  await dropFile(page, `${FIXTURES}/dcpi/bad_chunk_past_eof.dcpi`, 'bad_chunk_past_eof.dcpi');
  await expect(page.getByRole('alert')).toContainText(/byte \d+/);
});

/**
 * A DCPI profile of `n` sampled addresses in one chunk: address offset i has 1 + (i·7919 mod 997)
 * samples. Written beside the test results; the counts, for the expectations.
 */
function bigDcpi(n: number): { path: string; counts: Uint32Array } {
  const header =
    'version pdb-0.07\nimage 19970328081403c0c18b\nepoch 9805191724\nplatform walnut\nevent cycles\n' +
    `period 63488\ntstart 120000000\ntsize ${n * 4}\ncpuspeed 300\npath /opt/e2e/bin/big\nsamples\n`;
  const bytes = new Uint8Array(header.length + 8 + 4 * n + 8);
  const dv = new DataView(bytes.buffer);
  for (let i = 0; i < header.length; i++) bytes[i] = header.charCodeAt(i);
  const counts = new Uint32Array(n);
  let total = 0;
  let p = header.length;
  dv.setUint32(p, 0, true); // the chunk's offset and count
  dv.setUint32(p + 4, n, true);
  p += 8;
  for (let i = 0; i < n; i++, p += 4) {
    counts[i] = 1 + ((i * 7919) % 997);
    total += counts[i];
    dv.setUint32(p, counts[i], true);
  }
  dv.setUint32(p, n, true); // the footer: addresses with samples, and samples (mod 2^32)
  dv.setUint32(p + 4, total >>> 0, true);
  mkdirSync('test-results/dcpi', { recursive: true });
  const path = `test-results/dcpi/big-${n}.dcpi`;
  writeFileSync(path, bytes);
  return { path, counts };
}

test('a table of a million addresses sorts by every column and filters as it is typed', async ({ page }) => {
  const n = 1_000_000;
  const { path, counts } = bigDcpi(n);
  const name = (i: number) => `big+0x${i.toString(16)}`;
  // the expectations, from the counts: the heaviest and the lightest offset (ties: the lowest)
  let heaviest = 0;
  let lightest = 0;
  for (let i = 1; i < n; i++) {
    if (counts[i] > counts[heaviest]) heaviest = i;
    if (counts[i] < counts[lightest]) lightest = i;
  }
  await page.goto('./');
  await page.getByLabel('Open profile').setInputFiles(path);
  const table = page.getByRole('region', { name: 'Function table' }).getByRole('table');
  const rowCount = page.getByTestId('row-count');
  // the addresses, and the image's row (no samples of its own; all of them in its total)
  await expect(rowCount).toHaveText('1,000,001 functions');
  const names = table.locator('tbody tr[aria-rowindex] td.fn');
  await expect(names.first()).toHaveText(name(heaviest));

  // Self again: ascending, the image first (0), then the lightest address.
  await table.getByRole('button', { name: /^Self/ }).first().click();
  await expect(table.getByRole('columnheader', { name: /^Self/ }).first()).toHaveAttribute(
    'aria-sort',
    'ascending',
  );
  await expect(table).toHaveAttribute('aria-busy', 'false');
  await expect(names.nth(0)).toHaveText('big');
  await expect(names.nth(1)).toHaveText(name(lightest));

  // Total: the image holds every sample, then the heaviest address.
  await table
    .getByRole('button', { name: /^Total/ })
    .first()
    .click();
  await expect(table).toHaveAttribute('aria-busy', 'false');
  await expect(names.nth(0)).toHaveText('big');
  await expect(names.nth(1)).toHaveText(name(heaviest));
  await expect(rowCount).toHaveText('1,000,001 functions');

  // A filter typed key by key: the rows whose name holds it, heaviest total first.
  const needle = '+0x3039';
  const kept: number[] = [];
  for (let i = 0; i < n; i++) if (name(i).includes(needle)) kept.push(i);
  kept.sort((x, y) => counts[y] - counts[x] || x - y);
  await page.getByLabel('Filter functions').pressSequentially(needle);
  await expect(rowCount).toHaveText(`${kept.length} functions`);
  await expect(table).toHaveAttribute('aria-busy', 'false');
  await expect(names).toHaveText(kept.map(name));
  // an address's share is a few ten-thousandths of a percent: shown to two digits, not as 0.00 %
  let total = 0;
  for (let i = 0; i < n; i++) total += counts[i];
  const share = (100 * counts[kept[0]]) / total;
  expect(share).toBeGreaterThan(0.0001);
  await expect(table.locator('tbody tr[aria-rowindex]').first().locator('td.num').nth(1)).toHaveText(
    `${Number(share.toPrecision(2))} %`,
  );
  await page.screenshot({ path: `${SHOTS}/dcpi-million.png` });

  // All the rows again: End goes to the last (24M px of rows, more than a browser lays out), Home
  // to the first, each selected and whole in view.
  await page.getByLabel('Filter functions').fill('');
  await expect(rowCount).toHaveText('1,000,001 functions');
  await expect(table).toHaveAttribute('aria-busy', 'false');
  const lastByTotal = Array.from({ length: n }, (_, i) => i).sort(
    (x, y) => counts[x] - counts[y] || y - x,
  )[0];
  await names.first().click();
  await page.keyboard.press('End');
  const selected = table.locator('tbody tr[aria-selected="true"]');
  await expect(selected).toHaveAttribute('aria-rowindex', String(n + 2));
  await expect(selected.locator('td.fn')).toHaveText(name(lastByTotal));
  await expect(selected).toBeInViewport({ ratio: 1 });
  await page.keyboard.press('Home');
  await expect(selected).toHaveAttribute('aria-rowindex', '2');
  await expect(selected.locator('td.fn')).toHaveText('big');
  await expect(selected).toBeInViewport({ ratio: 1 });
});

test('the function table of a million addresses exports as CSV, every row in the table’s order', async ({
  page,
}) => {
  const n = 1_000_000;
  const { path, counts } = bigDcpi(n);
  const name = (i: number) => `big+0x${i.toString(16)}`;
  let total = 0;
  for (let i = 0; i < n; i++) total += counts[i];
  await page.goto('./');
  await page.getByLabel('Open profile').setInputFiles(path);
  const table = page.getByRole('region', { name: 'Function table' }).getByRole('table');
  await expect(page.getByTestId('row-count')).toHaveText('1,000,001 functions');
  // Sorted by Total, ascending: the lightest addresses first, the image (every sample) last.
  const byTotal = table.getByRole('button', { name: /^Total/ }).first();
  await byTotal.click();
  await byTotal.click();
  await expect(table.getByRole('columnheader', { name: /^Total/ }).first()).toHaveAttribute(
    'aria-sort',
    'ascending',
  );
  await expect(table).toHaveAttribute('aria-busy', 'false');

  await page.getByRole('button', { name: 'Export' }).click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('menuitem', { name: 'Function table (CSV)' }).click(),
  ]);
  await expect(page.getByRole('menu', { name: 'Export' })).toHaveCount(0);
  const lines = readFileSync((await download.path())!, 'utf8')
    .replace(/^\uFEFF/, '')
    .split('\r\n');
  expect(lines.pop()).toBe('');
  expect(lines[0]).toBe('Function,Module,Self (samples),Self %,Total (samples),Total %');
  expect(lines).toHaveLength(n + 2);
  // ascending by total; ties of total in the table's order: descending by self, then by offset
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => counts[x] - counts[y] || x - y);
  const row = (k: number) => {
    const i = order[k];
    const share = (100 * counts[i]) / total;
    const [fn, mod, self, selfPct, tot] = lines[1 + k].split(',');
    expect([fn, mod, Number(self), Number(tot)]).toEqual([name(i), '/opt/e2e/bin/big', counts[i], counts[i]]);
    // the share as written, not rounded away to 0
    expect(Math.abs(Number(selfPct) - share) / share).toBeLessThan(0.03);
  };
  for (const k of [0, 1, 2, n - 2, n - 1]) row(k);
  expect(lines.slice(1, 6).map((l) => l.split(',')[0])).toEqual(order.slice(0, 5).map(name));
  expect(lines[n + 1]).toBe(`big,/opt/e2e/bin/big,0,0,${total},100`);
});

test('the call tree of a million addresses opens at the image, lists them heaviest first, and closes', async ({
  page,
}) => {
  const n = 1_000_000;
  const { path, counts } = bigDcpi(n);
  const name = (i: number) => `big+0x${i.toString(16)}`;
  // the addresses heaviest first, ties in address order (the tree's ids)
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => counts[y] - counts[x] || x - y);
  await page.goto('./');
  await page.getByLabel('Open profile').setInputFiles(path);
  await expect(page.getByTestId('row-count')).toHaveText('1,000,001 functions');
  await page.getByRole('tab', { name: 'Call tree' }).click();
  const tree = page.getByTestId('call-tree');
  const rows = tree.locator('tbody tr[aria-rowindex]');
  // No address holds 1 % of the samples: the heaviest path stops at the image, closed.
  await expect(rows.first().locator('.name')).toHaveText('big');
  await expect(rows.first()).toHaveAttribute('aria-expanded', 'false');
  await expect(rows).toHaveCount(1);
  await rows.first().getByRole('button', { name: 'Expand' }).click();
  await expect(rows.first()).toHaveAttribute('aria-expanded', 'true');
  await expect(rows.nth(1).locator('.name')).toHaveText(name(order[0]));
  await expect(rows.nth(2).locator('.name')).toHaveText(name(order[1]));
  await expect(tree.locator('table')).toHaveAttribute('aria-rowcount', String(n + 2));
  await rows.first().getByRole('button', { name: 'Collapse' }).click();
  await expect(rows).toHaveCount(1);
});

test('a tab chosen while a large profile is first pictured stays when its full tree comes', async ({
  page,
}) => {
  const { path } = bigDcpi(1_000_000);
  await page.goto('./');
  await page.getByLabel('Open profile').setInputFiles(path);
  // the first picture (the heavy addresses): the full tree is still being built
  await page.waitForFunction(() => performance.getEntriesByName('flamelens:first-paint').length > 0);
  await page.getByRole('tab', { name: 'Call tree' }).click();
  await page.waitForFunction(() => performance.getEntriesByName('flamelens:ready').length > 0);
  await expect(page.getByTestId('row-count')).toHaveText('1,000,001 functions');
  await expect(page.getByRole('tab', { name: 'Call tree' })).toHaveAttribute('aria-selected', 'true');
  await expect(
    page.getByTestId('call-tree').locator('tbody tr[aria-rowindex]').first().locator('.name'),
  ).toHaveText('big');
  await expect(page).toHaveURL(/panel=calltree/);
});
