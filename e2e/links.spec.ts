// Links: #profileURL= opens a hosted profile; the view state in the hash reproduces what the sender
// saw; Back and Forward step through zoom history; a failed fetch says so.

import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { FIXTURES, paintedGraph, ROW, SHOTS } from './helpers';

test.use({ serviceWorkers: 'block' });

const HOSTED = 'https://profiles.example.test/runs/simple.folded';

async function serveHosted(page: Page, status = 200) {
  await page.route(HOSTED, (route) =>
    route.fulfill({
      status,
      headers: { 'access-control-allow-origin': '*', 'content-type': 'application/octet-stream' },
      body: status === 200 ? readFileSync(`${FIXTURES}/folded/simple.folded`) : 'not here',
    }),
  );
}

/** HOSTED (simple.folded) served once `release` is called; `asked` resolves when it is requested. */
async function holdHosted(page: Page): Promise<{ asked: Promise<void>; release: () => void }> {
  let release = () => {};
  const released = new Promise<void>((r) => {
    release = r;
  });
  let requested = () => {};
  const asked = new Promise<void>((r) => {
    requested = r;
  });
  await page.route(HOSTED, async (route) => {
    requested();
    await released;
    await route.fulfill({
      headers: { 'access-control-allow-origin': '*', 'content-type': 'application/octet-stream' },
      body: readFileSync(`${FIXTURES}/folded/simple.folded`),
    });
  });
  return { asked, release };
}

const crumbs = (page: Page) => page.getByRole('navigation', { name: 'Zoom path' }).getByRole('button');

test('a link opens the hosted profile and restores the sender’s view', async ({ page }) => {
  await serveHosted(page);
  const view = new URLSearchParams({
    profileURL: HOSTED,
    view: 'icicle',
    zoom: ['main', 'parse'].join('\u001f'),
    fn: 'read',
    q: 'lex',
    t: JSON.stringify([{ kind: 'hide-function', name: 'layout' }]),
    theme: 'dark',
  });
  await page.goto(`./#${view}`);
  await paintedGraph(page);
  await expect(page.locator('.current-file')).toHaveText('simple.folded');
  await expect(page.getByRole('region', { name: 'Icicle graph' })).toBeVisible();
  await expect(crumbs(page)).toHaveText(['all', 'main', 'parse']);
  await expect(page.getByRole('list', { name: 'Transforms' })).toContainText('Hide: layout');
  await expect(page.getByRole('table').locator('tr[aria-selected="true"] td.fn')).toHaveText('read');
  await expect(page.getByTestId('search-count')).toHaveText('matched: 20 samples (20.0 %)');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.screenshot({ path: `${SHOTS}/link-restored.png` });
});

/**
 * Opens HOSTED's link, then pastes a link to `other` (serving recursive.folded) into the address
 * bar: a new hash, a navigation within the page; `other`'s profile is the one shown then.
 */
async function pasteLink(page: Page, other: string) {
  await serveHosted(page);
  await page.route(other, (route) =>
    route.fulfill({
      headers: { 'access-control-allow-origin': '*', 'content-type': 'application/octet-stream' },
      body: readFileSync(`${FIXTURES}/folded/recursive.folded`),
    }),
  );
  await page.goto(`./#profileURL=${encodeURIComponent(HOSTED)}`);
  await paintedGraph(page);
  await expect(page.locator('.current-file')).toHaveText('simple.folded');
  await page.evaluate((url) => {
    location.hash = `profileURL=${encodeURIComponent(url)}`;
  }, other);
  await expect(page.locator('.current-file')).toHaveText('recursive.folded');
  await paintedGraph(page);
}

test('another link pasted into the same tab opens its profile', async ({ page }) => {
  const other = 'https://profiles.example.test/runs/recursive.folded';
  await pasteLink(page, other);
  await expect.poll(() => decodeURIComponent(page.url())).toContain(`profileURL=${other}`);
});

test('a link to another server pasted into the same tab opens its profile', async ({ page }) => {
  // The page opened by a link may fetch from that link's server only (its connect-src is narrowed
  // to it): a link to another server is opened by a new page, narrowed to that one.
  await pasteLink(page, 'https://elsewhere.example.test/recursive.folded');
  await expect(page.getByRole('alert')).toHaveCount(0);
  const policies = await page
    .locator('meta[http-equiv="Content-Security-Policy"]')
    .evaluateAll((ms) => ms.map((m) => m.getAttribute('content') ?? ''));
  expect(policies).toContain("connect-src 'self' https://elsewhere.example.test");
});

test('the hash follows the view; Back and Forward step through zooms', async ({ page }) => {
  await serveHosted(page);
  await page.goto(`./#profileURL=${encodeURIComponent(HOSTED)}`);
  const canvas = await paintedGraph(page);
  const box = (await canvas.boundingBox())!;
  await page.mouse.click(box.x + 0.3 * box.width, box.y + box.height - ROW * 1.5); // parse
  await expect(crumbs(page)).toHaveText(['all', 'main', 'parse']);
  // Its own history entry (Back returns to it below): written before the next zoom.
  await expect
    .poll(() => new URLSearchParams(new URL(page.url()).hash.slice(1)).get('zoom'))
    .toBe('main\u001fparse');
  await page.mouse.click(box.x + 0.3 * box.width, box.y + box.height - ROW * 2.5); // read
  await expect(crumbs(page)).toHaveText(['all', 'main', 'parse', 'read']);
  // The URL follows in a task of its own.
  await expect.poll(() => decodeURIComponent(page.url())).toContain(`zoom=main\u001fparse\u001fread`);
  expect(decodeURIComponent(page.url())).toContain(`profileURL=${HOSTED}`);
  await page.goBack();
  await expect(crumbs(page)).toHaveText(['all', 'main', 'parse']);
  await page.goBack();
  await expect(crumbs(page)).toHaveText(['all']);
  await page.goForward();
  await expect(crumbs(page)).toHaveText(['all', 'main', 'parse']);
  // Reloading the copied link lands on the same zoom.
  await page.reload();
  await paintedGraph(page);
  await expect(crumbs(page)).toHaveText(['all', 'main', 'parse']);
});

test('a failed fetch and a file that is not a profile get clear errors', async ({ page }) => {
  await serveHosted(page, 404);
  await page.goto(`./#profileURL=${encodeURIComponent(HOSTED)}`);
  await expect(page.getByRole('alert')).toContainText('could not fetch URL: HTTP 404');
  await page.route('https://profiles.example.test/text.txt', (r) =>
    r.fulfill({ status: 200, headers: { 'access-control-allow-origin': '*' }, body: 'hello, world\n' }),
  );
  // Each link opened as a new page load (a hash set on the open page, then a reload, raced the
  // page's own writing of its link: the reload could load the link before).
  await page.goto('about:blank');
  await page.goto(`./#profileURL=${encodeURIComponent('https://profiles.example.test/text.txt')}`);
  await expect(page.getByRole('alert')).toContainText('not a recognised profile');
  await page.goto('about:blank');
  await page.goto(`./#profileURL=${encodeURIComponent('https://unreachable.example.test/x.prof')}`);
  await expect(page.getByRole('alert')).toContainText('could not fetch URL');
});

test('a file dropped while a link’s profile downloads is the one shown: the download gives up', async ({
  page,
}) => {
  const { asked, release } = await holdHosted(page);
  await page.goto(`./#profileURL=${encodeURIComponent(HOSTED)}`);
  await asked;
  await page.getByLabel('Open profile').setInputFiles(`${FIXTURES}/gperf/tiny.prof`);
  await paintedGraph(page);
  await expect(page.locator('.current-file')).toHaveText('tiny.prof');
  await expect(page.getByRole('progressbar', { name: 'Parsing progress' })).toHaveCount(0); // no download shown
  // The download ends after the drop, and the page goes on with the dropped file: a view change
  // (through the worker, after the download's bytes were read) shows it still.
  const finished = page.waitForEvent('requestfinished', (r) => r.url() === HOSTED);
  release();
  await finished;
  await page.getByRole('checkbox', { name: 'Inverted' }).check();
  await expect(page.getByRole('region', { name: 'Inverted flame graph' })).toBeVisible();
  await paintedGraph(page);
  await expect(page.locator('.current-file')).toHaveText('tiny.prof');
  await expect(page.getByRole('alert')).toHaveCount(0);
});

test('while a link’s profile downloads, the profile view it will fill is up; its first picture fills it', async ({
  page,
}) => {
  // The download is held: what shows meanwhile is the view the picture will fill (app/opening.ts).
  const { asked, release } = await holdHosted(page);
  await page.goto(`./#profileURL=${encodeURIComponent(HOSTED)}`);
  await asked;
  const table = page.getByRole('region', { name: 'Function table' });
  await expect(table).toContainText('Building the function table…');
  await expect(page.getByRole('heading', { name: /Drop a CPU profile/ })).toHaveCount(0);
  const canvas = page.getByTestId('main-graph').locator('canvas');
  await expect(canvas).toBeVisible();
  // Nothing is drawn or said of a profile not read yet, and it is no first paint.
  expect(await canvas.getAttribute('data-painted')).not.toMatch(/[1-9]/);
  await expect(page.getByRole('region', { name: 'Profile metadata' })).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Symbols' })).toHaveCount(0);
  expect(await page.evaluate(() => performance.getEntriesByName('flamelens:first-paint').length)).toBe(0);
  await page.screenshot({ path: `${SHOTS}/opening.png` });
  release();
  await paintedGraph(page);
  await expect(table.getByTestId('row-count')).toHaveText(/\d+ functions?/);
  await expect(page.getByRole('region', { name: 'Profile metadata' })).toContainText('folded');
  expect(await page.evaluate(() => performance.getEntriesByName('flamelens:first-paint').length)).toBe(1);
});

test('while a link’s profile downloads, a flame chart tab keeps its room and says it waits', async ({
  page,
}) => {
  const { asked, release } = await holdHosted(page);
  await page.goto(`./#profileURL=${encodeURIComponent(HOSTED)}&panel=flamechart`);
  await asked;
  const chart = page.getByRole('region', { name: 'Flame chart' });
  await expect(chart.getByTestId('flamechart-waiting')).toHaveText('Putting the samples in time order…');
  // the chart's room above the table, as when it is drawn
  const room = (await chart.boundingBox())!;
  const table = (await page.getByRole('region', { name: 'Function table' }).boundingBox())!;
  expect(room.y + room.height).toBeLessThanOrEqual(table.y);
  expect(room.height).toBeGreaterThan(150);
  release();
  await expect(chart.getByTestId('flamechart-none')).toContainText('time order');
});
