// What this browser keeps cannot take the page down, and a worker that goes is not a dead end:
// damaged records leave a working start page with "Reset local data"; full storage is said and
// the link names no workspace; a worker lost mid-search is replaced, the profile opened again.

import { expect, type Page, test } from '@playwright/test';
import { dropFile, FIXTURES, paintedGraph, SHOTS } from './helpers';

const PROFILE = `${FIXTURES}/gperf/cxx_demangle.prof`;

/** How many records this origin keeps in each of the page's stores (0 for a database it has not). */
const kept = (page: Page) =>
  page.evaluate(async () => {
    const names = (await indexedDB.databases()).map((d) => d.name);
    const count = async (db: string, store: string) => {
      if (!names.includes(db)) return 0;
      const d = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open(db);
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      try {
        if (!d.objectStoreNames.contains(store)) return 0;
        return await new Promise<number>((resolve, reject) => {
          const r = d.transaction(store).objectStore(store).count();
          r.onsuccess = () => resolve(r.result);
          r.onerror = () => reject(r.error);
        });
      } finally {
        d.close();
      }
    };
    return {
      workspaces: await count('flamelens-workspaces', 'workspaces'),
      contents: await count('flamelens-workspaces', 'contents'),
      symbols: await count('flamelens-symbols', 'files'),
    };
  });

test('damaged records leave a working start page, and Reset local data forgets them', async ({ page }) => {
  await page.goto('./');
  await expect(page.getByRole('heading', { name: /Drop a CPU profile/ })).toBeVisible();
  // Records no version of the page wrote: a workspace whose inputs are a number, a symbol file
  // whose name is a number and whose blob is a string.
  await page.evaluate(async () => {
    const put = (name: string, store: string, keyPath: string, stores: string[], rec: unknown) =>
      new Promise<void>((resolve, reject) => {
        const req = indexedDB.open(name, 1);
        req.onupgradeneeded = () => {
          for (const s of stores) req.result.createObjectStore(s, { keyPath });
        };
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const t = req.result.transaction(store, 'readwrite');
          t.objectStore(store).put(rec);
          t.oncomplete = () => {
            req.result.close();
            resolve();
          };
          t.onerror = () => reject(t.error);
        };
      });
    await put('flamelens-workspaces', 'workspaces', 'id', ['workspaces', 'contents'], {
      id: 'damaged',
      view: '#ws=damaged',
      when: 1,
      inputs: 7,
    });
    await put('flamelens-symbols', 'files', 'key', ['files'], {
      key: 'x:1',
      name: 42,
      size: 1,
      when: 'yesterday',
      blob: 'not a blob',
    });
    localStorage.setItem('flamelens:remember-symbols', 'off');
  });
  await page.reload();
  await expect(page.getByRole('heading', { name: /Drop a CPU profile/ })).toBeVisible();
  await expect(page.getByText('Remembered symbol files (0)')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Recent profiles' })).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/storage-damaged.png`, fullPage: true });
  // The page still opens a profile.
  await dropFile(page, PROFILE, 'cxx_demangle.prof');
  await paintedGraph(page);
  await page.goto('./');
  await expect(page.getByRole('region', { name: 'Recent profiles' })).toContainText('cxx_demangle.prof');
  expect((await kept(page)).workspaces).toBeGreaterThan(0);
  page.once('dialog', (d) => void d.accept());
  // The reset clears the stores, then loads the page again: count once it has.
  const reloaded = page.waitForEvent('load');
  await page.getByRole('button', { name: 'Reset local data' }).click();
  await reloaded;
  await expect.poll(() => kept(page)).toEqual({ workspaces: 0, contents: 0, symbols: 0 });
  await expect(page.getByRole('heading', { name: /Drop a CPU profile/ })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Recent profiles' })).toHaveCount(0);
  expect(await page.evaluate(() => localStorage.getItem('flamelens:remember-symbols'))).toBeNull();
});

test('storage that is full is said, and the link then names no workspace', async ({ page }) => {
  await page.addInitScript(() => {
    const refuse = () => {
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    };
    IDBObjectStore.prototype.put = refuse;
    IDBObjectStore.prototype.add = refuse;
  });
  await page.goto('./');
  await dropFile(page, PROFILE, 'cxx_demangle.prof');
  await paintedGraph(page);
  await expect(page.getByTestId('notice')).toHaveText(
    /Not kept in this browser: this browser's storage for this page is full\. A reload will not reopen it\./,
  );
  // The view changes and the link follows, without a workspace this browser does not have.
  await page.getByRole('combobox', { name: 'Granularity' }).selectOption('lines');
  await expect(page).toHaveURL(/gran=lines/);
  expect(page.url()).not.toMatch(/ws=/);
});

test('a worker lost in the middle of a search is replaced: the page says why and opens the profile again', async ({
  page,
}) => {
  await page.goto('./');
  await dropFile(page, PROFILE, 'cxx_demangle.prof');
  await paintedGraph(page);
  const worker = page.workers().find((w) => w.url().length > 0);
  expect(worker).toBeDefined();
  const named = await Promise.all(
    page
      .workers()
      .map(async (w) => ({ w, name: await w.evaluate(() => (self as unknown as { name: string }).name) })),
  );
  const analysis = named.find((n) => n.name === 'flamelens')!.w;
  // The worker is kept busy, then fails (as out of memory would), while the search waits for it.
  await analysis.evaluate(() => {
    setTimeout(() => {
      const until = Date.now() + 2000;
      while (Date.now() < until);
      throw new Error('lost in the middle of a search');
    }, 0);
  });
  const search = page.getByRole('searchbox', { name: 'Search functions' });
  await search.fill('main');
  const notice = page.getByTestId('notice');
  await expect(notice).toHaveText(
    /^The parser stopped unexpectedly: .*lost in the middle of a search: the profile was opened again\./,
  );
  await page.screenshot({ path: `${SHOTS}/storage-worker-lost.png` });
  // Opened again, in a new worker, without the search that was lost with the old one.
  await expect(search).toHaveValue('');
  await paintedGraph(page);
  await search.fill('main');
  await expect(page.getByTestId('search-count')).toHaveText(/^matched: /);
});
