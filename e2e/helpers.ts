// Shared e2e helpers: open files the ways a person does, and check the canvas was painted.

import { readFileSync } from 'node:fs';
import { type BrowserContext, expect, type Locator, type Page } from '@playwright/test';
import { startServer } from '../scripts/serve-subpath';

export const FIXTURES = 'test/fixtures';
export const SHOTS = 'test-results/screenshots';
export const ROW = 18;

/**
 * Drops files on the page the way a browser does: dragenter/dragover/drop with a DataTransfer.
 * The page's drop listener is attached by an effect after React's first commit, which can come
 * after the load event `goto` waits for: a drop nobody handled (its default not prevented) is
 * dropped again until the page handles one, as a person would drop again on a page not ready.
 */
export async function dropFiles(page: Page, files: { path: string; name: string }[]) {
  const payload = files.map((f) => ({ name: f.name, b64: readFileSync(f.path).toString('base64') }));
  await expect.poll(() => dropOnce(page, payload), { message: 'the page handles a drop' }).toBe(true);
}

/** One drag and drop of the files; whether the page handled the drop. */
function dropOnce(page: Page, payload: { name: string; b64: string }[]): Promise<boolean> {
  return page.evaluate((payload) => {
    const dt = new DataTransfer();
    for (const { name, b64 } of payload) {
      const bin = atob(b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      dt.items.add(new File([bytes], name, { type: 'application/octet-stream' }));
    }
    const target = document.querySelector('main') ?? document.body;
    let handled = false;
    for (const type of ['dragenter', 'dragover', 'drop']) {
      handled = !target.dispatchEvent(
        new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }),
      );
    }
    return handled;
  }, payload);
}

export const dropFile = (page: Page, path: string, name: string) => dropFiles(page, [{ path, name }]);

/** The main flame graph's canvas, once painted with real pixels. */
export async function paintedGraph(page: Page, testId = 'main-graph'): Promise<Locator> {
  const canvas = page.getByTestId(testId).getByRole('img');
  await expect(canvas).toBeVisible();
  await expect(canvas).toHaveAttribute('data-painted', /[1-9]/);
  const coloured = await canvas.evaluate((c: HTMLCanvasElement) => {
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] !== d[i + 1] || d[i + 1] !== d[i + 2]) n++;
    return n;
  });
  expect(coloured).toBeGreaterThan(500);
  return canvas;
}

/**
 * The app as it runs after one visit: the built app (`FLAMELENS_DIST`, default dist/) visited once
 * from a server of its own at /flamelens/ until its service worker controls the page, then the
 * server taken away (not only emulated offline), the browser offline, and the page reloaded. The
 * caller sets the context online again.
 */
export async function offlineAfterOneVisit(page: Page, context: BrowserContext): Promise<void> {
  const srv = await startServer({ dir: process.env.FLAMELENS_DIST ?? 'dist', prefix: '/flamelens/' });
  try {
    await page.goto(srv.url);
    await expect(page.getByRole('heading', { name: /Drop a CPU profile/ })).toBeVisible();
    // The service worker is active (precache complete) and controls this very page (clientsClaim).
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  } finally {
    await srv.close();
  }
  await context.setOffline(true);
  await page.reload();
  await expect(page.getByRole('heading', { name: /Drop a CPU profile/ })).toBeVisible();
}

/** Opens the start page, drops gperf/tiny.prof with its binary, and waits for the painted graph. */
export async function openTinyWithBinary(page: Page): Promise<Locator> {
  await page.goto('./');
  await dropFiles(page, [
    { path: `${FIXTURES}/gperf/tiny.prof`, name: 'tiny.prof' },
    { path: `${FIXTURES}/gperf/bin/tiny`, name: 'tiny' },
  ]);
  return paintedGraph(page);
}

/** Canvas pixel colour at a CSS point of the canvas. */
export async function pixelAt(canvas: Locator, x: number, y: number): Promise<number[]> {
  return canvas.evaluate(
    (c: HTMLCanvasElement, [x, y]) => {
      const dpr = window.devicePixelRatio || 1;
      return Array.from(
        c.getContext('2d')!.getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data,
      );
    },
    [x, y],
  );
}

/**
 * Hovers a point of a graph and returns the tooltip's frame name, or '' when no frame is there (no
 * tooltip within 2 s). The pointer leaves first, so the page always gets a mousemove (after the
 * graph changed under a pointer that stayed put). It never throws: `expect.poll` does not retry a
 * callback that throws, and right after a view changes the point may be between bars for a frame.
 */
export async function hoverName(page: Page, p: { x: number; y: number }): Promise<string> {
  await page.mouse.move(0, 0);
  await page.mouse.move(p.x, p.y);
  const tip = page.getByTestId('tooltip');
  try {
    await tip.waitFor({ state: 'visible', timeout: 2000 });
    return (await tip.locator('.tt-name').textContent({ timeout: 1000 })) ?? '';
  } catch {
    return '';
  }
}

/**
 * Records the names of the workers the page starts from now on, nested ones included (the profile
 * worker `flamelens`, its reader `flamelens-reader` and memory helper `flamelens-prefault`): call
 * the function returned for those seen so far (a worker gone before it was asked is left out).
 */
export function recordWorkerNames(page: Page): () => Promise<string[]> {
  const names: Promise<string | null>[] = [];
  page.on('worker', (w) => {
    names.push(w.evaluate(() => (self as unknown as { name: string }).name).catch(() => null));
  });
  return async () => (await Promise.all(names)).filter((n): n is string => n !== null);
}
