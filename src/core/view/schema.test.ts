import { describe, expect, it } from 'vitest';
import { buildCallTree, nodeByNames } from '../model/calltree';
import { profileFromText } from '../model/text-notation';
import { frameName } from '../text/frame-text';
import {
  clampSplit,
  DEFAULT_VIEW,
  decodeView,
  encodeView,
  linkOrigins,
  MAX_LINK_BINARIES,
  mergeViews,
  type ViewState,
  workerViewOf,
} from './schema';

describe('view schema in the URL', () => {
  it('round-trips every field', () => {
    const v: ViewState = {
      profiles: {
        main: {
          source: { kind: 'url', url: 'https://example.org/p/out.prof?x=1&y=2' },
          sampleType: 'cpu',
          placements: [
            { file: 'xz', base: '0x560242d35000' },
            { file: 'lib@odd.so', base: '0x0' },
          ],
        },
        base: { source: { kind: 'url', url: 'https://example.org/p/before.prof' }, sampleType: 'samples' },
      },
      orientation: 'icicle',
      inverted: true,
      mode: 'sandwich',
      sandwich: 'operator<(a, b)',
      granularity: 'lines',
      zoom: ['main', 'a;b', 'std::vector<int>::push_back(int&&)'],
      search: { text: 'foo|bar', regex: false },
      fn: 'parse',
      transforms: [
        { kind: 'hide-function', name: 'malloc' },
        { kind: 'focus-subtree', path: ['main', 'f'] },
      ],
      mangled: true,
      keepDropFrames: true,
      fullNames: true,
      inlines: false,
      panel: 'callgraph',
      callGraph: { nodeCount: 12, nodeFraction: 0.05, edgeFraction: 0 },
      sourceTab: 'assembly',
      split: 0.42,
      theme: 'dark',
      diff: { width: 'both', normalized: false },
      labelFilters: [
        { key: 'worker', op: 'focus', values: ['alpha', 'a,b&c=d'] },
        { key: 'bytes', op: 'ignore', min: 1024, max: 4096 },
        { key: 'bytes', op: 'focus', max: 0.5 },
      ],
      groupBy: 'thread id',
      time: {
        zoom: [
          { start: 0, end: 900_000_000 },
          { start: 200_000_000, end: 400_000_000 },
        ],
        selection: { start: 250_000_000, end: 300_000_123 },
        a: { start: 0, end: 100 },
        b: { start: 9_007_199_254_740_000, end: 9_007_199_254_740_991 },
        tracks: 'process',
      },
    };
    expect(decodeView(encodeView(v))).toEqual(v);
    expect(encodeView(v)).toContain('&group=thread+id&');
    expect(encodeView(v)).toContain('&range=0-900000000%7E200000000-400000000&sel=250000000-300000123&');
    const diff: ViewState = { ...DEFAULT_VIEW, mode: 'diff' };
    expect(decodeView(encodeView(diff))).toEqual(diff);
    // A baseline URL implies the diff; closed, the link says so.
    const linked = decodeView('#profileURL=b.prof&baseURL=a.prof');
    expect(linked.mode).toBe('diff');
    expect(encodeView(linked)).toBe('#profileURL=b.prof&baseURL=a.prof');
    const closed = { ...linked, mode: 'graph' as const };
    expect(decodeView(encodeView(closed)).mode).toBe('graph');
    // A comparison's sandwich.
    const both = { ...linked, sandwich: 'f' };
    expect(decodeView(encodeView(both))).toEqual(both);
    const local = { ...DEFAULT_VIEW, mode: 'diff' as const, sandwich: 'g' };
    expect(decodeView(encodeView(local))).toEqual(local);
  });
  it('keeps a split the user dragged within its bounds, and leaves out one out of them', () => {
    expect(decodeView('#split=0.3').split).toBe(0.3);
    expect(decodeView('#split=0.95').split).toBeUndefined();
    expect(decodeView('#split=x').split).toBeUndefined();
    expect(decodeView('').split).toBeUndefined();
    expect(clampSplit(0.987)).toBe(0.85);
    expect(clampSplit(0.01)).toBe(0.15);
    expect(clampSplit(0.4567)).toBe(0.46);
    expect(encodeView({ ...DEFAULT_VIEW, split: 0.46 })).toBe('#split=0.46');
  });
  it('keeps the hash of earlier links working', () => {
    const v = decodeView('#profileURL=https%3A%2F%2Fx%2Fa.prof&sandwich=f&view=icicle&inverted=1&q=g');
    expect(v.profiles.main.source).toEqual({ kind: 'url', url: 'https://x/a.prof' });
    expect([v.mode, v.sandwich, v.orientation, v.inverted, v.search]).toEqual([
      'sandwich',
      'f',
      'icicle',
      true,
      { text: 'g', regex: true },
    ]);
  });
  it('reads a profile URL among other params, encoded or not', () => {
    const url = 'https://ci.example.com/artifacts/run 1/out.prof?x=1&y=2';
    const src = (h: string) => decodeView(h).profiles.main.source;
    expect(src(`#profileURL=${encodeURIComponent(url)}`)).toEqual({ kind: 'url', url });
    expect(src(`#zoom=3&profileURL=${encodeURIComponent(url)}&theme=dark`)).toEqual({ kind: 'url', url });
    expect(src(`profileURL=${encodeURIComponent(url)}`)).toEqual({ kind: 'url', url });
    expect(src('#profileURL=https://h/p.prof')).toEqual({ kind: 'url', url: 'https://h/p.prof' });
    for (const h of ['', '#', '#zoom=3', '#profileURL=', '#profileurl=x']) expect(src(h)).toBeUndefined();
  });
  it('ignores what it does not understand', () => {
    expect(decodeView('#view=sideways&t=notjson&theme=pink&mode=x&gran=y')).toEqual(DEFAULT_VIEW);
    expect(decodeView('#t=[{"kind":"rm -rf"},{"kind":"hide-function","name":"f"}]').transforms).toEqual([
      { kind: 'hide-function', name: 'f' },
    ]);
    expect(encodeView(DEFAULT_VIEW)).toBe('');
    expect(decodeView('#tf={"key":"k"}').labelFilters).toEqual([]);
    // Ranges: whole nanoseconds, START ≤ END, below 2^53; a bad one in the breadcrumb is left out.
    expect(
      decodeView('#range=5-1~1-9~x-2~2-9007199254740993&sel=1.5-2&ra=-1-3&rb=3&tracks=cpu').time,
    ).toEqual({
      zoom: [{ start: 1, end: 9 }],
      tracks: 'thread',
    });
    expect(
      decodeView(
        '#tf=[{"key":"k","op":"focus","values":["a"],"x":1},{"key":"k","op":"drop","values":[]},{"key":"n","op":"ignore","min":"1"},{"key":"n","op":"ignore","min":2}]',
      ).labelFilters,
    ).toEqual([
      { key: 'k', op: 'focus', values: ['a'] },
      { key: 'n', op: 'ignore', min: 2 },
    ]);
    // A linked profile with the binaries that symbolize it.
    const withBins: ViewState = {
      ...DEFAULT_VIEW,
      profiles: {
        main: { source: { kind: 'url', url: 'examples/a.prof' }, binaries: ['examples/a', 'libx.so'] },
      },
    };
    expect(decodeView(encodeView(withBins))).toEqual(withBins);
    // A workspace kept in this browser is named by its id, beside a link's URLs when it has them.
    const kept: ViewState = { ...DEFAULT_VIEW, workspace: 'abc12', profiles: { main: {} } };
    expect(encodeView(kept)).toBe('#ws=abc12');
    expect(decodeView(encodeView(kept))).toEqual(kept);
    const both: ViewState = { ...withBins, workspace: 'k9' };
    expect(decodeView(encodeView(both))).toEqual(both);
    // Links of earlier versions named a kept profile `local=`: it is a workspace now.
    expect(decodeView('#local=abc12&view=icicle')).toEqual({ ...kept, orientation: 'icicle' });
    expect(decodeView('#ws=../x').workspace).toBeUndefined();
    // A local file is named in the view but never written to a link.
    expect(
      encodeView({ ...DEFAULT_VIEW, profiles: { main: { source: { kind: 'file', name: 'a.prof' } } } }),
    ).toBe('');
  });
  it('gives the worker only what it derives from', () => {
    expect(workerViewOf({ ...DEFAULT_VIEW, sandwich: 'f', zoom: ['main'], orientation: 'icicle' })).toEqual({
      transforms: [],
      inverted: false,
      mode: 'graph',
      granularity: 'functions',
      mangled: false,
      keepDropFrames: false,
      fullNames: false,
      inlines: true,
      diffWidth: 'comparison',
      labelFilters: [],
      timeline: { tracks: 'thread' },
    });
    const labels = workerViewOf({
      ...DEFAULT_VIEW,
      labelFilters: [{ key: 'thread', op: 'ignore', values: ['gc'] }],
      groupBy: 'thread',
    });
    expect([labels.labelFilters, labels.groupBy]).toEqual([
      [{ key: 'thread', op: 'ignore', values: ['gc'] }],
      'thread',
    ]);
  });
  it('gives the worker the range shown, or the two ranges compared', () => {
    const r = (start: number, end: number) => ({ start, end });
    const time = { zoom: [r(0, 100), r(10, 50)], tracks: 'thread' as const };
    // the last committed range, else the selection inside it; the timeline's window is the last committed
    const zoomed = workerViewOf({ ...DEFAULT_VIEW, time });
    expect([zoomed.range, zoomed.timeline]).toEqual([r(10, 50), { window: r(10, 50), tracks: 'thread' }]);
    expect(workerViewOf({ ...DEFAULT_VIEW, time: { ...time, selection: r(20, 30) } }).range).toEqual(
      r(20, 30),
    );
    // A and B set: a comparison of them in mode diff, without a baseline profile only
    const ab = { ...time, a: r(0, 10), b: r(40, 50) };
    const compared = workerViewOf({ ...DEFAULT_VIEW, mode: 'diff', time: ab });
    expect([compared.range, compared.compareRanges]).toEqual([undefined, { a: r(0, 10), b: r(40, 50) }]);
    expect(workerViewOf({ ...DEFAULT_VIEW, time: ab }).compareRanges).toBeUndefined();
    const withBase = workerViewOf({
      ...DEFAULT_VIEW,
      mode: 'diff',
      time: ab,
      profiles: { main: {}, base: { source: { kind: 'file', name: 'a.prof' } } },
    });
    expect([withBase.compareRanges, withBase.range]).toEqual([undefined, r(10, 50)]);
  });
  it('finds the zoomed node by names, and stops at the deepest match', () => {
    const p = profileFromText('main;a;b 3\nmain;c 1');
    const t = buildCallTree(p);
    const name = (f: number) => frameName(p.frames, f);
    expect(name(t.frame[nodeByNames(t, ['main', 'a', 'b'], name)])).toBe('b');
    expect(name(t.frame[nodeByNames(t, ['main', 'zzz', 'b'], name)])).toBe('main');
    expect(nodeByNames(t, [], name)).toBe(0);
  });
});

// Races mended in bdad84d (a view chosen while a job runs is kept when that job answers) and
// ddabc00 (a comparison asked for right after an open keeps its mode): the page's open lifecycle
// is app/lifecycle.ts; how a job's view meets the one on screen is mergeViews.
describe('the view after a job, with what changed while it ran (mergeViews)', () => {
  const shown: ViewState = {
    ...DEFAULT_VIEW,
    profiles: { main: { source: { kind: 'file', name: 'b.prof' } } },
  };

  it("nothing changed meanwhile: the job's view", () => {
    const asked = { ...shown, inverted: true };
    expect(mergeViews(shown, asked, shown)).toBe(asked);
  });

  it('a comparison asked while the open before it named its kept file: both stay', () => {
    const asked: ViewState = {
      ...shown,
      mode: 'diff',
      sandwich: undefined,
      profiles: { ...shown.profiles, base: { source: { kind: 'file', name: 'a.prof' } } },
    };
    const named = { kind: 'file' as const, name: 'b.prof', id: 'k1' };
    const now: ViewState = { ...shown, profiles: { main: { source: named } } };
    const v = mergeViews(shown, asked, now);
    expect(v.mode).toBe('diff');
    expect(v.profiles.base?.source).toEqual({ kind: 'file', name: 'a.prof' });
    expect(v.profiles.main.source).toBe(named);
  });

  it("a click made while the job ran wins over the job on the same field; other fields are the job's", () => {
    const asked: ViewState = { ...shown, inverted: true, granularity: 'lines' };
    const now: ViewState = { ...shown, inverted: false, orientation: 'icicle', granularity: 'addresses' };
    const v = mergeViews({ ...shown, inverted: false }, { ...asked }, now);
    expect(v.granularity).toBe('addresses'); // changed by both: the click's
    expect(v.orientation).toBe('icicle'); // changed meanwhile only
    expect(v.inverted).toBe(true); // changed by the job only
  });

  it('a comparison closed by the job takes its baseline away', () => {
    const withBase: ViewState = {
      ...shown,
      mode: 'diff',
      profiles: { ...shown.profiles, base: { source: { kind: 'file', name: 'a.prof' } } },
    };
    const asked: ViewState = { ...withBase, mode: 'graph', profiles: { main: withBase.profiles.main } };
    const now: ViewState = { ...withBase, theme: 'dark' };
    const v = mergeViews(withBase, asked, now);
    expect(v.profiles.base).toBeUndefined();
    expect(v.mode).toBe('graph');
    expect(v.theme).toBe('dark');
  });
});

describe('links from strangers', () => {
  it('follows at most MAX_LINK_BINARIES bin= of a link', () => {
    const bins = Array.from({ length: 51 }, (_, i) => `bin=${encodeURIComponent(`https://h${i}.example/b`)}`);
    const v = decodeView(`#profileURL=${encodeURIComponent('https://a.example/p.pb.gz')}&${bins.join('&')}`);
    expect(v.profiles.main.binaries).toHaveLength(MAX_LINK_BINARIES);
  });

  it('linkOrigins: the http(s) origins a link downloads from, for connect-src', () => {
    const hash = `#profileURL=${encodeURIComponent('https://a.example:8443/x/p.pb.gz')}&baseURL=${encodeURIComponent(
      'http://b.example/q',
    )}&bin=${encodeURIComponent('https://a.example:8443/bin')}&bin=${encodeURIComponent('javascript:alert(1)')}&bin=rel/x`;
    expect(linkOrigins(hash)).toEqual(['https://a.example:8443', 'http://b.example']);
    expect(linkOrigins('#q=main')).toEqual([]);
  });
});
