// What is open is one workspace, kept in this browser: a reload (and Recent profiles) opens exactly
// what was shown — binaries and sources added after the profile, a comparison before and after
// Swap, a bundle, a folder's chosen files, the bundled examples — and a library and its separate
// debug file are both remembered for later profiles.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { corpusMachine } from '../test/helpers/corpus';
import { dropFile, dropFiles, FIXTURES, paintedGraph, SHOTS } from './helpers';

const FIX = resolve(FIXTURES);
const LIBC = `${FIXTURES}/sysroot/usr/lib/x86_64-linux-gnu/libc.so.6`;
const LIBC_DEBUG = `${FIXTURES}/sysroot/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug`;
const DIFF = `${FIXTURES}/diff`;

/**
 * The inputs of the workspace the URL names, as this browser keeps them (role:name), once the
 * page has kept it: what a reload will open.
 */
async function keptInputs(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const id = new URLSearchParams(location.hash.slice(1)).get('ws');
    if (!id) return [];
    const db = await new Promise<IDBDatabase>((res, rej) => {
      const r = indexedDB.open('flamelens-workspaces');
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
    try {
      if (!db.objectStoreNames.contains('workspaces')) return [];
      const w = await new Promise<{ inputs: { role: string; name: string }[] } | undefined>((res, rej) => {
        const r = db.transaction('workspaces').objectStore('workspaces').get(id);
        r.onsuccess = () => res(r.result);
        r.onerror = () => rej(r.error);
      });
      return (w?.inputs ?? []).map((i) => `${i.role}:${i.name}`).sort();
    } finally {
      db.close();
    }
  });
}

/** The function table (the source panel has a table of its own). */
const table = (page: Page) => page.locator('table[aria-rowcount]');

test('a profile, then its binaries and a source file added later: a reload opens them all', async ({
  page,
}) => {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/dwarf/inline5.prof`, 'inline5.prof');
  await paintedGraph(page);
  await expect(page).toHaveURL(/ws=\w+/);
  await expect(table(page)).toContainText('[inline5]');
  // The binary, dropped after the profile: symbolized, and the link still names the workspace.
  await dropFile(page, `${FIXTURES}/dwarf/bin/inline5`, 'inline5');
  await expect(table(page)).toContainText('fx::hot_chain');
  await expect(page).toHaveURL(/ws=\w+/);
  // The source file, dropped after that: the source panel shows its text.
  await dropFile(page, `${FIXTURES}/dwarf/src/inline.cpp`, 'inline.cpp');
  await expect
    .poll(() => keptInputs(page))
    .toEqual(['binary:inline5', 'profile:inline5.prof', 'source:inline.cpp']);
  await page.getByPlaceholder('Filter functions').fill('hot_chain');
  await table(page)
    .locator('tbody tr[aria-rowindex] td.fn', { hasText: /^fx::hot_chain$/ })
    .first()
    .click();
  const hotLine = page.getByRole('region', { name: 'Source' }).locator('tr.hot code').first();
  await expect(hotLine).not.toBeEmpty();
  const text = await hotLine.textContent();
  await page.reload();
  await paintedGraph(page);
  await expect(page.locator('.current-file')).toHaveText('inline5.prof');
  // The selection is in the link: the source panel opens on the same line, with the file's text.
  await expect(hotLine).toHaveText(text!);
  await expect(table(page)).toContainText('fx::hot_chain');
  await page.screenshot({ path: `${SHOTS}/workspace-reload-source.png` });
});

/** workload_b.prof with its binary, then compared with workload_a.prof as the baseline. */
async function openComparison(page: Page): Promise<void> {
  await page.goto('./');
  await dropFiles(page, [
    { path: `${DIFF}/workload_b.prof`, name: 'workload_b.prof' },
    { path: `${DIFF}/bin/workload`, name: 'workload' },
  ]);
  await paintedGraph(page);
  await page.getByLabel('Compare with another profile').setInputFiles(`${DIFF}/workload_a.prof`);
}

test('a comparison comes back after a reload, before and after Swap', async ({ page }) => {
  await openComparison(page);
  const sides = page.getByTestId('diff-sides');
  await expect(sides).toHaveText(/baseline workload_a\.prof → comparison workload_b\.prof/);
  await expect
    .poll(() => keptInputs(page))
    .toEqual(['baseline:workload_a.prof', 'binary:workload', 'profile:workload_b.prof']);
  await expect(page).toHaveURL(/ws=\w+.*mode=diff|mode=diff.*ws=\w+/);
  await page.reload();
  await expect(page.getByRole('region', { name: 'Differential flame graph' })).toBeVisible();
  await expect(sides).toHaveText(/baseline workload_a\.prof → comparison workload_b\.prof/);
  await expect(table(page)).toContainText('sort_records');

  await page.getByRole('button', { name: '⇄ Swap' }).click();
  await expect(sides).toHaveText(/baseline workload_b\.prof → comparison workload_a\.prof/);
  await expect
    .poll(() => keptInputs(page))
    .toEqual(['baseline:workload_b.prof', 'binary:workload', 'profile:workload_a.prof']);
  await page.reload();
  await expect(page.getByRole('region', { name: 'Differential flame graph' })).toBeVisible();
  await expect(sides).toHaveText(/baseline workload_b\.prof → comparison workload_a\.prof/);
  await page.screenshot({ path: `${SHOTS}/workspace-reload-swapped.png` });
});

test.describe('a bundle and a folder', () => {
  let tmp = '';
  test.beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'flamelens-e2e-ws-'));
    execFileSync('node', [
      'dist-cli/flamelens.mjs',
      'bundle',
      join(FIX, 'gperf/threads.prof'),
      '-o',
      join(tmp, 'threads.flamelens.zip'),
      '--root',
      corpusMachine(tmp),
    ]);
  });
  test.afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  test('a dropped bundle comes back after a reload, symbolized', async ({ page }) => {
    await page.goto('./');
    await dropFile(page, join(tmp, 'threads.flamelens.zip'), 'threads.flamelens.zip');
    await paintedGraph(page);
    await expect(table(page)).toContainText('start_thread');
    await expect.poll(() => keptInputs(page)).toEqual(['bundle:threads.flamelens.zip']);
    await page.reload();
    await paintedGraph(page);
    await expect(page.locator('.current-file')).toHaveText('threads.prof');
    await expect(table(page)).toContainText('start_thread');
    await expect(table(page)).not.toContainText('[libc.so.6]');
  });

  test('the files a folder gave come back after a reload', async ({ page }) => {
    await page.goto('./');
    await dropFile(page, `${FIXTURES}/gperf/threads.prof`, 'threads.prof');
    await paintedGraph(page);
    await expect(table(page)).toContainText('[libc.so.6]');
    const symbols = page.getByRole('region', { name: 'Symbols' });
    await symbols.getByLabel('Add a folder of binaries').setInputFiles(`${FIXTURES}/sysroot`);
    await expect(table(page)).toContainText('start_thread');
    await expect
      .poll(async () => (await keptInputs(page)).filter((i) => i.includes('sysroot/')).length)
      .toBeGreaterThan(1);
    await page.reload();
    await paintedGraph(page);
    await expect(table(page)).toContainText('start_thread');
    await expect(table(page)).not.toContainText('[libc.so.6]');
  });
});

test('both bundled examples come back after a reload', async ({ page }) => {
  await page.goto('./');
  await page.getByRole('button', { name: 'Open the example profile' }).click();
  await paintedGraph(page);
  await expect(table(page)).toContainText('(anonymous namespace)::Circle::area');
  await page.reload();
  await paintedGraph(page);
  await expect(page.locator('.current-file')).toHaveText('cxx_demangle.prof');
  await expect(table(page)).toContainText('(anonymous namespace)::Circle::area');

  await page.goto('./');
  await page.getByRole('button', { name: 'Open the comparison example' }).click();
  const sides = page.getByTestId('diff-sides');
  await expect(sides).toHaveText(/baseline workload_a\.prof → comparison workload_b\.prof/);
  await expect(page).toHaveURL(/baseURL=/);
  await page.reload();
  await expect(sides).toHaveText(/baseline workload_a\.prof → comparison workload_b\.prof/);
  await expect(table(page)).toContainText('sort_records');
});

test('Recent profiles opens a comparison as it was shown', async ({ page }) => {
  await openComparison(page);
  await expect(page.getByTestId('diff-sides')).toBeVisible();
  await expect.poll(async () => (await keptInputs(page)).length).toBe(3);
  await page.goto('./');
  await page.reload();
  const recent = page.getByRole('region', { name: 'Recent profiles' });
  await recent
    .getByRole('button', { name: 'workload_b.prof compared with workload_a.prof', exact: true })
    .click();
  await expect(page.getByTestId('diff-sides')).toHaveText(
    /baseline workload_a\.prof → comparison workload_b\.prof/,
  );
  await expect(table(page)).toContainText('sort_records');
});

test('a library and its separate debug file are both remembered, and both name a profile opened later', async ({
  page,
}) => {
  await page.goto('./');
  await dropFiles(page, [
    { path: `${FIXTURES}/gperf/threads.prof`, name: 'threads.prof' },
    { path: LIBC, name: 'libc.so.6' },
    { path: LIBC_DEBUG, name: 'ac61ec5a8eb1396f9fbd350e3169a558528a40.debug' },
  ]);
  await paintedGraph(page);
  // Static libc functions only the debug file names.
  await expect(table(page)).toContainText('start_thread');
  const remembered = page.getByRole('region', { name: 'Symbols' }).locator('details.remembered summary');
  await expect(remembered).toContainText('Remembered symbol files (2,');

  // Another visit: the profile alone takes both from this browser.
  await page.goto('./');
  await page.reload();
  await dropFile(page, `${FIXTURES}/gperf/threads.prof`, 'threads.prof');
  await paintedGraph(page);
  await expect(table(page)).toContainText('start_thread');
  await expect(table(page)).not.toContainText('[libc.so.6]');
  await expect(page.getByRole('region', { name: 'Symbols' })).toContainText(
    'From files this browser remembers',
  );
});
