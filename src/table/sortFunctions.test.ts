// The function table's default order comes sorted from the worker (FunctionTable.bySelf): it must
// be the order the page's own sort gives.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyze, fold, parse } from '../core/pipeline';
import { toPageProfile } from '../worker/protocol';
import { sortFunctions } from './FunctionTable';

describe('the table order', () => {
  it('by self from the worker equals the page sort by self', () => {
    const loaded = parse(new Uint8Array(readFileSync('test/fixtures/debian/xz.prof')), 'xz.prof', {
      granularity: 'addresses',
    });
    const full = analyze(fold(loaded, { granularity: 'addresses' }).profile, {
      transforms: [],
      inverted: false,
    });
    const a = { ...full, profile: toPageProfile(full.profile) };
    expect(a.functions.bySelf?.length).toBeGreaterThan(100);
    const fast = sortFunctions(a, { key: 'self', desc: true, filter: '' });
    const slow = sortFunctions(
      { ...a, functions: { ...a.functions, bySelf: undefined } },
      { key: 'self', desc: true, filter: '' },
    );
    expect(Array.from(fast)).toEqual(Array.from(slow));
    // Filtered or ascending: sorted in the page.
    expect(sortFunctions(a, { key: 'self', desc: false, filter: '' })).not.toBe(a.functions.bySelf);
  });
});
