// A profile whose mapped-objects text was lost (cut after its trailer): the binaries dropped with
// it are placed at load addresses the page guesses from the profile's return addresses, confirmed
// with a click, and then name the frames; the placement is in the link.

import { expect, test } from '@playwright/test';
import { dropFiles, FIXTURES, paintedGraph, SHOTS } from './helpers';

test('a maps-less profile: guessed load addresses, applied, name the code', async ({ page }) => {
  await page.goto('./');
  await dropFiles(page, [
    { path: `${FIXTURES}/debian/xz-no-maps.prof`, name: 'xz-no-maps.prof' },
    { path: `${FIXTURES}/heap/bin/xz`, name: 'xz' },
    { path: `${FIXTURES}/sysroot/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1`, name: 'liblzma.so.5.4.1' },
  ]);
  await paintedGraph(page);
  const table = page.getByRole('table');
  // Nothing is placed yet: bare addresses, and the panel asks where the files were loaded.
  await expect(table).not.toContainText('lzma_');
  await expect(page.getByRole('region', { name: 'Errors and warnings' })).toContainText(
    'no mapped-objects text',
  );
  const placing = page.getByRole('region', { name: 'Placement' });
  const lzma = placing.getByRole('textbox', { name: /liblzma\.so\.5\.4\.1/ });
  const xz = placing.getByRole('textbox', { name: /^– xz/ });
  // /proc/maps said: liblzma's text at 0x7f73047f0000 (vaddr 0x4000), xz's at 0x560242d38000 (0x3000).
  await expect(lzma).toHaveValue('0x7f73047ec000');
  await expect(xz).toHaveValue('0x560242d35000');
  await expect(placing).toContainText('return addresses follow a call instruction');

  await placing
    .getByRole('listitem')
    .filter({ hasText: 'liblzma' })
    .getByRole('button', { name: 'Apply' })
    .click();
  await expect(table).toContainText('lzma_');
  await expect(page).toHaveURL(/place=liblzma\.so\.5\.4\.1%400x7f73047ec000/);
  await placing
    .getByRole('listitem')
    .filter({ hasText: /^– xz/ })
    .getByRole('button', { name: 'Apply' })
    .click();
  await expect(placing.getByRole('listitem').filter({ hasText: /^✓ xz/ })).toBeVisible();
  await expect(page).toHaveURL(/place=xz%400x560242d35000/);
  await page.screenshot({ path: `${SHOTS}/placement.png` });

  // A typed address that is no address cannot be applied.
  await lzma.fill('0xnot');
  await expect(
    placing
      .getByRole('listitem')
      .filter({ hasText: 'liblzma' })
      .getByRole('button', { name: 'Move', exact: true }),
  ).toBeDisabled();
});
