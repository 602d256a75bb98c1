// A profile of an unmodified, stripped Debian program (xz, recorded with libprofiler through
// LD_PRELOAD; test/fixtures/debian/record.sh): with the same binary given to both, the function
// table's top rows by self equal `go tool pprof -top`'s (names and percentages to 0.1 %) — code no
// symbol names is one `[module]` row, as pprof shows it, not one row per address.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli';

const D = 'test/fixtures/debian';

function goTop(): [string, number][] {
  return readFileSync(`${D}/xz.go-top.txt`, 'utf8')
    .split('\n')
    .map((l) => /^\s*\S+\s+([\d.]+)%\s+\S+\s+\S+\s+\S+\s+(.+)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[2], Number(m[1])]);
}

describe('a stripped Debian program', () => {
  it('xz: the top rows by self equal go tool pprof -top', async () => {
    const r = await runCli(['fold', `${D}/xz.prof`, '--binary', 'test/fixtures/heap/bin/xz']);
    expect(r.code).toBe(0);
    const self = new Map<string, number>();
    let total = 0;
    for (const line of r.out.trim().split('\n')) {
      const sp = line.lastIndexOf(' ');
      const n = Number(line.slice(sp + 1));
      total += n;
      const leaf = line.slice(0, sp).split(';').at(-1)!;
      self.set(leaf, (self.get(leaf) ?? 0) + n);
    }
    const ours = [...self.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([name, n]) => [name, Math.round((1000 * n) / total) / 10]);
    const theirs = goTop().map(([name, pct]) => [name, Math.round(pct * 10) / 10]);
    expect(theirs.length).toBeGreaterThan(1);
    expect(ours).toEqual(theirs);
  });
});
