import { describe, expect, it } from 'vitest';
import { parseFolded } from '../formats/folded.ts';
import type { LabelFilter, RawProfile } from '../types.ts';
import { foldProfile } from './fold.ts';
import { frameNames } from './frames.ts';
import {
  addLabelValue,
  describeFilter,
  isLabelFilter,
  labelKeepMask,
  labelSummary,
  parseLabelFilter,
} from './labels.ts';
import { toFoldedText } from './serialize.ts';

/**
 * One sample per line of folded text, with labels: `thread` (a string, '' = absent) and `bytes`
 * (a number, NaN = absent) per line.
 */
function labelled(lines: [string, string, number][]): RawProfile {
  const raw = parseFolded(new TextEncoder().encode(lines.map(([l]) => `${l}\n`).join('')));
  expect(raw.samples.count).toBe(lines.length);
  const strings = raw.strings;
  const idx = (t: string) => {
    if (t === '') return -1;
    let i = strings.indexOf(t);
    if (i < 0) i = strings.push(t) - 1;
    return i;
  };
  raw.labels = [
    { key: 'thread', kind: 'string', value: Int32Array.from(lines, ([, t]) => idx(t)) },
    { key: 'bytes', kind: 'number', value: Float64Array.from(lines, ([, , b]) => b), unit: 'bytes' },
  ];
  return raw;
}

const RAW = () =>
  labelled([
    ['main;work;hash 3', 'w1', 100],
    ['main;work;hash 2', 'w2', 4096],
    ['main;work;sort 5', 'w2', 2048],
    ['main;idle 1', '', Number.NaN],
    ['main;work;hash 4', '17', 1024],
  ]);

const fold = (raw: RawProfile, labelFilters?: LabelFilter[], groupBy?: string) =>
  foldProfile(raw, { fileName: 'x', labelFilters, groupBy });

describe('label filters', () => {
  it('focus keeps the samples with one of the values; a sample without the key is dropped', () => {
    const p = fold(RAW(), [{ key: 'thread', op: 'focus', values: ['w1', 'w2'] }]);
    expect(toFoldedText(p)).toBe('main;work;hash 5\nmain;work;sort 5\n');
    expect(p.meta.totalSamples).toBe(10);
    expect(p.meta.labelDropped).toEqual({ samples: 2, weight: 5 });
    expect(p.meta.labelFilters).toEqual([{ key: 'thread', op: 'focus', values: ['w1', 'w2'] }]);
  });
  it('ignore drops the samples with the values; a sample without the key is kept', () => {
    const p = fold(RAW(), [{ key: 'thread', op: 'ignore', values: ['w2'] }]);
    expect(toFoldedText(p)).toBe('main;idle 1\nmain;work;hash 7\n');
  });
  it('numeric ranges are inclusive, open without a bound; they read numeric strings too', () => {
    const range = (min?: number, max?: number): LabelFilter => ({ key: 'bytes', op: 'focus', min, max });
    expect(toFoldedText(fold(RAW(), [range(1024, 2048)]))).toBe('main;work;hash 4\nmain;work;sort 5\n');
    expect(toFoldedText(fold(RAW(), [range(2048)]))).toBe('main;work;hash 2\nmain;work;sort 5\n');
    expect(toFoldedText(fold(RAW(), [range(undefined, 100)]))).toBe('main;work;hash 3\n');
    expect(toFoldedText(fold(RAW(), [{ key: 'bytes', op: 'ignore', min: 1000 }]))).toBe(
      'main;idle 1\nmain;work;hash 3\n',
    );
    // a value list on a numeric label compares numbers; a range on a string label reads numbers
    expect(toFoldedText(fold(RAW(), [{ key: 'bytes', op: 'focus', values: ['4096.0'] }]))).toBe(
      'main;work;hash 2\n',
    );
    expect(toFoldedText(fold(RAW(), [{ key: 'thread', op: 'focus', min: 10, max: 20 }]))).toBe(
      'main;work;hash 4\n',
    );
  });
  it('all focus filters must hold; any ignore drops', () => {
    const p = fold(RAW(), [
      { key: 'thread', op: 'focus', values: ['w2', '17'] },
      { key: 'bytes', op: 'ignore', min: 4096 },
    ]);
    expect(toFoldedText(p)).toBe('main;work;hash 4\nmain;work;sort 5\n');
  });
  it('a value added to a key and op already filtered by values is an alternative of that filter', () => {
    const one = addLabelValue([], 'focus', 'thread', 'w2');
    const two = addLabelValue(one, 'focus', 'thread', '17');
    expect(two).toEqual([{ key: 'thread', op: 'focus', values: ['w2', '17'] }]);
    expect(addLabelValue(two, 'focus', 'thread', '17')).toEqual(two);
    expect(one).toEqual([{ key: 'thread', op: 'focus', values: ['w2'] }]); // not changed in place
    // the samples of either thread, as one filter of both values keeps them
    expect(toFoldedText(fold(RAW(), two))).toBe('main;work;hash 6\nmain;work;sort 5\n');
    // another op, another key, or a range: a filter of its own
    const range: LabelFilter = { key: 'bytes', op: 'ignore', min: 4096 };
    const mixed = addLabelValue(
      addLabelValue([range, ...two], 'ignore', 'thread', 'w1'),
      'ignore',
      'bytes',
      '512',
    );
    expect(mixed).toEqual([
      range,
      ...two,
      { key: 'thread', op: 'ignore', values: ['w1'] },
      { key: 'bytes', op: 'ignore', values: ['512'] },
    ]);
  });
  it('a key the profile lacks: focus keeps nothing, ignore keeps all; both warn', () => {
    const f = fold(RAW(), [{ key: 'nope', op: 'focus', values: ['x'] }]);
    expect(f.stacks.count).toBe(0);
    expect(f.meta.warnings.map((w) => w.message)).toEqual([
      'label filter focus nope=x: the profile has no label "nope" (no sample kept)',
    ]);
    const i = fold(RAW(), [{ key: 'nope', op: 'ignore', values: ['x'] }]);
    expect(toFoldedText(i)).toBe(toFoldedText(fold(RAW())));
    expect(i.meta.warnings).toHaveLength(1);
  });
  it('without filters or grouping the fold and its metadata are as before', () => {
    const p = fold(RAW(), []);
    expect(toFoldedText(p)).toBe('main;idle 1\nmain;work;hash 9\nmain;work;sort 5\n');
    expect(p.meta.labelFilters).toBeUndefined();
    expect(p.meta.labelDropped).toBeUndefined();
    expect(p.meta.groupBy).toBeUndefined();
    expect(labelKeepMask(RAW(), undefined).keep).toBeNull();
  });
});

describe('group by label', () => {
  it('puts key=value as the root frame, key=(none) where the sample lacks it', () => {
    const p = fold(RAW(), undefined, 'thread');
    expect(toFoldedText(p)).toBe(
      [
        'thread=(none);main;idle 1',
        'thread=17;main;work;hash 4',
        'thread=w1;main;work;hash 3',
        'thread=w2;main;work;hash 2',
        'thread=w2;main;work;sort 5',
        '',
      ].join('\n'),
    );
    expect(p.meta.groupBy).toBe('thread');
    const roots = frameNames(p.frames).flatMap((n, f) =>
      n.startsWith('thread=') ? [p.frames.module[f]] : [],
    );
    expect(roots).toEqual([-1, -1, -1, -1]);
  });
  it('numbers as JavaScript writes them, after the filters', () => {
    const p = fold(RAW(), [{ key: 'thread', op: 'ignore', values: ['w1'] }], 'bytes');
    expect(toFoldedText(p)).toBe(
      'bytes=(none);main;idle 1\nbytes=1024;main;work;hash 4\nbytes=2048;main;work;sort 5\nbytes=4096;main;work;hash 2\n',
    );
  });
  it('a profile without the label gets one root, key=(none), and a warning', () => {
    const raw = RAW();
    raw.labels = undefined;
    const p = fold(raw, undefined, 'thread');
    expect(toFoldedText(p)).toBe(
      'thread=(none);main;idle 1\nthread=(none);main;work;hash 9\nthread=(none);main;work;sort 5\n',
    );
    expect(p.meta.warnings.map((w) => w.message)).toEqual([
      'group by label "thread": the profile has no such label (one root, thread=(none))',
    ]);
  });
  it('drop_frames prune below the group frame as they would without it', () => {
    const raw = RAW();
    raw.meta.dropFrames = 'main|hash';
    // pprof's Prune: past the first frame that is not dropped (work), the next dropped one goes
    expect(toFoldedText(fold(raw))).toBe('main;idle 1\nmain;work 9\nmain;work;sort 5\n');
    expect(toFoldedText(fold(raw, undefined, 'thread'))).toBe(
      'thread=(none);main;idle 1\nthread=17;main;work 4\nthread=w1;main;work 3\nthread=w2;main;work 2\nthread=w2;main;work;sort 5\n',
    );
  });
});

describe('labelSummary', () => {
  it('lists each key with its heaviest values, capped', () => {
    const s = labelSummary(RAW(), { limit: 2 });
    expect(s).toEqual([
      {
        key: 'thread',
        kind: 'string',
        samples: 4,
        weight: 14,
        distinct: 3,
        values: [
          { value: 'w2', samples: 2, weight: 7 },
          { value: '17', samples: 1, weight: 4 },
        ],
      },
      {
        key: 'bytes',
        kind: 'number',
        unit: 'bytes',
        samples: 4,
        weight: 14,
        distinct: 4,
        min: 100,
        max: 4096,
        values: [
          { value: '2048', samples: 1, weight: 5 },
          { value: '1024', samples: 1, weight: 4 },
        ],
      },
    ]);
    expect(labelSummary(parseFolded(new TextEncoder().encode('a 1\n')))).toEqual([]);
  });
});

describe('the text form of a filter', () => {
  it('reads values, ranges with binary units, and exact quantities', () => {
    expect(parseLabelFilter('thread=w1,w2', 'focus')).toEqual({
      key: 'thread',
      op: 'focus',
      values: ['w1', 'w2'],
    });
    expect(parseLabelFilter('bytes=1kb:4kb', 'focus')).toEqual({
      key: 'bytes',
      op: 'focus',
      min: 1024,
      max: 4096,
    });
    expect(parseLabelFilter('bytes=:2MB', 'ignore')).toEqual({
      key: 'bytes',
      op: 'ignore',
      max: 2 * 1024 * 1024,
    });
    expect(parseLabelFilter('bytes=512:', 'focus')).toEqual({ key: 'bytes', op: 'focus', min: 512 });
    expect(parseLabelFilter('bytes=1gb', 'focus')).toEqual({
      key: 'bytes',
      op: 'focus',
      min: 1024 ** 3,
      max: 1024 ** 3,
    });
    expect(parseLabelFilter('pid=1234', 'focus')).toEqual({ key: 'pid', op: 'focus', values: ['1234'] });
    // not a range: a value with a colon
    expect(parseLabelFilter('addr=host:80', 'focus')).toEqual({
      key: 'addr',
      op: 'focus',
      values: ['host:80'],
    });
    expect(parseLabelFilter('k=a=b', 'focus')).toEqual({ key: 'k', op: 'focus', values: ['a=b'] });
    expect(() => parseLabelFilter('=x', 'focus')).toThrow(/KEY=VALUE/);
    expect(() => parseLabelFilter('thread', 'focus')).toThrow(/KEY=VALUE/);
  });
  it('describes filters as it reads them; checks filters read from elsewhere', () => {
    for (const t of ['thread=w1,w2', 'bytes=1024:4096', 'bytes=:100', 'bytes=5:']) {
      const f = parseLabelFilter(t, 'ignore');
      expect(describeFilter(f)).toBe(`ignore ${t}`);
      expect(isLabelFilter(f)).toBe(true);
    }
    expect(isLabelFilter({ key: 'k', op: 'focus', values: [1] })).toBe(false);
    expect(isLabelFilter({ key: 'k', op: 'keep', values: [] })).toBe(false);
    expect(isLabelFilter({ key: '', op: 'focus', values: [] })).toBe(false);
    expect(isLabelFilter({ key: 'k', op: 'focus', min: '1' })).toBe(false);
    expect(isLabelFilter({ key: 'k', op: 'focus' })).toBe(true);
  });
});
