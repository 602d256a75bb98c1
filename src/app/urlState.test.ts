import { describe, expect, it } from 'vitest';
import { buildCallTree } from '../core/model/calltree';
import { profileFromText } from '../core/model/text-notation';
import { decodeUrlState, encodeUrlState, nodeForPath } from './urlState';

describe('URL state', () => {
  it('round-trips every field', () => {
    const s = {
      profileURL: 'https://example.org/p/out.prof?x=1&y=2',
      orientation: 'icicle' as const,
      inverted: true,
      sandwich: 'operator<(a, b)',
      zoom: ['main', 'a;b', 'std::vector<int>::push_back(int&&)'],
      search: 'foo|bar',
      regex: false,
      fn: 'parse',
      transforms: [
        { kind: 'hide-function' as const, name: 'malloc' },
        { kind: 'focus-subtree' as const, path: ['main', 'f'] },
      ],
      theme: 'dark' as const,
    };
    expect(decodeUrlState(encodeUrlState(s))).toEqual(s);
  });
  it('ignores what it does not understand', () => {
    expect(decodeUrlState('#view=sideways&t=notjson&theme=pink')).toEqual({});
    expect(decodeUrlState('#t=[{"kind":"rm -rf"},{"kind":"hide-function","name":"f"}]')).toEqual({
      transforms: [{ kind: 'hide-function', name: 'f' }],
    });
    expect(encodeUrlState({})).toBe('');
  });
  it('finds the zoomed node by names, and stops at the deepest match', () => {
    const p = profileFromText('main;a;b 3\nmain;c 1');
    const t = buildCallTree(p);
    const name = (f: number) => p.frames.name[f];
    expect(name(t.frame[nodeForPath(t, ['main', 'a', 'b'], name)])).toBe('b');
    expect(name(t.frame[nodeForPath(t, ['main', 'zzz', 'b'], name)])).toBe('main');
    expect(nodeForPath(t, [], name)).toBe(0);
  });
});
