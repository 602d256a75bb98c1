import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { firstChildOf, nextSiblingOf } from '../core/model/calltree';
import { analyzeBytes } from '../core/pipeline';
import { frameName } from '../core/text/frame-text';
import { flameGraphSvg, xmlEscape, xmlSafeChars } from './svg';

const a = analyzeBytes(new Uint8Array(readFileSync('test/fixtures/xss/evil.folded')), {
  fileName: 'evil<1>.folded',
});

describe('xmlEscape', () => {
  it('escapes markup characters', () => {
    expect(xmlEscape('<img src=x onerror=alert(1)>')).toBe('&lt;img src=x onerror=alert(1)&gt;');
    expect(xmlEscape(`a&b "c" 'd'`)).toBe('a&amp;b &quot;c&quot; &apos;d&apos;');
  });

  it('replaces characters XML cannot carry', () => {
    expect(xmlSafeChars('a\u0000b\u001bc\td')).toBe('a\uFFFDb\uFFFDc\td');
    expect(xmlSafeChars('x\uD800y')).toBe('x\uFFFDy');
    expect(xmlSafeChars('x\uDC00')).toBe('x\uFFFD');
    expect(xmlSafeChars('😀')).toBe('😀');
  });
});

describe('flameGraphSvg', () => {
  const svg = flameGraphSvg({ profile: a.profile, tree: a.tree, focus: 0, width: 1200 });

  it('never contains a raw name: every < in the document is markup', () => {
    expect(svg).not.toContain('<img');
    expect(svg).not.toContain('<script');
    expect(svg).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(svg).toContain('&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(svg).toContain('a&amp;b');
    expect(svg).toContain('evil&lt;1&gt;.folded');
    const tags = new Set([...svg.matchAll(/<\/?([a-zA-Z?]+)/g)].map((m) => m[1]));
    expect([...tags].sort()).toEqual(['?xml', 'g', 'rect', 'svg', 'text', 'title']);
  });

  it('has a rect and a title per frame, with samples and percent', () => {
    const frames = [...svg.matchAll(/<g[^>]*><title>([^<]*)<\/title>/g)].map((m) => m[1]);
    expect(frames).toHaveLength(a.tree.count - 1);
    expect(frames.find((t) => t.startsWith('main'))).toBe(
      'main\nTotal 14 samples · 100.0 %\nSelf 0 samples · 0.00 %',
    );
    expect(svg.match(/<rect /g)).toHaveLength(a.tree.count); // background + one per frame
  });

  it('says weights in their unit, as the canvas tooltip: bytes, and counts of samples with their time', () => {
    const titles = (path: string) => {
      const x = analyzeBytes(new Uint8Array(readFileSync(`test/fixtures/${path}`)), { fileName: path });
      const doc = flameGraphSvg({ profile: x.profile, tree: x.tree, focus: 0, width: 1200 });
      return [...doc.matchAll(/<title>([^<]*)<\/title>/g)].map((m) => m[1]);
    };
    const heap = titles('pprof/go/heap.pb.gz');
    expect(heap[0]).toMatch(/^Flame graph of pprof\/go\/heap\.pb\.gz: [\d.]+ (B|KiB|MiB)$/);
    expect(heap.some((t) => /\nTotal [\d.]+ (B|KiB|MiB) · [\d.]+ %\n/.test(t))).toBe(true);
    expect(heap.join('\n')).not.toContain('samples');
    // gperftools: a sample every 10 ms (tiny.prof's period).
    const cpu = titles('gperf/tiny.prof');
    expect(cpu.some((t) => /\nTotal [\d,]+ samples · [\d.]+ % · [\d.]+ (ms|s)\n/.test(t))).toBe(true);
  });

  it('truncates labels like the canvas', () => {
    const narrow = flameGraphSvg({ profile: a.profile, tree: a.tree, focus: 0, width: 200, charWidth: 7 });
    // A name too long for its bar keeps its start (the function's own name), cut at the end.
    expect(narrow).toMatch(/>[^<…]{3,}…<\/text>/);
    expect(narrow).not.toMatch(/>…[^<]+<\/text>/);
  });

  it('draws a zoomed view: the focus subtree and its ancestors', () => {
    let img = firstChildOf(a.tree, firstChildOf(a.tree, 0));
    while (frameName(a.profile.frames, a.tree.frame[img]) !== '<img src=x onerror=alert(1)>') {
      img = nextSiblingOf(a.tree, img);
    }
    const z = flameGraphSvg({ profile: a.profile, tree: a.tree, focus: img, width: 800 });
    expect(z).toContain('zoomed to &lt;img');
    expect(z).not.toContain('alert(2)');
  });
});
