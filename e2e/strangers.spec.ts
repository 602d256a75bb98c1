// Files and links from strangers (issue 33) in the browser: the catastrophic drop_frames profile
// and a q= link with the same pattern open within 2 s with the profile shown; a page opened by a
// link fetches from the servers the link names only; the page does not start inside a frame.

import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { dropFile, FIXTURES, paintedGraph } from './helpers';

test.use({ serviceWorkers: 'block' });

const REDOS = `${FIXTURES}/hostile/dropframes-redos.pb.gz`;
const HOSTED = 'https://profiles.example.test/runs/dropframes-redos.pb.gz';

async function serve(page: Page, url: string, body: Buffer) {
  await page.route(url, (route) =>
    route.fulfill({
      status: 200,
      headers: { 'access-control-allow-origin': '*', 'content-type': 'application/octet-stream' },
      body,
    }),
  );
}

test('the drop_frames (a+)+$ profile opens within 2 s with its graph shown', async ({ page }) => {
  await page.goto('./');
  const t0 = Date.now();
  await dropFile(page, REDOS, 'dropframes-redos.pb.gz');
  await paintedGraph(page);
  expect(Date.now() - t0).toBeLessThan(2000);
  await expect(page.locator('.current-file')).toHaveText('dropframes-redos.pb.gz');
});

test('a q= link with (a+)+$ opens within 2 s and its search answers', async ({ page }) => {
  await serve(page, HOSTED, readFileSync(REDOS));
  const t0 = Date.now();
  await page.goto(`./#profileURL=${encodeURIComponent(HOSTED)}&q=${encodeURIComponent('(a+)+$')}`);
  await paintedGraph(page);
  // `aaaa` is dropped by drop_frames; no other name is all a's: nothing matches, at once.
  await expect(page.getByTestId('search-count')).toHaveText(/^matched: 0 samples/);
  expect(Date.now() - t0).toBeLessThan(2000 + 1000); // the page load itself, then the 2 s
});

test('a page opened by a link fetches only from the servers the link names', async ({ page }) => {
  await serve(page, HOSTED, readFileSync(REDOS));
  const other = 'https://elsewhere.example.test/x';
  await serve(page, other, Buffer.from('secret'));
  await page.goto(`./#profileURL=${encodeURIComponent(HOSTED)}`);
  await paintedGraph(page);
  const fetched = (url: string) =>
    page.evaluate(
      (u) =>
        fetch(u).then(
          () => 'fetched',
          () => 'refused',
        ),
      url,
    );
  expect(await fetched(HOSTED)).toBe('fetched');
  expect(await fetched(other)).toBe('refused');
});

test('the page does not start inside another page’s frame', async ({ page, baseURL }) => {
  await page.goto('./');
  await page.setContent(`<iframe src="${baseURL}" width="800" height="400"></iframe>`);
  const frame = page.frameLocator('iframe');
  await expect(frame.locator('#root')).toHaveText(
    'Flamelens does not run inside a frame of another page: open it in its own tab.',
  );
});
