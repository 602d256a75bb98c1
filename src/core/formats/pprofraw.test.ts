import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hexOf } from '../address.ts';
import { ProfileError } from '../types.ts';
import { looksLikePprofRaw, parsePprofRaw, splitInlineChain } from './pprofraw.ts';

const FIX = new URL('../../../test/fixtures/symbols/oracle/', import.meta.url);
const load = (name: string) => new Uint8Array(readFileSync(new URL(name, FIX)));
const NAMES = readdirSync(FIX)
  .filter((f) => f.endsWith('.perl.raw'))
  .map((f) => f.replace('.perl.raw', ''))
  .sort();

function total(p: ReturnType<typeof parsePprofRaw>): number {
  let t = 0;
  for (let i = 0; i < p.samples.count; i++) t += p.samples.weight[i];
  return t;
}

describe('parsePprofRaw on every corpus perl --raw file', () => {
  it('has all 12', () => expect(NAMES).toHaveLength(12));
  for (const name of NAMES) {
    it(name, () => {
      const bytes = load(`${name}.perl.raw`);
      expect(looksLikePprofRaw(bytes)).toBe(true);
      const p = parsePprofRaw(bytes);
      const want = /^Total: (\d+) samples/.exec(new TextDecoder().decode(load(`${name}.perl.text.txt`)));
      expect(total(p)).toBe(Number(want![1]));
      expect(p.format).toBe('pprof-raw');
      expect(p.adjustCallers).toBe(false);
      expect(p.meta.periodUs).toBe(0);
      expect(p.meta.mappings).toEqual([]);
      expect(p.meta.wordSize).toBe(64); // perl always writes a 64-bit header
      expect(p.meta.headerLines?.[0]).toMatchObject({ key: 'binary', known: true });
      expect(p.meta.headerLines?.[0].value).toMatch(/^bin\/\w+$/);
      expect(p.warnings.map((w) => w.message)).toEqual([
        'the sampling period is unknown: pprof --raw writes 1 µs instead of the real one, ' +
          'so sample counts are shown without time units',
      ]);
      // Every address of the samples has a symbol line; names come from it.
      const text = new TextDecoder('latin1').decode(bytes);
      const lines = [...text.matchAll(/^0x0*([0-9a-f]+) (.+)$/gm)];
      const resolved = lines.filter((m) => !/^0x[0-9a-f]+$/.test(m[2]));
      expect(p.embeddedSymbols!.size).toBe(resolved.length);
      const loc = p.locations;
      for (let i = 0; i < loc.count; i++) {
        const key = hexOf(loc.addrHi[i], loc.addrLo[i]);
        const line = lines.find((m) => m[1] === key);
        expect(line, key).toBeDefined();
        const chain = p.embeddedSymbols!.get(key);
        if (chain === undefined) {
          expect(loc.locName[i]).toBe(-1);
        } else {
          expect(p.strings[loc.locName[i]]).toBe(chain[0]);
          expect(chain.some((n) => /<[0-9a-f]+>$/.test(n))).toBe(false);
        }
      }
    });
  }

  it('tiny: names, stacks and nm tags', () => {
    const p = parsePprofRaw(load('tiny.perl.raw'));
    expect(p.embeddedSymbols!.get('55696327119b')).toEqual(['beta']);
    expect(p.embeddedSymbols!.get('7fb53b57a249')).toEqual(['__libc_start_call_main']);
    // Function-level stacks equal perl's collapsed output.
    const folded = new Map<string, number>();
    for (let s = 0; s < p.samples.count; s++) {
      const names: string[] = [];
      for (let k = p.samples.stackStart[s + 1] - 1; k >= p.samples.stackStart[s]; k--) {
        names.push(p.strings[p.locations.locName[p.samples.stackLocs[k]]]);
      }
      const key = names.join(';');
      folded.set(key, (folded.get(key) ?? 0) + p.samples.weight[s]);
    }
    const want = new TextDecoder().decode(load('tiny.perl.collapsed.norm.txt')).trim().split('\n');
    expect([...folded].map(([k, v]) => `${k} ${v}`).sort()).toEqual(want.sort());
  });

  it('cxx_demangle: inline chains split outermost first', () => {
    const p = parsePprofRaw(load('cxx_demangle.perl.raw'));
    const chain = p.embeddedSymbols!.get('55fc247ff9a9')!;
    expect(chain).toHaveLength(3);
    expect(chain[0]).toBe('work_sort()');
    expect(chain[1]).toMatch(/^std::map<.*>::~map\(\)$/);
    expect(chain[2]).toMatch(/^std::_Rb_tree<.*>::~_Rb_tree\(\)$/);
  });

  it('shlib: addresses perl could not resolve have no embedded symbol', () => {
    const p = parsePprofRaw(load('shlib.perl.raw'));
    expect(p.embeddedSymbols!.has('7fadeb0ab13a')).toBe(false);
    expect(p.embeddedSymbols!.get('7fadeb0b7118')).toEqual(['foo_inner']);
  });
});

/** A perl-style file around the binary part of tiny's. */
function rewrap(symbolText: string): Uint8Array {
  const b = load('tiny.perl.raw');
  const s = new TextDecoder('latin1').decode(b);
  const at = s.indexOf('--- profile\n') + '--- profile\n'.length;
  const head = new TextEncoder().encode(symbolText);
  const out = new Uint8Array(head.length + b.length - at);
  out.set(head);
  out.set(b.subarray(at), head.length);
  return out;
}

describe('pprof --raw text details', () => {
  it('skips %warn lines, removes \\r, accepts `--- profile` ending the symbols', () => {
    const p = parsePprofRaw(
      rewrap(
        '%warn something odd\r\n--- symbol\r\nbinary=bin/tiny\r\n0x000055696327119b beta<0000000000001189>\r\n' +
          '--- profile\n',
      ),
    );
    expect(p.embeddedSymbols!.get('55696327119b')).toEqual(['beta']);
    expect(total(p)).toBe(18);
  });

  it('reads long symbol lines in linear time (fuzz: the symbol-line regexp backtracked quadratically)', () => {
    const t0 = performance.now();
    const p = parsePprofRaw(
      rewrap(
        `--- symbol\nbinary=bin/tiny\n0x${'0'.repeat(50_000)} ${'a'.repeat(50_000)}\u2028\n` +
          `0x1${' '.repeat(100_000)}b\r\u2028\n0x0000a1 c\n0x000 zero\n--- profile\n`,
      ),
    );
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(p.embeddedSymbols!.get('a1')).toEqual(['c']);
    expect(p.embeddedSymbols!.get('0')).toEqual(['zero']);
    expect(p.embeddedSymbols!.get('1')).toEqual(['b']); // trimmed
  });

  it('keeps operator-- whole when splitting inline chains', () => {
    expect(splitInlineChain('f()--std::_Rb_tree_iterator<int>::operator--()--g()')).toEqual([
      'f()',
      'std::_Rb_tree_iterator<int>::operator--()',
      'g()',
    ]);
    expect(splitInlineChain('a--b--c')).toEqual(['a', 'b', 'c']);
  });

  it('detects only the symbolized format', () => {
    expect(looksLikePprofRaw(new TextEncoder().encode('main;foo 1\n'))).toBe(false);
    expect(looksLikePprofRaw(new Uint8Array(readFileSync(new URL('../profiles/tiny.prof', FIX))))).toBe(
      false,
    );
    expect(looksLikePprofRaw(new Uint8Array(0))).toBe(false);
  });

  it('clear errors for broken files', () => {
    const bad = (s: string | Uint8Array, re: RegExp) => {
      const b = typeof s === 'string' ? new TextEncoder().encode(s) : s;
      expect(() => parsePprofRaw(b)).toThrow(ProfileError);
      expect(() => parsePprofRaw(b)).toThrow(re);
    };
    bad('hello\n', /does not start with "--- symbol"/);
    bad('--- symbol\nbinary=x\n0x1 f\n', /never ends/);
    bad('--- symbol\n---\n--- heapprofile\nxxxx', /"--- heapprofile" section: only CPU profiles/);
    bad('--- symbol\n---\n--- profile\n', /empty/);
    bad('--- symbol\n---\n--- profile\nnot binary at all', /binary part/);
  });
});
