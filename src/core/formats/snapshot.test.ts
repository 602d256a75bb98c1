// Snapshots (an HTML report's profiles): every format's parsed profile comes back as it was, and a
// profile with its symbols' names written in folds, with no symbol file, to the frames the symbols
// gave, at every granularity and with short or full names. Damaged snapshots are ProfileErrors.

import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { toFoldedText } from '../model/serialize';
import { type FoldSpec, fold, parse, resolvedProfile, symbolize } from '../pipeline';
import { loadDemangler } from '../symbols/demangle';
import { ProfileError } from '../types';
import { detectFormat, parseProfile } from './detect';
import { looksLikeSnapshot, parseSnapshot, snapshotMismatch, writeSnapshot } from './snapshot';

const bytes = (path: string) => new Uint8Array(readFileSync(`test/fixtures/${path}`));
const load = (path: string) => parse(bytes(path), path.split('/').pop()!);

const FILES = [
  'gperf/tiny.prof',
  'gperf/cxx_demangle32.prof',
  'pprof/labels/labels.pb.gz',
  'pprof/go/heap.pb.gz',
  'upstream/cppbench.cpu',
  'perf/mixed.perf.txt',
  // inline frames as location lines; a [no frames] location without an address
  'perf/shapes/inlined-dwarf.perf.txt',
  'perf/shapes/sorter-noip.perf.txt',
  'heap/allocs.0001.heap',
  'dcpi/valid_basic.dcpi',
  'dwarf/inlinenp.prof',
  'folded/recursive.folded',
];

describe('snapshot', () => {
  it.each(FILES)('%s reads back as written (what a report checks before it is offered)', (path) => {
    const { raw } = load(path);
    const snap = writeSnapshot(raw);
    expect(snapshotMismatch(raw, snap)).toBeNull();
    // What would not reopen is said: another profile's values, stacks or locations, a cut file.
    const weight = raw.samples.weight.slice();
    weight[0] += 1;
    expect(snapshotMismatch({ ...raw, samples: { ...raw.samples, weight } }, snap)).toBe(
      'the sample values differ',
    );
    const stackLocs = raw.samples.stackLocs.slice().reverse();
    if (raw.samples.stackLocs.some((l, i) => l !== stackLocs[i]))
      expect(snapshotMismatch({ ...raw, samples: { ...raw.samples, stackLocs } }, snap)).toBe(
        'the stacks differ',
      );
    expect(snapshotMismatch(raw, gzipSync(gunzipSync(snap).subarray(0, 30)))).toMatch(/cut short|snapshot/);
  });

  it.each(FILES)('gives back the parsed profile of %s as it was', (path) => {
    const { raw } = load(path);
    const snap = writeSnapshot(raw);
    expect(detectFormat(snap)).toBe('snapshot');
    expect(looksLikeSnapshot(gunzipSync(snap))).toBe(true);
    expect(parseProfile(snap)).toEqual(raw);
  });

  it('keeps a two-count folded file a comparison, and embedded symbols (pprof --raw)', () => {
    const pair = parse(new TextEncoder().encode('main;a 1 3\nmain;b 2 0\n'), 'd.folded').raw;
    expect(pair.diffPair).toBe(true);
    expect(parseProfile(writeSnapshot(pair))).toEqual(pair);
    const raw = { ...pair, embeddedSymbols: new Map([['401000', ['outer', 'inner']]]) };
    expect(parseProfile(writeSnapshot(raw)).embeddedSymbols).toEqual(raw.embeddedSymbols);
    const more = {
      ...raw,
      embeddedLines: new Map([['401000', [{ name: 'outer', file: '/src/a.c', line: 3 }, { name: 'inner' }]]]),
      embeddedOffsets: new Map([['401000', 16]]),
    };
    const back = parseProfile(writeSnapshot(more));
    expect([back.embeddedSymbols, back.embeddedLines, back.embeddedOffsets]).toEqual([
      more.embeddedSymbols,
      more.embeddedLines,
      more.embeddedOffsets,
    ]);
  });

  const symbolized = async (path: string, binaries: string[]) => {
    const loaded = load(path);
    const files = binaries.map((b) => ({ name: b.split('/').pop()!, bytes: bytes(b) }));
    const symbols = symbolize(loaded.raw, files, { demangle: await loadDemangler(), mangled: false });
    return { loaded, symbols };
  };

  const SPECS: Pick<FoldSpec, 'granularity' | 'names'>[] = [
    { granularity: 'functions', names: 'short' },
    { granularity: 'functions', names: 'full' },
    { granularity: 'lines', names: 'short' },
    { granularity: 'addresses', names: 'short' },
  ];

  it.each([
    ['gperf/cxx_demangle.prof', ['gperf/bin/cxx_demangle']],
    ['dwarf/inline4.prof', ['dwarf/bin/inline4']],
    ['dwarf/split.prof', ['dwarf/bin/split', 'dwarf/bin/split.debug']],
    ['diff/workload_a.prof', ['diff/bin/workload']],
  ])('%s with its symbols written in folds to the same frames without them', async (path, bins) => {
    const { loaded, symbols } = await symbolized(path, bins);
    expect(symbols).not.toBeNull();
    for (const spec of SPECS) {
      const app = fold(loaded, { ...spec, symbols }).profile;
      const shown = toFoldedText(app);
      expect(shown).not.toBe(toFoldedText(fold(loaded, spec).profile)); // the symbols name frames
      const raw = resolvedProfile(loaded, { ...spec, symbols });
      const reopened = parse(writeSnapshot(raw), loaded.fileName);
      const again = fold(reopened, spec).profile;
      expect(toFoldedText(again), `${spec.granularity}, ${spec.names} names`).toBe(shown);
      // The same frames, kinds and fields (file, line, address, full names) and all.
      expect(again.frames, `${spec.granularity}, ${spec.names} names`).toEqual(app.frames);
      expect(again.modules).toEqual(app.modules);
      expect(again.meta.extra?.['Symbols from']).toBe(bins[0].split('/').pop());
    }
  });

  it('keeps every sample type and label of a symbolized profile', async () => {
    const { loaded } = await symbolized('pprof/labels/labels.pb.gz', []);
    const raw = parseProfile(writeSnapshot(resolvedProfile(loaded, {})));
    expect(raw.sampleTypes).toEqual(loaded.raw.sampleTypes);
    expect(raw.labels).toEqual(loaded.raw.labels);
    expect(raw.labels!.length).toBeGreaterThan(0);
  });

  describe('damaged', () => {
    const plain = () => gunzipSync(writeSnapshot(load('gperf/tiny.prof').raw));
    const reject = (b: Uint8Array, message: RegExp) => {
      expect(() => parseSnapshot(b)).toThrow(ProfileError);
      expect(() => parseSnapshot(b)).toThrow(message);
    };

    it('cut short', () => {
      const b = plain();
      for (const n of [23, 30, b.length - 1])
        reject(b.subarray(0, n), /damaged Flamelens snapshot: cut short/);
    });

    it('a header that is not JSON, or describes no arrays', () => {
      const b = plain();
      const forged = b.slice();
      forged[25] = 0xff;
      reject(forged, /unreadable header/);
      const head = new TextEncoder().encode('{"raw":{}}');
      const c = new Uint8Array(25 + head.length);
      c.set(b.subarray(0, 21));
      new DataView(c.buffer).setUint32(21, head.length, true);
      c.set(head, 25);
      reject(c, /no array table/);
    });

    it('an index out of range anywhere is caught before the fold sees it', () => {
      const raw = load('gperf/tiny.prof').raw;
      const stackLocs = raw.samples.stackLocs.slice();
      stackLocs[0] = raw.locations.count;
      const bad1 = { ...raw, samples: { ...raw.samples, stackLocs } };
      reject(gunzipSync(writeSnapshot(bad1)), /stack location out of range/);
      const locName = raw.locations.locName.slice();
      locName[0] = raw.strings.length;
      const bad2 = { ...raw, locations: { ...raw.locations, locName } };
      reject(gunzipSync(writeSnapshot(bad2)), /location name out of range/);
      const bad3 = { ...raw, meta: { ...raw.meta, extra: { a: 1 as unknown as string } } };
      reject(gunzipSync(writeSnapshot(bad3)), /bad metadata/);
    });

    it('embedded lines or offsets out of range', () => {
      const raw = load('gperf/tiny.prof').raw;
      const lines = new Map([['401000', [{ name: 'f', file: '/a.c', line: 1 }]]]);
      const header = (r: typeof raw) => {
        const b = gunzipSync(writeSnapshot(r));
        const n = new DataView(b.buffer).getUint32(21, true);
        return { b, json: new TextDecoder().decode(b.subarray(25, 25 + n)) };
      };
      // The file column's index, made one past the names: the same length, so the arrays stay put.
      const { b, json } = header({ ...raw, embeddedLines: lines });
      const names = (JSON.parse(json) as { embedded: { names: string[] } }).embedded.names;
      expect(names).toEqual(['f', '/a.c']);
      const forged = json.replace('"names":["f","/a.c"]', '"names":["f","/"]');
      expect(forged).not.toBe(json);
      const c = b.slice();
      c.set(new TextEncoder().encode(forged.padEnd(json.length)), 25);
      expect(parseSnapshot(c).embeddedLines?.get('401000')).toEqual([{ name: 'f', file: '/', line: 1 }]);
      const offsets = header({ ...raw, embeddedOffsets: new Map([['401000', 16]]) });
      const bad = offsets.json.replace('"keys":["401000"]', '"keys":[4010000]');
      const d = offsets.b.slice();
      d.set(new TextEncoder().encode(bad.padEnd(offsets.json.length)), 25);
      reject(d, /bad symbol table/);
    });

    it('through the importer: a ProfileError with the format named', () => {
      const b = plain();
      expect(() => parseProfile(gzipSync(b.subarray(0, 40)))).toThrow(/damaged Flamelens snapshot/);
    });
  });
});
