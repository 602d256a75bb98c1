import { describe, expect, it } from 'vitest';
import { FrameKind, Unnamed } from '../types';
import { FrameRows, functionFrames, pickFrames } from './frames';

describe('frame tables', () => {
  it('leave out a field column every frame has the default of: functions carry none', () => {
    const t = functionFrames(['main', 'run'], [0, 0]);
    expect(Object.keys(t).sort()).toEqual(['count', 'kind', 'module', 'name', 'strings']);
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
    expect(all.name).toEqual(['main', 'run', 'run /src/a.c:7', 'libc.so.6+0x10']);
    expect(all.strings).toEqual(['/src/a.c', 'run']);
    expect([...all.func!]).toEqual([-1, -1, 1, -1]);
    expect([...all.file!]).toEqual([-1, -1, 0, -1]);
    expect([...all.line!]).toEqual([0, 0, 7, 0]);
    expect([...all.addrLo!]).toEqual([0, 0, 0, 0x10]);
    expect([...all.unnamed!]).toEqual([0, 0, 0, Unnamed.NoSymbolFile]);
    // Picked: the fields follow their frames; a column left with defaults only goes.
    const picked = pickFrames(all, [3, 0]);
    expect(picked.name).toEqual(['libc.so.6+0x10', 'main']);
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
});
