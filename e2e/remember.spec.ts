// Symbol files remembered between visits (issue 17): binaries dropped once symbolize later
// profiles of the same program after a reload, from this browser's IndexedDB; forgetting them
// (in the list on the start page or in the Symbols panel) leaves the next profile unsymbolized.

import { expect, test } from '@playwright/test';
import { dropFile, dropFiles, FIXTURES, openTinyWithBinary, paintedGraph, SHOTS } from './helpers';

test('a binary dropped once symbolizes another profile of the program after a reload; forgetting it does not', async ({
  page,
}) => {
  await openTinyWithBinary(page);
  const table = page.getByRole('table');
  await expect(table).toContainText('gamma_');

  // A new visit: the start page lists what it remembers.
  await page.goto('./');
  await page.reload();
  const remembered = page.locator('details.remembered');
  await expect(remembered.locator('summary')).toContainText('Remembered symbol files (1,');
  await remembered.locator('summary').click();
  await expect(remembered.getByRole('list', { name: 'Remembered symbol files' })).toContainText(
    /tiny .*build-id [0-9a-f]{12}…/,
  );
  await page.screenshot({ path: `${SHOTS}/remembered-start.png` });

  // Another profile of the same program, dropped alone: named from the remembered binary.
  await dropFile(page, `${FIXTURES}/gperf/tiny_f1000.prof`, 'tiny_f1000.prof');
  await paintedGraph(page);
  await expect(table).toContainText('gamma_');
  const symbols = page.getByRole('region', { name: 'Symbols' });
  await expect(symbols).toContainText('From files this browser remembers: tiny.');
  await expect(symbols.getByRole('list', { name: 'Mapped files' })).toContainText('tiny from tiny (by name)');
  await symbols.locator('details.remembered summary').click();
  await symbols.screenshot({ path: `${SHOTS}/remembered-symbols.png` });

  // Forget it: the next profile stays unsymbolized.
  await symbols.getByRole('button', { name: 'Forget tiny' }).click();
  await expect(symbols.locator('details.remembered summary')).toContainText('Remembered symbol files (0)');
  await page.goto('./');
  await page.reload();
  await dropFile(page, `${FIXTURES}/gperf/tiny.prof`, 'tiny.prof');
  await paintedGraph(page);
  await expect(table).toContainText('[tiny]');
  await expect(table).not.toContainText('gamma_');
  await expect(page.getByRole('region', { name: 'Symbols' })).not.toContainText('remembers');
});

test('a remembered binary names a profile opened per address too (its samples per file counted first)', async ({
  page,
}) => {
  await openTinyWithBinary(page);
  // Per address, the fold takes the parsed stacks over and leaves the samples each mapped file
  // holds to be counted when asked: which files to look for among the remembered ones waits for it.
  await page.goto('./#gran=addresses');
  await page.reload();
  await dropFile(page, `${FIXTURES}/gperf/tiny_f1000.prof`, 'tiny_f1000.prof');
  await paintedGraph(page);
  await expect(page.getByRole('table')).toContainText('gamma_');
  const symbols = page.getByRole('region', { name: 'Symbols' });
  await expect(symbols).toContainText('From files this browser remembers: tiny.');
  await expect(symbols.getByRole('list', { name: 'Mapped files' })).toContainText(
    /tiny from tiny \(by name\) [\d.]+% self · [\d.]+% total/,
  );
});

test('remembering can be turned off: nothing is kept', async ({ page }) => {
  await page.goto('./');
  const remembered = page.locator('details.remembered');
  await remembered.locator('summary').click();
  await remembered.getByLabel('Remember dropped symbol files').uncheck();
  await dropFiles(page, [
    { path: `${FIXTURES}/gperf/tiny.prof`, name: 'tiny.prof' },
    { path: `${FIXTURES}/gperf/bin/tiny`, name: 'tiny' },
  ]);
  await paintedGraph(page);
  await expect(page.getByRole('table')).toContainText('gamma_');
  await expect(
    page.getByRole('region', { name: 'Symbols' }).locator('details.remembered summary'),
  ).toContainText('Remembered symbol files (0)');
});
