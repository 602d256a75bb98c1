import { describe, expect, it } from 'vitest';
import { buildCallTree, type CallTree, firstChildOf, nextSiblingOf, totalOf } from '../core/model/calltree';
import { profileFromText } from '../core/model/text-notation';
import { frameName } from '../core/text/frame-text';
import type { FoldedProfile } from '../core/types';
import { CallTreeRows, type RowsWork } from './rows';

function tree(text: string): { p: FoldedProfile; t: CallTree } {
  const p = profileFromText(text);
  return { p, t: buildCallTree(p) };
}

/** The rows as `  name` lines (two spaces per depth), a `+` before nodes that are expanded. */
function shown(r: CallTreeRows, p: FoldedProfile): string {
  const out: string[] = [];
  for (let i = 0; i < r.count; i++) {
    const v = r.rows[i];
    out.push(
      `${'  '.repeat(r.depthAt(i))}${r.expanded[v] ? '+' : ''}${frameName(p.frames, r.tree.frame[v])}`,
    );
  }
  return out.join('\n');
}

const node = (t: CallTree, p: FoldedProfile, ...names: string[]) => {
  let v = 0;
  for (const n of names) {
    let c = firstChildOf(t, v);
    while (c !== -1 && frameName(p.frames, t.frame[c]) !== n) c = nextSiblingOf(t, c);
    v = c;
  }
  return v;
};

const TEXT = `
main;parse;lex 5
main;parse;read 20
main;run;step 40
main;run 10
init 2
`;

describe('call tree rows', () => {
  it('start with the root’s children, heaviest first; expand and collapse', () => {
    const { p, t } = tree(TEXT);
    const r = new CallTreeRows(t);
    expect(shown(r, p)).toBe('main\ninit');
    r.expand(node(t, p, 'main'));
    expect(shown(r, p)).toBe('+main\n  run\n  parse\ninit');
    r.expand(node(t, p, 'main', 'parse'));
    expect(shown(r, p)).toBe('+main\n  run\n  +parse\n    read\n    lex\ninit');
    r.collapse(node(t, p, 'main'));
    expect(shown(r, p)).toBe('main\ninit');
    // Expanded descendants come back as they were.
    r.expand(node(t, p, 'main'));
    expect(shown(r, p)).toBe('+main\n  run\n  +parse\n    read\n    lex\ninit');
    // A leaf does not expand; an unshown node neither.
    const before = r.version;
    r.expand(node(t, p, 'init'));
    r.expand(node(t, p, 'main', 'run', 'step'));
    expect(r.version).toBe(before);
  });

  it('opens the heaviest path, reveals a node, expands all below one', () => {
    const { p, t } = tree(TEXT);
    const r = new CallTreeRows(t);
    const end = r.openHeaviestPath();
    expect(frameName(p.frames, t.frame[end])).toBe('step');
    expect(shown(r, p)).toBe('+main\n  +run\n    step\n  parse\ninit');
    const lex = node(t, p, 'main', 'parse', 'lex');
    const row = r.reveal(lex);
    expect(r.rows[row]).toBe(lex);
    const r2 = new CallTreeRows(t);
    r2.expandAll(node(t, p, 'main'));
    expect(shown(r2, p)).toBe('+main\n  +run\n    step\n  +parse\n    read\n    lex\ninit');
  });

  it("lists a node's children heaviest first also when the tree links them in another order", () => {
    // children first seen light, then heavy: linked in that order when not ordered by weight
    const p = profileFromText('root;a 1\nroot;b 5\nroot;c 3\nroot;b;x 1\nroot;b;y 4\n');
    const linked = buildCallTree(p, undefined, undefined, null, false);
    const r = new CallTreeRows(linked);
    r.expandAll(r.rows[0]);
    expect(shown(r, p)).toBe('+root\n  +b\n    y\n    x\n  c\n  a');
    const ordered = buildCallTree(p);
    const end = new CallTreeRows(ordered).openHeaviestPath();
    expect(frameName(p.frames, ordered.frame[end])).toBe('y');
  });

  it('opens the heaviest path of a flat tree without listing the millions below it', () => {
    // an image with 300k addresses, none of them 1 % of the samples
    const lines = Array.from({ length: 300_000 }, (_, i) => `img;a${i} ${1 + (i % 5)}`);
    const { p, t } = tree(lines.join('\n'));
    const r = new CallTreeRows(t);
    expect(frameName(p.frames, t.frame[r.openHeaviestPath()])).toBe('img');
    expect(shown(r, p)).toBe('img');
    r.expand(r.rows[0]);
    expect(r.count).toBe(300_001);
    let heaviestFirst = true;
    for (let i = 2; i < r.count; i++) heaviestFirst &&= totalOf(t, r.rows[i]) <= totalOf(t, r.rows[i - 1]);
    expect(heaviestFirst).toBe(true);
    expect(totalOf(t, r.rows[1])).toBe(5);
  });

  it('expanding a node of 100k children and collapsing it again stays fast', () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `root;f${i} ${1 + (i % 97)}`);
    const { t } = tree(lines.join('\n'));
    const r = new CallTreeRows(t);
    const t0 = performance.now();
    r.expand(r.rows[0]);
    const expanded = performance.now() - t0;
    expect(r.count).toBe(100_001);
    // Heaviest first.
    expect(t.frame[r.rows[1]]).not.toBe(t.frame[r.rows[r.count - 1]]);
    r.collapse(r.rows[0]);
    expect(r.count).toBe(1);
    // Not a timed test: a bound far above what it takes (tens of ms), to catch a quadratic walk.
    expect(expanded).toBeLessThan(5_000);
  });

  it("orders a large node's children a slice at a time, the rows changing only when it is done", () => {
    // a flat image of 5,000 addresses under a few callers; sliced from 1,000 children here
    const lines = Array.from({ length: 5_000 }, (_, i) => `main;img;a${i} ${1 + ((i * 7919) % 89)}`);
    lines.push('main;other 3', 'init;img;a1 4');
    const { p, t } = tree(lines.join('\n'));
    const whole = new CallTreeRows(t);
    whole.expandAll(node(t, p, 'main'));
    const r = new CallTreeRows(t, 1_000);
    const run = (rows: CallTreeRows, w: RowsWork) => {
      const was = shown(rows, p);
      // a deadline passed already: each step does one chunk of the work and pauses
      let steps = 0;
      let ordering = -1;
      while (!w.step(performance.now() - 1)) {
        steps++;
        if (w.ordering !== -1) ordering = w.ordering;
        if (steps === 1) expect(shown(rows, p)).toBe(was);
      }
      return { steps, ordering };
    };
    const { steps, ordering } = run(r, r.work('expandAll', node(t, p, 'main')));
    expect(steps).toBeGreaterThan(1);
    expect(ordering).toBe(node(t, p, 'main', 'img'));
    expect(shown(r, p)).toBe(shown(whole, p));
    expect(r.count).toBe(5_004);
    // kept: collapsed and expanded again, at once
    r.collapse(node(t, p, 'main', 'img'));
    expect(r.count).toBe(4);
    expect(r.work('expand', node(t, p, 'main', 'img')).step(performance.now() - 1)).toBe(true);
    expect(shown(r, p)).toBe(shown(whole, p));
    // a work dropped half done leaves the rows as they were; reveal opens the path when done
    const r2 = new CallTreeRows(t, 1_000);
    const a1 = node(t, p, 'main', 'img', 'a1');
    const dropped = r2.work('reveal', a1);
    expect(dropped.step(performance.now() - 1)).toBe(false);
    expect(shown(r2, p)).toBe('main\ninit');
    expect(r2.rowOf(a1)).toBe(-1);
    run(r2, r2.work('reveal', a1));
    expect(r2.rows[r2.rowOf(a1)]).toBe(a1);
    expect(r2.count).toBe(5_004);
  });
});
