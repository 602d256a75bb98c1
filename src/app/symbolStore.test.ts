// Which remembered symbol files a profile takes (rememberedFor): by the mapping's build-id first,
// else the most recently used file of its name; debug files ride along by build-id; a file of
// another build than the mapping names is never taken.

import { describe, expect, it } from 'vitest';
import { asRemembered, type RememberedMeta, rememberedFor } from './symbolStore';

const libc = (id: string, when: number, name = 'libc.so.6'): RememberedMeta => ({
  key: id,
  name,
  buildId: id,
  size: 1,
  when,
});

describe('rememberedFor', () => {
  const old = libc('aa'.repeat(20), 1);
  const recent = libc('bb'.repeat(20), 2);
  const debug = libc('bb'.repeat(20), 2, 'usr/lib/debug/.build-id/bb/bbbb.debug');
  const prog: RememberedMeta = { key: 'prog:10', name: 'prog', size: 10, when: 3 };
  // Most recently used first, as listRemembered gives them.
  const files = [prog, recent, debug, old];

  it('a gperftools mapping (no build-id): the newest file of its name, with its debug file', () => {
    const got = rememberedFor([{ path: '/usr/lib/x86_64-linux-gnu/libc.so.6' }], files);
    expect(got).toEqual([recent, debug]);
  });

  it('a mapping with a build-id: that build, never another of the same name', () => {
    expect(rememberedFor([{ path: '/lib/libc.so.6', buildId: 'AA'.repeat(20) }], files)).toEqual([old]);
    expect(rememberedFor([{ path: '/lib/libc.so.6', buildId: 'cc'.repeat(20) }], files)).toEqual([]);
    // A binary of that name without a build-id is another build; an nm listing is taken by name.
    const noId: RememberedMeta = { key: 'prog:11', kind: 'binary', name: 'prog', size: 11, when: 4 };
    const listing: RememberedMeta = { key: 'prog:12', kind: 'symbols', name: 'prog', size: 12, when: 2 };
    expect(rememberedFor([{ path: '/bin/prog', buildId: 'dd'.repeat(20) }], [noId])).toEqual([]);
    expect(rememberedFor([{ path: '/bin/prog', buildId: 'dd'.repeat(20) }], [noId, listing])).toEqual([
      listing,
    ]);
  });

  it('a library remembered under its soname (the link ldd lists) serves the file it names', () => {
    const stdcxx: RememberedMeta = { key: 'stdcxx', name: 'libstdc++.so.6', size: 5, when: 5 };
    expect(rememberedFor([{ path: '/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30' }], [stdcxx])).toEqual([
      stdcxx,
    ]);
    expect(rememberedFor([{ path: '/usr/lib/libstdc++.so.60' }], [stdcxx])).toEqual([]);
  });

  it('pseudo mappings and unknown names take nothing; each file once', () => {
    expect(rememberedFor([{ path: '[vdso]' }, { path: '/opt/x/other' }], files)).toEqual([]);
    expect(rememberedFor([{ path: '/a/prog' }, { path: '/b/prog' }], files)).toEqual([prog]);
  });
});

describe('asRemembered', () => {
  const good = {
    key: 'ab:binary',
    kind: 'binary',
    name: 'prog',
    buildId: 'ab',
    size: 3,
    when: 5,
    blob: new Blob(['abc']),
  };
  it('takes a record as written', () => {
    expect(asRemembered(good)).toEqual(good);
    const { kind: _k, buildId: _b, ...plain } = good;
    expect(asRemembered({ ...plain, key: 'prog:3' })).toEqual({ ...plain, key: 'prog:3' });
  });
  it('leaves out what no version wrote', () => {
    for (const bad of [
      null,
      'prog',
      { ...good, name: 42 },
      { ...good, when: 'yesterday' },
      { ...good, when: Number.NaN },
      { ...good, blob: 'not a blob' },
      { ...good, kind: 'script' },
      { ...good, buildId: 'AB<script>' },
      { ...good, key: undefined },
    ])
      expect(asRemembered(bad)).toBeNull();
  });
});
