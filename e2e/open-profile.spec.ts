// The first complete path, as a person uses it: open a real gperftools profile by the example
// button, by the file input and by drag and drop; hover, zoom, sort; a bad file shows its error.

import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';

const FIXTURES = 'test/fixtures';
const SHOTS = 'test-results/screenshots';

/** Drops a file on the page the way a browser does: dragenter/dragover/drop with a DataTransfer. */
async function dropFile(page: Page, path: string, name: string) {
  const b64 = readFileSync(path).toString('base64');
  await page.evaluate(
    ({ b64, name }) => {
      const bin = atob(b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name, { type: 'application/octet-stream' }));
      const target = document.querySelector('main') ?? document.body;
      for (const type of ['dragenter', 'dragover', 'drop']) {
        target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
      }
    },
    { b64, name },
  );
}

async function expectPainted(page: Page) {
  const canvas = page.getByRole('img', { name: /Flame graph of/ });
  await expect(canvas).toBeVisible();
  await expect(canvas).toHaveAttribute('data-painted', /[1-9]/);
  // Real pixels, not a blank canvas: count non-background pixels.
  const coloured = await canvas.evaluate((c: HTMLCanvasElement) => {
    const ctx = c.getContext('2d')!;
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] !== d[i + 1] || d[i + 1] !== d[i + 2]) n++;
    return n;
  });
  expect(coloured).toBeGreaterThan(1000);
}

test('the start page opens the bundled example profile', async ({ page }) => {
  await page.goto('./');
  await expect(page.getByRole('heading', { name: /Drop a CPU profile/ })).toBeVisible();
  await page.getByRole('button', { name: 'Open the example profile' }).click();
  await expectPainted(page);
  const table = page.getByRole('table');
  await expect(table.getByRole('columnheader')).toHaveText([
    /Function/,
    /Module/,
    /^Self/,
    /Self %/,
    /^Total/,
    /Total %/,
  ]);
  await expect(table.getByRole('row').nth(1)).toContainText('tiny+0x');
  const meta = page.getByRole('complementary', { name: 'Profile metadata' });
  await expect(meta).toContainText('gperftools');
  await expect(meta).toContainText('64-bit');
  await expect(meta).toContainText('little endian');
  await expect(meta).toContainText('10,000 µs');
  await expect(meta).toContainText('180.0 ms');
  const marks = await page.evaluate(() => performance.getEntriesByType('mark').map((m) => m.name));
  expect(marks).toEqual(expect.arrayContaining(['flamelens:file-received', 'flamelens:first-paint']));
  await page.screenshot({ path: `${SHOTS}/example.png` });
});

test('a profile chosen with the file input: table, hover tooltip, zoom, sort', async ({ page }) => {
  await page.goto('./');
  await page.getByLabel('Open profile').setInputFiles(`${FIXTURES}/gperf/cxx_demangle.prof`);
  await expectPainted(page);
  const rows = page.getByRole('table').getByRole('row');
  await expect(rows.nth(1)).toContainText('cxx_demangle+0x');
  await expect(page.getByRole('complementary', { name: 'Profile metadata' })).toContainText('342');

  // Hover the bottom row (root at the bottom): the tooltip names the frame with its numbers.
  const canvas = page.getByRole('img', { name: /Flame graph of/ });
  const box = (await canvas.boundingBox())!;
  await page.mouse.move(box.x + 40, box.y + box.height - 8);
  const tip = page.getByTestId('tooltip');
  await expect(tip).toBeVisible();
  await expect(tip).toContainText('samples');
  await expect(tip).toContainText('%');
  await expect(tip).toContainText('ms');
  await page.screenshot({ path: `${SHOTS}/hover.png` });

  // Click a frame two rows up: zoom to it; Escape resets.
  await page.mouse.click(box.x + 40, box.y + box.height - 8 - 18 * 2);
  await expect(page.getByTestId('zoomed-frame')).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/zoomed.png` });
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('zoomed-frame')).toHaveCount(0);

  // Sort by Function name ascending, then by Total.
  await page
    .getByRole('columnheader', { name: /^Function/ })
    .getByRole('button')
    .click();
  const first = await rows.nth(1).locator('td').first().textContent();
  const second = await rows.nth(2).locator('td').first().textContent();
  expect((first ?? '') <= (second ?? '')).toBe(true);
  await page
    .getByRole('columnheader', { name: /^Total$|^Total ▼|^Total ▲/ })
    .getByRole('button')
    .click();
  await expect(page.getByRole('columnheader', { name: /^Total/ }).first()).toHaveAttribute(
    'aria-sort',
    'descending',
  );
});

test('a profile dropped on the page (DataTransfer drop event), 32-bit', async ({ page }) => {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/gperf/tiny32.prof`, 'tiny32.prof');
  await expectPainted(page);
  const meta = page.getByRole('complementary', { name: 'Profile metadata' });
  await expect(meta).toContainText('32-bit');
  await expect(meta).toContainText('37');
  await expect(page.getByRole('table').getByRole('row').nth(1)).toContainText('tiny32+0x');
  await page.screenshot({ path: `${SHOTS}/dropped32.png` });
});

test('a bad file shows a clear error with its byte offset and keeps the page usable', async ({ page }) => {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/bad/hdr_count_nonzero.prof`, 'hdr_count_nonzero.prof');
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('Could not open hdr_count_nonzero.prof');
  await expect(alert).toContainText(/byte \d+/);
  await page.screenshot({ path: `${SHOTS}/bad-file.png` });
  // The start page is still there and still works.
  await page.getByRole('button', { name: 'Open the example profile' }).click();
  await expectPainted(page);
});

test('a truncated profile keeps its good records and warns where it stopped', async ({ page }) => {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/bad/truncated_mid_record.prof`, 'truncated_mid_record.prof');
  await expectPainted(page);
  const warnings = page.getByRole('region', { name: 'Errors and warnings' });
  await expect(warnings).toContainText(/truncated at byte \d+/);
  await expect(page.getByRole('complementary', { name: 'Profile metadata' })).toContainText('Samples5');
  await page.screenshot({ path: `${SHOTS}/truncated.png` });
});

test('a profile dropped while another loads replaces it; a bad drop keeps the good profile', async ({
  page,
}) => {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/gperf/big_synth_small.prof`, 'big_synth_small.prof');
  await dropFile(page, `${FIXTURES}/gperf/tiny.prof`, 'tiny.prof');
  await expectPainted(page);
  await expect(page.locator('.current-file')).toHaveText('tiny.prof');
  await dropFile(page, `${FIXTURES}/bad/random_bytes.prof`, 'random_bytes.prof');
  await expect(page.getByRole('alert')).toContainText('random_bytes.prof');
  await expect(page.locator('.current-file')).toHaveText('tiny.prof');
  await expectPainted(page);
});
