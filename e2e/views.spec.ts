// The views pprof and Firefox Profiler users reach for, used as a person does on the bundled
// example: the call tree (keys, selection shared with the table), pprof's call graph (node count,
// double-click focus, .dot export) and the disassembly of the hottest function; each in the link
// and back after a reload.

import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { paintedGraph, SHOTS } from './helpers';

async function openExample(page: Page) {
  await page.goto('./');
  await page.getByRole('button', { name: 'Open the example profile' }).click();
  await paintedGraph(page);
}

const tab = (page: Page, name: string) =>
  page.getByRole('tablist', { name: 'View' }).getByRole('tab', { name });

test('the call tree: the heaviest path open, keys expand and move, a row selects its function', async ({
  page,
}) => {
  await openExample(page);
  await tab(page, 'Call tree').click();
  const tree = page.getByTestId('call-tree');
  await expect(tree).toBeVisible();
  await expect(page).toHaveURL(/panel=calltree/);
  // The heaviest path is open: _start, then main's callers down to the hot functions.
  const rows = tree.locator('tbody tr[aria-rowindex]');
  await expect(rows.first()).toContainText('_start');
  expect(await rows.count()).toBeGreaterThan(4);
  await expect(rows.first()).toHaveAttribute('aria-expanded', 'true');
  // Click the first row, then keys: ← collapses it, → opens it again, ↓ moves to its child.
  await rows.first().click();
  const scroll = tree.locator('.calltree-scroll');
  await scroll.focus();
  await page.keyboard.press('ArrowLeft');
  await expect(rows.first()).toHaveAttribute('aria-expanded', 'false');
  await expect(rows).toHaveCount(1);
  await page.keyboard.press('ArrowRight');
  await expect(rows.first()).toHaveAttribute('aria-expanded', 'true');
  await page.keyboard.press('ArrowDown');
  const second = rows.nth(1);
  await expect(second).toHaveAttribute('aria-selected', 'true');
  // `*` expands all below the selected row.
  const before = await rows.count();
  await page.keyboard.press('*');
  await expect.poll(() => rows.count()).toBeGreaterThan(before);
  // The selected row's function is the table's selected row.
  const name = (await second.locator('.name').textContent())!;
  await expect(page.locator('.ftable tr.selected td.fn')).toHaveText(name);
  await page.screenshot({ path: `${SHOTS}/calltree.png` });
  // In the link: a reload shows the call tree again.
  await page.reload();
  await expect(page.getByTestId('call-tree')).toBeVisible();
  await expect(tab(page, 'Call tree')).toHaveAttribute('aria-selected', 'true');
});

test('the call graph: laid out, fewer nodes on request, double-click focuses, .dot exported', async ({
  page,
}) => {
  await openExample(page);
  await tab(page, 'Call graph').click();
  const svg = page.getByTestId('call-graph-svg');
  const nodes = svg.locator('g.node');
  // pprof's nodes (N1…); the legend is a node of its own.
  const graphNodes = () =>
    svg.evaluate(
      (el) =>
        [...el.querySelectorAll('g.node > title')].filter((t) => /^N\d+$/.test(t.textContent ?? '')).length,
    );
  await expect.poll(graphNodes, { timeout: 20_000 }).toBeGreaterThan(10);
  await page.screenshot({ path: `${SHOTS}/callgraph.png` });
  // Node count 5: five nodes, and the link says so.
  const count = page.getByLabel('Node count');
  await count.fill('5');
  await expect.poll(graphNodes, { timeout: 20_000 }).toBe(5);
  await expect(page).toHaveURL(/nodecount=5/);
  // Export the DOT text: pprof's graph with five nodes.
  await page.getByRole('button', { name: 'Export' }).click();
  const download = page.waitForEvent('download');
  await page.getByRole('menuitem', { name: 'Call graph (.dot)' }).click();
  const dot = readFileSync(await (await download).path(), 'utf8');
  expect(dot).toMatch(/^digraph "/);
  expect(dot.match(/^N\d+ \[label=/gm)).toHaveLength(5);
  // Double-click a node (pprof's second): a focus on its function, named in its chip.
  const target = nodes.filter({ has: page.locator('title', { hasText: /^N2$/ }) });
  const label = (await target.locator('text').first().textContent())!;
  await target.dblclick();
  await expect(page.locator('.chips')).toContainText(`Focus: ${label.trim()}`);
  // After a reload: the call graph with its five nodes.
  await page.reload();
  await expect
    .poll(() => page.getByTestId('call-graph-svg').locator('g.node').count(), { timeout: 20_000 })
    .toBeGreaterThan(0);
  await expect(page.getByLabel('Node count')).toHaveValue('5');
});

test('the hottest function disassembled, its samples on its instructions, in the link', async ({ page }) => {
  await openExample(page);
  // The table opens sorted by self: the hottest function of the program is the first row of its
  // module (libc's code above it is unnamed: no libc was dropped).
  const first = page.locator('.ftable tbody tr[aria-rowindex]', { hasText: 'cxx_demangle' }).first();
  const hottest = (await first.locator('td.fn').textContent())!;
  expect(hottest).toBe('(anonymous namespace)::Circle::area');
  await first.click();
  const panel = page.getByRole('region', { name: 'Source' });
  await panel.getByRole('tab', { name: 'Assembly' }).click();
  const asm = panel.getByTestId('asm-instructions').first();
  await expect(asm).toBeVisible({ timeout: 20_000 });
  await expect(asm.locator('tr.hot')).toHaveCount(1);
  const flat = await asm.locator('tbody tr[data-address] td:first-child').allTextContents();
  const sampled = flat.filter((t) => t !== '.').map(Number);
  expect(sampled.length).toBeGreaterThan(0);
  expect(sampled.every((n) => n > 0)).toBe(true);
  await expect(page).toHaveURL(/src=assembly/);
  await panel.screenshot({ path: `${SHOTS}/assembly.png` });
  await page.reload();
  await paintedGraph(page);
  await expect(page.getByRole('region', { name: 'Source' })).toContainText(hottest);
  await expect(
    page.getByRole('region', { name: 'Source' }).getByTestId('asm-instructions').first(),
  ).toBeVisible({
    timeout: 20_000,
  });
});

test("a call into a shared library names the library's function by its PLT stub, as objdump does", async ({
  page,
}) => {
  await openExample(page);
  await page.getByLabel('Filter functions').fill('work_sort');
  await page.locator('.ftable tbody tr[aria-rowindex]').first().click();
  const panel = page.getByRole('region', { name: 'Source' });
  await panel.getByRole('tab', { name: 'Assembly' }).click();
  const asm = panel.getByTestId('asm-instructions').first();
  await expect(asm).toBeVisible({ timeout: 20_000 });
  // objdump -d -C of the example's binary: `callq 1130 <_Unwind_Resume@plt>` at 2945
  await expect(asm.locator('tbody tr[data-address]', { hasText: '2945:' })).toContainText(
    '1130 <_Unwind_Resume@plt>',
  );
});
