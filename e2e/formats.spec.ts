// Profiles from other writers: pprof protobuf (Go), gperftools heap profiles, `perf script`
// text and perf.data. Dropped as a person does; the value picker changes the weight, and the units follow in the
// tooltip, the table and the metadata; a .pb.gz export opens again.

import { expect, type Page, test } from '@playwright/test';
import { dropFiles, FIXTURES, hoverName, paintedGraph, SHOTS } from './helpers';

async function open(page: Page, files: { path: string; name: string }[]) {
  await page.goto('./');
  await dropFiles(page, files);
  return paintedGraph(page);
}

/** The tooltip of the root's first child (the widest bar above the root row). */
async function rootTip(page: Page): Promise<string> {
  const box = (await page.getByTestId('main-graph').getByRole('img').boundingBox())!;
  await hoverName(page, { x: box.x + 0.05 * box.width, y: box.y + box.height - 9 });
  return (await page.getByTestId('tooltip').textContent()) ?? '';
}

test('a Go pprof heap profile: bytes by default, objects on request, units everywhere', async ({ page }) => {
  const canvas = await open(page, [{ path: `${FIXTURES}/pprof/go/heap.pb.gz`, name: 'heap.pb.gz' }]);
  await expect(canvas).toHaveAttribute('aria-label', /: [\d.]+ (B|KiB|MiB)\./);
  const value = page.getByRole('combobox', { name: 'Value', exact: true });
  await expect(value.locator('option:checked')).toHaveText('inuse_space (bytes)');
  expect(await rootTip(page)).toMatch(/Total[\d.]+ (B|KiB|MiB) · /);
  await expect(page.getByRole('region', { name: 'Profile metadata' })).toContainText('inuse_space (bytes)');
  await expect(
    page.getByRole('table').locator('tbody tr[aria-rowindex]').first().locator('td.num').first(),
  ).toHaveText(/(B|KiB|MiB)$/);
  await page.screenshot({ path: `${SHOTS}/pprof-heap.png` });

  await value.selectOption({ label: 'alloc_objects (count)' });
  await expect(page.getByRole('region', { name: 'Profile metadata' })).toContainText('alloc_objects (count)');
  await expect(page.getByTestId('main-graph').getByRole('img')).toHaveAttribute(
    'aria-label',
    /: [\d,]+ objects\./,
  );
  await expect.poll(() => rootTip(page)).toMatch(/Total[\d,]+ objects · /);
  await expect(
    page.getByRole('table').locator('tbody tr[aria-rowindex]').first().locator('td.num').first(),
  ).toHaveText(/^[\d,]+$/);
});

test('a Go CPU profile in nanoseconds: time units; exported as .pb.gz it opens again the same', async ({
  page,
}) => {
  const canvas = await open(page, [{ path: `${FIXTURES}/pprof/go/cpu.pb.gz`, name: 'cpu.pb.gz' }]);
  const label = (await canvas.getAttribute('aria-label')) ?? '';
  expect(label).toMatch(/: [\d.]+ (ms|s)\./);
  await page.getByRole('button', { name: 'Export' }).click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('menuitem', { name: 'pprof profile (.pb.gz)' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('cpu.pb.gz');
  const path = (await download.path())!;
  await dropFiles(page, [{ path, name: 'again.pb.gz' }]);
  await expect(page.locator('.current-file')).toHaveText('again.pb.gz');
  await paintedGraph(page);
  const again = (await page.getByTestId('main-graph').getByRole('img').getAttribute('aria-label')) ?? '';
  expect(again.replace('again.pb.gz', 'cpu.pb.gz')).toBe(label);
});

test('a gperftools heap profile with its binary: in-use bytes, allocated objects', async ({ page }) => {
  await open(page, [
    { path: `${FIXTURES}/heap/allocs.0002.heap`, name: 'allocs.0002.heap' },
    { path: `${FIXTURES}/heap/bin/allocs`, name: 'allocs' },
  ]);
  await expect(
    page.getByRole('combobox', { name: 'Value', exact: true }).locator('option:checked'),
  ).toHaveText('inuse_space (bytes)');
  await expect(page.getByRole('region', { name: 'Profile metadata' })).toContainText(/Total[\d.]+ KiB/);
  await page
    .getByRole('combobox', { name: 'Value', exact: true })
    .selectOption({ label: 'alloc_objects (count)' });
  await expect.poll(() => rootTip(page)).toMatch(/objects/);
  await page.screenshot({ path: `${SHOTS}/heap.png` });
  // Its numeric `bytes` label (block size) filters by value but is no Group by choice.
  const labels = page.getByRole('group', { name: 'Labels' });
  await expect(labels.getByRole('combobox', { name: 'Label filter' })).toContainText('bytes=');
  await expect(labels.getByRole('combobox', { name: 'Group by' }).locator('option')).toHaveText(['nothing']);
  // Allocator frames are dropped as pprof does; the user may keep them (the view says so in the URL).
  await page.getByLabel('Keep allocator frames').check();
  await expect(page).toHaveURL(/keepframes=1/);
  await paintedGraph(page);
});

test('perf script text: events as values, a damaged file keeps its good samples', async ({ page }) => {
  await open(page, [{ path: `${FIXTURES}/perf/sorter.perf.txt`, name: 'sorter.perf.txt' }]);
  await expect(page.getByRole('combobox', { name: 'Value', exact: true })).toBeVisible();
  expect(await rootTip(page)).toMatch(/Total/);
  await page.getByRole('combobox', { name: 'Value', exact: true }).selectOption({ label: 'samples (count)' });
  await expect.poll(() => rootTip(page)).toMatch(/samples/);
  await dropFiles(page, [{ path: `${FIXTURES}/perf/damaged-truncated.perf.txt`, name: 'damaged.perf.txt' }]);
  await expect(page.locator('.current-file')).toHaveText('damaged.perf.txt');
  await expect(page.getByRole('region', { name: 'Errors and warnings' })).toContainText(/line \d+/);
});

test('perf script: group by process, then keep one process’s samples only', async ({ page }) => {
  await open(page, [{ path: `${FIXTURES}/perf/mixed.perf.txt`, name: 'mixed.perf.txt' }]);
  const controls = page.getByRole('group', { name: 'Labels' });
  await controls.getByRole('combobox', { name: 'Group by', exact: true }).selectOption('comm');
  await paintedGraph(page);
  expect(await rootTip(page)).toMatch(/^comm=/);
  const filter = controls.getByRole('combobox', { name: 'Label filter', exact: true });
  const first = await filter.locator('optgroup[label="only samples with"] option').first().textContent();
  await filter.selectOption({ label: first! });
  await expect(controls).toContainText(`focus ${first}`);
  await expect.poll(() => rootTip(page)).toContain(first!);
  await page.screenshot({ path: `${SHOTS}/perf-grouped.png` });
  await controls.getByRole('button', { name: `Remove focus ${first}` }).click();
  await expect(controls).not.toContainText(`focus ${first}`);
});

test('Go pprof labels: focus on two values of one key keeps either, as pprof -tagfocus=worker=alpha|gamma', async ({
  page,
}) => {
  await open(page, [{ path: `${FIXTURES}/pprof/labels/labels.pb.gz`, name: 'labels.pb.gz' }]);
  const controls = page.getByRole('group', { name: 'Labels' });
  const filter = controls.getByRole('combobox', { name: 'Label filter', exact: true });
  const focus = (value: string) =>
    filter.locator(`optgroup[label="only samples with"] option`, { hasText: value }).getAttribute('value');
  await filter.selectOption((await focus('worker=alpha'))!);
  await expect(controls).toContainText('focus worker=alpha');
  await filter.selectOption((await focus('worker=gamma'))!);
  // One filter of both values, not two that would both have to hold (and keep nothing).
  await expect(controls).toContainText('focus worker=alpha,gamma');
  await expect(controls.getByRole('button', { name: /^Remove / })).toHaveCount(1);
  await paintedGraph(page);
  // pprof -raw -tagfocus='worker=^(alpha|gamma)$' (labels.tagfocus-worker-alpha-gamma.raw.txt): 1.58 s
  const meta = page.getByRole('region', { name: 'Profile metadata' });
  await expect(meta).toContainText(/Total\s*1\.58 s/);
});

test('perf.data with its program and a kallsyms copy: user and kernel frames named, header facts shown', async ({
  page,
}) => {
  await open(page, [
    { path: `${FIXTURES}/perf-data/syscalls.data`, name: 'syscalls.data' },
    { path: `${FIXTURES}/perf-data/bin/syscalls`, name: 'syscalls' },
    { path: `${FIXTURES}/perf-data/kallsyms.txt`, name: 'kallsyms.txt' },
  ]);
  // the heaviest functions (the table shows the rows in view): the program's and the kernel's
  const table = page.getByRole('table');
  for (const name of ['sys4', 'do_syscall_64', 'vfs_write']) await expect(table).toContainText(name);
  // kernel code is named (its module column says [kernel.kallsyms]), not one unnamed frame
  await expect(
    table.locator('tbody td:first-child').filter({ hasText: /^\[kernel\.kallsyms\]$/ }),
  ).toHaveCount(0);
  const meta = page.getByRole('region', { name: 'Profile metadata' });
  await expect(meta).toContainText('cpu-clock (nanoseconds)');
  await expect(meta).toContainText('perf record');
  const controls = page.getByRole('group', { name: 'Labels' });
  await controls.getByRole('combobox', { name: 'Group by', exact: true }).selectOption('comm');
  await paintedGraph(page);
  expect(await rootTip(page)).toMatch(/^comm=syscalls/);
  await page.screenshot({ path: `${SHOTS}/perf-data.png` });
});
