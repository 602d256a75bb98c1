// Export menu: folded stacks, PNG, SVG, CSV and pprof downloads of what is on screen (the HTML
// report: report.spec.ts).

import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';

const SHOTS = 'test-results/screenshots';

async function openTiny(page: Page) {
  await page.goto('./');
  await page.getByLabel('Open profile').setInputFiles('test/fixtures/gperf/cxx_demangle.prof');
  const canvas = page.getByRole('img', { name: /Flame graph of/ });
  await expect(canvas).toHaveAttribute('data-painted', /[1-9]/);
  const label = (await canvas.getAttribute('aria-label')) ?? '';
  return Number(/: ([\d,]+) samples/.exec(label)![1].replace(/,/g, ''));
}

async function exportAs(page: Page, item: string) {
  await page.getByRole('button', { name: 'Export' }).click();
  const menu = page.getByRole('menu', { name: 'Export' });
  await expect(menu).toBeVisible();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    menu.getByRole('menuitem', { name: item }).click(),
  ]);
  await expect(menu).toHaveCount(0);
  return { name: download.suggestedFilename(), bytes: readFileSync((await download.path())!) };
}

const sumFolded = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

test('the Export menu offers six formats and closes with Escape', async ({ page }) => {
  await openTiny(page);
  await page.getByRole('button', { name: 'Export' }).click();
  await expect(page.getByRole('menuitem')).toHaveText([
    'Folded stacks (.txt)',
    'Flame graph (PNG)',
    'Flame graph (SVG)',
    'Function table (CSV)',
    'pprof profile (.pb.gz)',
    'HTML report (.html)',
  ]);
  await expect(page.getByRole('menuitem').first()).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('menuitem', { name: 'Flame graph (PNG)' })).toBeFocused();
  await page.screenshot({ path: `${SHOTS}/export-menu.png` });
  await page.keyboard.press('Escape');
  await expect(page.getByRole('menu')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Export' })).toBeFocused();
});

test('folded stacks: lines sum to the total; zoomed: to the zoomed frame', async ({ page }) => {
  const total = await openTiny(page);
  const whole = await exportAs(page, 'Folded stacks (.txt)');
  expect(whole.name).toBe('cxx_demangle.folded.txt');
  const text = whole.bytes.toString('utf8');
  expect(text).toMatch(/^[^\n]+ \d+\n/);
  expect(sumFolded(text)).toBe(total);

  // Zoom two rows up from the root and export again: only the stacks through that frame.
  const canvas = page.getByRole('img', { name: /Flame graph of/ });
  const box = (await canvas.boundingBox())!;
  await page.mouse.move(box.x + 40, box.y + box.height - 8 - 18 * 2);
  const tip = page.getByTestId('tooltip');
  const zoomedSamples = Number(
    /([\d,]+) samples/.exec((await tip.textContent()) ?? '')![1].replace(/,/g, ''),
  );
  await page.mouse.click(box.x + 40, box.y + box.height - 8 - 18 * 2);
  await expect(page.getByTestId('reset-zoom')).toBeVisible();
  const zoomed = (await exportAs(page, 'Folded stacks (.txt)')).bytes.toString('utf8');
  expect(sumFolded(zoomed)).toBe(zoomedSamples);
  const prefix = zoomed.split('\n')[0].split(';').slice(0, 3).join(';');
  for (const line of zoomed.trimEnd().split('\n')) expect(line.startsWith(prefix)).toBe(true);
});

test('SVG: well-formed XML with a rect and a title per frame', async ({ page }) => {
  await openTiny(page);
  const { name, bytes } = await exportAs(page, 'Flame graph (SVG)');
  expect(name).toBe('cxx_demangle.flamegraph.svg');
  const info = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return {
      error: doc.getElementsByTagName('parsererror').length,
      root: doc.documentElement.localName,
      rects: doc.querySelectorAll('g > rect').length,
      titles: [...doc.querySelectorAll('g > title')].map((t) => t.textContent ?? ''),
    };
  }, bytes.toString('utf8'));
  expect(info.error).toBe(0);
  expect(info.root).toBe('svg');
  expect(info.rects).toBeGreaterThan(3);
  expect(info.titles).toHaveLength(info.rects);
  // Each bar's tooltip as the canvas says it: the frame, then its weights in their unit.
  expect(info.titles[0]).toMatch(
    /\nTotal [\d,]+ samples · [\d.]+ %( · [\d.]+ (ms|s))?\nSelf [\d,]+ samples · /,
  );
  // Look at it: render the file in the page.
  await page.setContent(
    `<body style="margin:0">${bytes.toString('utf8').replace(/^<\?xml[^>]*>/, '')}</body>`,
  );
  await page.screenshot({ path: `${SHOTS}/export-svg.png` });
});

test('CSV has the header and a row per function; PNG is a PNG', async ({ page }) => {
  await openTiny(page);
  const csv = await exportAs(page, 'Function table (CSV)');
  expect(csv.name).toBe('cxx_demangle.functions.csv');
  const lines = csv.bytes
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .split('\r\n');
  expect(lines[0]).toBe('Function,Module,Self (samples),Self %,Total (samples),Total %');
  expect(lines.length).toBeGreaterThan(3);
  expect(lines[1]).toMatch(/^[^,]+,[^,]*,\d+,[\d.]+,\d+,[\d.]+$/);

  // A selected function fades the rest of the graph; the PNG is taken without the fade, and the
  // selection is back afterwards.
  const row = page.getByRole('table').locator('tbody tr[aria-rowindex]').first();
  await row.click();
  await expect(row).toHaveAttribute('aria-selected', 'true');
  const png = await exportAs(page, 'Flame graph (PNG)');
  await expect(row).toHaveAttribute('aria-selected', 'true');
  expect(png.name).toBe('cxx_demangle.flamegraph.png');
  expect([...png.bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(png.bytes.length).toBeGreaterThan(1000);
  // A title bar above the graph (its height from the PNG header).
  const graphHeight = await page
    .getByRole('img', { name: /Flame graph of/ })
    .evaluate((c: HTMLCanvasElement) => c.height);
  expect(png.bytes.readUInt32BE(20)).toBeGreaterThan(graphHeight);
});
