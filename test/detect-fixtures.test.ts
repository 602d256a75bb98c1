// Detection over every file in test/fixtures: heap profiles, `perf script` text and perf.data are
// recognised as such, and the new sniffs take nothing else (folded oracles, pprof --raw, DCPI,
// binaries, kallsyms…).

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../src/core/formats/detect.ts';

const ROOT = fileURLToPath(new URL('./fixtures/', import.meta.url));

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

describe('detectFormat over all fixtures', () => {
  const files = walk(ROOT).map((p) => relative(ROOT, p));

  it('finds heap profiles, perf script text and perf.data, and only them', () => {
    const heap: string[] = [];
    const perf: string[] = [];
    const perfData: string[] = [];
    for (const f of files) {
      const got = detectFormat(new Uint8Array(readFileSync(join(ROOT, f))));
      if (got === 'heap') heap.push(f);
      if (got === 'perf-script') perf.push(f);
      if (got === 'perf-data') perfData.push(f);
    }
    const expectHeap = files.filter((f) => f.startsWith('heap/') && f.endsWith('.heap'));
    // perf script's output of the perf.data fixtures too, with or without call graphs (`-F` fields
    // without ip: samples without frames).
    const expectPerf = files.filter(
      (f) =>
        (f.startsWith('perf/') && f.endsWith('.perf.txt')) ||
        /^perf-data\/.*\.(perf|fields)\.txt(\.gz)?$/.test(f),
    );
    const expectPerfData = files.filter((f) => /^perf-data\/.*\.data(\.gz)?$/.test(f));
    expect(expectHeap.length).toBeGreaterThan(4);
    expect(expectPerf.length).toBeGreaterThan(5);
    expect(expectPerfData.length).toBeGreaterThan(9);
    expect(heap.sort()).toEqual(expectHeap.sort());
    expect(perf.sort()).toEqual(expectPerf.sort());
    expect(perfData.sort()).toEqual(expectPerfData.sort());
  });

  it('still reads the oracles next to them as folded stacks', () => {
    for (const f of files.filter((x) => /^(heap|perf)\/.*collapsed\.txt$/.test(x))) {
      const got = detectFormat(new Uint8Array(readFileSync(join(ROOT, f))));
      expect([f, got]).toEqual([f, 'folded']);
    }
  });
});
