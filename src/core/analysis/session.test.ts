// The worker's logic, run in node: files dropped together are sorted into profile and symbol
// files; symbols dropped later re-fold without re-parsing; views and sandwich derive from the
// kept profile.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli';
import { type FunctionTable, firstChildOf, nextSiblingOf, totalOf } from '../model/calltree';
import { findFrame, frameNames } from '../model/frames';
import { frameName, functionOf } from '../text/frame-text';
import { shortFunctionName } from '../text/names';
import { FrameKind, ProfileError } from '../types';
import { DEFAULT_VIEW, type WorkerView, workerViewOf } from '../view/schema';
import type { CallGraphResult } from './derivations';
import { AnalysisSession } from './session';

const file = (path: string, name = path.split('/').pop()!) => ({
  name,
  bytes: new Uint8Array(readFileSync(`test/fixtures/${path}`)),
});
const names = (r: Awaited<ReturnType<AnalysisSession['add']>>) => frameNames(r.analysis!.profile.frames);
const V = (patch: Partial<WorkerView> = {}): WorkerView => ({ ...workerViewOf(DEFAULT_VIEW), ...patch });

describe('AnalysisSession', () => {
  it('opens a profile, then symbolizes it when its binary arrives', async () => {
    const s = new AnalysisSession();
    const a = await s.add([file('gperf/tiny.prof')], V());
    expect(a.newProfile).toBe(true);
    expect(a.symbols).toBeNull();
    // Unsymbolized code is one frame per module, as pprof shows it.
    expect(names(a)).toContain('[tiny]');
    const b = await s.add([file('gperf/bin/tiny')], V());
    expect(b.newProfile).toBe(false);
    expect(names(b)).toEqual(expect.arrayContaining(['main', 'alpha', 'beta', 'gamma_', 'spin']));
    expect(b.symbols?.report.matched.map((m) => m.elfFile)).toEqual(['tiny']);
    expect(totalOf(b.analysis!.tree, 0)).toBe(18);
  });

  it('shows what reading said of a file (a sampled large profile) with its warnings; consumes its bytes', async () => {
    const s = new AnalysisSession();
    const prof = { ...file('gperf/tiny.prof'), warnings: [{ message: 'showing 1 in 3 records: …' }] };
    const r = await s.add([prof], V(), { consume: true });
    expect(r.analysis!.profile.meta.warnings[0].message).toBe('showing 1 in 3 records: …');
    expect(prof.bytes.length).toBe(0);
  });

  it('takes a profile and its binaries in one drop, in any order; junk files are reported, not fatal', async () => {
    const s = new AnalysisSession();
    const r = await s.add(
      [file('gperf/bin/tiny'), file('bad/random_bytes.prof', 'libjunk.so'), file('gperf/tiny.prof')],
      V(),
    );
    expect(r.analysis!.profile.meta.fileName).toBe('tiny.prof');
    expect(names(r)).toContain('gamma_');
    expect(r.symbols?.errors.map((e) => e.fileName)).toEqual(['libjunk.so']);
  });

  it('opens perf.data with its program, then names its kernel frames when a kallsyms copy arrives', async () => {
    const s = new AnalysisSession();
    const a = await s.add([file('perf-data/bin/syscalls'), file('perf-data/syscalls.data')], V(), {
      consume: true,
    });
    expect(a.analysis!.profile.meta.format).toBe('perf-data');
    expect(names(a)).toEqual(expect.arrayContaining(['main', 'writer', 'sys4', '[kernel.kallsyms]']));
    const b = await s.add([file('perf-data/kallsyms.txt')], V());
    expect(b.newProfile).toBe(false);
    expect(b.symbols?.report.matched.map((m) => [m.mappingPath, m.by])).toContainEqual([
      '[kernel.kallsyms]',
      'kallsyms',
    ]);
    expect(names(b)).toEqual(expect.arrayContaining(['do_syscall_64', 'entry_SYSCALL_64_after_hwframe']));
    expect(names(b)).not.toContain('[kernel.kallsyms]');
  });

  it('refuses two profiles at once, and binaries without a profile', async () => {
    const s = new AnalysisSession();
    await expect(s.add([file('gperf/tiny.prof'), file('gperf/tiny32.prof')], V())).rejects.toThrow(
      /one profile at a time \(got tiny\.prof and tiny32\.prof\).*To compare two profiles, open one, then drop the other on "Compare with…"/,
    );
    await expect(s.add([file('gperf/bin/tiny')], V())).rejects.toThrow(/no profile/);
    await expect(s.add([file('bad/empty.prof')], V())).rejects.toBeInstanceOf(ProfileError);
  });

  it("opens a two-count file as a comparison of its columns: each side's functions those of the file difffolded.pl made it from", async () => {
    // workload.difffolded.txt is difffolded.pl's of the two collapsed files (make_difffolded_fixtures.sh)
    const totals = (
      a: NonNullable<Awaited<ReturnType<AnalysisSession['add']>>['analysis']>,
      t: FunctionTable,
    ) => {
      const out = new Map<string, [number, number]>();
      for (let f = 0; f < t.count; f++)
        if (t.total[f] !== 0) out.set(frameName(a.profile.frames, f), [t.self[f], t.total[f]]);
      return out;
    };
    const own = async (path: string) => {
      const a = (await new AnalysisSession().add([file(path)], V())).analysis!;
      return totals(a, a.functions);
    };
    const a0 = await own('diff/workload_a.pprof-collapsed.txt');
    const b0 = await own('diff/workload_b.pprof-collapsed.txt');
    expect(a0.size).toBeGreaterThan(5);
    const s = new AnalysisSession();
    const opened = await s.add([file('diff/workload.difffolded.txt')], V({ mode: 'diff' }));
    // then a view that folds again (a frame per line) and one that only derives (inverted)
    const again = [V({ mode: 'diff', granularity: 'lines' }), V({ mode: 'diff', inverted: true })];
    const results = [opened];
    for (const v of again) results.push(await s.apply(v));
    for (const r of results) {
      const a = r.analysis!;
      expect(totals(a, a.diff!.baseFunctions)).toEqual(a0);
      expect(totals(a, a.diff!.compFunctions)).toEqual(b0);
    }
  });

  it("compares a heap profile's chosen value with the same value of the baseline, as pprof -sample_index does", async () => {
    // Each column of an unsampled heap profile sums to its header's totals:
    // `heap profile: INUSE_OBJECTS: INUSE_BYTES [ALLOC_OBJECTS: ALLOC_BYTES] @ heapprofile`.
    const header = (path: string) => {
      const m = /^heap profile:\s*(\d+):\s*(\d+)\s*\[\s*(\d+):\s*(\d+)\]/.exec(
        readFileSync(`test/fixtures/${path}`, 'latin1'),
      )!;
      return { inuse_objects: +m[1], inuse_space: +m[2], alloc_objects: +m[3], alloc_space: +m[4] };
    };
    const base = header('heap/allocs.0001.heap');
    const comp = header('heap/allocs.0002.heap');
    const sum = (t: FunctionTable) => t.self.reduce((a, b) => a + b, 0);
    const s = new AnalysisSession();
    await s.add([file('heap/allocs.0002.heap'), file('heap/bin/allocs')], V());
    await s.add([file('heap/allocs.0001.heap')], V({ mode: 'diff' }), { slot: 'base' });
    for (const type of ['alloc_objects', 'alloc_space', 'inuse_objects', 'inuse_space'] as const) {
      const d = (await s.apply(V({ mode: 'diff', sampleType: type }))).analysis!.diff!;
      expect([type, sum(d.baseFunctions), sum(d.compFunctions)]).toEqual([type, base[type], comp[type]]);
      expect(s.comparisonWarning()).toBeNull();
    }
    // A link's own baseline type still holds (bst): then the sides do not compare, and it says so.
    const d = (await s.apply(V({ mode: 'diff', sampleType: 'alloc_space', baseSampleType: 'inuse_objects' })))
      .analysis!.diff!;
    expect([sum(d.baseFunctions), sum(d.compFunctions)]).toEqual([base.inuse_objects, comp.alloc_space]);
    expect(s.comparisonWarning()).toMatch(/\S/);
  });

  it('derives views (transforms, invert) and the sandwich from the kept profile', async () => {
    const s = new AnalysisSession();
    const opened = await s.add([file('folded/simple.folded')], V());
    const hidden = await s.apply(V({ transforms: [{ kind: 'hide-function', name: 'parse' }] }));
    // The frame table is kept (the page holds it already): parse is in no stack and no table row.
    const a = hidden.analysis!;
    expect(a.profile.frames).toBe(opened.analysis!.profile.frames);
    const parse = findFrame(a.profile.frames, 'parse');
    expect(Array.from(a.tree.frame)).not.toContain(parse);
    expect(Array.from(a.functions.bySelf!)).not.toContain(parse);
    const inv = await s.apply(V({ inverted: true }));
    const t = inv.analysis!.tree;
    expect(frameName(inv.analysis!.profile.frames, t.frame[firstChildOf(t, 0)])).toBe('read');
    // The function table describes functions, not the inverted tree.
    const main = findFrame(inv.analysis!.profile.frames, 'main');
    expect(inv.analysis!.functions.total[main]).toBe(100);
    const only = await s.apply(V({ inverted: true, mode: 'sandwich', sandwich: 'parse' }));
    expect(only.analysis).toBeNull(); // only the sandwich changed
    const sw = only.sandwich!;
    expect(sw.total).toBe(60);
    expect(totalOf(sw.callees.tree, 0)).toBe(60);
    expect(
      frameName(sw.callers.profile.frames, sw.callers.tree.frame[firstChildOf(sw.callers.tree, 0)]),
    ).toBe('parse');
  });

  it('re-folds when the label filters or the group-by key change, not on other changes', async () => {
    const s = new AnalysisSession();
    await s.add([file('perf/mixed.perf.txt')], V({ sampleType: 'samples' }));
    const roots = (r: Awaited<ReturnType<AnalysisSession['apply']>>) => {
      const { tree, profile } = r.analysis!;
      const out: string[] = [];
      for (let c = firstChildOf(tree, 0); c >= 0; c = nextSiblingOf(tree, c))
        out.push(`${frameName(profile.frames, tree.frame[c])} ${totalOf(tree, c)}`);
      return out.sort();
    };
    const grouped = await s.apply(V({ sampleType: 'samples', groupBy: 'comm' }));
    expect(grouped.labels?.map((l) => `${l.key} ${l.values[0].value} ${l.values[0].weight}`)).toEqual([
      'comm xz 3061',
      'pid 31383 3061',
      'tid 31383 3061',
      'cpu 0 2600', // the headers' [000]
    ]);
    expect(roots(grouped)).toEqual(['comm=sh 1', 'comm=sorter 346', 'comm=xz 3061']);
    expect(grouped.analysis!.profile.meta.groupBy).toBe('comm');
    const labelFilters = [{ key: 'comm', op: 'ignore' as const, values: ['xz'] }];
    const filtered = await s.apply(V({ sampleType: 'samples', groupBy: 'comm', labelFilters }));
    expect(roots(filtered)).toEqual(['comm=sh 1', 'comm=sorter 346']);
    expect(filtered.analysis!.profile.meta.labelDropped).toEqual({ samples: 3061, weight: 3061 });
    const ungrouped = await s.apply(V({ sampleType: 'samples', labelFilters }));
    expect(frameNames(ungrouped.analysis!.profile.frames).some((n) => n.startsWith('comm='))).toBe(false);
    expect(totalOf(ungrouped.analysis!.tree, 0)).toBe(347);
    const same = await s.apply(V({ sampleType: 'samples', labelFilters, inverted: false }));
    expect(same.analysis).toBeNull();
    expect(same.labels).toBeUndefined();
  });

  it('counts the samples through a search match, each sample once', async () => {
    const s = new AnalysisSession();
    await s.add([file('folded/simple.folded')], V());
    expect(s.search({ text: '^(read|fill|main)$', regex: true }).samples).toBe(100); // main is on every stack: 100, not 165
    expect(s.search({ text: '^(read|fill)$', regex: true }).samples).toBe(65);
  });

  it('shows mangled names on request', async () => {
    const s = new AnalysisSession();
    await s.add([file('gperf/cxx_demangle.prof'), file('gperf/bin/cxx_demangle')], V());
    const m = await s.apply(V({ mangled: true }));
    expect(names(m).some((n) => n.startsWith('_ZN'))).toBe(true);
    const d = await s.apply(V({ mangled: false, fullNames: true }));
    expect(names(d)).toContain('(anonymous namespace)::Circle::area(int) const');
  });

  it('short names read from mangled ones keep their full names (the tooltip’s), as the demangler gives them', async () => {
    const s = new AnalysisSession();
    const short = await s.add([file('gperf/cxx_demangle.prof'), file('gperf/bin/cxx_demangle')], V());
    const full = await s.apply(V({ fullNames: true }));
    const frames = short.analysis!.profile.frames;
    expect(frameNames(frames)).toContain('(anonymous namespace)::Circle::area');
    const fullNames = new Set(names(full));
    expect(frames.fullName?.some((x) => x !== undefined)).toBe(true);
    for (let f = 0; f < frames.count; f++) {
      if (frames.kind[f] !== FrameKind.Function) continue;
      // Each short frame's full name (its name where nothing was cut) is one of the full-names
      // view's frames, and shortens to it.
      const whole = frames.fullName?.[f] ?? frameName(frames, f);
      expect(fullNames.has(whole), whole).toBe(true);
      expect(shortFunctionName(whole)).toBe(frameName(frames, f));
    }
  });

  it("gives the open profiles as an HTML report's snapshots, which reopen to the same view", async () => {
    const s = new AnalysisSession();
    await s.add([file('diff/workload_a.prof'), file('diff/bin/workload')], V());
    await s.add([file('diff/workload_b.prof')], V({ mode: 'diff' }), { slot: 'base' });
    const view = V({ mode: 'diff', transforms: [{ kind: 'hide-function', name: 'main' }] });
    await s.apply(view);
    const files = s.snapshots();
    expect(files.map((f) => [f.slot, f.name])).toEqual([
      ['main', 'workload_a.prof'],
      ['base', 'workload_b.prof'],
    ]);
    const r = new AnalysisSession();
    const main = files.find((f) => f.slot === 'main')!;
    const base = files.find((f) => f.slot === 'base')!;
    await r.add([{ name: main.name, bytes: main.bytes }], { ...view, mode: 'graph' });
    await r.add([{ name: base.name, bytes: base.bytes }], view, { slot: 'base' });
    expect(r.foldedParts([]).join('')).toBe(s.foldedParts([]).join(''));
    expect(r.foldedParts([]).join('')).toContain(';sort_records;'); // symbolized
    expect(r.foldedParts([]).join('')).not.toContain(';main;'); // the view's transform applies

    // Out of the comparison, only the shown profile.
    await s.apply(V());
    expect(s.snapshots().map((f) => f.slot)).toEqual(['main']);
  });

  it('folds a profile per address over its parsed stacks, and folds it again from them for another view', async () => {
    const s = new AnalysisSession();
    const raw = () => (s as unknown as { loaded: { raw: { samples: object } } }).loaded.raw;
    const lent = () => Object.getOwnPropertyDescriptor(raw().samples, 'stackLocs')?.get !== undefined;
    const addrs = V({ granularity: 'addresses' });
    const a = await s.add([file('gperf/cxx_demangle.prof')], addrs, { consume: true });
    // Nothing after the fold read the parsed stacks back (that would have made them again).
    expect(lent()).toBe(true);
    const text = (r: typeof a) => {
      const p = r.analysis!.profile;
      return Array.from({ length: p.stacks.count }, (_, i) =>
        Array.from(p.stacks.frames.subarray(p.stacks.start[i], p.stacks.start[i + 1]), (f) =>
          frameName(p.frames, f),
        ).join(';'),
      ).sort();
    };
    const before = text(a);
    const byModule = await s.apply(V());
    expect(names(byModule)).toContain('[cxx_demangle]');
    expect(lent()).toBe(false); // that fold read them (one frame per module: not in place)
    const again = await s.apply(addrs);
    expect(text(again)).toEqual(before);
    expect(lent()).toBe(true);
    // Symbols dropped now name the same stacks' addresses.
    const named = await s.add([file('gperf/bin/cxx_demangle')], V());
    expect(totalOf(named.analysis!.tree, 0)).toBe(totalOf(a.analysis!.tree, 0));
    expect(names(named)).toContain('main');
  });

  // The app and the CLI answer through this session: at Frames = functions as at lines, a library's
  // separate debug file lends its DWARF, so libc's inlined functions are frames of their own, with
  // the samples Go pprof gives them (test/llvm-names.test.ts compares the CLI's folds stack for stack).
  it("names libc's inlined functions from its debug file at Frames = functions, however the files arrive", async () => {
    const debug = file('sysroot/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug');
    const rest = [
      file('names/libcwork.prof'),
      file('names/bin/libcwork'),
      file('sysroot/usr/lib/x86_64-linux-gnu/libc.so.6'),
    ];
    const inlined = ['tcache_get', '__GI__IO_default_xsputn'];
    const together = await new AnalysisSession().add([...rest, debug], V());
    expect(names(together)).toEqual(expect.arrayContaining([...inlined, 'munmap', '_int_free']));
    expect(names(together)).not.toContain('__GI_munmap');
    const later = new AnalysisSession();
    expect(names(await later.add(rest, V()))).not.toContain('tcache_get');
    expect(names(await later.add([debug], V()))).toEqual(expect.arrayContaining(inlined));
    const fromLines = new AnalysisSession();
    await fromLines.add([...rest, debug], V({ granularity: 'lines' }));
    expect(names(await fromLines.apply(V()))).toEqual(expect.arrayContaining(inlined));
  });
});

describe('AnalysisSession transforms at another granularity', () => {
  // tiny with its -g binary folds to `_start;[libc.so.6];[libc.so.6];main;alpha;spin 8`,
  // `…;main;beta;gamma_;spin 7` and `…;main;beta;spin 3` (go pprof -traces agrees). A transform
  // made at Frames = functions names the function; at lines or addresses its frames are
  // `alpha tiny.c:12` or `alpha+0x1b`, and the transform matched none of them: focus emptied the
  // view, hide did nothing.
  const cases: { t: WorkerView['transforms'][number]; total: number; without: string }[] = [
    { t: { kind: 'focus-function', name: 'alpha' }, total: 8, without: 'beta' },
    { t: { kind: 'focus-function', name: 'beta' }, total: 10, without: 'alpha' },
    { t: { kind: 'hide-function', name: 'beta' }, total: 18, without: 'beta' },
  ];
  for (const granularity of ['lines', 'addresses'] as const) {
    for (const { t, total, without } of cases) {
      it(`${t.kind} ${'name' in t ? t.name : ''} keeps the function's ${granularity}`, async () => {
        const s = new AnalysisSession();
        const r = await s.add(
          [file('gperf/tiny.prof'), file('gperf/bin/tiny')],
          V({ granularity, transforms: [t] }),
        );
        const a = r.analysis!;
        expect(totalOf(a.tree, 0)).toBe(total);
        const frames = a.profile.frames;
        // What the view shows: every function but the hidden one (or, focused, the other branch).
        const shown = new Set<string>();
        const tree = a.tree;
        for (let n = 1; n < tree.count; n++) shown.add(functionOf(frames, tree.frame[n]) ?? '');
        if (t.kind === 'focus-function') expect(functionOf(frames, tree.frame[1])).toBe(t.name);
        expect(shown).not.toContain(without);
        expect(shown).toContain('spin');
        // Line or address frames, not functions.
        let spin = 1;
        while (functionOf(frames, tree.frame[spin]) !== 'spin') spin++;
        const f = tree.frame[spin];
        expect(frames.kind[f]).toBe(granularity === 'lines' ? FrameKind.Line : FrameKind.Address);
      });
    }
  }
});

describe('AnalysisSession.proto', () => {
  it('exports the view (transforms applied) with every sample type: it folds again to the view', async () => {
    const s = new AnalysisSession();
    const transforms = [
      { kind: 'hide-function' as const, name: 'main.main' },
      { kind: 'merge-module' as const, module: 'goprog' },
    ];
    await s.add([file('pprof/go/heap.pb.gz')], V({ transforms }));
    const shown = s.foldedParts([]).join('');
    expect(shown).toMatch(/^goprog \d+$/m); // the module merged into one frame
    expect(shown).not.toMatch(/main\.main/);
    const back = new AnalysisSession();
    await back.add([{ name: 'back.pb.gz', bytes: s.proto() }], V());
    expect(back.foldedParts([]).join('')).toBe(shown);
    expect(back.folded().meta.sampleTypes).toHaveLength(4);
    // Another sample type of the export is that type of the view.
    await s.apply(V({ transforms, sampleType: 'alloc_objects' }));
    await back.apply(V({ sampleType: 'alloc_objects' }));
    expect(back.foldedParts([]).join('')).toBe(s.foldedParts([]).join(''));
  });
});

describe('AnalysisSession derived views', () => {
  it('derives the call graph only while it is shown, again when what it reads changes', async () => {
    const s = new AnalysisSession();
    const opened = await s.add([file('gperf/cxx_demangle.prof'), file('gperf/bin/cxx_demangle')], V());
    // not shown; a profile without time stamps has no timeline, and says so
    expect(opened.derived).toEqual({
      callGraph: null,
      timeline: { none: 'this profile has no time stamps' },
    });
    const settings = { nodeCount: 10, nodeFraction: 0.005, edgeFraction: 0.001 };
    const shown = await s.apply(V({ callGraph: settings }));
    const g = shown.derived?.callGraph as CallGraphResult;
    expect(shown.analysis).toBeNull(); // the flame graph's analysis did not change
    expect(g.names.length).toBeLessThanOrEqual(10);
    expect(g.dot).toMatch(/^digraph "/);
    expect(g.dot).toContain('N1 [label="');
    // What the CLI prints for the same files and view (both go through this seam).
    const cli = await runCli([
      'dot',
      'test/fixtures/gperf/cxx_demangle.prof',
      '--binary',
      'test/fixtures/gperf/bin/cxx_demangle',
      '--nodecount',
      '10',
    ]);
    expect(cli.out).toBe(g.dot.replace(/ style="dashed"/g, ''));
    // Unchanged view: nothing derived again; a transform: derived again; hidden: null.
    expect((await s.apply(V({ callGraph: settings }))).derived).toBeUndefined();
    const hidden = await s.apply(
      V({ callGraph: settings, transforms: [{ kind: 'hide-function', name: 'main' }] }),
    );
    expect((hidden.derived!.callGraph as CallGraphResult).names).not.toContain('main');
    // the timeline follows the fold, not the call graph's settings
    expect((await s.apply(V())).derived).toEqual({ callGraph: null });
  });
});
