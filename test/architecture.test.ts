// The house rules of docs/DESIGN.md, checked on the import graph (madge): no import cycles; the
// core imports nothing outside itself (no views, no worker, no React, no DOM-only modules); no view,
// export or worker module imports the app.

import madge from 'madge';
import { describe, expect, it } from 'vitest';

const graph = madge('src', { fileExtensions: ['ts', 'tsx'], tsConfig: 'tsconfig.json' });

describe('architecture', () => {
  it('has no import cycles', async () => {
    expect((await graph).circular()).toEqual([]);
  });

  it('keeps the core pure and the views independent of the app', async () => {
    const deps = (await graph).obj();
    const bad: string[] = [];
    for (const [file, imports] of Object.entries(deps)) {
      for (const dep of imports) {
        const test = /\.test\.tsx?$/.test(file);
        if (file.startsWith('core/') && !test && !dep.startsWith('core/')) bad.push(`${file} → ${dep}`);
        if (/^(flamegraph|table|export|worker|core)\//.test(file) && dep.startsWith('app/'))
          bad.push(`${file} → ${dep}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('imports no React, DOM or node module into the core', async () => {
    const { readFileSync } = await import('node:fs');
    const deps = (await graph).obj();
    const bad = Object.keys(deps)
      .filter((f) => f.startsWith('core/') && !f.endsWith('.test.ts'))
      .filter((f) => /from '(react|react-dom|zustand|node:[a-z]+)'/.test(readFileSync(`src/${f}`, 'utf8')));
    expect(bad).toEqual([]);
  });
});
