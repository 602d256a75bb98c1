import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { looksLikeNm, nmToElfLike, parseNm } from './nm.ts';

const FIX = new URL('../../../test/fixtures/symbols/', import.meta.url);
const load = (rel: string) => new Uint8Array(readFileSync(new URL(rel, FIX)));
const enc = (s: string) => new TextEncoder().encode(s);

function nameAt(t: ReturnType<typeof parseNm>, addr: number): string | null {
  const i = t.symbols.lookup(Math.floor(addr / 2 ** 32), addr % 2 ** 32);
  return i < 0 ? null : t.symbols.names[i];
}

describe('looksLikeNm', () => {
  it('accepts nm listings', () => {
    for (const f of ['nm/tiny.nm', 'nm/tiny.S.nm', 'nm/tiny32.nm', 'nm/cxx_demangle.C.nm']) {
      expect(looksLikeNm(load(f)), f).toBe(true);
    }
  });
  it('rejects other files', () => {
    expect(looksLikeNm(load('bin/tiny'))).toBe(false);
    expect(looksLikeNm(load('profiles/tiny.prof'))).toBe(false);
    expect(looksLikeNm(load('oracle/tiny.perl.raw'))).toBe(false);
    expect(looksLikeNm(load('oracle/tiny.perl.collapsed.norm.txt'))).toBe(false);
    expect(looksLikeNm(enc('main;foo;bar 12\nmain;foo 3\n'))).toBe(false);
    expect(looksLikeNm(enc(''))).toBe(false);
    expect(looksLikeNm(enc('                 U printf\n'))).toBe(false); // no address at all
  });
});

describe('parseNm', () => {
  it('reads BSD format without sizes (functions extend to the next one)', () => {
    const t = nmToElfLike(load('nm/tiny.nm'), 'tiny.nm');
    expect(t.kind).toBe('nm');
    expect(t.functions).toBe(13);
    expect(nameAt(t, 0x1139)).toBe('spin');
    expect(nameAt(t, 0x1168)).toBe('spin');
    expect(nameAt(t, 0x1169)).toBe('alpha');
    expect(nameAt(t, 0x11a6)).toBe('main');
    expect(nameAt(t, 0x1000)).toBe('_init');
    expect(nameAt(t, 0x100)).toBe(null);
  });

  it('reads nm -S sizes', () => {
    const t = parseNm(new TextDecoder().decode(load('nm/tiny.S.nm')), 'tiny.S.nm');
    expect(nameAt(t, 0x11ca)).toBe('main'); // main: 0x119e + 45
    expect(nameAt(t, 0x11cb)).toBe(null);
  });

  it('reads 32-bit listings, nm -C names with spaces, CRLF and POSIX format', () => {
    const t32 = parseNm(new TextDecoder().decode(load('nm/tiny32.nm')), 'tiny32.nm');
    expect(nameAt(t32, 0x11e0)).toBe('gamma_');
    const c = parseNm(new TextDecoder().decode(load('nm/cxx_demangle.C.nm')), 'x');
    expect(c.symbols.names.some((n) => n.includes('(') && n.includes(' '))).toBe(true);
    const crlf = parseNm('0000000000001000 T f\r\n0000000000001010 t g(int, char)\r\n', 'x');
    expect(nameAt(crlf, 0x1012)).toBe('g(int, char)');
    const posix = parseNm('f T 1000 10\ng t 2000 8\nd D 3000 4\n', 'x');
    expect(nameAt(posix, 0x100f)).toBe('f');
    expect(nameAt(posix, 0x1010)).toBe(null);
    expect(nameAt(posix, 0x2004)).toBe('g');
    expect(posix.functions).toBe(2);
  });

  it('reads POSIX lines with long runs of blanks in linear time (fuzz: a quadratic regexp took 7 s)', () => {
    const blanks = ' '.repeat(200_000);
    const t0 = performance.now();
    const t = parseNm(`a${blanks}x\nop new(int)${blanks}T${blanks}1000${blanks}10\n`, 'x');
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(t.functions).toBe(1);
    expect(nameAt(t, 0x100f)).toBe('op new(int)');
    expect(t.warnings.join()).toMatch(/1 lines are not nm symbol lines \(first at line 1\)/);
  });

  it('keeps 64-bit addresses exact and skips undefined, data and junk lines', () => {
    const t = parseNm(
      [
        'ffffffff81000000 T _stext',
        'ffffffff81000100 T start_kernel',
        '                 U printf',
        '0000000000004010 D some_data',
        'nm: foo.o: no symbols',
        'archive.a:',
      ].join('\n'),
      'vmlinux.nm',
    );
    expect(t.functions).toBe(2);
    expect(t.symbols.lookup(0xffffffff, 0x81000150)).toBe(1);
    expect(t.symbols.names[1]).toBe('start_kernel');
    expect(t.warnings.join()).toMatch(/1 lines are not nm symbol lines \(first at line 5\)/);
  });
});
