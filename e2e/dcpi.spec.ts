// DCPI profiles: a flat profile drawn as image → address, the header shown line by line, and a
// clear error naming the line or byte offset for a bad file.

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
  await expect(page.getByTestId('row-count')).toHaveText('1 functions');
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
