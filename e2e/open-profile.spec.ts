// The first complete path, as a person uses it: open a real gperftools profile by the example
// button, by the file input and by drag and drop; hover, zoom, sort; a bad file shows its error.

import { expect, test } from '@playwright/test';
import { dropFile, dropFiles, FIXTURES, paintedGraph, SHOTS } from './helpers';

test('the start page opens the bundled example profile', async ({ page }) => {
  await page.goto('./');
  await expect(page.getByRole('heading', { name: /Drop a CPU profile/ })).toBeVisible();
  await page.getByRole('button', { name: 'Open the example profile' }).click();
  await paintedGraph(page);
  const table = page.getByRole('table');
  await expect(table.getByRole('columnheader')).toHaveText([
    /Function/,
    /Module/,
    /^Self/,
    /Self %/,
    /^Total/,
    /Total %/,
  ]);
  // The example comes with its binary: names are symbolized, demangled and short (as pprof's).
  await expect(table).toContainText('(anonymous namespace)::Circle::area');
  // Opened as a link: the URL names the profile and its binary, so it can be shared or reloaded.
  await expect(page).toHaveURL(/profileURL=examples%2Fcxx_demangle\.prof&bin=examples%2Fcxx_demangle/);
  await expect(page.getByRole('region', { name: 'Symbols' })).toContainText('cxx_demangle from cxx_demangle');
  const meta = page.getByRole('region', { name: 'Profile metadata' });
  await expect(meta).toContainText('gperftools');
  await expect(meta).toContainText('64-bit');
  await expect(meta).toContainText('little endian');
  await expect(meta).toContainText('2,000 µs');
  await expect(meta).toContainText('684.0 ms');
  const marks = await page.evaluate(() => performance.getEntriesByType('mark').map((m) => m.name));
  expect(marks).toEqual(expect.arrayContaining(['flamelens:file-received', 'flamelens:first-paint']));
  await page.screenshot({ path: `${SHOTS}/example.png` });
  // A reload shows the same, symbolized.
  await page.reload();
  await paintedGraph(page);
  await expect(table).toContainText('(anonymous namespace)::Circle::area');
});

test('a profile chosen with the file input: table, hover tooltip, zoom, sort', async ({ page }) => {
  await page.goto('./');
  await page.getByLabel('Open profile').setInputFiles(`${FIXTURES}/gperf/cxx_demangle.prof`);
  await paintedGraph(page);
  const rows = page.getByRole('table').getByRole('row');
  // Unsymbolized code: one frame per module, as pprof shows it.
  await expect(rows.nth(1)).toContainText('[cxx_demangle]');
  await expect(page.getByRole('region', { name: 'Profile metadata' })).toContainText('342');

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
  const crumbs = page.getByRole('navigation', { name: 'Zoom path' }).getByRole('button');
  await expect(crumbs).toHaveCount(4); // all › root › caller › zoomed frame
  await page.screenshot({ path: `${SHOTS}/zoomed.png` });
  await page.keyboard.press('Escape');
  await expect(crumbs).toHaveCount(1);

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
  await paintedGraph(page);
  const meta = page.getByRole('region', { name: 'Profile metadata' });
  await expect(meta).toContainText('32-bit');
  await expect(meta).toContainText('37');
  await expect(page.getByRole('table').getByRole('row').nth(1)).toContainText('[tiny32]');
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
  await paintedGraph(page);
});

test('a truncated profile keeps its good records and warns where it stopped', async ({ page }) => {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/bad/truncated_mid_record.prof`, 'truncated_mid_record.prof');
  await paintedGraph(page);
  const warnings = page.getByRole('region', { name: 'Errors and warnings' });
  await expect(warnings).toContainText(/truncated at byte \d+/);
  await expect(page.getByRole('region', { name: 'Profile metadata' })).toContainText('Samples5');
  await page.screenshot({ path: `${SHOTS}/truncated.png` });
});

test('a profile dropped while another loads replaces it; a bad drop keeps the good profile', async ({
  page,
}) => {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/gperf/big_synth_small.prof`, 'big_synth_small.prof');
  await dropFile(page, `${FIXTURES}/gperf/tiny.prof`, 'tiny.prof');
  await paintedGraph(page);
  await expect(page.locator('.current-file')).toHaveText('tiny.prof');
  await dropFile(page, `${FIXTURES}/bad/random_bytes.prof`, 'random_bytes.prof');
  await expect(page.getByRole('alert')).toContainText('random_bytes.prof');
  await expect(page.locator('.current-file')).toHaveText('tiny.prof');
  await paintedGraph(page);
});

test('symbolize in the browser: drop a profile, then its binaries; names replace module+offset', async ({
  page,
}) => {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/gperf/shlib.prof`, 'shlib.prof');
  await paintedGraph(page);
  const table = page.getByRole('table');
  await expect(table).toContainText('[shlib_main]');
  await expect(table).not.toContainText('foo_inner');
  await page.screenshot({ path: `${SHOTS}/before-symbols.png` });

  await dropFiles(page, [
    { path: `${FIXTURES}/gperf/bin/shlib_main`, name: 'shlib_main' },
    { path: `${FIXTURES}/gperf/bin/libfoo.so`, name: 'libfoo.so' },
    { path: `${FIXTURES}/gperf/bin/libplugin_kept.so`, name: 'libplugin_kept.so' },
    { path: `${FIXTURES}/sysroot/usr/lib/x86_64-linux-gnu/libc.so.6`, name: 'libc.so.6' },
  ]);
  await expect(table).not.toContainText('[shlib_main]');
  await expect(table).toContainText('foo_work');
  await expect(table).toContainText('__libc_start_main');
  const symbols = page.getByRole('region', { name: 'Symbols' });
  await expect(symbols).toContainText('shlib_main from shlib_main');
  await expect(symbols).toContainText('libfoo.so from libfoo.so');
  // Mapped files without samples wait behind a toggle; those not dropped say so.
  await symbols.getByRole('button', { name: /more mapped files \(\d+ without samples\)/ }).click();
  await expect(symbols).toContainText('unsymbolized');
  // The dlclose'd plugin is in no mapping: its frames stay raw addresses, never vanish.
  await expect(table).toContainText('0x7f');
  await page.screenshot({ path: `${SHOTS}/after-symbols.png` });

  // Mangled names toggle (C++ example).
  await dropFiles(page, [
    { path: `${FIXTURES}/gperf/cxx_demangle.prof`, name: 'cxx_demangle.prof' },
    { path: `${FIXTURES}/gperf/bin/cxx_demangle`, name: 'cxx_demangle' },
  ]);
  await expect(table).toContainText('Circle::area');
  await page.getByLabel('Show mangled names').check();
  await expect(table).toContainText('_ZNK12_GLOBAL__N_16Circle4areaEi');
  await page.getByLabel('Show mangled names').uncheck();
  await expect(table).not.toContainText('Circle::area(int) const');
  // Full names on request (the URL keeps the choice).
  await page.getByLabel('Full names').check();
  await expect(table).toContainText('Circle::area(int) const');
  await expect(page).toHaveURL(/names=full/);
});

test('a malformed binary is reported by name and the profile stays symbolized by the others', async ({
  page,
}) => {
  await page.goto('./');
  await dropFiles(page, [
    { path: `${FIXTURES}/gperf/tiny.prof`, name: 'tiny.prof' },
    { path: `${FIXTURES}/gperf/bin/tiny`, name: 'tiny' },
    { path: `${FIXTURES}/bad/random_bytes.prof`, name: 'libbroken.so' },
  ]);
  await paintedGraph(page);
  await expect(page.getByRole('table')).toContainText('gamma_');
});

test('other symbol sources: a pprof --raw file opens with its own names; an nm listing names the main binary', async ({
  page,
}) => {
  await page.goto('./');
  // perl google-pprof --raw output: names and inline chains come from its --- symbol section.
  await dropFile(page, `${FIXTURES}/symbols/oracle/cxx_demangle.perl.raw`, 'cxx_demangle.raw');
  await paintedGraph(page);
  const table = page.getByRole('table');
  await expect(page.getByRole('region', { name: 'Profile metadata' })).toContainText('pprof-raw');
  await expect(table).toContainText('Circle::area');
  await expect(page.getByRole('region', { name: 'Symbols' })).toContainText('symbol section');
  await page.screenshot({ path: `${SHOTS}/pprof-raw.png` });

  // An nm listing dropped with the profile.
  await dropFiles(page, [
    { path: `${FIXTURES}/gperf/tiny.prof`, name: 'tiny.prof' },
    { path: `${FIXTURES}/symbols/nm/tiny.nm`, name: 'tiny.nm' },
  ]);
  await expect(page.locator('.current-file')).toHaveText('tiny.prof');
  await expect(table).toContainText('gamma_');
  await expect(page.getByRole('region', { name: 'Symbols' })).toContainText('from tiny.nm (by nm)');
});
