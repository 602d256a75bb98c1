// Offline: after one visit the service worker has precached the app. With the server gone and the
// browser offline, a reload still shows the app, and a profile opens and paints.

import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startServer } from '../scripts/serve-subpath';
import { offlineAfterOneVisit, paintedGraph, SHOTS } from './helpers';

const DIST = process.env.FLAMELENS_DIST ?? 'dist';

test('works offline after the first visit', async ({ page, context }) => {
  await offlineAfterOneVisit(page, context);
  await page.getByLabel('Open profile').setInputFiles('test/fixtures/gperf/cxx_demangle.prof');
  await paintedGraph(page);
  await page.screenshot({ path: `${SHOTS}/offline.png` });

  // Offline, a reload reopens the profile kept in this browser.
  await page.reload();
  await paintedGraph(page);
  await expect(page.locator('.current-file')).toHaveText('cxx_demangle.prof');
  // The bundled example is precached too (from the start page: no profile in the URL).
  await page.evaluate(() => history.replaceState(null, '', location.pathname));
  await page.reload();
  await page.getByRole('button', { name: 'Open the example profile' }).click();
  await paintedGraph(page);
  await context.setOffline(false);
});

for (const session of ['first', 'later'] as const) {
  test(`a new deployment waits for the user: "A new version…" and Reload (${session} session)`, async ({
    page,
  }) => {
    // A copy of dist/ we can "deploy" to: any byte change of sw.js is a new version.
    const dir = mkdtempSync(join(tmpdir(), 'flamelens-deploy-'));
    cpSync(DIST, dir, { recursive: true });
    const srv = await startServer({ dir, prefix: '/flamelens/' });
    try {
      await page.goto(srv.url);
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
      // 'later': a visit that starts under the installed worker (the usual case); 'first': the update
      // is found in the very session that installed the app.
      if (session === 'later') await page.reload();
      await expect(page.getByText('A new version of Flamelens is available')).toHaveCount(0);

      appendFileSync(join(dir, 'sw.js'), '\n// deployment 2\n');
      await page.evaluate(async () => {
        await (await navigator.serviceWorker.getRegistration())?.update();
      });
      const prompt = page.getByRole('status').filter({ hasText: 'A new version of Flamelens is available' });
      await expect(prompt).toBeVisible();
      // The new worker waits: the open page keeps its version until the user says so.
      expect(
        await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.waiting !== null),
      ).toBe(true);
      await page.screenshot({ path: `${SHOTS}/update-prompt-${session}.png` });

      await Promise.all([page.waitForEvent('load'), prompt.getByRole('button', { name: 'Reload' }).click()]);
      await expect(page.getByRole('heading', { name: /Drop a CPU profile/ })).toBeVisible();
      await expect
        .poll(() =>
          page.evaluate(async () => {
            const r = await navigator.serviceWorker.getRegistration();
            return (
              r?.waiting === null &&
              r?.active?.state === 'activated' &&
              navigator.serviceWorker.controller !== null
            );
          }),
        )
        .toBe(true);
      await expect(page.getByText('A new version of Flamelens is available')).toHaveCount(0);
    } finally {
      await srv.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
