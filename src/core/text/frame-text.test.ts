import { describe, expect, it } from 'vitest';
import { FrameRows } from '../model/frames';
import { FrameKind, Unnamed } from '../types';
import {
  addressOf,
  describeFrame,
  describeFrameLines,
  frameLabel,
  functionOf,
  SHOWN_MAX,
  shownText,
  sourceAt,
} from './frame-text';

/** One frame of each kind, as the fold names them (names as it writes them; fields apart). */
function table() {
  const rows = new FrameRows({ fullNames: true });
  const s = (x: string) => rows.intern(x);
  rows.add(
    'fx::hot_chain',
    0,
    FrameKind.Function,
    Unnamed.Named,
    -1,
    -1,
    0,
    0,
    0,
    'fx::hot_chain(unsigned long)',
  );
  rows.add('fx::chain', 0, FrameKind.Inlined);
  const file = '/fixtures/dwarf/src/inline.cpp';
  rows.add(
    `fx::hot_chain ${file}:15`,
    0,
    FrameKind.Line,
    Unnamed.Named,
    s('fx::hot_chain'),
    s(file),
    15,
    0,
    0,
    'fx::hot_chain(unsigned long)',
  );
  rows.add(
    'fx::hot_chain+0x12',
    0,
    FrameKind.Address,
    Unnamed.Named,
    s('fx::hot_chain'),
    -1,
    0,
    0,
    0x1a2b,
    'fx::hot_chain',
  );
  rows.add('libc.so.6+0x100000002', 1, FrameKind.Address, Unnamed.NoSymbolFile, -1, -1, 0, 1, 2);
  rows.add('[demo]', 0, FrameKind.Module, Unnamed.OutsideSymbols);
  rows.add('0x900000', -1, FrameKind.Address, Unnamed.NoModule, -1, -1, 0, 0, 0x900000);
  // A name that only looks like a line: a function's name is never taken apart.
  rows.add('odd /a/b.c:3', -1, FrameKind.Function);
  return { t: rows.finish(), modules: ['/opt/demo', '/lib/x86_64-linux-gnu/libc.so.6'] };
}

describe('frame text, from kinds and fields', () => {
  const { t, modules } = table();

  it('labels a line frame with its file’s base name, every other frame with its name', () => {
    expect([...Array(t.count).keys()].map((f) => frameLabel(t, f))).toEqual([
      'fx::hot_chain',
      'fx::chain',
      'fx::hot_chain inline.cpp:15',
      'fx::hot_chain+0x12',
      'libc.so.6+0x100000002',
      '[demo]',
      '0x900000',
      'odd /a/b.c:3',
    ]);
  });

  it('gives each frame’s function, place and address', () => {
    const all = (fn: (f: number) => unknown) => [...Array(t.count).keys()].map(fn);
    expect(all((f) => functionOf(t, f))).toEqual([
      'fx::hot_chain',
      'fx::chain',
      'fx::hot_chain',
      'fx::hot_chain',
      null,
      null,
      null,
      'odd /a/b.c:3',
    ]);
    expect(all((f) => sourceAt(t, f))).toEqual([
      null,
      null,
      '/fixtures/dwarf/src/inline.cpp:15',
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(all((f) => addressOf(t, modules, f))).toEqual([
      null,
      null,
      null,
      'demo+0x1a2b',
      'libc.so.6+0x100000002',
      null,
      '0x900000',
      null,
    ]);
  });

  it('describes a frame for a tooltip: what is new beside the label', () => {
    expect(describeFrame(t, modules, 0)).toEqual({
      title: 'fx::hot_chain',
      full: 'fx::hot_chain(unsigned long)',
      module: '/opt/demo',
    });
    expect(describeFrame(t, modules, 1)).toEqual({ title: 'fx::chain', inlined: true, module: '/opt/demo' });
    expect(describeFrameLines(describeFrame(t, modules, 2))).toEqual([
      'fx::hot_chain inline.cpp:15',
      'fx::hot_chain(unsigned long)',
      'at /fixtures/dwarf/src/inline.cpp:15',
      '/opt/demo',
    ]);
    expect(describeFrame(t, modules, 3)).toEqual({
      title: 'fx::hot_chain+0x12',
      address: 'demo+0x1a2b',
      module: '/opt/demo',
    });
    expect(describeFrame(t, modules, 4)).toEqual({
      title: 'libc.so.6+0x100000002',
      hint: 'No binary for this module: drop it to see function names.',
      module: '/lib/x86_64-linux-gnu/libc.so.6',
    });
    expect(describeFrame(t, modules, 5).hint).toBe(
      'No symbol covers these addresses: drop the binary’s debug file.',
    );
    expect(describeFrame(t, modules, 6)).toEqual({ title: '0x900000' });
  });

  it('shows a name of 20 MB by its start and how much is left out; names up to SHOWN_MAX whole', () => {
    const rows = new FrameRows({ fullNames: true });
    const long = `ns::${'a'.repeat(20_000_000)}`;
    rows.add(long, 0, FrameKind.Function);
    const t = rows.finish();
    const label = frameLabel(t, 0);
    expect(label.length).toBeLessThanOrEqual(SHOWN_MAX);
    expect(label.startsWith('ns::aaa')).toBe(true);
    expect(label).toMatch(/… \(19,983,684 more characters\)$/);
    expect(describeFrame(t, [], 0).title).toBe(label);
    const template = `std::map<${'std::vector<int>, '.repeat(900)}int>::find`;
    expect(template.length).toBeLessThan(SHOWN_MAX);
    expect(shownText(template)).toBe(template);
  });
});
