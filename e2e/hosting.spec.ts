// dist/ hosted under a sub-path of a plain static server (scripts/serve-subpath.ts): every URL the
// app loads (scripts, worker, wasm, manifest, icons, example) resolves relatively; #profileURL=
// opens a hosted profile, same-origin or cross-origin with CORS, and explains failures.

import { expect, type Page, test } from '@playwright/test';
import { type RunningServer, startServer } from '../scripts/serve-subpath';

const PREFIX = '/some/sub/path/';
const SHOTS = 'test-results/screenshots';
let srv: RunningServer;

test.beforeAll(async () => {
  srv = await startServer({
    dir: process.env.FLAMELENS_DIST ?? 'dist',
    prefix: PREFIX,
    fixtures: 'test/fixtures',
  });
});
test.afterAll(async () => {
  await srv?.close();
});

async function expectPainted(page: Page) {
  const canvas = page.getByRole('img', { name: /Flame graph of/ });
  await expect(canvas).toBeVisible();
  await expect(canvas).toHaveAttribute('data-painted', /[1-9]/);
}

/** Fails the test on any response >= 400 or any request outside the prefix (except fixtures). */
function watchRequests(page: Page): { failed: string[]; outside: string[] } {
  const seen = { failed: [] as string[], outside: [] as string[] };
  page.context().on('request', (r) => {
    const u = new URL(r.url());
    if (u.protocol === 'blob:' || u.protocol === 'data:') return;
    if (!u.pathname.startsWith(PREFIX) && !u.pathname.startsWith('/fixtures')) seen.outside.push(r.url());
  });
  page.context().on('response', (r) => {
    if (r.status() >= 400) seen.failed.push(`${r.status()} ${r.url()}`);
  });
  return seen;
}

test('the app works from a sub-path: file input, worker, manifest and icons', async ({ page }) => {
  const seen = watchRequests(page);
  const workers: string[] = [];
  page.on('worker', (w) => workers.push(w.url()));
  await page.goto(srv.url);
  await expect(page.getByRole('heading', { name: /Drop a CPU profile/ })).toBeVisible();
  await page.getByLabel('Open profile').setInputFiles('test/fixtures/gperf/tiny.prof');
  await expectPainted(page);
  expect(workers.length).toBeGreaterThan(0);
  for (const w of workers) expect(w.startsWith(`${srv.url}assets/`)).toBe(true);

  // The manifest and every icon it names resolve under the prefix.
  const manifestHref = await page.locator('link[rel="manifest"]').evaluate((l: HTMLLinkElement) => l.href);
  expect(manifestHref).toBe(`${srv.url}manifest.webmanifest`);
  const manifest = await (await page.request.get(manifestHref)).json();
  expect(manifest).toMatchObject({ name: 'Flamelens', start_url: './', scope: './', display: 'standalone' });
  for (const icon of manifest.icons as { src: string }[]) {
    const res = await page.request.get(new URL(icon.src, manifestHref).href);
    expect(res.status(), icon.src).toBe(200);
  }
  expect(seen.failed).toEqual([]);
  expect(seen.outside).toEqual([]);
  await page.screenshot({ path: `${SHOTS}/hosting-subpath.png` });
});

test('the bundled example opens from a sub-path', async ({ page }) => {
  const seen = watchRequests(page);
  await page.goto(srv.url);
  await page.getByRole('button', { name: 'Open the example profile' }).click();
  await expectPainted(page);
  expect(seen.failed).toEqual([]);
  expect(seen.outside).toEqual([]);
});

test('#profileURL= opens a profile hosted on the same server', async ({ page }) => {
  const url = `${srv.origin}/fixtures/gperf/tiny.prof`;
  await page.goto(`${srv.url}#profileURL=${encodeURIComponent(url)}`);
  await expectPainted(page);
  await expect(page.locator('.current-file')).toHaveText('tiny.prof');
});

test('#profileURL= opens a cross-origin profile when the server allows CORS', async ({ page }) => {
  // localhost and 127.0.0.1 are different origins on the same test server.
  const url = `${srv.origin.replace('127.0.0.1', 'localhost')}/fixtures-cors/gperf/tiny32.prof`;
  await page.goto(`${srv.url}#zoom=0&profileURL=${encodeURIComponent(url)}`);
  await expectPainted(page);
  await expect(page.locator('.current-file')).toHaveText('tiny32.prof');
});

test('#profileURL= explains a cross-origin server without CORS and an HTTP error', async ({ page }) => {
  const noCors = `${srv.origin.replace('127.0.0.1', 'localhost')}/fixtures/gperf/tiny.prof`;
  await page.goto(`${srv.url}#profileURL=${encodeURIComponent(noCors)}`);
  await expect(page.getByRole('alert')).toContainText(
    'could not fetch URL: the server did not answer or does not allow cross-origin requests (CORS)',
  );
  await page.screenshot({ path: `${SHOTS}/profile-url-cors-error.png` });

  await page.goto('about:blank');
  await page.goto(`${srv.url}#profileURL=${encodeURIComponent(`${srv.origin}/fixtures/no-such.prof`)}`);
  await expect(page.getByRole('alert')).toContainText('could not fetch URL: HTTP 404');
  // The page is still usable.
  await page.getByLabel('Open profile').setInputFiles('test/fixtures/gperf/tiny.prof');
  await expectPainted(page);
});
