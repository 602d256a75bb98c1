import { describe, expect, it } from 'vitest';
import { treeFunctionTable } from '../../../test/helpers/tree';
import { buildCallTree } from './calltree';
import { functionTableOf } from './functions';
import { profileFromText } from './text-notation';
import { invertProfile } from './views';

describe('functionTableOf', () => {
  const p = profileFromText('main;r;r;x 4\nmain;x;r 1\nmain 2\nother;x 3');
  it('equals the table computed from the call tree', () => {
    const a = functionTableOf(p);
    const b = treeFunctionTable(buildCallTree(p), p.frames.count);
    expect(Array.from(a.self)).toEqual(Array.from(b.self));
    expect(Array.from(a.total)).toEqual(Array.from(b.total));
  });
  it('an inverted profile keeps the frame ids, so one table serves both views', () => {
    const inv = invertProfile(p);
    expect(inv.frames.name).toEqual(p.frames.name);
    expect(Array.from(inv.frames.module)).toEqual(Array.from(p.frames.module));
  });
});
