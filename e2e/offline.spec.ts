// Offline: after one visit the service worker has precached the app. With the server gone and the
// browser offline, a reload still shows the app, and a profile opens and paints.

import { expect, type Page, test } from '@playwright/test';
import { startServer } from '../scripts/serve-subpath';

const SHOTS = 'test-results/screenshots';

async function expectPainted(page: Page) {
  const canvas = page.getByRole('img', { name: /Flame graph of/ });
  await expect(canvas).toBeVisible();
  await expect(canvas).toHaveAttribute('data-painted', /[1-9]/);
}

test('works offline after the first visit', async ({ page, context }) => {
  // Our own server, so the test can really take it away (not only emulate offline).
  const srv = await startServer({ dir: process.env.FLAMELENS_DIST ?? 'dist', prefix: '/flamelens/' });
  try {
    await page.goto(srv.url);
    await expect(page.getByRole('heading', { name: /Drop a CPU profile/ })).toBeVisible();
    // The service worker is active (precache complete) and controls this very page (clientsClaim).
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  } finally {
    await srv.close();
  }
  await context.setOffline(true);
  await page.reload();
  await expect(page.getByRole('heading', { name: /Drop a CPU profile/ })).toBeVisible();
  await page.getByLabel('Open profile').setInputFiles('test/fixtures/gperf/cxx_demangle.prof');
  await expectPainted(page);
  await page.screenshot({ path: `${SHOTS}/offline.png` });

  // The bundled example is precached too.
  await page.reload();
  await page.getByRole('button', { name: 'Open the example profile' }).click();
  await expectPainted(page);
  await context.setOffline(false);
});
