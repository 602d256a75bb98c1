import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fold, parse } from '../pipeline';
import { frameName } from '../text/frame-text';
import { goFixed, goG, pprofPercentage, pprofScaledLabel } from '../text/pprof-measure';
import { type FoldedProfile, Unnamed } from '../types';
import { buildCallGraph, type CallGraph, type CallGraphOptions } from './callgraph';
import { callGraphDot, pprofShortName } from './callgraph-dot';
import { profileFromText } from './text-notation';

/** `name flat/cum` per node (pprof's order) and `a -> b w` per edge (`...` residual, `(inline)`). */
function graphText(g: CallGraph): string {
  const out: string[] = [];
  for (let i = 0; i < g.nodes.count; i++) out.push(`${g.nodes.name[i]} ${g.nodes.flat[i]}/${g.nodes.cum[i]}`);
  for (let e = 0; e < g.edges.count; e++)
    out.push(
      `${g.nodes.name[g.edges.src[e]]} ${g.edges.residual[e] ? '...' : '->'} ${g.nodes.name[g.edges.dst[e]]} ${g.edges.weight[e]}${g.edges.inline[e] ? ' (inline)' : ''}`,
    );
  return out.join('\n');
}

const ALL: CallGraphOptions = { nodeCount: 0, nodeFraction: 0, edgeFraction: 0 };
const graph = (text: string, opts: CallGraphOptions = ALL) => buildCallGraph(profileFromText(text), opts);

/** Nodes by name → [flat, cum]; edges by `a -> b` → weight. */
function byName(g: CallGraph) {
  const nodes = new Map<string, [number, number]>();
  for (let i = 0; i < g.nodes.count; i++) nodes.set(g.nodes.name[i], [g.nodes.flat[i], g.nodes.cum[i]]);
  const edges = new Map<string, number>();
  for (let e = 0; e < g.edges.count; e++)
    edges.set(`${g.nodes.name[g.edges.src[e]]} -> ${g.nodes.name[g.edges.dst[e]]}`, g.edges.weight[e]);
  return { nodes, edges };
}

describe('buildCallGraph: nodes and edges as graph.New', () => {
  it('flat to the leaf, cum once per sample, an edge once per sample (recursion counted once)', () => {
    const { nodes, edges } = byName(graph('main;a;b 3\nmain;a;a;b 2\nmain;c 1'));
    expect(Object.fromEntries(nodes)).toEqual({ main: [0, 6], a: [0, 5], b: [5, 5], c: [1, 1] });
    // a → a is no edge (pprof skips a node calling itself); a → b counts the 2 samples once.
    expect(Object.fromEntries(edges)).toEqual({ 'main -> a': 5, 'a -> b': 5, 'main -> c': 1 });
  });

  it('mutual recursion: each direction once per sample', () => {
    const { nodes, edges } = byName(graph('main;r;s;r;s 4\nmain;s 1'));
    expect(Object.fromEntries(nodes)).toEqual({ main: [0, 5], r: [0, 4], s: [5, 5] });
    expect(Object.fromEntries(edges)).toEqual({ 'main -> r': 4, 'r -> s': 4, 's -> r': 4, 'main -> s': 1 });
  });

  it('frames of one name in several modules are one node', () => {
    const { nodes } = byName(graph('main[app];f[liba] 2\nmain[app];f[libb] 3'));
    expect(nodes.get('f')).toEqual([5, 5]);
  });

  it('code outside every mapping is one <unknown> node, except at address granularity', () => {
    const p = profileFromText('main;0x1000 2\nmain;0x2000 3');
    const kinds: FoldedProfile = { ...p, frames: { ...p.frames, unnamed: Uint8Array.from([0, 3, 3]) } };
    expect(kinds.frames.unnamed![1]).toBe(Unnamed.NoModule);
    expect(byName(buildCallGraph(kinds, ALL)).nodes.get('<unknown>')).toEqual([5, 5]);
    const perAddress = byName(buildCallGraph(kinds, { ...ALL, granularity: 'addresses' })).nodes;
    expect([perAddress.get('0x1000'), perAddress.get('0x2000')]).toEqual([
      [2, 2],
      [3, 3],
    ]);
  });

  it('inlined calls: a pair only seen inside one location, or a residual call into a name never outermost', () => {
    const inlineCalls = { pairs: new Set(['a\nb']), inlinedOnly: new Set(['b']) };
    const g = buildCallGraph(profileFromText('main;a;b 3\nmain;b 1'), { ...ALL, inlineCalls });
    expect(graphText(g)).toBe(
      ['b 4/4', 'main 0/4', 'a 0/3', 'a -> b 3 (inline)', 'main -> a 3', 'main -> b 1'].join('\n'),
    );
  });
});

describe('buildCallGraph: pprof pruning', () => {
  it('nodefraction drops light nodes; the calls across them are residual (dotted)', () => {
    // total 107, cutoff trunc(107 × 0.06) = 6: x (cum 5) goes, a … b is residual.
    const g = graph('root;a;x;b 5\nroot;a 100\nroot;b 2', {
      nodeCount: 0,
      nodeFraction: 0.06,
      edgeFraction: 0,
    });
    expect(g.droppedNodes).toBe(1);
    expect(g.nodeCutoff).toBe(6);
    expect(graphText(g)).toBe(
      ['a 100/105', 'root 0/107', 'b 7/7', 'root -> a 105', 'a ... b 5', 'root -> b 2'].join('\n'),
    );
  });

  it('a sample whose leaf was dropped gives no flat to its caller', () => {
    const { nodes } = byName(
      graph('root;a;x 5\nroot;a 100', { nodeCount: 0, nodeFraction: 0.06, edgeFraction: 0 }),
    );
    expect(nodes.get('a')).toEqual([100, 105]);
    expect(nodes.has('x')).toBe(false);
  });

  it('a residual call is removed where its caller reaches the callee another way', () => {
    // tiny (cum 4 < cutoff 5) goes: main … hot is residual, but main → m1 → hot reaches hot.
    const g = graph('main;m1;hot 50\nmain;m2;hot 50\nmain;tiny;hot 4', {
      nodeCount: 0,
      nodeFraction: 0.05,
      edgeFraction: 0,
    });
    expect(byName(g).edges.has('main -> hot')).toBe(false);
    expect(g.edges.residual.every((r) => r === 0)).toBe(true);
  });

  it('nodecount keeps the first nodes of the entropy order and says how many there were', () => {
    const g = graph('main;a;leaf1 10\nmain;b;leaf2 20\nmain;c 5', {
      nodeCount: 3,
      nodeFraction: 0,
      edgeFraction: 0,
    });
    expect(g.nodes.count).toBe(3);
    expect(g.origCount).toBe(6);
    // Scores (entropy of in and out edges × cum + flat): main 83, leaf2 40, leaf1 20, c 10, a 0,
    // b 0: entry and leaf nodes are favoured, fall-through nodes (one in, one out) come last.
    expect(g.nodes.name).toEqual(['main', 'leaf2', 'leaf1']);
    expect(graph('main;a;leaf1 10\nmain;b;leaf2 20\nmain;c 5').nodes.name).toEqual([
      'main',
      'leaf2',
      'leaf1',
      'c',
      'a',
      'b',
    ]);
  });

  it('edgefraction drops light edges and counts them', () => {
    const g = graph('main;a 1000\nmain;b 1', { nodeCount: 0, nodeFraction: 0, edgeFraction: 0.01 });
    expect(g.droppedEdges).toBe(1);
    expect(byName(g).edges.has('main -> b')).toBe(false);
    expect(byName(g).nodes.get('b')).toEqual([1, 1]);
  });

  it('defaults are pprof’s: 80 nodes, 0.005, 0.001', () => {
    expect(buildCallGraph(profileFromText('main;a 1')).options).toEqual({
      nodeCount: 80,
      nodeFraction: 0.005,
      edgeFraction: 0.001,
    });
  });
});

describe('callGraphDot: pprof -dot text', () => {
  it('labels, font sizes, weights, colours and the legend', () => {
    const p = profileFromText('main;work;spin 3\nmain;spin 1');
    const dot = callGraphDot(buildCallGraph(p, ALL), p.meta);
    expect(dot).toContain('digraph "unnamed" {');
    expect(dot).toContain('Type: samples');
    expect(dot).toContain('Showing nodes accounting for 4, 100% of 4 total');
    expect(dot).toContain(
      'N1 [label="spin\\n4 (100%)" id="node1" fontsize=24 shape=box tooltip="spin (4)" color="#b20000" fillcolor="#edd5d5"]',
    );
    expect(dot).toContain('[label="main\\n0 of 4 (100%)" ');
    expect(dot).toMatch(
      /N\d -> N\d \[label=" 3" weight=76 penwidth=4 color="#b2[0-9a-f]{4}" tooltip="work -> spin \(3\)"/,
    );
  });

  it('shortens names as pprof: namespaces off, then broken at :: and .', () => {
    expect(pprofShortName('(anonymous namespace)::Circle::area')).toBe('Circle::area');
    expect(pprofShortName('outer::inner::Matrix::operator*')).toBe('Matrix::operator');
    expect(pprofShortName('github.com/x/y/v2/pkg.(*T).Method')).toBe('pkg.(*T).Method');
    expect(pprofShortName('java.util.HashMap.get(Object)')).toBe('HashMap.get');
    const p = profileFromText('runtime.main;main.main 1');
    expect(callGraphDot(buildCallGraph(p, ALL), p.meta)).toContain('label="main\\nmain\\n1 (100%)"');
  });

  it('residual edges are dotted; inline ones labelled, and dashed only when asked', () => {
    const p = profileFromText('root;a;x;b 5\nroot;a 100\nroot;b 2');
    const g = buildCallGraph(p, { nodeCount: 0, nodeFraction: 0.06, edgeFraction: 0 });
    expect(callGraphDot(g, p.meta)).toMatch(
      /tooltip="a \.\.\. b \(5\)" labeltooltip="a \.\.\. b \(5\)" style="dotted"\]/,
    );
    const q = profileFromText('main;a;b 3');
    const inl = buildCallGraph(q, {
      ...ALL,
      inlineCalls: { pairs: new Set(['a\nb']), inlinedOnly: new Set() },
    });
    expect(callGraphDot(inl, q.meta)).toContain('[label=" 3\\n (inline)"');
    expect(callGraphDot(inl, q.meta)).not.toContain('dashed');
    expect(callGraphDot(inl, q.meta, { dashedInline: true })).toContain('style="dashed"');
  });

  it('escapes quotes and backslashes in names', () => {
    const p = profileFromText('say"hi\\ 1');
    expect(callGraphDot(buildCallGraph(p, ALL), p.meta)).toContain('tooltip="say\\"hi\\\\ (1)"');
  });
});

describe("pprof's number formatting", () => {
  it('rounds exact ties to even as Go does, and everything else as the exact value', () => {
    expect([
      goFixed(0.125, 2),
      goFixed(0.375, 2),
      goFixed(2.5, 0),
      goFixed(3.5, 0),
      goFixed(0.005, 2),
    ]).toEqual(['0.12', '0.38', '2', '4', '0.01']);
    expect([goG(0.125, 2), goG(0.058479532163742694, 2), goG(1.2e-5, 2), goG(0.5, 2)]).toEqual([
      '0.12',
      '0.058',
      '1.2e-05',
      '0.5',
    ]);
  });
  it('scales to the best unit and prints shares as pprof', () => {
    expect(pprofScaledLabel(684000000, 'nanoseconds', 'ms')).toBe('684ms');
    expect(pprofScaledLabel(1572864, 'bytes', 'minimum')).toBe('1.50MB');
    expect(pprofScaledLabel(18, 'count', 'minimum')).toBe('18');
    expect(pprofScaledLabel(0, 'nanoseconds', 'ms')).toBe('0');
    expect([pprofPercentage(684, 684), pprofPercentage(2, 684), pprofPercentage(372, 684)]).toEqual([
      '  100%',
      ' 0.29%',
      '54.39%',
    ]);
  });
});

describe('buildCallGraph of frames named when asked', () => {
  it('is the graph of the same frames with their names stored (address frames are nodes of their own)', () => {
    const cases: [string, 'addresses' | 'functions'][] = [
      ['test/fixtures/gperf/cxx_demangle.prof', 'addresses'],
      ['test/fixtures/gperf/big_synth_small.prof', 'addresses'],
      ['test/fixtures/dcpi/valid_many_chunks.dcpi', 'functions'],
      ['test/fixtures/dcpi/valid_many_chunks.dcpi', 'addresses'],
    ];
    for (const [file, granularity] of cases) {
      const loaded = parse(new Uint8Array(readFileSync(file)), file, { granularity });
      const { profile } = fold(loaded, { granularity });
      const frames = profile.frames;
      let asked = 0;
      for (let f = 0; f < frames.count; f++) if ((frames.ownName[f] ?? null) === null) asked++;
      expect(asked, file).toBeGreaterThan(20);
      const ownName = Array.from({ length: frames.count }, (_, f) => frameName(frames, f));
      const stored = { ...profile, frames: { ...frames, ownName } };
      for (const opts of [{}, { nodeCount: 0 }, { nodeFraction: 0, edgeFraction: 0 }, { nodeCount: 5 }])
        expect(buildCallGraph(profile, { ...opts, granularity }), `${file} ${JSON.stringify(opts)}`).toEqual(
          buildCallGraph(stored, { ...opts, granularity }),
        );
    }
  });
});
