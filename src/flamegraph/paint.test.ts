import { describe, expect, it } from 'vitest';
import { fitLabel, labelText } from './paint';

describe('bar labels', () => {
  it('a frame at a source line keeps its function and the file base name', () => {
    expect(labelText('fx::hot_chain /fixtures/dwarf/src/inline.cpp:15')).toBe('fx::hot_chain inline.cpp:15');
    expect(labelText('std::__copy_move::__copy_m /usr/include/c++/12/bits/stl_algobase.h:385')).toBe(
      'std::__copy_move::__copy_m stl_algobase.h:385',
    );
    // Cut to fit, its end (the line) and as much of the function as fits stay.
    expect(fitLabel(labelText('fx::hot_chain /fixtures/dwarf/src/inline.cpp:15'), 20)).toBe(
      '…chain inline.cpp:15',
    );
  });

  it('other names are left as they are', () => {
    for (const name of [
      'fx::hot_chain',
      'inline.cpp:15',
      'fx::hot_chain inline.cpp:15',
      '[libc.so.6]',
      'libc.so.6+0x1a2b',
      'fx::hot_chain+0x12',
      'operator()',
      'std::vector<int, std::allocator<int> >::push_back(int const&)',
    ])
      expect(labelText(name)).toBe(name);
  });
});
