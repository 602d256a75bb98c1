import { describe, expect, it } from 'vitest';
import { splitBig } from '../address.ts';
import { basename } from '../text/names.ts';
import { MappingIndex, mappingInfo } from './modules.ts';

const name = (idx: MappingIndex, a: bigint) => idx.frameName(...splitBig(a));

describe('MappingIndex', () => {
  const idx = new MappingIndex([
    { start: 0x7f0000026000n, end: 0x7f0000100000n, offset: 0x26000n, path: '/usr/lib/libc.so.6' },
    { start: 0x555500001000n, end: 0x555500002000n, offset: 0x1000n, path: '/opt/x/bin/tiny' },
    { start: 0x7fff00000000n, end: 0x7fff00002000n, offset: 0n, path: '[vdso]' },
    { start: 0x600000n, end: 0x700000n, offset: 0n, path: '' },
    { start: 0xffffffffff600000n, end: 0xffffffffff601000n, offset: 0n, path: '[vsyscall]' },
  ]);

  it('names addresses MODULE+0xOFFSET', () => {
    expect(name(idx, 0x555500001155n)).toBe('tiny+0x1155');
    expect(name(idx, 0x555500001000n)).toBe('tiny+0x1000');
    expect(name(idx, 0x7f0000027249n)).toBe('libc.so.6+0x27249');
    expect(name(idx, 0x7fff00000be1n)).toBe('[vdso]+0xbe1');
    expect(name(idx, 0xffffffffff600400n)).toBe('[vsyscall]+0x400');
  });

  it('names addresses outside every mapping 0x…', () => {
    expect(name(idx, 0x555500002000n)).toBe('0x555500002000');
    expect(name(idx, 0x10n)).toBe('0x10');
    expect(name(idx, 0x600010n)).toBe('0x600010'); // anonymous mapping: not a module
    expect(name(idx, 0xfffffffffffffffen)).toBe('0xfffffffffffffffe');
  });

  it('handles offsets with borrow and carry across 32 bits', () => {
    const i2 = new MappingIndex([
      { start: 0x1fffff000n, end: 0x300000000n, offset: 0xfffff000n, path: '/a/b.so' },
    ]);
    expect(name(i2, 0x200000010n)).toBe('b.so+0x100000010');
  });

  it('has helpers', () => {
    expect(basename('/a/b/c.so')).toBe('c.so');
    expect(basename('[vdso]')).toBe('[vdso]');
    expect(mappingInfo({ start: 0x400000n, end: 0x401000n, offset: 0n, path: '/x' })).toEqual({
      start: '0x400000',
      end: '0x401000',
      offset: '0x0',
      path: '/x',
    });
  });
});
