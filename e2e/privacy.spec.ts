// Privacy and safety: nothing leaves the page but requests for the app's own files; names from a
// profile are text everywhere (table, tooltip, exports), never markup; the CSP is not violated.

import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';

const SHOTS = 'test-results/screenshots';
const IMG = '<img src=x onerror=alert(1)>';
const SCRIPT = '<script>alert(2)</script>';

async function expectPainted(page: Page) {
  const canvas = page.getByRole('img', { name: /Flame graph of/ });
  await expect(canvas).toBeVisible();
  await expect(canvas).toHaveAttribute('data-painted', /[1-9]/);
}

/** Console errors and CSP violation events of a page, collected for a final assertion. */
function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  return problems;
}

async function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []);
}

test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
});

test('no request leaves the app origin while using it', async ({ page, baseURL }) => {
  const origin = new URL(baseURL!).origin;
  const requests: string[] = [];
  // Context-wide: the page, its workers and its service worker.
  page.context().on('request', (r) => requests.push(r.url()));
  const problems = watchProblems(page);

  await page.goto('./');
  const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  expect(csp).toContain("script-src 'self'");
  await page.getByRole('button', { name: 'Open the example profile' }).click();
  await expectPainted(page);
  await page.getByLabel('Open profile').setInputFiles('test/fixtures/gperf/cxx_demangle.prof');
  await expect(page.locator('.current-file')).toHaveText('cxx_demangle.prof');
  await expectPainted(page);
  const canvas = page.getByRole('img', { name: /Flame graph of/ });
  const box = (await canvas.boundingBox())!;
  await page.mouse.move(box.x + 40, box.y + box.height - 8);
  await expect(page.getByTestId('tooltip')).toBeVisible();
  await page.mouse.click(box.x + 40, box.y + box.height - 8 - 18);
  await page.keyboard.press('Escape');
  await page
    .getByRole('columnheader', { name: /^Function/ })
    .getByRole('button')
    .click();
  await page.getByRole('button', { name: 'Toggle dark theme' }).click();
  await expectPainted(page);

  const foreign = requests.filter((u) => {
    const p = new URL(u).protocol;
    return p !== 'blob:' && p !== 'data:' && new URL(u).origin !== origin;
  });
  expect(foreign).toEqual([]);
  expect(requests.length).toBeGreaterThan(3);
  expect(await cspViolations(page)).toEqual([]);
  expect(problems).toEqual([]);
});

test('frame names are text, never markup: table, tooltip and exports', async ({ page }) => {
  const problems = watchProblems(page);
  await page.goto('./');
  await page.getByLabel('Open profile').setInputFiles('test/fixtures/xss/evil.folded');
  await expectPainted(page);

  // Table: the literal text, and no element was made from it.
  const table = page.getByRole('table');
  await expect(table.getByRole('cell', { name: IMG, exact: true })).toBeVisible();
  await expect(table.getByRole('cell', { name: SCRIPT, exact: true })).toBeVisible();
  expect(await page.locator('img[src="x"], body script:not([src])').count()).toBe(0);

  // Tooltip: row 1 from the root starts with the heaviest child of main, the <img …> frame.
  const canvas = page.getByRole('img', { name: /Flame graph of/ });
  const box = (await canvas.boundingBox())!;
  await page.mouse.move(box.x + 40, box.y + box.height - 8 - 18);
  const tip = page.getByTestId('tooltip');
  await expect(tip).toBeVisible();
  await expect(tip.locator('.tt-name')).toHaveText(IMG);
  await page.screenshot({ path: `${SHOTS}/xss-tooltip.png` });
  await page.mouse.move(box.x + box.width / 2, box.y + 5);

  // Exports: SVG escaped (and well-formed), folded and CSV literal.
  const exportAs = async (item: string) => {
    await page.getByRole('button', { name: 'Export' }).click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('menuitem', { name: item }).click(),
    ]);
    return readFileSync((await download.path())!, 'utf8');
  };
  const svg = await exportAs('Flame graph (SVG)');
  expect(svg).not.toContain('<img');
  expect(svg).not.toContain('<script');
  expect(svg).toContain('&lt;img src=x onerror=alert(1)&gt;');
  expect(svg).toContain('&lt;script&gt;alert(2)&lt;/script&gt;');
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return {
      error: doc.getElementsByTagName('parsererror').length,
      foreign: doc.querySelectorAll('script, img, foreignObject').length,
      titles: [...doc.querySelectorAll('g > title')].map((t) => t.textContent ?? ''),
    };
  }, svg);
  expect(parsed.error).toBe(0);
  expect(parsed.foreign).toBe(0);
  expect(parsed.titles.some((t) => t.startsWith(IMG))).toBe(true);

  const folded = await exportAs('Folded stacks (.txt)');
  expect(folded).toContain(`main;${IMG};leaf 5\n`);
  expect(folded).toContain(`main;${SCRIPT};"quoted, name" 3\n`);

  const csv = await exportAs('Function table (CSV)');
  expect(csv.replace(/^\uFEFF/, '').split('\r\n')[0]).toBe(
    'Function,Module,Self (samples),Self %,Total (samples),Total %',
  );
  expect(csv).toContain(`\r\n${IMG},,4,`);
  expect(csv).toContain(`\r\n${SCRIPT},,0,`);
  expect(csv).toContain('\r\n"""quoted, name""",,3,');
  expect(csv).toContain('\r\n"\'=HYPERLINK(""http://example.com"")",,0,');

  expect(await cspViolations(page)).toEqual([]);
  expect(problems).toEqual([]);
});
