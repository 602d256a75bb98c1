import { readFileSync } from 'node:fs';
import { writeSnapshot } from './src/core/formats/snapshot';
import { parse, resolvedProfile, symbolize } from './src/core/pipeline';

const [p, ...bins] = process.argv.slice(2);
const loaded = parse(new Uint8Array(readFileSync(p)), p);
const symbols = symbolize(
  loaded.raw,
  bins.map((b) => ({ name: b.split('/').pop()!, bytes: new Uint8Array(readFileSync(b)) })),
  { mangled: false },
);
const t0 = performance.now();
const snap = writeSnapshot(resolvedProfile(loaded, { symbols }));
console.log(
  'snapshot',
  snap.length,
  'base64',
  Math.ceil(snap.length / 3) * 4,
  'ms',
  Math.round(performance.now() - t0),
);
