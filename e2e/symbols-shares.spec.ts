// The Symbols panel's shares are of the profile's samples, whatever the view does to them: a
// transform that keeps part of the samples left the panel dividing the file's samples by the
// view's total (tiny's 18 samples of 8 kept read "225.0% self · 225.0% total").

import { expect, test } from '@playwright/test';
import { openTinyWithBinary } from './helpers';

test('a focus transform leaves the Symbols panel’s shares of the profile as they were', async ({ page }) => {
  await openTinyWithBinary(page);
  const mapped = page.getByRole('region', { name: 'Symbols' }).getByRole('list', { name: 'Mapped files' });
  const tiny = mapped.getByRole('listitem').filter({ hasText: /^✓ tiny from tiny/ });
  await expect(tiny).toContainText('100.0% self · 100.0% total');
  const libc = mapped.getByRole('listitem').filter({ hasText: /libc\.so\.6 unsymbolized/ });
  await expect(libc).toContainText('0.0% self · 100.0% total');

  const table = page.getByRole('region', { name: 'Function table' });
  await table
    .getByRole('row')
    .filter({ hasText: /^alpha/ })
    .click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Focus on function alpha' }).click();
  await expect(page.getByText('Focus: alpha')).toBeVisible();
  // alpha's 8 samples of the 18 are the view's now.
  await expect(page.getByRole('img', { name: /Flame graph of tiny\.prof: 8 samples/ })).toBeVisible();
  await expect(tiny).toContainText('100.0% self · 100.0% total');
  await expect(libc).toContainText('0.0% self · 100.0% total');
});
