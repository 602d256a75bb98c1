import { describe, expect, it } from 'vitest';
import type { InputNote } from '../types';
import {
  contentId,
  restorePlan,
  swappedInputs,
  type WorkspaceInput,
  withInputs,
  workspaceSize,
  workspaceTitle,
} from './workspace';

const file = (name: string, size = 10) => ({ name, size, content: `c-${name}` });
const note = (name: string, role: InputNote['role']): InputNote => ({ name, role });

describe('a workspace’s inputs', () => {
  const opened = withInputs(
    [],
    [file('out.prof'), file('prog'), file('libc.so.6.debug'), file('junk.bin')],
    [note('out.prof', 'profile'), note('prog', 'binary'), note('libc.so.6.debug', 'debug')],
  );

  it('take the roles the worker said; files it could not use are not kept', () => {
    expect(opened.map((i) => [i.name, i.role])).toEqual([
      ['out.prof', 'profile'],
      ['prog', 'binary'],
      ['libc.so.6.debug', 'debug'],
    ]);
    expect(workspaceTitle({ inputs: opened })).toBe('out.prof');
    expect(workspaceSize({ inputs: opened })).toBe(30);
  });

  it('files added later join; one given again replaces the earlier; a new profile starts over', () => {
    const more = withInputs(
      opened,
      [file('main.c', 4), { ...file('prog'), content: 'new' }],
      [note('main.c', 'source'), note('prog', 'binary')],
    );
    expect(more.map((i) => `${i.name}:${i.role}:${i.content}`)).toEqual([
      'out.prof:profile:c-out.prof',
      'libc.so.6.debug:debug:c-libc.so.6.debug',
      'main.c:source:c-main.c',
      'prog:binary:new',
    ]);
    const other = withInputs(more, [file('b.prof')], [note('b.prof', 'profile')]);
    expect(other.map((i) => i.name)).toEqual(['b.prof']);
  });

  it('a baseline joins, replaces an earlier one, and a swap exchanges the two sides', () => {
    const compared = withInputs(opened, [file('a.prof')], [note('a.prof', 'baseline')]);
    expect(workspaceTitle({ inputs: compared })).toBe('out.prof compared with a.prof');
    const again = withInputs(compared, [file('z.prof')], [note('z.prof', 'baseline')]);
    expect(again.filter((i) => i.role === 'baseline').map((i) => i.name)).toEqual(['z.prof']);
    const swapped = swappedInputs(again);
    expect(workspaceTitle({ inputs: swapped })).toBe('z.prof compared with out.prof');
    expect(swapped.find((i) => i.name === 'prog')?.role).toBe('binary');
  });

  it('restore: the profile (or bundle) with every supporting file in one drop, then the baseline', () => {
    const inputs: WorkspaceInput[] = [
      { role: 'baseline', name: 'a.prof', size: 1, content: 'a' },
      { role: 'source', name: 'main.c', size: 1, content: 's' },
      { role: 'bundle', name: 'b.zip', size: 1, content: 'b' },
      { role: 'binary', name: 'prog', size: 0, url: 'https://x/prog' },
      { role: 'folder', name: 'sysroot/usr/lib/libc.so.6', size: 1, content: 'l', folder: 'sysroot' },
    ];
    const plan = restorePlan(inputs);
    expect(plan.main.map((i) => i.name)).toEqual(['b.zip', 'main.c', 'prog', 'sysroot/usr/lib/libc.so.6']);
    expect(plan.base?.name).toBe('a.prof');
    expect(restorePlan(opened).base).toBeNull();
  });
});

describe('contentId', () => {
  const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255);

  it('is the same for the same size and ends, and differs when either differs', () => {
    const a = contentId(1000, bytes(64, 1), bytes(64, 2));
    expect(contentId(1000, bytes(64, 1), bytes(64, 2))).toBe(a);
    expect(contentId(1001, bytes(64, 1), bytes(64, 2))).not.toBe(a);
    expect(contentId(1000, bytes(64, 3), bytes(64, 2))).not.toBe(a);
    expect(contentId(1000, bytes(64, 1), bytes(64, 4))).not.toBe(a);
    expect(a).toMatch(/^[0-9a-z]{2,14}$/);
  });
});
