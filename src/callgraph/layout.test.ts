import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildCallGraph } from '../core/model/callgraph';
import { callGraphDot } from '../core/model/callgraph-dot';
import { profileFromText } from '../core/model/text-notation';
import { dotToSvg, LayoutError } from './layout';

describe('dotToSvg (Graphviz in wasm, in node)', () => {
  it("lays out pprof's DOT: every node and edge is in the SVG, with pprof's ids and labels", async () => {
    const dot = readFileSync('test/fixtures/callgraph/cxx_demangle.default.dot', 'utf8');
    const { svg, warnings } = await dotToSvg(dot);
    expect(svg.startsWith('<?xml')).toBe(true);
    expect(warnings).toEqual([]);
    const nodes = dot.match(/^N\d+ \[/gm)!.length;
    const edges = dot.match(/^N\d+ -> N\d+ /gm)!.length;
    // pprof's nodes keep their ids (node1…); the legend is one more node.
    for (let i = 1; i <= nodes; i++)
      expect(svg).toContain(`<g id="node${i}" class="node">\n<title>N${i}</title>`);
    expect(svg.match(/class="node"/g)!.length).toBe(nodes + 1);
    expect(svg.match(/class="edge"/g)!.length).toBe(edges);
    expect(svg).toContain('<title>N1</title>');
    expect(svg).toContain('>__memcmp_avx2_movbe</text>');
  });

  it('lays out a graph the core made', async () => {
    const p = profileFromText('main;a;b 3\nmain;c 1');
    const g = buildCallGraph(p, { nodeCount: 0, nodeFraction: 0, edgeFraction: 0 });
    const { svg } = await dotToSvg(callGraphDot(g, p.meta));
    expect(svg.match(/class="node"/g)!.length).toBe(4 + 1); // the legend is a node too
    expect(svg).toContain('xlink:title="main &#45;&gt; a (3)"');
  });

  it('says what Graphviz found wrong', async () => {
    const bad = dotToSvg('digraph {\n a -> ;\n}');
    await expect(bad).rejects.toBeInstanceOf(LayoutError);
    await expect(bad).rejects.toThrow(
      "Graphviz could not lay out the graph: syntax error in line 2 near ';'",
    );
    // Loaded once: a good graph after a bad one still lays out.
    expect((await dotToSvg('digraph { x -> y }')).svg).toContain('<title>x&#45;&gt;y</title>');
  });
});
