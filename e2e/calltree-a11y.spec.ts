// The call tree for assistive technology: a WAI-ARIA treegrid (APG "Treegrid"), whose rows carry
// the level and the expanded state a screen reader reads, with the focus on one row at a time (a
// roving tabindex) that the keys move. It was a plain table with a focusable scroller: the rows'
// aria-level/aria-expanded were not honoured, and no row ever had the focus.

import { expect, type Locator, test } from '@playwright/test';
import { openTinyWithBinary } from './helpers';

/** The rows with the focus in the Tab order (tabindex 0): one, always. */
const tabStops = (grid: Locator) => grid.locator('tbody tr[tabindex="0"]');

test('the call tree is a treegrid: Tab reaches one row, the keys move the focus and open and close rows', async ({
  page,
}) => {
  await openTinyWithBinary(page);
  const tab = page.getByRole('tablist', { name: 'View' }).getByRole('tab', { name: 'Call tree' });
  await tab.click();
  const grid = page.getByRole('treegrid', { name: 'Call tree' });
  await expect(grid).toBeVisible();
  const rows = grid.locator('tbody tr[aria-rowindex]');
  // _start › [libc.so.6] › [libc.so.6] › main › beta (the heaviest path) › …
  await expect(rows.first()).toContainText('_start');
  await expect(rows.first()).toHaveAttribute('aria-level', '1');
  await expect(rows.nth(3)).toContainText('main');
  await expect(rows.nth(3)).toHaveAttribute('aria-level', '4');
  await expect(tabStops(grid)).toHaveCount(1);

  // From the tab, Tab goes to the first row (nothing is selected yet).
  await tab.focus();
  await page.keyboard.press('Tab');
  await expect(rows.first()).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(rows.nth(1)).toBeFocused();
  await expect(rows.nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(tabStops(grid)).toHaveCount(1);
  await expect(tabStops(grid)).toHaveAttribute('aria-rowindex', '3');
  await page.keyboard.press('End');
  await expect(rows.last()).toBeFocused();
  await page.keyboard.press('Home');
  await expect(rows.first()).toBeFocused();

  // ← closes the focused row, → opens it; the focus stays on it.
  await page.keyboard.press('ArrowLeft');
  await expect(rows.first()).toHaveAttribute('aria-expanded', 'false');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(rows.first()).toHaveAttribute('aria-expanded', 'true');
  // → on an open row goes to its first child; ← on a closed leaf goes to its parent.
  await page.keyboard.press('ArrowRight');
  await expect(rows.nth(1)).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(rows.nth(1)).toHaveAttribute('aria-expanded', 'false');
  await page.keyboard.press('ArrowLeft');
  await expect(rows.first()).toBeFocused();
  // `*` opens everything below: every row of tiny's tree (_start, 2 × libc, main, alpha, spin,
  // beta, gamma_, spin, spin).
  await page.keyboard.press('*');
  await expect(rows).toHaveCount(10);
  await expect(rows.first()).toBeFocused();

  // A click focuses the row it selects; Shift+Tab leaves the tree, Tab comes back to that row.
  await rows.nth(4).click();
  await expect(rows.nth(4)).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(tab).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(rows.nth(4)).toBeFocused();
});
