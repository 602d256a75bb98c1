// Comparing two profiles: open one, compare with another by drop or file picker, read the
// differential flame graph's tooltip, sort the table by the change, reload the link, and a bad
// second file keeps the first profile.

import { expect, type Page, test } from '@playwright/test';
import { dropFiles, FIXTURES, hoverName, paintedGraph, SHOTS } from './helpers';

const DIFF = `${FIXTURES}/diff`;
const A = { path: `${DIFF}/workload_a.prof`, name: 'workload_a.prof' };
const B = { path: `${DIFF}/workload_b.prof`, name: 'workload_b.prof' };
const BIN = { path: `${DIFF}/bin/workload`, name: 'workload' };

/** Drops files on the overlay's "compare" target, as a person drags them there. */
async function dropToCompare(page: Page, files: { path: string; name: string }[]) {
  const { readFileSync } = await import('node:fs');
  const payload = files.map((f) => ({ name: f.name, b64: readFileSync(f.path).toString('base64') }));
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(1)], 'x'));
    document
      .querySelector('main')!
      .dispatchEvent(new DragEvent('dragover', { bubbles: true, cancelable: true, dataTransfer: dt }));
  });
  const target = page.locator('[data-drop="compare"]');
  await expect(target).toBeVisible();
  await target.evaluate((el, payload) => {
    const dt = new DataTransfer();
    for (const { name, b64 } of payload) {
      const bin = atob(b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      dt.items.add(new File([bytes], name));
    }
    el.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: dt }));
  }, payload);
}

/** Hovers the graph until a frame whose tooltip names `name` shows (scanning the bottom rows). */
async function hoverFrame(page: Page, name: string): Promise<void> {
  const canvas = page.getByTestId('main-graph').getByRole('img');
  const box = (await canvas.boundingBox())!;
  for (let depth = 0; depth < 12; depth++) {
    for (let fx = 0.02; fx < 1; fx += 0.04) {
      const got = await hoverName(page, {
        x: box.x + fx * box.width,
        y: box.y + box.height - 18 * depth - 9,
      });
      if (got === name) return;
    }
  }
  throw new Error(`no frame named ${name}`);
}

async function openA(page: Page) {
  await page.goto('./');
  await dropFiles(page, [B, BIN]);
  await paintedGraph(page);
}

test('compare by drop: differential graph, tooltip with both sides, table sorted by the change', async ({
  page,
}) => {
  await openA(page);
  await dropToCompare(page, [A]);
  await expect(page.getByRole('region', { name: 'Differential flame graph' })).toBeVisible();
  await expect(page.getByTestId('diff-sides')).toHaveText(
    /baseline workload_a\.prof → comparison workload_b\.prof/,
  );
  await expect(page.getByTestId('diff-legend')).toContainText('grew');
  await paintedGraph(page);
  // sort_records grew from a to b (b sorts four times as much).
  await hoverFrame(page, 'sort_records');
  const tip = page.getByTestId('tooltip');
  await expect(tip).toContainText('Baseline');
  await expect(tip).toContainText('Comparison');
  await expect(page.getByTestId('tt-delta')).toHaveText(/^\+\d+ samples/);
  await page.screenshot({ path: `${SHOTS}/diff.png` });

  // The table: both sides and Δ, sorted by |Δ self| by default; click Δ % to sort by it.
  const table = page.getByRole('table');
  await expect(table.getByRole('columnheader', { name: /Δ self/ })).toHaveAttribute(
    'aria-sort',
    'descending',
  );
  const first = await table.locator('tbody tr td.fn').first().textContent();
  expect(['mix', 'hash_blocks']).toContain(first);
  await table.getByRole('button', { name: 'Δ %' }).click();
  await expect(table.getByRole('columnheader', { name: 'Δ %' })).toHaveAttribute('aria-sort', 'descending');
  await expect(page.getByTestId('meta-baseline')).toContainText('workload_a.prof');
  await expect(page.getByTestId('meta-comparison')).toContainText('workload_b.prof');
  // Each side lists its file's own counts (the gperftools records: 35 and 89).
  await expect(page.getByTestId('meta-baseline')).toContainText(/records\s*35/);
  await expect(page.getByTestId('meta-comparison')).toContainText(/records\s*89/);

  // Swap: a becomes the comparison; the change reverses.
  await page.getByRole('button', { name: '⇄ Swap' }).click();
  await expect(page.getByTestId('diff-sides')).toHaveText(
    /baseline workload_b\.prof → comparison workload_a\.prof/,
  );
  await paintedGraph(page);
  await hoverFrame(page, 'sort_records');
  await expect(page.getByTestId('tt-delta')).toHaveText(/^−\d+ samples/);
});

test('compare by file picker; a bad second file keeps the first profile', async ({ page }) => {
  await openA(page);
  await page.getByLabel('Compare with another profile').setInputFiles(`${FIXTURES}/bad/random_bytes.prof`);
  await expect(page.getByRole('alert')).toContainText('Could not open random_bytes.prof');
  await expect(page.getByRole('region', { name: 'Flame graph' })).toBeVisible();
  await expect(page.locator('.current-file')).toHaveText('workload_b.prof');
  await page.getByLabel('Compare with another profile').setInputFiles(A.path);
  await expect(page.getByRole('region', { name: 'Differential flame graph' })).toBeVisible();
  await page.getByRole('button', { name: 'Close comparison' }).click();
  await expect(page.getByRole('region', { name: 'Flame graph' })).toBeVisible();
});

test('a link with profileURL and baseURL opens the same diff after a reload', async ({ page }) => {
  const hash = new URLSearchParams({
    profileURL: 'examples/workload_b.prof',
    baseURL: 'examples/workload_a.prof',
    width: 'both',
  });
  await page.goto(`./#${hash}`);
  await expect(page.getByRole('region', { name: 'Differential flame graph' })).toBeVisible();
  await paintedGraph(page);
  await expect(page.getByRole('combobox', { name: 'Width' })).toHaveValue('both');
  const url = page.url();
  expect(url).toContain('baseURL=');
  await page.reload();
  await expect(page.getByRole('region', { name: 'Differential flame graph' })).toBeVisible();
  await expect(page.getByTestId('diff-sides')).toHaveText(
    /baseline workload_a\.prof → comparison workload_b\.prof/,
  );
  await expect(page.getByRole('combobox', { name: 'Width' })).toHaveValue('both');
});

test('the start page opens the bundled comparison example', async ({ page }) => {
  await page.goto('./');
  await page.getByRole('button', { name: 'Open the comparison example' }).click();
  await expect(page.getByRole('region', { name: 'Differential flame graph' })).toBeVisible();
  await expect(page.getByTestId('diff-sides')).toHaveText(
    /baseline workload_a\.prof → comparison workload_b\.prof/,
  );
  await paintedGraph(page);
  await expect(page.getByRole('table').locator('tbody tr[aria-rowindex] td.fn').first()).toHaveText(/\S/);
  await page.screenshot({ path: `${SHOTS}/diff-example.png` });
});

test('a comparison’s sandwich: both sides’ callers and callees, coloured by the change', async ({ page }) => {
  await openA(page);
  await dropToCompare(page, [A]);
  await expect(page.getByRole('region', { name: 'Differential flame graph' })).toBeVisible();
  const table = page.getByRole('table');
  await table.locator('tbody tr[aria-rowindex] td.fn', { hasText: /^mix$/ }).dblclick();
  await expect(page.getByTestId('sandwich')).toBeVisible();
  await paintedGraph(page, 'sandwich-callees');
  const callees = page.getByTestId('sandwich-callees').getByRole('img');
  const box = (await callees.boundingBox())!;
  expect(await hoverName(page, { x: box.x + box.width / 2, y: box.y + 9 })).toBe('mix');
  await expect(page.getByTestId('tooltip')).toContainText('Baseline');
  await expect(page.getByTestId('diff-sides')).toBeVisible();
  await page.getByRole('button', { name: 'Back to flame graph' }).click();
  await expect(page.getByRole('region', { name: 'Differential flame graph' })).toBeVisible();
});

test('a two-count folded file opens as a comparison, and its link says so', async ({ page }) => {
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync('test-results/diff', { recursive: true });
  const path = 'test-results/diff/two.folded';
  // difffolded.pl's form: baseline count, then comparison count.
  writeFileSync(path, 'main;parse;lex 30 20\nmain;parse;read 10 25\nmain;layout 5 5\n');
  await page.goto('./');
  await page.getByLabel('Open profile').setInputFiles(path);
  await paintedGraph(page);
  await expect(page.getByRole('region', { name: /Differential flame graph/ })).toBeVisible();
  await expect(page.getByTestId('meta-baseline')).toContainText('two.folded (baseline)');
  // The view names the comparison (and the file): a reload opens the same comparison.
  await expect.poll(() => page.evaluate(() => location.hash)).toMatch(/^#ws=\w+&mode=diff$/);
  await page.reload();
  await expect(page.getByRole('region', { name: /Differential flame graph/ })).toBeVisible();
  await paintedGraph(page);
});

test('a heap comparison sums the chosen value on both sides; sides that do not compare say so', async ({
  page,
}) => {
  const HEAP = `${FIXTURES}/heap`;
  await page.goto('./');
  await dropFiles(page, [
    { path: `${HEAP}/allocs.0002.heap`, name: 'allocs.0002.heap' },
    { path: `${HEAP}/bin/allocs`, name: 'allocs' },
  ]);
  await paintedGraph(page);
  await page.getByLabel('Compare with another profile').setInputFiles(`${HEAP}/allocs.0001.heap`);
  await expect(page.getByRole('region', { name: 'Differential flame graph' })).toBeVisible();
  await page.getByLabel('Value').selectOption({ label: 'alloc_objects (count)' });
  await expect(page.getByTestId('meta-baseline')).toContainText('alloc_objects (count)');
  await expect(page.getByTestId('meta-comparison')).toContainText('alloc_objects (count)');
  // The totals of each file's header: `heap profile: 2002: 519088 [ 3048: 8006064]` (0001)
  // and `[ 4164: 16006064]` (0002), the allocated objects.
  const main = page.getByRole('table').locator('tbody tr[aria-rowindex]', { hasText: /^main/ });
  await expect(main.locator('td').nth(3)).toHaveText('3,048');
  await expect(main.locator('td').nth(5)).toHaveText('4,164');
  await expect(page.getByTestId('diff-mismatch')).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/diff-heap.png` });

  // Bytes in use against CPU samples: the comparison is drawn, and says its counts do not compare.
  await page.getByRole('button', { name: 'Close comparison' }).click();
  await page.getByLabel('Compare with another profile').setInputFiles(A.path);
  await expect(page.getByTestId('diff-mismatch')).toContainText(
    'the baseline sums samples (count), the comparison alloc_objects (count)',
  );
});
