import { describe, expect, it } from 'vitest';
import { frameName } from '../text/frame-text';
import type { FrameTable } from '../types';
import { FrameKind, Unnamed } from '../types';
import {
  FrameRows,
  findFrame,
  frameNames,
  framesNamed,
  functionFrames,
  isNamed,
  ownNames,
  pickFrames,
} from './frames';

/** The stored names of the picked rows. */
const picked = (t: FrameTable, ids: number[]) => pickFrames(t, ids).ownName;

describe('frame tables', () => {
  it('leave out a field column every frame has the default of: functions carry none', () => {
    const t = functionFrames(['main', 'run'], [0, 0]);
    expect(Object.keys(t).sort()).toEqual(['count', 'kind', 'module', 'ownName', 'strings']);
    expect([...t.kind]).toEqual([FrameKind.Function, FrameKind.Function]);
  });

  it('rows after a table: its rows, then the new ones; a column the table left out gets defaults', () => {
    const t = functionFrames(['main', 'run'], [0, 0]);
    const rows = new FrameRows({ after: t });
    const file = rows.intern('/src/a.c');
    const fn = rows.intern('run');
    expect(rows.add('run /src/a.c:7', 0, FrameKind.Line, Unnamed.Named, fn, file, 7)).toBe(0);
    rows.add('libc.so.6+0x10', 1, FrameKind.Address, Unnamed.NoSymbolFile, -1, -1, 0, 0, 0x10);
    const all = rows.finish();
    expect(frameNames(all)).toEqual(['main', 'run', 'run /src/a.c:7', 'libc.so.6+0x10']);
    expect(all.strings).toEqual(['/src/a.c', 'run']);
    expect([...all.func!]).toEqual([-1, -1, 1, -1]);
    expect([...all.file!]).toEqual([-1, -1, 0, -1]);
    expect([...all.line!]).toEqual([0, 0, 7, 0]);
    expect([...all.addrLo!]).toEqual([0, 0, 0, 0x10]);
    expect([...all.unnamed!]).toEqual([0, 0, 0, Unnamed.NoSymbolFile]);
    // Picked: the fields follow their frames; a column left with defaults only goes.
    const picked = pickFrames(all, [3, 0]);
    expect(frameNames(picked)).toEqual(['libc.so.6+0x10', 'main']);
    expect([[...picked.addrLo!], picked.line, picked.file, picked.func]).toEqual([
      [0x10, 0],
      undefined,
      undefined,
      undefined,
    ]);
    // Copied into another table: its strings are interned there.
    const other = new FrameRows({ strings: ['x'] });
    other.copy(all, 2, 5);
    const copy = other.finish();
    expect([copy.strings, [...copy.func!], [...copy.file!], [...copy.module]]).toEqual([
      ['x', 'run', '/src/a.c'],
      [1],
      [2],
      [5],
    ]);
  });

  it('name an address frame stored without a name from its module and offset, when asked', () => {
    const rows = new FrameRows({ moduleNames: ['libc.so.6', 'app'] });
    rows.add('app', 1, FrameKind.Module);
    // 0x1_0000_002a: a 64-bit offset, in halves
    rows.add(null, 1, FrameKind.Address, Unnamed.NoSymbolFile, -1, -1, 0, 1, 0x2a);
    rows.add(null, 0, FrameKind.Address, Unnamed.NoSymbolFile, -1, -1, 0, 0, 0x10);
    rows.add(null, -1, FrameKind.Address, Unnamed.NoModule, -1, -1, 0, 0xffffffff, 0x81000000);
    rows.add('libc.so.6+0x20', 0, FrameKind.Function);
    const t = rows.finish();
    expect(t.ownName).toEqual(['app', null, null, null, 'libc.so.6+0x20']);
    expect(t.moduleNames).toEqual(['libc.so.6', 'app']);
    const names = ['app', 'app+0x10000002a', 'libc.so.6+0x10', '0xffffffff81000000', 'libc.so.6+0x20'];
    expect(frameNames(t)).toEqual(names);
    expect(frameName(t, 2)).toBe('libc.so.6+0x10');
    expect(rows.rowName(1)).toBe('app+0x10000002a');
    // Found by name as Array.indexOf finds a name, without naming every frame.
    for (let f = 0; f < names.length; f++) expect(findFrame(t, names[f])).toBe(f);
    expect(findFrame(t, 'app+0x10')).toBe(-1);
    expect(findFrame(t, 'libc.so.6+0x2a')).toBe(-1);
    expect([...framesNamed(t, '0xffffffff81000000')]).toEqual([0, 0, 0, 1, 0]);
    expect([0, 1, 2, 3, 4].filter(isNamed(t, 'app+0x10000002a'))).toEqual([1]);
    // Picked rows keep their module names; copied into another table, a frame is named there.
    const picked = pickFrames(t, [2, 0]);
    expect([picked.ownName, frameNames(picked)]).toEqual([
      [null, 'app'],
      ['libc.so.6+0x10', 'app'],
    ]);
    const other = new FrameRows();
    other.copy(t, 1, 0);
    expect(other.finish().ownName).toEqual(['app+0x10000002a']);
    // Rows after such a table keep it named so.
    const after = new FrameRows({ after: t });
    after.add('main', -1, FrameKind.Function);
    expect(frameNames(after.finish())).toEqual([...names, 'main']);
  });

  it('end the stored names at the last named frame (a flat profile sends no array of nulls)', () => {
    const rows = new FrameRows({ moduleNames: ['app'] });
    rows.add('app', 0, FrameKind.Module);
    for (let i = 0; i < 4; i++)
      rows.add(null, 0, FrameKind.Address, Unnamed.NoSymbolFile, -1, -1, 0, 0, 0x10 + i);
    const t = rows.finish();
    expect(t.ownName).toEqual(['app']);
    const names = ['app', 'app+0x10', 'app+0x11', 'app+0x12', 'app+0x13'];
    expect(frameNames(t)).toEqual(names);
    expect(ownNames(t)).toEqual(['app', null, null, null, null]);
    expect(rows.rowName(3)).toBe('app+0x12');
    expect([rows.named(0), rows.named(4)]).toEqual([true, false]);
    for (let f = 0; f < names.length; f++) expect(findFrame(t, names[f])).toBe(f);
    expect([...framesNamed(t, 'app+0x13')]).toEqual([0, 0, 0, 0, 1]);
    expect([picked(t, [4, 0]), picked(t, [2])]).toEqual([[null, 'app'], [null]]);
    // Rows after it: its unnamed frames stay unnamed, the new ones follow them.
    const after = new FrameRows({ after: t });
    after.add('main', -1, FrameKind.Function);
    const both = after.finish();
    expect(both.ownName).toEqual(['app', null, null, null, null, 'main']);
    expect(frameNames(both)).toEqual([...names, 'main']);
  });

  it('store every name of a table made without module names', () => {
    const rows = new FrameRows();
    expect(() => rows.add(null, 0, FrameKind.Address)).toThrow(/module names/);
    const named = new FrameRows({ moduleNames: ['a'] });
    expect(() => named.add(null, 0, FrameKind.Function)).toThrow(/address frame/);
    expect('moduleNames' in functionFrames(['main'])).toBe(false);
  });
});
