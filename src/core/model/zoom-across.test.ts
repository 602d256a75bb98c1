// The zoom carried across Frames (granularity): paths of a tree at one granularity found in the
// tree of another, written in the text notation; frames named `fn /dir/file.c:12` are line frames,
// `fn+0x1c` address frames, `<mod>` a module's unnamed code (named `[mod]`; the notation's `[mod]`
// suffix is a frame's module), other names functions.

import { describe, expect, it } from 'vitest';
import { frameName } from '../text/frame-text';
import { type FoldedProfile, FrameKind, Unnamed } from '../types';
import { buildCallTree, type CallTree, nodeByNames } from './calltree';
import { FrameRows, frameNames } from './frames';
import { profileFromText } from './text-notation';
import { findZoom, zoomMessage, zoomSteps } from './zoom-across';

/** A profile from text whose frames are of the kinds their names say (see above), and its tree. */
function at(text: string): { p: FoldedProfile; tree: CallTree } {
  const p = profileFromText(text);
  const rows = new FrameRows();
  p.frames.ownName = frameNames(p.frames).map((n) => n.replace(/^<(.+)>$/, '[$1]'));
  for (const name of frameNames(p.frames)) {
    const line = /^(.+) (\S+):(\d+)$/.exec(name);
    const addr = /^(.+)\+0x([0-9a-f]+)$/.exec(name);
    if (line)
      rows.add(
        name,
        -1,
        FrameKind.Line,
        Unnamed.Named,
        rows.intern(line[1]),
        rows.intern(line[2]),
        Number(line[3]),
      );
    else if (addr)
      rows.add(
        name,
        -1,
        FrameKind.Address,
        Unnamed.Named,
        rows.intern(addr[1]),
        -1,
        0,
        0,
        Number.parseInt(addr[2], 16),
      );
    else if (name.startsWith('[')) rows.add(name, -1, FrameKind.Module, Unnamed.NoSymbolFile);
    else rows.add(name, -1, FrameKind.Function);
  }
  const q = { ...p, frames: rows.finish() };
  return { p: q, tree: buildCallTree(q) };
}

/** The zoom at `path` (frame names) of `from`, carried to `to`: the node's name and the message. */
function carry(
  from: ReturnType<typeof at>,
  path: string[],
  to: ReturnType<typeof at>,
  granularity: 'functions' | 'lines' | 'addresses',
) {
  const node = nodeByNames(from.tree, path, (f) => frameName(from.p.frames, f));
  const steps = zoomSteps(from.tree, from.p.frames, node);
  expect(steps.map((s) => s.name)).toEqual(path);
  const found = findZoom(steps, to.tree, to.p.frames);
  return {
    at: found.node > 0 ? frameName(to.p.frames, to.tree.frame[found.node]) : null,
    message: zoomMessage(steps, found, to.p.frames, to.tree, granularity),
  };
}

const FUNCTIONS = at(`
  main;parse;lex 5
  main;parse 2
  main;eval;lex 3
  <libc.so.6>;main;eval 1
`);
const LINES = at(`
  main /src/main.c:10;parse /src/parse.c:40;lex /src/lex.c:7 4
  main /src/main.c:10;parse /src/parse.c:41;lex /src/lex.c:8 1
  main /src/main.c:10;parse /src/parse.c:45 2
  main /src/main.c:11;eval /src/eval.c:3;lex /src/lex.c:7 3
  <libc.so.6>;main /src/main.c:12;eval /src/eval.c:3 1
`);

describe('zoom across granularities', () => {
  it('lines → functions: a line frame is found as its function, and the steps label it by the file’s base name', () => {
    const from = LINES;
    const node = nodeByNames(from.tree, ['main /src/main.c:10', 'parse /src/parse.c:40'], (f) =>
      frameName(from.p.frames, f),
    );
    expect(zoomSteps(from.tree, from.p.frames, node)).toEqual([
      { name: 'main /src/main.c:10', label: 'main main.c:10', fn: 'main' },
      { name: 'parse /src/parse.c:40', label: 'parse parse.c:40', fn: 'parse' },
    ]);
    expect(carry(LINES, ['main /src/main.c:10', 'parse /src/parse.c:40'], FUNCTIONS, 'functions')).toEqual({
      at: 'parse',
      message: 'Zoom kept at `parse`.',
    });
  });

  it('functions → lines: a function split into line frames keeps the zoom at its heaviest, and says so', () => {
    // parse under main: parse.c:40 (4), :41 (1), :45 (2).
    expect(carry(FUNCTIONS, ['main', 'parse'], LINES, 'lines')).toEqual({
      at: 'parse /src/parse.c:40',
      message: 'Zoom kept at `parse parse.c:40` (the heaviest of the 3 line frames of `parse`).',
    });
    // lex under main › parse: lex.c:7 under parse.c:40 (4) and lex.c:8 under parse.c:41 (1).
    expect(carry(FUNCTIONS, ['main', 'parse', 'lex'], LINES, 'lines').at).toBe('lex /src/lex.c:7');
  });

  it('follows every line frame of a function down the path, not the heaviest alone', () => {
    // eval's callers at lines: main.c:11 (3), and main.c:12 under [libc.so.6] — another root.
    const r = carry(FUNCTIONS, ['[libc.so.6]', 'main', 'eval'], LINES, 'lines');
    expect(r).toEqual({ at: 'eval /src/eval.c:3', message: 'Zoom kept at `eval eval.c:3`.' });
  });

  it('a frame the other granularity does not have moves the zoom to the nearest one found, naming it', () => {
    // At addresses the inlined `lex` has no frame of its own: its samples are parse's addresses.
    const ADDRESSES = at(`
      main+0x10;parse+0x24 6
      main+0x10;parse+0x30 1
      main+0x18;eval+0x8 3
    `);
    expect(carry(FUNCTIONS, ['main', 'parse', 'lex'], ADDRESSES, 'addresses')).toEqual({
      at: 'parse+0x24',
      message: 'Zoom moved to `parse+0x24` (`lex` is not an address frame here).',
    });
    // Code no symbol names, absent at the other granularity: the whole profile.
    expect(carry(FUNCTIONS, ['[libc.so.6]', 'main'], ADDRESSES, 'addresses')).toEqual({
      at: null,
      message: 'Zoom moved to the whole profile (`[libc.so.6]` is not an address frame here).',
    });
  });

  it('a frame of the same name wins over other frames of its function', () => {
    const MIXED = at(`
      main;parse /src/parse.c:40 1
      main;parse 5
    `);
    expect(carry(FUNCTIONS, ['main', 'parse'], MIXED, 'functions')).toEqual({
      at: 'parse',
      message: 'Zoom kept at `parse`.',
    });
  });
});
