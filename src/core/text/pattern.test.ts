import { describe, expect, it } from 'vitest';
import { compilePattern, MAX_PATTERN_LENGTH } from './pattern.ts';

const compiled = (source: string, options = {}) => {
  const c = compilePattern(source, options);
  if (!c.ok) throw new Error(c.error);
  return c.pattern;
};

describe('compilePattern: RE2 patterns', () => {
  it('matches a part of the text, or all of it when asked', () => {
    expect(compiled('alloc').test('tc_malloc_alloc_slow')).toBe(true);
    expect(compiled('alloc', { whole: true }).test('tc_malloc_alloc_slow')).toBe(false);
    expect(compiled('tc_.*', { whole: true }).test('tc_malloc')).toBe(true);
    expect(compiled('MALLOC', { ignoreCase: true }).test('tc_malloc')).toBe(true);
    expect(compiled('MALLOC').test('tc_malloc')).toBe(false);
  });

  it("reads Go's (pprof's) syntax: character classes, flags, non-greedy repeats", () => {
    expect(compiled('[[:alpha:]]+::[[:alpha:]]+').test('std::sort')).toBe(true);
    expect(compiled('(?i)SORT').test('std::sort')).toBe(true);
    expect(compiled('\\pL+').test('é')).toBe(true);
    expect(compiled('a.*?b', { whole: true }).test('axxb')).toBe(true);
  });

  it('refuses what RE2 has not (backreferences, lookarounds) and broken patterns, with RE2’s message', () => {
    for (const [source, says] of [
      ['(a)\\1', 'invalid escape sequence'],
      ['(?=a)', 'invalid or unsupported Perl syntax'],
      ['(a', 'missing closing )'],
      ['a**', 'invalid nested repetition operator'],
    ]) {
      const c = compilePattern(source);
      expect(c.ok).toBe(false);
      if (!c.ok) expect(c.error).toContain(says);
    }
  });

  it('refuses a pattern over the length limit, saying the limit', () => {
    const c = compilePattern('a'.repeat(MAX_PATTERN_LENGTH + 1));
    expect(c).toEqual({
      ok: false,
      error: `pattern of ${MAX_PATTERN_LENGTH + 1} characters: over the limit of ${MAX_PATTERN_LENGTH}`,
    });
  });

  it('matches in linear time where a backtracking RegExp never ends', () => {
    // `(a+)+$` against a's followed by a b: 2^n paths for a backtracking engine.
    const text = `${'a'.repeat(200_000)}b`;
    for (const p of [
      compiled('(a+)+$'),
      compiled('^((a+)+$)$'),
      compiled('(a|aa)+$', { ignoreCase: true }),
    ]) {
      const t0 = performance.now();
      expect(p.test(text)).toBe(false);
      expect(performance.now() - t0).toBeLessThan(500);
    }
    // and the same pattern still finds what it should
    expect(compiled('(a+)+$').test('xxaaa')).toBe(true);
  });
});

describe('compilePattern: plain names', () => {
  it('gives RE2’s answers for a literal, with or without case, whole or in part', () => {
    const names = [
      'tc_malloc',
      'TC_MALLOC',
      'xtc_mallocx',
      'Kelvin_\u212a',
      'ſort',
      'sort',
      'std::sort<int>',
      '',
    ];
    for (const source of ['tc_malloc', 'k', 'S', 'sort', 'std::sort<int>', 'x y']) {
      for (const options of [{}, { ignoreCase: true }, { whole: true }, { ignoreCase: true, whole: true }]) {
        const fast = compiled(source, options);
        // the same pattern made non-literal by an empty group goes to RE2 itself
        const slow = compiled(`${source}(?:)`, options);
        for (const n of names)
          expect([source, options, n, fast.test(n)]).toEqual([source, options, n, slow.test(n)]);
      }
    }
  });
});

describe('compilePattern: compiled patterns are kept', () => {
  it('gives the same answers from a kept pattern, and keeps case-folding apart', () => {
    const source = '^(Ab|c+d)$';
    const first = compiled(source, {});
    const again = compiled(source, {});
    const folded = compiled(source, { ignoreCase: true });
    for (const [name, exact, anyCase] of [
      ['Ab', true, true],
      ['ab', false, true],
      ['CCD', false, true],
      ['ccd', true, true],
      ['xAb', false, false],
    ] as const) {
      expect([name, first.test(name), again.test(name), folded.test(name)]).toEqual([
        name,
        exact,
        exact,
        anyCase,
      ]);
    }
  });

  it('compiles a long alternation (a heap profile’s drop_frames) once for many folds', () => {
    const alternation = `^(${Array.from({ length: 200 }, (_, i) => `alloc_fn_${i}\\(.*\\)`).join('|')})$`;
    const t0 = performance.now();
    compiled(alternation, {});
    const once = performance.now() - t0;
    const t1 = performance.now();
    for (let i = 0; i < 20; i++) compiled(alternation, {});
    // twenty more compiles of the same pattern cost less than the first one did
    expect(performance.now() - t1).toBeLessThan(Math.max(once, 5));
    expect(compiled(alternation, {}).test('alloc_fn_7(int)')).toBe(true);
    expect(compiled(alternation, {}).test('alloc_fn_7')).toBe(false);
  });
});
