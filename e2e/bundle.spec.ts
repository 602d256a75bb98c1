// Profiles that travel (issue 17): a bundle made by `flamelens bundle` where the profile was
// recorded opens symbolized in one drop; a folder (a sysroot copy with a .build-id tree) picked
// for an open profile names static libc functions while reading only a few of its files; the
// Symbols panel lists every mapped file with its status, samples and the path to copy; a damaged
// bundle is a clear message and the open profile stays.

import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { corpusMachine } from '../test/helpers/corpus';
import { dropFile, dropFiles, FIXTURES, paintedGraph, SHOTS } from './helpers';

const FIX = resolve(FIXTURES);
let tmp = '';

test.beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'flamelens-e2e-bundle-'));
  const root = corpusMachine(tmp);
  // The built CLI (npm run build made it beside the app).
  execFileSync('node', [
    'dist-cli/flamelens.mjs',
    'bundle',
    join(FIX, 'gperf/threads.prof'),
    '-o',
    join(tmp, 'threads.flamelens.zip'),
    '--root',
    root,
  ]);
});
test.afterAll(() => rmSync(tmp, { recursive: true, force: true }));

test('a bundle opens its profile symbolized in one drop; the Symbols panel says from where', async ({
  page,
}) => {
  await page.goto('./');
  await dropFile(page, join(tmp, 'threads.flamelens.zip'), 'threads.flamelens.zip');
  await paintedGraph(page);
  await expect(page.locator('.current-file')).toHaveText('threads.prof');
  const table = page.getByRole('table');
  // The program's own functions and libc's static ones (its debug file came in the bundle).
  await expect(table).toContainText('start_thread');
  await expect(table).toContainText('main');
  await expect(table).not.toContainText('[libc.so.6]');
  const mapped = page.getByRole('region', { name: 'Symbols' }).getByRole('list', { name: 'Mapped files' });
  await expect(mapped.locator('[data-status="symbolized"]').first()).toBeVisible();
  // libc's symbols from its debug file, which the panel names.
  await expect(mapped).toContainText(
    /libc\.so\.6 from \/usr\/lib\/x86_64-linux-gnu\/libc\.so\.6 with its debug file [0-9a-f]+\.debug \(by build-id\)/,
  );
  await expect(mapped).toContainText(
    /threads from \/opt\/flamelens-corpus\/bin\/threads \(by build-id\) [\d.]+% self · [\d.]+% total/,
  );
  await expect(mapped.locator('[data-status="missing"]')).toHaveCount(0);
  // The profile’s own size, as unpacked from the bundle (not the zip’s, not 0), in binary units.
  const size = readFileSync(join(FIX, 'gperf/threads.prof')).length;
  await expect(page.getByRole('region', { name: 'Profile metadata' })).toContainText(
    `threads.prof (${(size / 1024).toFixed(1)} KiB)`,
  );
  await page.getByRole('region', { name: 'Symbols' }).screenshot({ path: `${SHOTS}/bundle-symbols.png` });
  await page.screenshot({ path: `${SHOTS}/bundle.png` });
});

test('a folder picked for an open profile: static libc functions named, few files read', async ({ page }) => {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/gperf/threads.prof`, 'threads.prof');
  await paintedGraph(page);
  const table = page.getByRole('table');
  await expect(table).toContainText('[libc.so.6]');
  const symbols = page.getByRole('region', { name: 'Symbols' });
  const mapped = symbols.getByRole('list', { name: 'Mapped files' });
  // Before: every mapped file missing, with the path to copy and the samples it holds.
  await expect(mapped.locator('[data-status="missing"]').first()).toContainText(
    /unsymbolized, its frames stay \[\S+\]: copy \/\S+ copy path [\d.]+% self/,
  );
  await expect(mapped).toContainText('/usr/lib/x86_64-linux-gnu/libc.so.6');

  await symbols.getByLabel('Add a folder of binaries').setInputFiles(`${FIXTURES}/sysroot`);
  await expect(table).toContainText('start_thread');
  await expect(table).not.toContainText('[libc.so.6]');
  await expect(mapped).toContainText(
    /libc\.so\.6 from sysroot\/usr\/lib\/x86_64-linux-gnu\/libc\.so\.6 with its debug file [0-9a-f]+\.debug \(by path\)/,
  );
  // Only the x86_64 objects and their debug files were read, not the i386 twins.
  const note = symbols.locator('.folder-note');
  await expect(note).toContainText(/From folder sysroot: \d+ of 18 files read/);
  const read = Number((await note.textContent())!.match(/: (\d+) of/)![1]);
  expect(read).toBeLessThanOrEqual(11);
  // The program is not in the sysroot: still missing, with its path.
  await expect(mapped.locator('[data-status="missing"]')).toContainText('/opt/flamelens-corpus/bin/threads');
  await symbols.screenshot({ path: `${SHOTS}/folder-symbols.png` });
});

test('a folder holding the profile and its binaries, opened from the start page, opens symbolized', async ({
  page,
}) => {
  // What a user copies from a server: the profile, the program, libc and its debug file.
  const dir = join(tmp, 'from-server');
  mkdirSync(join(dir, 'bin'), { recursive: true });
  mkdirSync(join(dir, 'lib/.build-id/93'), { recursive: true });
  copyFileSync(join(FIX, 'gperf/threads.prof'), join(dir, 'threads.prof'));
  copyFileSync(join(FIX, 'gperf/tiny.prof'), join(dir, 'bin/old-tiny.prof'));
  copyFileSync(join(FIX, 'gperf/bin/threads'), join(dir, 'bin/threads'));
  copyFileSync(join(FIX, 'sysroot/usr/lib/x86_64-linux-gnu/libc.so.6'), join(dir, 'lib/libc.so.6'));
  const debug = 'usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug';
  copyFileSync(
    join(FIX, 'sysroot', debug),
    join(dir, 'lib/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug'),
  );
  await page.goto('./');
  await page.getByLabel('Open a folder (a profile with its binaries)').setInputFiles(dir);
  await paintedGraph(page);
  await expect(page.locator('.current-file')).toHaveText('threads.prof');
  const table = page.getByRole('table');
  await expect(table).toContainText('worker_a');
  await expect(table).toContainText('start_thread');
  await expect(page.getByRole('region', { name: 'Errors and warnings' })).toContainText(
    'from-server holds other profiles too (from-server/bin/old-tiny.prof): opened from-server/threads.prof',
  );
  await expect(page.getByRole('region', { name: 'Symbols' }).locator('.folder-note')).toContainText(
    'From folder from-server: 3 of 4 files read',
  );
});

test('a damaged bundle says what is wrong; the open profile stays', async ({ page }) => {
  await page.goto('./');
  await dropFile(page, `${FIXTURES}/gperf/tiny.prof`, 'tiny.prof');
  await paintedGraph(page);
  const zip = readFileSync(join(tmp, 'threads.flamelens.zip'));
  const cut = join(tmp, 'cut.zip');
  writeFileSync(cut, zip.subarray(0, zip.length >> 1));
  await dropFile(page, cut, 'cut.zip');
  await expect(page.getByRole('alert')).toContainText('cut.zip: not a readable zip archive');
  await expect(page.locator('.current-file')).toHaveText('tiny.prof');
  await expect(page.getByRole('table')).toContainText('[tiny]');
});

test('a bundle with a damaged member and a ../ name opens the rest, and says which', async ({ page }) => {
  const { zipSync } = await import('fflate');
  const evil = zipSync({
    'profiles/tiny.prof': readFileSync(join(FIX, 'gperf/tiny.prof')),
    'files/opt/flamelens-corpus/bin/tiny': readFileSync(join(FIX, 'gperf/bin/tiny')),
    '../../escape.so': readFileSync(join(FIX, 'gperf/bin/tiny')),
  });
  const p = join(tmp, 'evil.zip');
  writeFileSync(p, evil);
  await page.goto('./');
  await dropFiles(page, [{ path: p, name: 'evil.zip' }]);
  await paintedGraph(page);
  await expect(page.getByRole('table')).toContainText('gamma_');
  await expect(page.getByRole('region', { name: 'Errors and warnings' })).toContainText(
    'evil.zip: ../../escape.so: not unpacked: its name climbs out of the archive',
  );
});
