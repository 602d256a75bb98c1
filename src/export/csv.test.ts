import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findFrame } from '../core/model/frames';
import { analyzeBytes } from '../core/pipeline';
import { CSV_PART_ROWS, csvField, csvRow, functionTableCsv, functionTableCsvParts, pct } from './csv';

/** A small RFC 4180 reader, to prove the output round-trips. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else field += c;
      i++;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
    i++;
  }
  return rows;
}

describe('csvField', () => {
  it('leaves plain text and numbers alone', () => {
    expect(csvField('main')).toBe('main');
    expect(csvField('ns::f<int>(char const*)')).toBe('ns::f<int>(char const*)');
    expect(csvField(12.5)).toBe('12.5');
  });

  it('quotes commas, quotes and line breaks, doubling quotes (RFC 4180)', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rlf')).toBe('"cr\rlf"');
  });

  it('defuses spreadsheet formulas with a leading single quote', () => {
    expect(csvField('=1+1')).toBe("'=1+1");
    expect(csvField('+cmd')).toBe("'+cmd");
    expect(csvField('-2')).toBe("'-2");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('\tx')).toBe("'\tx");
    expect(csvField('=HYPERLINK("http://x", "y")')).toBe('"\'=HYPERLINK(""http://x"", ""y"")"');
    expect(csvField('a=b')).toBe('a=b');
  });

  it('ends rows with CRLF', () => {
    expect(csvRow(['a', 1, 'b,c'])).toBe('a,1,"b,c"\r\n');
  });
});

describe('functionTableCsv', () => {
  const bytes = new Uint8Array(readFileSync('test/fixtures/xss/evil.folded'));
  const a = analyzeBytes(bytes, { fileName: 'evil.folded' });

  it('has the header and one row per function with samples; names survive a round trip', () => {
    const rows = parseCsv(functionTableCsv(a));
    expect(rows[0]).toEqual(['Function', 'Module', 'Self (samples)', 'Self %', 'Total (samples)', 'Total %']);
    const names = rows.slice(1).map((r) => r[0]);
    expect(names).toContain('<img src=x onerror=alert(1)>');
    expect(names).toContain('<script>alert(2)</script>');
    expect(names).toContain('"quoted, name"');
    expect(names).toContain('\'=HYPERLINK("http://example.com")');
    const main = rows.find((r) => r[0] === 'main')!;
    expect(main.slice(2)).toEqual(['0', '0', '14', '100']);
    const img = rows.find((r) => r[0] === '<img src=x onerror=alert(1)>')!;
    expect(img.slice(2)).toEqual(['4', '28.57', '9', '64.29']);
    for (const r of rows) expect(r).toHaveLength(6);
  });

  it('says the weights’ unit in the header: bytes of a heap profile, nanoseconds of a CPU one', () => {
    const header = (f: string) =>
      parseCsv(
        functionTableCsv(
          analyzeBytes(new Uint8Array(readFileSync(`test/fixtures/pprof/go/${f}`)), { fileName: f }),
        ),
      )[0];
    expect(header('heap.pb.gz')).toEqual([
      'Function',
      'Module',
      'Self (bytes)',
      'Self %',
      'Total (bytes)',
      'Total %',
    ]);
    expect(header('cpu.pb.gz')).toEqual([
      'Function',
      'Module',
      'Self (nanoseconds)',
      'Self %',
      'Total (nanoseconds)',
      'Total %',
    ]);
  });

  it('follows a given row order', () => {
    const mainId = findFrame(a.profile.frames, 'main');
    const rows = parseCsv(functionTableCsv(a, [mainId]));
    expect(rows.map((r) => r[0])).toEqual(['Function', 'main']);
  });
});

describe('shares', () => {
  it('keeps two decimals, and two significant digits below 0.01 % (not 0)', () => {
    expect(pct(1, 7)).toBe(14.29);
    expect(pct(7, 7)).toBe(100);
    expect(pct(0, 7)).toBe(0);
    expect(pct(1, 100_000)).toBe(0.001);
    expect(pct(1997, 104_000_000)).toBe(0.0019);
    expect(pct(1, 0)).toBe(0);
  });

  it('writes a light function’s share as it is, not 0', () => {
    const text = 'main;heavy 99999\nmain;light 1\n';
    const b = analyzeBytes(new TextEncoder().encode(text), { fileName: 'shares.folded' });
    const light = parseCsv(functionTableCsv(b)).find((r) => r[0] === 'light')!;
    expect(light.slice(2)).toEqual(['1', '0.001', '1', '0.001']);
  });
});

describe('functionTableCsvParts', () => {
  // 10,000 leaves of one root, leaf i with 1 + (i mod 97) samples: more rows than two parts hold.
  const n = 10_000;
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(`root;leaf${i} ${1 + (i % 97)}`);
  const big = analyzeBytes(new TextEncoder().encode(`${lines.join('\n')}\n`), { fileName: 'wide.folded' });

  it('gives the header, then rows in parts of CSV_PART_ROWS, the same text as one string', () => {
    const parts = [...functionTableCsvParts(big)];
    expect(parts).toHaveLength(1 + Math.ceil((n + 1) / CSV_PART_ROWS));
    expect(parts[0]).toBe('Function,Module,Self (samples),Self %,Total (samples),Total %\r\n');
    const rowsOf = (part: string) => part.split('\r\n').length - 1;
    for (const part of parts.slice(1, -1)) expect(rowsOf(part)).toBe(CSV_PART_ROWS);
    expect(rowsOf(parts[parts.length - 1])).toBe((n + 1) % CSV_PART_ROWS);
    expect(parts.join('')).toBe(functionTableCsv(big));
  });

  it('lists by self, heaviest first, ties by the order the leaves came in, the root (no self) last', () => {
    const rows = parseCsv(functionTableCsv(big)).slice(1);
    expect(rows).toHaveLength(n + 1);
    const expected = Array.from({ length: n }, (_, i) => i).sort((x, y) => (y % 97) - (x % 97) || x - y);
    expect(rows.slice(0, n).map((r) => r[0])).toEqual(expected.map((i) => `leaf${i}`));
    expect(rows[n][0]).toBe('root');
  });
});
