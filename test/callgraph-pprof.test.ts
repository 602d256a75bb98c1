// The call graph against `go tool pprof -dot` (go 1.19), from fixtures only: pprof's own
// profile.proto files (fixtures/pprof/corpus: Go pprof's -proto of each corpus profile, symbolized;
// fixtures/pprof/go/cpu.pb.gz: a Go program's CPU profile) and the DOT pprof printed for each at
// several settings (fixtures/callgraph, made by its make_fixtures.sh). Checked: the same nodes
// (names, flat, cum) in the same order, the same edges (caller, callee, weight, residual, inline),
// the same legend counts — read back from pprof's DOT — and then the whole text, byte for byte.

import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { dotOptions, dotText } from '../src/cli/dot.ts';
import { buildCallGraph, type CallGraph, inlineCallsOf } from '../src/core/model/callgraph.ts';
import { callGraphDot } from '../src/core/model/callgraph-dot.ts';
import { fold, parse } from '../src/core/pipeline.ts';
import { runCli } from './helpers/cli.ts';

const here = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
const DOTS = here('./fixtures/callgraph/');
const PPROF = here('./fixtures/pprof/');

const SETTINGS = readFileSync(`${DOTS}settings.txt`, 'utf8')
  .trim()
  .split('\n')
  .map((l) => {
    const [name, ...flags] = l.split(' ');
    const options = new Map<string, string[]>();
    for (const f of flags) {
      const m = /^-(\w+)=(.*)$/.exec(f)!;
      options.set(m[1], [m[2]]);
    }
    return { name, options };
  });

function profilePath(name: string): string {
  return name === 'go-cpu' ? `${PPROF}go/cpu.pb.gz` : `${PPROF}corpus/${name}.pb.gz`;
}

function expectedDot(file: string): string {
  const b = readFileSync(`${DOTS}${file}`);
  return file.endsWith('.gz') ? new TextDecoder().decode(gunzipSync(new Uint8Array(b))) : b.toString('utf8');
}

/** Nodes and edges as pprof's DOT states them: values as printed (`684ms`), names from tooltips. */
interface DotGraph {
  nodes: { name: string; flat: string; cum: string }[];
  edges: { src: string; dst: string; weight: string; residual: boolean; inline: boolean }[];
  legend: string;
}

function readDot(text: string): DotGraph {
  const nodes: DotGraph['nodes'] = [];
  const ids = new Map<string, string>();
  const edges: DotGraph['edges'] = [];
  let legend = '';
  for (const line of text.split('\n')) {
    const leg = /^subgraph cluster_L \{ .* label="(.*?)\\l"/.exec(line);
    if (leg) legend = leg[1];
    const n = /^(N\d+) \[label="(.*)" id="node\d+" .* tooltip="(.*) \(([^()]*)\)" color=/.exec(line);
    if (n) {
      const values = /(?:^|\\n)(?:0|([^\s\\]+) \([^)]*\))(?:(?:\\n| )of ([^\s\\]+) \([^)]*\))?$/.exec(n[2]);
      expect(values, line).not.toBeNull();
      const flat = values![1] ?? '0';
      nodes.push({ name: n[3], flat, cum: values![2] ?? flat });
      ids.set(n[1], n[3]);
      continue;
    }
    const e = /^(N\d+) -> (N\d+) \[label=" ([^\s\\"]+)(\\n \(inline\))?"/.exec(line);
    if (e) {
      edges.push({
        src: ids.get(e[1])!,
        dst: ids.get(e[2])!,
        weight: e[3],
        residual: line.includes('style="dotted"'),
        inline: e[4] !== undefined,
      });
    }
  }
  return { nodes, edges, legend };
}

/**
 * A value as pprof prints it (`684ms`, `0.18s`, `18`: `%.2f` in the unit it chose) in the
 * profile's unit (nanoseconds or a count), with the half hundredth of that unit it was rounded to.
 */
function printedValue(text: string, unit: string): { value: number; within: number } {
  const m = /^(-?[\d.]+)(\D*)$/.exec(text)!;
  const factors: Record<string, number> = { ns: 1, us: 1e3, ms: 1e6, s: 1e9, hrs: 3600e9 };
  const f = m[2] === '' ? 1 : factors[m[2]];
  if (m[2] !== '') expect(unit).toBe('nanoseconds');
  return { value: Number(m[1]) * f, within: 0.005 * f * (1 + 1e-9) };
}

interface Case {
  profile: string;
  setting: string;
  file: string;
}

const cases: Case[] = readdirSync(DOTS)
  .filter((f) => /\.dot(\.gz)?$/.test(f))
  .sort()
  .map((file) => {
    const [profile, setting] = file.split('.');
    return { profile, setting, file };
  });

const loadedProfiles = new Map<string, ReturnType<typeof load>>();
function load(name: string) {
  const bytes = new Uint8Array(readFileSync(profilePath(name)));
  const loaded = parse(bytes, `${name}.pb.gz`);
  const { profile } = fold(loaded, { names: 'short', granularity: 'functions' });
  return { raw: loaded.raw, profile };
}
function loaded(name: string) {
  let l = loadedProfiles.get(name);
  if (!l) {
    l = load(name);
    loadedProfiles.set(name, l);
  }
  return l;
}

describe('call graph = go tool pprof -dot', () => {
  it('has its fixtures: every corpus profile and the Go program at each setting', () => {
    expect(new Set(cases.map((c) => c.profile)).size).toBe(13);
    expect(cases.length).toBeGreaterThanOrEqual(12 * SETTINGS.length - SETTINGS.length + 2);
  });

  for (const c of cases) {
    const setting = SETTINGS.find((s) => s.name === c.setting)!;
    it(`${c.profile} [${setting.name}]: the same nodes, edges and text`, () => {
      const { raw, profile } = loaded(c.profile);
      const opts = dotOptions(setting.options);
      if (typeof opts === 'string') throw new Error(opts);
      const expected = expectedDot(c.file);
      const want = readDot(expected);
      const g: CallGraph = buildCallGraph(profile, {
        ...opts,
        inlineCalls: inlineCallsOf(raw, 'short'),
      });
      const unit = profile.meta.sampleType.unit;
      expect(want.nodes.length).toBeGreaterThan(0);
      // Nodes: names in pprof's order, flat and cum within the rounding of the printed value.
      expect(g.nodes.name).toEqual(want.nodes.map((n) => n.name));
      want.nodes.forEach((n, i) => {
        const flat = printedValue(n.flat, unit);
        const cum = printedValue(n.cum, unit);
        expect(Math.abs(g.nodes.flat[i] - flat.value), `${n.name} flat`).toBeLessThanOrEqual(flat.within);
        expect(Math.abs(g.nodes.cum[i] - cum.value), `${n.name} cum`).toBeLessThanOrEqual(cum.within);
      });
      // Edges: the same pairs, in pprof's order, with their weights and kinds.
      const ours = Array.from({ length: g.edges.count }, (_, e) => ({
        src: g.nodes.name[g.edges.src[e]],
        dst: g.nodes.name[g.edges.dst[e]],
        weight: g.edges.weight[e],
        residual: g.edges.residual[e] === 1,
        inline: g.edges.inline[e] === 1,
      }));
      expect(ours.map((e) => `${e.src} -> ${e.dst}`)).toEqual(want.edges.map((e) => `${e.src} -> ${e.dst}`));
      want.edges.forEach((e, i) => {
        const w = printedValue(e.weight, unit);
        expect(Math.abs(ours[i].weight - w.value), `${e.src} -> ${e.dst}`).toBeLessThanOrEqual(w.within);
        expect(ours[i].residual, `${e.src} -> ${e.dst} residual`).toBe(e.residual);
        expect(ours[i].inline, `${e.src} -> ${e.dst} inline`).toBe(e.inline);
      });
      // The legend's counts (dropped nodes and edges, "top N out of M").
      const dropped = /Dropped (\d+) nodes?/.exec(want.legend);
      expect(g.droppedNodes).toBe(dropped ? Number(dropped[1]) : 0);
      const droppedEdges = /Dropped (\d+) edges?/.exec(want.legend);
      expect(g.droppedEdges).toBe(droppedEdges ? Number(droppedEdges[1]) : 0);
      const top = /Showing top (\d+) nodes out of (\d+)/.exec(want.legend);
      if (top) expect([g.nodes.count, g.origCount]).toEqual([Number(top[1]), Number(top[2])]);
      // And the text itself.
      expect(dotText({ raw, profile, names: 'short', granularity: 'functions' }, opts)).toBe(expected);
    });
  }

  it('marks inlined calls (cxx_demangle has them: ` (inline)`, also across removed nodes)', () => {
    const want = readDot(expectedDot('cxx_demangle.default.dot'));
    expect(want.edges.filter((e) => e.inline).length).toBeGreaterThan(10);
    expect(want.edges.some((e) => e.inline && e.residual)).toBe(true);
  });
});

describe('flamelens dot', () => {
  it('prints what go tool pprof -dot prints, with its options', async () => {
    const r = await runCli(['dot', '--nodecount', '10', `${PPROF}corpus/cxx_demangle.pb.gz`]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toBe(expectedDot('cxx_demangle.nodecount10.dot'));
    const f = await runCli(['dot', '--nodefraction=0.05', `${PPROF}corpus/cxx_demangle.pb.gz`]);
    expect(f.out).toBe(expectedDot('cxx_demangle.nodefraction05.dot'));
  });

  // Label filters: pprof's total (so every share, the units, the Duration line and the "Dropped"
  // cutoffs of the legend) is the whole profile's, taken before -tagfocus/-tagignore, and its legend
  // lists them as "Active filters:". pprof also hangs label nodelets (`N1_0`, numeric `NN1_0`)
  // under nodes and lengthens their out-edges (`minlen=2`); flamelens draws no nodelets
  // (docs/DESIGN.md "Call graph"), so those lines and that attribute are taken out of pprof's text
  // first, and nothing else.
  const FILTERS = readFileSync(`${DOTS}filters.txt`, 'utf8')
    .trim()
    .split('\n')
    .map((l) => {
      const [name, profile, ...flags] = l.split(' ');
      const args = flags.map((f) => {
        const m = /^-(\w+)=(.*)$/.exec(f)!;
        return `--${m[1] === 'sample_index' ? 'sample-type' : m[1]}=${m[2]}`;
      });
      return { name, profile, args };
    });
  const withoutNodelets = (dot: string) =>
    dot
      .split('\n')
      .filter((l) => !/^N?N\d+(?:_\d+)+ \[/.test(l) && !/^N?N\d+(?:_\d+)* -> N?N\d+_\d+ \[/.test(l))
      .map((l) => l.replace(/ minlen=2\]$/, ']'))
      .join('\n');
  it("has its label-filter fixtures, with pprof's nodelets", () => {
    expect(FILTERS.length).toBe(8);
    const all = FILTERS.map((f) => readFileSync(`${DOTS}filters/${f.name}.dot`, 'utf8')).join('');
    expect(all).toMatch(/^N1_0 \[label = "worker:alpha"/m);
    expect(all).toMatch(/^NN1_0 \[label = "3kB"/m);
  });
  for (const f of FILTERS) {
    it(`${f.name} (${f.args.join(' ')}): pprof's text, shares of the unfiltered total`, async () => {
      const want = withoutNodelets(readFileSync(`${DOTS}filters/${f.name}.dot`, 'utf8'));
      expect(want).toContain('\\lActive filters:\\l');
      const r = await runCli(['dot', `${PPROF}${f.profile}`, ...f.args]);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.out).toBe(want);
    });
  }

  it("the app's seam (filters from the fold, no option text) lists them as pprof does", () => {
    const profile = (file: string, spec: Parameters<typeof fold>[1]) =>
      fold(parse(new Uint8Array(readFileSync(`${PPROF}${file}`)), 'p.pb.gz'), spec).profile;
    const labels = profile('labels/labels.pb.gz', {
      labelFilters: [{ key: 'worker', op: 'focus', values: ['alpha', 'gamma'] }],
    });
    const raw = parse(new Uint8Array(readFileSync(`${PPROF}labels/labels.pb.gz`)), 'p.pb.gz').raw;
    const text = dotText({ profile: labels, raw, names: 'short', granularity: 'functions' }, {});
    expect(text).toBe(withoutNodelets(readFileSync(`${DOTS}filters/labels-alpha-gamma.dot`, 'utf8')));
    // A range in the label's base unit, as parseLabelFilter reads it back; tagfocus first.
    const heap = profile('go/heap.pb.gz', {
      labelFilters: [
        { key: 'bytes', op: 'ignore', max: 512 },
        { key: 'bytes', op: 'focus', min: 1024, max: 4096 },
      ],
    });
    const legend = callGraphDot(buildCallGraph(heap), heap.meta);
    expect(legend).toContain('\\lActive filters:\\l   tagfocus=bytes=1024:4096\\l   tagignore=bytes=:512\\l');
  });

  it('says which option is wrong', async () => {
    const r = await runCli(['dot', '--edgefraction', 'lots', `${PPROF}corpus/tiny.pb.gz`]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--edgefraction lots: expected a fraction between 0 and 1');
    const n = await runCli(['dot', '--nodecount', '-3', `${PPROF}corpus/tiny.pb.gz`]);
    expect(n.code).toBe(2);
    expect(n.err).toContain('--nodecount -3: expected a whole number');
    const other = await runCli(['fold', '--nodecount', '3', `${PPROF}corpus/tiny.pb.gz`]);
    expect(other.code).toBe(2);
    expect(other.err).toContain("option --nodecount does not apply to 'fold'");
  });
});
