// addr2line's answers stored with the DWARF fixtures (test/fixtures/dwarf): `NAME.a2l.txt.gz` is
// `addr2line -a -f -i -C` over every sampled address (`NAME.a2l-mangled.txt.gz` the same without
// -C), `NAME.addrs.txt` the run-time address → link-time address pairs it was asked about.

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const DIR = 'test/fixtures/dwarf';

export interface OracleFrame {
  name: string;
  file: string;
  line: number;
}

/** addr2line's answers: vaddr (hex, no 0x, no leading zeros) → chain outermost first. */
export function addr2lineChains(name: string, opts: { mangled?: boolean } = {}): Map<string, OracleFrame[]> {
  const file = `${DIR}/${name}.a2l${opts.mangled ? '-mangled' : ''}.txt.gz`;
  const text = gunzipSync(readFileSync(file)).toString('utf8');
  const out = new Map<string, OracleFrame[]>();
  let cur: OracleFrame[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (/^0x[0-9a-f]+$/.test(l)) {
      cur = [];
      out.set(BigInt(l).toString(16), cur);
    } else if (l !== '' && i + 1 < lines.length) {
      const m = /^(.*):(\d+|\?)(?: \(discriminator \d+\))?$/.exec(lines[i + 1]);
      cur.unshift({
        name: l,
        file: m && m[1] !== '??' ? m[1] : '',
        line: m && m[2] !== '?' ? Number(m[2]) : 0,
      });
      i++;
    }
  }
  return out;
}

/** The run-time address → link-time address (both hex, no 0x) of the addresses asked about. */
export function runtimeToVaddr(name: string): Map<string, string> {
  return new Map(
    readFileSync(`${DIR}/${name}.addrs.txt`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' ').map((x) => BigInt(x).toString(16)) as [string, string]),
  );
}
