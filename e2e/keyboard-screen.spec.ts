// The app by keyboard and on screens of other sizes, as a person finds it: the focus seen on every
// control, the context menu and the search's steps from the keyboard, the table and the graph in
// a window made smaller. simple.folded (total 100):
//   main ─ parse (60) ─ read (40), lex (20)
//        ─ render (35) ─ draw (25) ─ fill (25); layout (10)

import { expect, type Page, test } from '@playwright/test';
import { dropFile, FIXTURES, paintedGraph } from './helpers';

async function openSimple(page: Page) {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/folded/simple.folded`, 'simple.folded');
  return paintedGraph(page);
}

test('Tab onto Open profile… and Compare with… shows where the focus is', async ({ page }) => {
  await openSimple(page);
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  for (const name of ['Open profile', 'Compare with another profile']) {
    await page.keyboard.press('Tab');
    await expect(page.getByLabel(name, { exact: true })).toBeFocused();
    // The input is hidden; its label is the control seen, and shows the focus ring.
    const label = page.locator('label.file-label', {
      hasText: name === 'Open profile' ? 'Open profile…' : 'Compare with…',
    });
    await expect(label).toHaveCSS('outline-style', 'solid');
  }
  // The focus gone on, the first label has no ring left.
  await page.keyboard.press('Tab');
  await expect(page.locator('label.file-label', { hasText: 'Open profile…' })).toHaveCSS(
    'outline-style',
    'none',
  );
});
