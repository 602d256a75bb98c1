// Files anyone can write, made big where the page lays text out (issue 33): a profile naming
// 200,000 mapped files, and a function named by 20 MB. Each opens with its graph shown; the
// metadata lists the first hundred mappings and more on request, and a view shows the long name by
// its start and how much is left out (laid out whole, they held the page's thread for seconds).

import { expect, test } from '@playwright/test';
import { hoverName, paintedGraph, ROW } from './helpers';

/** A 64-bit little-endian gperftools CPU profile: 2,000 one-PC samples over 200,000 mapped files. */
function manyMappings(): Buffer {
  const files = 200_000;
  const words: bigint[] = [0n, 3n, 0n, 10_000n, 0n];
  for (let i = 0; i < 2000; i++) {
    const m = (i * 97) % files;
    words.push(1n, 2n, BigInt(0x1000_0000 + m * 0x1_0000 + 0x100), 0x40_0010n);
  }
  words.push(0n, 1n, 0n);
  const head = Buffer.alloc(words.length * 8);
  for (const [i, w] of words.entries()) head.writeBigUInt64LE(w, i * 8);
  const lines = ['00400000-00401000 r-xp 00000000 08:01 1 /usr/bin/prog'];
  for (let m = 0; m < files; m++) {
    const base = 0x1000_0000 + m * 0x1_0000;
    lines.push(
      `${base.toString(16)}-${(base + 0x1_0000).toString(16)} r-xp 00000000 08:01 ${m + 2} /usr/lib/lib${m}.so`,
    );
  }
  return Buffer.concat([head, Buffer.from(`${lines.join('\n')}\n`)]);
}

test('200,000 mapped files: the graph, and the metadata lists a hundred and a thousand more per click', async ({
  page,
}) => {
  await page.goto('./');
  await page
    .getByLabel('Open profile')
    .setInputFiles({ name: 'many-maps.prof', mimeType: 'application/octet-stream', buffer: manyMappings() });
  await paintedGraph(page);
  const meta = page.getByRole('region', { name: 'Profile metadata' });
  await expect(meta.getByRole('heading', { name: 'Mapped objects (200,001)' })).toBeVisible();
  const list = meta.locator('ul.mappings > li');
  await expect(list).toHaveCount(101);
  await meta.getByRole('button', { name: '199,901 more: show 1,000 more' }).click();
  await expect(list).toHaveCount(1101);
  await expect(meta.getByRole('button', { name: '198,901 more: show 1,000 more' })).toBeVisible();
  // The table: the modules with samples, by name.
  await expect(page.getByRole('region', { name: 'Function table' })).toContainText('[lib0.so]');
});

test('a function named by 20 MB: shown by its start and how much is left out, in the table and the tooltip', async ({
  page,
}) => {
  await page.goto('./');
  const long = `ns::${'a'.repeat(20_000_000)}`;
  await page.getByLabel('Open profile').setInputFiles({
    name: 'long.folded',
    mimeType: 'text/plain',
    buffer: Buffer.from(`main;b 3\nmain;${long} 5\n`),
  });
  const graph = await paintedGraph(page);
  const cell = page.getByRole('region', { name: 'Function table' }).locator('td.fn', { hasText: 'ns::aaa' });
  await expect(cell).toBeVisible();
  const text = (await cell.textContent()) ?? '';
  expect(text.startsWith('ns::aaaa')).toBe(true);
  expect(text).toMatch(/… \(19,983,684 more characters\)$/);
  expect(text.length).toBeLessThanOrEqual(16_384);
  // Its bar (the heavier child of main, leftmost) hovered, row by row up from the root: the
  // tooltip says the same.
  const box = (await graph.boundingBox())!;
  const names: string[] = [];
  for (let row = 0; row < 6 && !names.includes(text); row++)
    names.push(
      await hoverName(page, { x: box.x + box.width * 0.2, y: box.y + box.height - ROW * (row + 0.5) }),
    );
  expect(names.slice(0, 2).map((n) => n.slice(0, 20))).toContain('main');
  expect(names.at(-1) === text).toBe(true);
});
