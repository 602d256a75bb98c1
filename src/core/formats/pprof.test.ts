import { readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { errorOf } from '../../../test/helpers/raw.ts';
import { foldProfile } from '../model/fold.ts';
import { sampleTypeIndex, withSampleType } from '../model/sample-types.ts';
import { toFoldedText } from '../model/serialize.ts';
import type { RawProfile } from '../types.ts';
import { detectFormat, maybeGunzip, parseProfile } from './detect.ts';
import { looksLikePprof, parsePprof } from './pprof.ts';

const FIX = new URL('../../../test/fixtures/', import.meta.url);
const fixture = (p: string) => new Uint8Array(readFileSync(new URL(p, FIX)));
const text = (p: string) =>
  p.endsWith('.gz')
    ? new TextDecoder().decode(gunzipSync(fixture(p)))
    : readFileSync(new URL(p, FIX), 'utf8');
const list = (dir: string, suffix: string) =>
  readdirSync(new URL(dir, FIX))
    .filter((f) => f.endsWith(suffix))
    .map((f) => f.slice(0, -suffix.length))
    .sort();

/** Folded stacks of a profile → weight, zero weights left out. */
function stacksOf(raw: RawProfile): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of toFoldedText(foldProfile(raw, { fileName: 'x' })).split('\n')) {
    if (line === '') continue;
    const sp = line.lastIndexOf(' ');
    const n = Number(line.slice(sp + 1));
    if (n !== 0) out.set(line.slice(0, sp), n);
  }
  return out;
}

/**
 * pprof_ref.py's fold (`# type/unit` blocks of `stack value`): per sample type, stacks → value.
 * pprof_ref names an address in a mapping without a file `+0x…` (no module) and one without a
 * mapping `?+0x…`; we name both `0x…`, as for any address outside every named mapping.
 */
function refFold(p: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  let cur: Map<string, number> | undefined;
  for (const line of text(p).split('\n')) {
    if (line.startsWith('# ')) {
      cur = new Map();
      out.set(line.slice(2), cur);
    } else if (line !== '' && cur) {
      const sp = line.lastIndexOf(' ');
      const stack = line
        .slice(0, sp)
        .split(';')
        .map((f) => f.replace(/^\??\+0x/, '0x'))
        .join(';');
      cur.set(stack, (cur.get(stack) ?? 0) + Number(line.slice(sp + 1)));
    }
  }
  return out;
}

/** Our fold of every sample type, keyed as pprof_ref.py keys them. */
function oursByType(raw: RawProfile): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  raw.sampleTypes!.forEach((t, i) => {
    out.set(`${t.type}/${t.unit}`, stacksOf(withSampleType(raw, i)));
  });
  return out;
}

// ---- a tiny protobuf encoder for hand-made cases
const varint = (n: bigint | number): number[] => {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
};
const vf = (f: number, n: bigint | number) => [...varint(f << 3), ...varint(n)];
const lf = (f: number, body: number[]) => [...varint((f << 3) | 2), ...varint(body.length), ...body];
const str = (s: string) => lf(6, [...new TextEncoder().encode(s)]);
const pb = (...parts: number[][]) => new Uint8Array(parts.flat());

describe('pprof: detection', () => {
  it('recognises profile.proto, gzipped or not, and nothing else', () => {
    expect(detectFormat(fixture('pprof/corpus/tiny.pb.gz'))).toBe('pprof');
    expect(detectFormat(gunzipSync(fixture('pprof/corpus/tiny.pb.gz')))).toBe('pprof');
    expect(detectFormat(fixture('pprof/go/cpu.pb.gz'))).toBe('pprof');
    expect(detectFormat(fixture('pprof/bad/ok.pb'))).toBe('pprof');
    expect(detectFormat(fixture('gperf/tiny.prof'))).toBe('gperftools');
    expect(detectFormat(fixture('bad/ok_synthetic32_be.prof'))).toBe('gperftools');
    const enc = (s: string) => new TextEncoder().encode(s);
    for (const t of ['main;a 1\n', '\n\nmain;a 1\n', '2 main;a 1\n', 'R;b 3\n', 'b;c 2\n', '\nx\n']) {
      expect(looksLikePprof(enc(t)), JSON.stringify(t)).toBe(false);
    }
    expect(detectFormat(enc('\n\nmain;a 1\n'))).toBe('folded');
    expect(looksLikePprof(fixture('bad/random_bytes.prof'))).toBe(false);
    expect(looksLikePprof(fixture('bad/text_file.prof'))).toBe(false);
    expect(looksLikePprof(new Uint8Array(0))).toBe(false);
  });
});

describe('pprof: the corpus profiles Go pprof wrote', () => {
  for (const name of list('pprof/corpus', '.pb.gz')) {
    it(`${name}: every sample type folds as pprof_ref.py reads it`, () => {
      const raw = parseProfile(fixture(`pprof/corpus/${name}.pb.gz`));
      expect(raw.format).toBe('pprof');
      expect(raw.warnings).toEqual([]);
      expect(raw.adjustCallers).toBe(false);
      const ref = `pprof/corpus/${name}.ref.txt`;
      const refFile = list('pprof/corpus', '.ref.txt.gz').includes(name) ? `${ref}.gz` : ref;
      expect(oursByType(raw)).toEqual(refFold(refFile));
      // gperftools via pprof: [samples/count, cpu/nanoseconds], cpu the default (the last)
      expect(raw.sampleTypes).toEqual([
        { type: 'samples', unit: 'count' },
        { type: 'cpu', unit: 'nanoseconds' },
      ]);
      expect(raw.defaultSampleType).toBe(1);
      expect(raw.meta.period?.type).toEqual({ type: 'cpu', unit: 'nanoseconds' });
      expect(raw.meta.periodUs).toBe(0.001);
      expect(withSampleType(raw, 0).meta.periodUs).toBe(raw.meta.period!.value / 1000);
    });
  }

  it('reads mappings (exact 64-bit addresses), lines (outermost first), drop_frames', () => {
    const raw = parseProfile(fixture('pprof/corpus/tiny.pb.gz'));
    expect(raw.meta.mappings.map((m) => [m.start, m.end, m.offset, m.path])).toEqual([
      [0x556963271000n, 0x556963272000n, 0x1000n, 'bin/tiny'],
      [0x7fb53b579000n, 0x7fb53b6cf000n, 0x26000n, '/usr/lib/x86_64-linux-gnu/libc.so.6'],
    ]);
    expect(raw.meta.dropFrames).toMatch(/ProfileData::Add/);
    expect(raw.locations.count).toBe(12);
    const L = raw.lines!;
    expect(L.start.length).toBe(13);
    expect(raw.strings[L.name[0]]).toBe('spin');
    expect(raw.strings[L.file[0]]).toBe('/opt/flamelens-corpus/src/tiny.c');
    expect(L.line[0]).toBe(5);
    expect(raw.locations.addrHi[0]).toBe(0x5569);
    expect(raw.locations.addrLo[0]).toBe(0x63271155);
  });
});

describe('pprof: a Go program’s own profiles (runtime/pprof)', () => {
  for (const f of ['cpu', 'heap']) {
    it(`${f}: every sample type folds as pprof_ref.py reads it (inlined lines as frames)`, () => {
      const raw = parseProfile(fixture(`pprof/go/${f}.pb.gz`));
      expect(raw.warnings).toEqual([]);
      expect(oursByType(raw)).toEqual(refFold(`pprof/go/${f}.ref.txt`));
    });
  }

  it('cpu: time, duration, period, and inline chains outermost first', () => {
    const raw = parseProfile(fixture('pprof/go/cpu.pb.gz'));
    expect(raw.sampleTypes!.map((t) => t.type)).toEqual(['samples', 'cpu']);
    expect(raw.meta.timeNs).toBeGreaterThan(1.7e18);
    expect(raw.meta.durationNs).toBeGreaterThan(1e8);
    expect(raw.meta.period).toEqual({ value: 10000000, type: { type: 'cpu', unit: 'nanoseconds' } });
    const folded = [...stacksOf(raw).keys()].join('\n');
    expect(folded).toMatch(/main\.sortWork;sort\.Ints/);
    expect(folded).not.toMatch(/sort\.Ints;main\.sortWork/);
  });

  it('heap: four sample types, inuse_space by default, the numeric "bytes" label', () => {
    const raw = parseProfile(fixture('pprof/go/heap.pb.gz'));
    expect(raw.sampleTypes!.map((t) => `${t.type}/${t.unit}`)).toEqual([
      'alloc_objects/count',
      'alloc_space/bytes',
      'inuse_objects/count',
      'inuse_space/bytes',
    ]);
    expect(raw.defaultSampleType).toBe(3);
    expect(raw.samples.weight).toBe(raw.samples.values![3]);
    expect(raw.meta.periodUs).toBe(0);
    const bytes = raw.labels!.find((l) => l.key === 'bytes')!;
    expect(bytes.kind).toBe('number');
    expect(bytes.value.length).toBe(raw.samples.count);
    const present = [...bytes.value].filter((v) => !Number.isNaN(v));
    expect(present.length).toBeGreaterThan(raw.samples.count / 2);
    expect(present.every((v) => v > 0)).toBe(true);
    expect(sampleTypeIndex(raw, 'alloc_space')).toBe(1);
    expect(sampleTypeIndex(raw, 'inuse_objects/count')).toBe(2);
    expect(sampleTypeIndex(raw, '0')).toBe(0);
    expect(errorOf(() => sampleTypeIndex(raw, 'cpu')).message).toMatch(/no sample type "cpu".*alloc_objects/);
  });
});

describe('pprof: hand-encoded files, valid and damaged (fixtures/pprof/bad)', () => {
  const expects: Record<string, { expect: string; offset?: number; message?: string; stacks?: object }> =
    JSON.parse(text('pprof/bad/expect.json'));
  for (const [file, e] of Object.entries(expects)) {
    it(`${file}: ${e.expect}`, () => {
      const bytes = fixture(`pprof/bad/${file}`);
      // Detected as pprof (so the user sees the importer's error), unless not one field is valid.
      expect(detectFormat(bytes)).toBe(file === 'first_field_bad.pb' ? null : 'pprof');
      if (e.expect === 'error') {
        const err = errorOf(() => parsePprof(maybeGunzip(bytes)));
        expect(err.format).toBe('pprof');
        expect(err.message).toMatch(new RegExp(e.message!));
        expect(err.offset).toBe(e.offset);
        return;
      }
      const raw = parseProfile(bytes);
      expect(stacksOf(raw)).toEqual(new Map(Object.entries(e.stacks!)));
      if (e.expect === 'ok') expect(raw.warnings).toEqual([]);
      else {
        expect(raw.warnings[0].offset).toBe(e.offset);
        expect(raw.warnings[0].message).toMatch(new RegExp(e.message!));
      }
    });
  }

  it('ok.pb: labels, lines, mapping, period', () => {
    const raw = parseProfile(fixture('pprof/bad/ok.pb'));
    const thread = raw.labels!.find((l) => l.key === 'thread')!;
    expect(thread.kind).toBe('string');
    expect([...thread.value].map((i) => (i < 0 ? null : raw.strings[i]))).toEqual(['t1', null]);
    expect(raw.meta.mappings).toEqual([{ start: 0x400000n, end: 0x500000n, offset: 0n, path: '/bin/prog' }]);
    expect(raw.meta.period).toEqual({ value: 1, type: { type: 'samples', unit: 'count' } });
    expect(raw.meta.periodUs).toBe(0);
    expect([...raw.locations.hasAddr]).toEqual([1, 1, 1]);
  });
});

describe('pprof: encoding corner cases', () => {
  const base = [
    lf(1, [...vf(1, 1), ...vf(2, 2)]),
    str(''),
    str('samples'),
    str('count'),
    str('f'),
    str('g'),
    lf(5, [...vf(1, 1), ...vf(2, 3)]),
    lf(5, [...vf(1, 2), ...vf(2, 4)]),
  ];

  it('reads unpacked repeated fields and locations defined before their samples', () => {
    const raw = parsePprof(
      pb(
        ...base,
        // location 1: two lines, innermost (g) first as pprof stores them
        lf(4, [...vf(1, 1), ...lf(4, vf(1, 2)), ...lf(4, vf(1, 1))]),
        lf(2, [...vf(1, 1), ...vf(2, 3)]),
        lf(2, [...vf(1, 1), ...vf(2, 4)]),
      ),
    );
    expect(stacksOf(raw)).toEqual(new Map([['f;g', 7]]));
  });

  it('keeps addresses above 2^53 exact and negative values signed', () => {
    const raw = parsePprof(
      pb(
        ...base,
        lf(2, [...lf(1, varint(1)), ...lf(2, varint(-3))]),
        lf(4, [...vf(1, 1), ...vf(3, 0xffffffffff600123n)]),
      ),
    );
    expect(raw.locations.addrHi[0]).toBe(0xffffffff);
    expect(raw.locations.addrLo[0]).toBe(0xff600123);
    expect(stacksOf(raw)).toEqual(new Map([['0xffffffffff600123', -3]]));
  });

  it('never allocates by an id: a location id of 2^64−1 in a tiny file', () => {
    const id = (1n << 64n) - 1n;
    const raw = parsePprof(pb(...base, lf(2, [...lf(1, varint(id)), ...lf(2, varint(1))]), lf(4, vf(1, id))));
    expect(raw.locations.count).toBe(1);
    expect(stacksOf(raw)).toEqual(new Map([['[unknown]', 1]]));
  });

  it('falls back to the last sample type when default_sample_type names none, with a warning', () => {
    const raw = parsePprof(
      pb(...base, lf(2, [...lf(1, varint(1)), ...lf(2, varint(2))]), lf(4, vf(1, 1)), vf(14, 3)),
    );
    expect(raw.defaultSampleType).toBe(0);
    expect(raw.warnings[0].message).toMatch(/default_sample_type "f"/);
  });

  it('reports a missing mapping, a value count that does not match and a bad string table start', () => {
    const raw = parsePprof(
      pb(
        str('x'),
        lf(1, [...vf(1, 1), ...vf(2, 2)]),
        str('samples'),
        str('count'),
        lf(2, [...lf(1, varint(1)), ...lf(2, [...varint(2), ...varint(9)])]),
        lf(4, [...vf(1, 1), ...vf(2, 5), ...vf(3, 0x1000)]),
      ),
    );
    const msgs = raw.warnings.map((w) => w.message).join('\n');
    expect(msgs).toMatch(/empty string/);
    expect(msgs).toMatch(/mapping id that no mapping has/);
    expect(msgs).toMatch(/1 sample does not have one value per sample type/);
    expect(stacksOf(raw)).toEqual(new Map([['0x1000', 2]]));
  });
});
