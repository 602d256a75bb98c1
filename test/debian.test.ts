// A profile of an unmodified, stripped Debian program (xz, recorded with libprofiler through
// LD_PRELOAD; test/fixtures/debian/record.sh): with the same binary given to both, the function
// table's top rows by self equal `go tool pprof -top`'s (names and percentages to 0.1 %) — code no
// symbol names is one `[module]` row, as pprof shows it, not one row per address.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli';

const D = 'test/fixtures/debian';

function goTop(name = 'xz'): [string, number][] {
  return readFileSync(`${D}/${name}.go-top.txt`, 'utf8')
    .split('\n')
    .map((l) => /^\s*\S+\s+([\d.]+)%\s+\S+\s+\S+\s+\S+\s+(.+)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[2], Number(m[1])]);
}

/** Percent of all samples by leaf frame, from `flamelens fold`'s output, heaviest first. */
function selfPercents(folded: string, digits: number): [string, number][] {
  const self = new Map<string, number>();
  let total = 0;
  for (const line of folded.trim().split('\n')) {
    const sp = line.lastIndexOf(' ');
    const n = Number(line.slice(sp + 1));
    total += n;
    const leaf = line.slice(0, sp).split(';').at(-1)!;
    self.set(leaf, (self.get(leaf) ?? 0) + n);
  }
  const scale = 10 ** digits;
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([name, n]) => [name, Math.round((100 * scale * n) / total) / scale]);
}

describe('a stripped Debian program', () => {
  it('xz: the top rows by self equal go tool pprof -top', async () => {
    const r = await runCli(['fold', `${D}/xz.prof`, '--binary', 'test/fixtures/heap/bin/xz']);
    expect(r.code).toBe(0);
    const ours = selfPercents(r.out, 1).slice(0, 10);
    const theirs = goTop().map(([name, pct]) => [name, Math.round(pct * 10) / 10]);
    expect(theirs.length).toBeGreaterThan(1);
    expect(ours).toEqual(theirs);
  });

  // python3.11 names its code only through .dynsym, which Debian's Go 1.19 pprof does not read: it
  // shows every module as one row. The oracle for names is binutils' listing of .dynsym with sizes
  // (test/checks/dynsym_self.py); Go pprof still checks the other modules' rows and the program's
  // total.
  it('python3: self by function equals dynsym_self.py, modules equal go tool pprof -top', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flamelens-py-'));
    const bin = join(dir, 'python3.11');
    writeFileSync(bin, gunzipSync(new Uint8Array(readFileSync(`${D}/bin/python3.11.gz`))));
    const r = await runCli(['fold', `${D}/python3.prof`, '--binary', bin]);
    expect(r.code).toBe(0);
    const ours = selfPercents(r.out, 2);
    const theirs = readFileSync(`${D}/python3.dynsym-self.txt`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => {
        const sp = l.indexOf(' ');
        return [l.slice(sp + 1), Number(l.slice(0, sp))];
      });
    expect(theirs).toHaveLength(12);
    expect(ours.slice(0, 12)).toEqual(theirs);
    // The unnamed code of the program is one row, not one per address.
    expect(ours.filter(([n]) => String(n).startsWith('python3.11+'))).toEqual([]);
    const go = new Map(goTop('python3'));
    for (const [name, pct] of ours)
      if (String(name).startsWith('[') && name !== '[python3.11]') expect(pct).toBe(go.get(String(name)));
    const program = ours.filter(([n]) => !String(n).startsWith('[') || n === '[python3.11]');
    expect(program.reduce((s, [, p]) => s + Number(p), 0)).toBeCloseTo(go.get('[python3.11]')!, 0);
  });
});
