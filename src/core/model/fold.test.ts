import { describe, expect, it } from 'vitest';
import { addressProfile } from '../../../test/helpers/raw';
import { parseFolded } from '../formats/folded.ts';
import { FrameKind, type Symbolizer, Unnamed } from '../types.ts';
import { foldOtherWeights, foldProfile, simplifyFuncName } from './fold.ts';
import { findFrame, frameNames } from './frames.ts';
import { FrameNaming, IdsByKey } from './naming.ts';
import { withSampleType } from './sample-types.ts';
import { toFoldedText } from './serialize.ts';

describe('foldProfile', () => {
  it('adjusts callers by −1, names frames, sums identical stacks, root first', () => {
    const raw = addressProfile([
      [[0x400101n, 0x400201n, 0x900001n], 2],
      [[0x400101n, 0x400201n, 0x900001n], 3],
      [[0x400200n, 0x400201n, 0x900001n], 1],
    ]);
    const p = foldProfile(raw, { fileName: 'x.prof' });
    expect(toFoldedText(p)).toBe('0x900000;demo+0x1200;demo+0x1101 5\n0x900000;demo+0x1200;demo+0x1200 1\n');
    expect(p.stacks.count).toBe(2);
    // demo+0x1200 as caller and as leaf is one frame
    expect(p.frames.count).toBe(3);
    expect(p.meta.totalSamples).toBe(6);
    expect(p.meta.samplingTimeUs).toBe(60000);
    expect(p.meta.mappings).toEqual([
      { start: '0x400000', end: '0x500000', offset: '0x1000', path: '/bin/demo' },
    ]);
    expect(p.modules).toEqual(['/bin/demo']);
    expect(p.frames.module[findFrame(p.frames, 'demo+0x1101')]).toBe(0);
    expect(p.frames.module[findFrame(p.frames, '0x900000')]).toBe(-1);
  });

  it('uses a symbolizer (inline chains outermost first) and merges addresses of one function', () => {
    const raw = addressProfile([
      [[0x400101n, 0x400201n], 1],
      [[0x400105n, 0x400201n], 1],
    ]);
    const sym: Symbolizer = {
      lookup: (_hi, lo) => (lo === 0x400200 ? ['main'] : lo >= 0x400100 && lo < 0x400110 ? ['f', 'g'] : null),
    };
    const p = foldProfile(raw, { fileName: 'x', symbolizer: sym });
    expect(toFoldedText(p)).toBe('main;f;g 2\n');
    expect(p.stacks.count).toBe(1);
  });

  it('prefers embedded symbols', () => {
    const raw = addressProfile([[[0x400101n, 0x400201n], 1]], {
      embeddedSymbols: new Map([['400200', ['caller']]]),
    });
    expect(toFoldedText(foldProfile(raw, { fileName: 'x' }))).toBe('caller;demo+0x1101 1\n');
  });

  it('does not adjust when adjustCallers is false, and leaves period-less time undefined', () => {
    const raw = addressProfile([[[0x400101n, 0x400201n], 1]], { adjustCallers: false });
    raw.meta.periodUs = 0;
    const p = foldProfile(raw, { fileName: 'x' });
    expect(toFoldedText(p)).toBe('demo+0x1201;demo+0x1101 1\n');
    expect(p.meta.samplingTimeUs).toBeUndefined();
  });

  it('folds flat profiles as [module, function, address]', () => {
    const raw = addressProfile(
      [
        [[0x400100n], 4],
        [[0x400104n], 1],
      ],
      { flat: true, adjustCallers: false, format: 'dcpi' },
    );
    const sym: Symbolizer = { lookup: (_h, lo) => (lo === 0x400100 ? ['f'] : null) };
    expect(toFoldedText(foldProfile(raw, { fileName: 'x', symbolizer: sym }))).toBe(
      'demo;demo+0x1104 1\ndemo;f;demo+0x1100 4\n',
    );
  });

  it('folds name-only (folded text) profiles', () => {
    const raw = parseFolded(new TextEncoder().encode('main;a;b 2\nmain;a;b 3\nmain;c 1\n'));
    const p = foldProfile(raw, { fileName: 'x.folded' });
    expect(toFoldedText(p)).toBe('main;a;b 5\nmain;c 1\n');
    expect(p.meta.format).toBe('folded');
  });

  it('folds many deep stacks', () => {
    const stacks: [bigint[], number][] = [];
    let seed = 1;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
    for (let s = 0; s < 20000; s++) {
      const st: bigint[] = [];
      const depth = 120 + Math.floor(rnd() * 130);
      for (let d = 0; d < depth; d++) st.push(0x400000n + BigInt(Math.floor(rnd() * 3000) * 16));
      stacks.push([st, 1]);
    }
    const raw = addressProfile(stacks);
    const p = foldProfile(raw, { fileName: 'x' });
    expect(p.meta.totalSamples).toBe(20000);
    expect(p.stacks.count).toBe(20000);
    expect(p.frames.count).toBeLessThanOrEqual(6000);
  });
});

describe('foldProfile: short names and per-module frames', () => {
  // Two mappings: /bin/demo (a symbol file: f at 0x400100..0x400110, two instantiations of a
  // template at 0x400200 and 0x400300, 16 bytes each) and /lib/libx.so (no symbol file).
  const mappings = [
    { start: 0x400000n, end: 0x500000n, offset: 0x1000n, path: '/bin/demo' },
    { start: 0x700000n, end: 0x800000n, offset: 0n, path: '/lib/libx.so' },
  ];
  const sym: Symbolizer = {
    lookup: (_hi, lo) =>
      lo >= 0x400100 && lo < 0x400110
        ? ['void run<int>(std::vector<int, std::allocator<int> > const&)']
        : lo >> 4 === 0x40020
          ? ['Box<int>::get() const']
          : lo >> 4 === 0x40030
            ? ['Box<double>::get() const']
            : null,
    hasSymbolFile: (_hi, lo) => lo >= 0x400000 && lo < 0x500000,
  };
  const raw = () =>
    addressProfile(
      [
        [[0x400201n, 0x400105n, 0x700011n], 1],
        [[0x400301n, 0x400105n, 0x700021n], 2],
        [[0x400481n, 0x400105n, 0x900001n], 4],
      ],
      { meta: { periodUs: 10000, mappings } },
    );

  it("full names and per-address frames: the core API's default", () => {
    const p = foldProfile(raw(), { fileName: 'x', symbolizer: sym });
    expect(toFoldedText(p)).toBe(
      [
        '0x900000;void run<int>(std::vector<int, std::allocator<int> > const&);demo+0x1481 4',
        'libx.so+0x10;void run<int>(std::vector<int, std::allocator<int> > const&);Box<int>::get() const 1',
        'libx.so+0x20;void run<int>(std::vector<int, std::allocator<int> > const&);Box<double>::get() const 2',
        '',
      ].join('\n'),
    );
    expect(p.frames.fullName).toBeUndefined();
  });

  it('short names merge what pprof merges; the first full name stays for each frame', () => {
    const p = foldProfile(raw(), { fileName: 'x', symbolizer: sym, names: 'short' });
    expect(toFoldedText(p)).toBe(
      '0x900000;run;demo+0x1481 4\nlibx.so+0x10;run;Box::get 1\nlibx.so+0x20;run;Box::get 2\n',
    );
    const get = findFrame(p.frames, 'Box::get');
    expect(p.frames.fullName?.[get]).toBe('Box<int>::get() const');
    // Nothing cut (unnamed code has no function): no full name.
    expect(p.frames.fullName?.[findFrame(p.frames, 'demo+0x1481')]).toBeUndefined();
    expect(p.frames.fullName).toHaveLength(p.frames.count);
  });

  it("functions granularity: [MODULE] for code no symbol names, 0x… outside every mapping, and each frame's kind", () => {
    const p = foldProfile(raw(), {
      fileName: 'x',
      symbolizer: sym,
      names: 'short',
      granularity: 'functions',
    });
    expect(toFoldedText(p)).toBe('0x900000;run;[demo] 4\n[libx.so];run;Box::get 3\n');
    const kind = (name: string) => p.frames.kind[findFrame(p.frames, name)];
    const why = (name: string) => p.frames.unnamed?.[findFrame(p.frames, name)];
    expect([kind('run'), why('run')]).toEqual([FrameKind.Function, Unnamed.Named]);
    expect([kind('[demo]'), why('[demo]')]).toEqual([FrameKind.Module, Unnamed.OutsideSymbols]);
    expect([kind('[libx.so]'), why('[libx.so]')]).toEqual([FrameKind.Module, Unnamed.NoSymbolFile]);
    expect([kind('0x900000'), why('0x900000')]).toEqual([FrameKind.Address, Unnamed.NoModule]);
    expect(p.modules[p.frames.module[findFrame(p.frames, '[libx.so]')]]).toBe('/lib/libx.so');
  });

  it('a flat (DCPI) profile keeps its image → function → address frames whatever the granularity', () => {
    const flat = addressProfile(
      [
        [[0x400100n], 4],
        [[0x400104n], 1],
        [[0x400480n], 2],
      ],
      { flat: true, adjustCallers: false, format: 'dcpi' },
    );
    const p = foldProfile(flat, { fileName: 'x', symbolizer: sym, names: 'short', granularity: 'functions' });
    expect(toFoldedText(p)).toBe('demo;demo+0x1480 2\ndemo;run;demo+0x1100 4\ndemo;run;demo+0x1104 1\n');
  });
});

describe('IdsByKey', () => {
  it('keeps an id per key below 2^53 across its growth, and −1 for a key it has not', () => {
    const t = new IdsByKey(4);
    const keys = [0, 1, 4, 2 ** 32, 2 ** 32 + 4, 2 ** 53 - 1];
    for (let k = 0; k < 5000; k++) keys.push(0x400000 + k * 4);
    for (let id = 0; id < keys.length; id++) t.set(keys[id], id);
    expect(keys.map((key) => t.get(key))).toEqual(keys.map((_, id) => id));
    expect([t.get(2), t.get(2 ** 32 + 1), t.get(0x400000 + 5000 * 4)]).toEqual([-1, -1, -1]);
    t.set(4, 99);
    expect(t.get(4)).toBe(99);
    expect([...t.ids()].sort((a, b) => a - b)).toEqual(
      [...keys.keys()].map((id) => (id === 2 ? 99 : id)).sort((a, b) => a - b),
    );
  });
});

describe('FrameNaming: address frames', () => {
  const mappings = [
    { start: 0x400000n, end: 0x500000n, offset: 0x1000n, path: '/bin/demo' },
    // The same file mapped again over the same offsets: its addresses name the same frames.
    { start: 0x600000n, end: 0x700000n, offset: 0x1000n, path: '/bin/demo' },
  ];
  it('names an address once per offset in its file, whatever mapping of the file holds it', () => {
    const n = new FrameNaming(mappings, { granularity: 'addresses' });
    const a = n.exactAddressFrame(0, 0x400123);
    expect(n.name(a)).toBe('demo+0x1123');
    expect(n.exactAddressFrame(0, 0x600123)).toBe(a);
    expect(n.exactAddressFrame(0, 0x400124)).not.toBe(a);
    expect(n.name(n.exactAddressFrame(0, 0x900000))).toBe('0x900000');
    expect(n.exactAddressFrame(0, 0x900000)).toBe(n.count - 1);
    // Past 2^53 (a kernel address), by name.
    const k = n.exactAddressFrame(0xffffffff, 0x81000000);
    expect(n.name(k)).toBe('0xffffffff81000000');
    expect(n.exactAddressFrame(0xffffffff, 0x81000000)).toBe(k);
    // Found by offset, a frame stores no name (named when asked); found by name, it keeps it.
    const { frames } = n.finish();
    expect(frames.ownName).toEqual([null, null, null, '0xffffffff81000000']);
    expect(frameNames(frames)).toEqual(['demo+0x1123', 'demo+0x1124', '0x900000', '0xffffffff81000000']);
  });

  it('is one frame with a frame of another kind that has its name, whichever comes first', () => {
    const module = (n: FrameNaming) => n.moduleOf(n.index.find(0, 0x400123));
    const first = new FrameNaming(mappings, { granularity: 'addresses' });
    const a = first.exactAddressFrame(0, 0x400123);
    expect(first.functionFrame('demo+0x1123', module(first))).toBe(a);
    expect(first.functionFrame('0x900000', -1)).toBe(first.exactAddressFrame(0, 0x900000));
    expect(first.exactAddressFrame(0, 0x600123)).toBe(a);
    const then = new FrameNaming(mappings, { granularity: 'addresses' });
    const f = then.functionFrame('demo+0x1123', module(then));
    expect(then.exactAddressFrame(0, 0x400123)).toBe(f);
    expect(then.exactAddressFrame(0, 0x600123)).toBe(f);
    expect(then.count).toBe(1);
  });
});

describe('foldProfile: locations that name themselves (pprof Lines)', () => {
  it('gives a location with lines one frame per line, outermost first, in its module; others go to the symbolizer', () => {
    // locations: 0 = 0x400100 (leaf, lines: outer → inlined), 1 = 0x400200 (no lines), 2 = 0x900000 (one line)
    const raw = addressProfile([[[0x400100n, 0x400200n, 0x900000n], 4]], {
      strings: ['outer', 'inlined', 'far', 'x.c'],
      adjustCallers: false,
      lines: {
        start: Uint32Array.from([0, 2, 2, 3]),
        name: Int32Array.from([0, 1, 2]),
        file: Int32Array.from([3, 3, -1]),
        line: Uint32Array.from([10, 3, 0]),
      },
    });
    const seen: string[] = [];
    const symbolizer: Symbolizer = {
      lookup: (hi, lo) => {
        seen.push(((BigInt(hi) << 32n) | BigInt(lo)).toString(16));
        return ['symbolized'];
      },
    };
    const p = foldProfile(raw, { fileName: 'x.pb', symbolizer });
    expect(toFoldedText(p)).toBe('far;symbolized;outer;inlined 4\n');
    expect(seen).toEqual(['400200']); // only the location without lines, at its address as written
    const outer = findFrame(p.frames, 'outer');
    expect(p.modules[p.frames.module[outer]]).toBe('/bin/demo');
    expect(p.frames.module[findFrame(p.frames, 'far')]).toBe(-1);
  });
});

describe('dropFrames (pprof Prune)', () => {
  const folded = (stacks: string[], meta: { dropFrames?: string; keepFrames?: string }, ignore = false) => {
    const raw = parseFolded(new TextEncoder().encode(stacks.map((s) => `${s} 1\n`).join('')));
    return toFoldedText(
      foldProfile({ ...raw, meta: { ...raw.meta, ...meta } }, { fileName: 'f', ignoreDropFrames: ignore }),
    );
  };

  it('drops the first match past the first frame that does not match, and everything leafward', () => {
    const drop = { dropFrames: 'malloc|operator new(\\[\\])?|tcmalloc::.*' };
    expect(folded(['main;f;operator new(unsigned long);malloc;g'], drop)).toBe('main;f 1\n');
    expect(folded(['main;f;tcmalloc::Alloc'], drop)).toBe('main;f 1\n');
    // matches before the first user frame are kept; a stack of matches only is kept whole
    expect(folded(['malloc;main;malloc'], drop)).toBe('malloc;main 1\n');
    expect(folded(['malloc;tcmalloc::x'], drop)).toBe('malloc;tcmalloc::x 1\n');
    // anchored: `mallocx` is not `malloc`
    expect(folded(['main;mallocx'], drop)).toBe('main;mallocx 1\n');
    expect(folded(['main;f;malloc'], drop, true)).toBe('main;f;malloc 1\n');
  });

  it('spares keepFrames, and reports an invalid expression instead of failing', () => {
    const meta = { dropFrames: 'runtime\\..*', keepFrames: 'runtime\\.panic' };
    expect(folded(['main;runtime.panic;runtime.mallocgc'], meta)).toBe('main;runtime.panic 1\n');
    const raw = parseFolded(new TextEncoder().encode('main;f 1\n'));
    const p = foldProfile({ ...raw, meta: { ...raw.meta, dropFrames: '(' } }, { fileName: 'f' });
    expect(toFoldedText(p)).toBe('main;f 1\n');
    expect(p.meta.warnings.at(-1)?.message).toMatch(/^drop_frames not applied/);
  });

  it("simplifies names as pprof's simplifyFunc before matching", () => {
    expect(simplifyFuncName('operator new(unsigned long)')).toBe('operator new');
    expect(simplifyFuncName('ns::f<int>(int) const')).toBe('ns::f<int>');
    expect(simplifyFuncName('(anonymous namespace)::g(char*)')).toBe('(anonymous namespace)::g');
    expect(simplifyFuncName('Foo::operator()(int)')).toBe('Foo::operator()');
    expect(simplifyFuncName('.main')).toBe('main');
    expect(simplifyFuncName('plain')).toBe('plain');
  });
});

describe('sampleStacks', () => {
  it("gives each sample its folded stack, −1 for those left out (no stack, a label filter's)", () => {
    const raw = parseFolded(new TextEncoder().encode('main;a 2\nmain;b 3\nmain;a 4\nmain;c 1\n'));
    // A label per sample: the third sample is the one a filter drops.
    raw.labels = [{ key: 'k', kind: 'number', value: Float64Array.of(1, 1, 2, 1) }];
    const sampleStacks = new Int32Array(raw.samples.count).fill(7);
    const p = foldProfile(raw, {
      fileName: 'x',
      labelFilters: [{ key: 'k', op: 'ignore', values: ['2'] }],
      sampleStacks,
      consume: true,
    });
    expect(raw.samples.count).toBe(4);
    expect(sampleStacks[2]).toBe(-1);
    const sums = new Float64Array(p.stacks.count);
    for (let s = 0; s < raw.samples.count; s++)
      if (sampleStacks[s] >= 0) sums[sampleStacks[s]] += raw.samples.weight[s];
    expect([...sums]).toEqual([...p.stacks.weight]);
    expect(toFoldedText(p)).toBe('main;a 2\nmain;b 3\nmain;c 1\n');
  });
});

describe('foldOtherWeights', () => {
  const text = (lines: string[]) => new TextEncoder().encode(`${lines.join('\n')}\n`);

  it("is the fold of another column of the same samples, to the bit, sharing the first fold's frames and stacks", () => {
    // two counts per line (baseline, comparison): zeros on either side, repeats, fractions, −0
    const raw = parseFolded(
      text([
        'main;a;b 3 0',
        'main;c 0 2.5',
        'main;a;b 0.1 7',
        'main;a 1e-300 1',
        'main;c 0.2 0',
        'main;d -0 3',
        'main;a;b 0.7 0',
      ]),
    );
    expect(raw.diffPair).toBe(true);
    const opts = { fileName: 'x.txt' };
    const sampleStacks = new Int32Array(raw.samples.count);
    const comp = foldProfile(raw, { ...opts, sampleStacks });
    const base = foldOtherWeights(comp, withSampleType(raw, 0), sampleStacks);
    const reference = foldProfile(withSampleType(raw, 0), opts);
    expect(base).toEqual(reference);
    expect(Object.is(base.stacks.weight[3], -0)).toBe(Object.is(reference.stacks.weight[3], -0));
    expect(base.meta.sampleType).toEqual({ type: 'baseline', unit: 'count' });
    expect(base.frames).toBe(comp.frames);
    expect(base.stacks.frames).toBe(comp.stacks.frames);
    expect(base.stacks.start).toBe(comp.stacks.start);
    expect(base.stacks.weight).not.toBe(comp.stacks.weight);
  });

  it('keeps the label filters and counts what they dropped in the other column', () => {
    const raw = parseFolded(text(['main;a 2 5', 'main;b 3 1', 'main;a 4 9', 'main;c 1 2']));
    raw.labels = [{ key: 'k', kind: 'number', value: Float64Array.of(1, 1, 2, 1) }];
    const opts = { fileName: 'x', labelFilters: [{ key: 'k', op: 'ignore' as const, values: ['2'] }] };
    const sampleStacks = new Int32Array(raw.samples.count);
    const comp = foldProfile(raw, { ...opts, sampleStacks });
    const base = foldOtherWeights(comp, withSampleType(raw, 0), sampleStacks);
    expect(base).toEqual(foldProfile(withSampleType(raw, 0), opts));
    expect(base.meta.labelDropped).toEqual({ samples: 1, weight: 4 });
    expect(comp.meta.labelDropped).toEqual({ samples: 1, weight: 9 });
  });
});
