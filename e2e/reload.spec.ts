// A reload keeps what the user was looking at: a dropped profile (and its binaries) is kept in this
// browser, the URL names it (#local=…), and the view in the hash comes back; the start page lists
// kept profiles with a "forget" control; a zoom the profile does not have says so.

import { expect, test } from '@playwright/test';
import { openTinyWithBinary, paintedGraph, SHOTS } from './helpers';

const crumbs = (page: import('@playwright/test').Page) =>
  page.getByRole('navigation', { name: 'Zoom path' }).getByRole('button');

test('a dropped profile and its binary come back after a reload, zoom included; forget removes it', async ({
  page,
}) => {
  const canvas = await openTinyWithBinary(page);
  await expect(page).toHaveURL(/ws=[0-9a-z]+/);
  // Zoom on main (the row above the two libc rows and _start).
  const box = (await canvas.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height - 18 * 4 - 9);
  await expect(crumbs(page)).toContainText(['all']);
  const zoomed = await crumbs(page).allTextContents();
  expect(zoomed.length).toBeGreaterThan(1);
  await expect(page).toHaveURL(/zoom=/);
  await page.reload();
  await paintedGraph(page);
  await expect(page.locator('.current-file')).toHaveText('tiny.prof');
  await expect(crumbs(page)).toHaveText(zoomed);
  // Symbolized: the binary was kept too.
  await expect(page.getByRole('region', { name: 'Function table' })).toContainText('gamma_');

  // A zoom path the profile lacks: the nearest ancestor, and a notice.
  const url = new URL(page.url());
  const hash = new URLSearchParams(url.hash.slice(1));
  hash.set('zoom', ['_start', 'no_such_function'].join('\u001f'));
  await page.goto(`${url.pathname}#${hash}`);
  await page.reload();
  await expect(page.getByTestId('notice')).toContainText('is not in this profile');
  await page.screenshot({ path: `${SHOTS}/reload-notice.png` });

  await page.goto('./');
  const recent = page.getByRole('region', { name: 'Recent profiles' });
  await expect(recent).toContainText('tiny.prof');
  await recent.getByRole('button', { name: 'Forget tiny.prof' }).click();
  await expect(recent).toHaveCount(0);
});

test('a link to a profile this browser no longer keeps says so, on the start page', async ({ page }) => {
  await page.goto('./#ws=notkept');
  await expect(
    page.getByText('The profile this page showed is no longer kept in this browser'),
  ).toBeVisible();
  await expect(page.getByRole('heading', { name: /Drop a CPU profile/ })).toBeVisible();
  await expect(page.getByRole('progressbar', { name: 'Parsing progress' })).toHaveCount(0);
});
