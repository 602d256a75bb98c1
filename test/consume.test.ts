// The worker frees a profile's bytes once parsed (WorkerSession.drop with `consume` transfers the
// buffer away, so that a busy worker need not collect it): that is only right if no parsed profile
// keeps a view of them. For every format, on real files: the parsed profile (and the folded one)
// hold no view of the file's buffer.

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { streamingParse } from '../src/core/formats/detect';
import { writeSnapshot } from '../src/core/formats/snapshot';
import { fold, parse } from '../src/core/pipeline';

const FIXTURES = [
  'gperf/cxx_demangle.prof',
  'gperf/tiny32.prof',
  'pprof/go/cpu.pb.gz',
  'pprof/go/heap.pb.gz',
  'pprof/corpus/tiny.pb.gz',
  'perf/mixed.perf.txt',
  'heap/allocs.0001.heap',
  'heap/synthetic-v2.heap',
  'dcpi/valid_many_chunks.dcpi',
  'folded/simple.folded',
  'upstream/cppbench.cpu',
];

/** Every ArrayBuffer reachable from `root` through objects, arrays, maps and typed arrays. */
function buffersOf(root: unknown): Set<ArrayBufferLike> {
  const out = new Set<ArrayBufferLike>();
  const seen = new Set<object>();
  const todo: unknown[] = [root];
  while (todo.length > 0) {
    const x = todo.pop();
    if (x === null || typeof x !== 'object' || seen.has(x)) continue;
    seen.add(x);
    if (ArrayBuffer.isView(x)) out.add(x.buffer);
    else if (x instanceof ArrayBuffer) out.add(x);
    else if (x instanceof Map) for (const [k, v] of x) todo.push(k, v);
    else for (const v of Object.values(x)) todo.push(v);
  }
  return out;
}

describe('a parsed profile holds no view of the file it was parsed from', () => {
  const files: [string, Uint8Array][] = FIXTURES.map((f) => [
    f,
    new Uint8Array(readFileSync(`test/fixtures/${f}`)),
  ]);
  // A report's snapshot too (its own format), and a pprof file not gzipped (parsed in place).
  const cxx = files[0][1];
  files.push(['snapshot of cxx_demangle', writeSnapshot(parse(cxx.slice(), 'cxx_demangle.prof').raw)]);
  files.push([
    'pprof/go/cpu.pb, gunzipped',
    gunzipSync(new Uint8Array(readFileSync('test/fixtures/pprof/go/cpu.pb.gz'))),
  ]);
  for (const [name, bytes] of files) {
    it(name, () => {
      const loaded = parse(bytes, name, { granularity: 'addresses' });
      const { profile } = fold(loaded);
      const held = buffersOf([loaded.raw, profile]);
      expect(held.has(bytes.buffer)).toBe(false);
    });
  }
  it('a gperftools profile parsed while read', () => {
    const stream = streamingParse(cxx, cxx.length)!;
    stream.advance(cxx.length);
    const loaded = parse(cxx, 'cxx_demangle.prof', { stream });
    expect(buffersOf([loaded.raw, fold(loaded).profile]).has(cxx.buffer)).toBe(false);
  });
});
