import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findFrame } from '../core/model/frames';
import { analyzeBytes } from '../core/pipeline';
import { csvField, csvRow, functionTableCsv } from './csv';

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
