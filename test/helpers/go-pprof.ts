// Go pprof's outputs as oracles (github.com/google/pprof, which symbolizes through llvm-symbolizer),
// and the rules of its own that stand between a gperftools profile and its stacks, replayed here so
// that tests compare names and weights, not those rules.

const MS_PER: Record<string, number> = { ns: 1e-6, us: 1e-3, ms: 1, s: 1000 };

/**
 * Go pprof -traces text: root-first stacks of frame names (` (inline)` dropped, each name through
 * `rename`) → weight in samples (`period` ms each; Go prints ns, us, ms or s).
 */
export function goTraces(
  text: string,
  period: number,
  rename: (name: string) => string = (n) => n,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const block of text.split(/^-+\+-+$/m).slice(1)) {
    const lines = block.split('\n').filter((l) => l.trim() !== '');
    if (lines.length === 0) continue;
    const m = /^\s*(\d+(?:\.\d+)?)(ns|us|ms|s)\s+(.*)$/.exec(lines[0]);
    if (m === null) throw new Error(`not a -traces block: ${lines[0]}`);
    const frames = [m[3], ...lines.slice(1).map((l) => l.trim())].map((f) =>
      rename(f.replace(/ \(inline\)$/, '')),
    );
    const key = frames.reverse().join(';');
    out.set(key, (out.get(key) ?? 0) + (Number(m[1]) * MS_PER[m[2]]) / period);
  }
  return out;
}

/**
 * The one difference of short names: Go pprof shortens a name it cannot demangle (the DWARF name
 * of an inlined function) by removing its (…) and <…> groups when it looks like C++
 * (internal/symbolizer demangleSingleFunction: looksLikeDemangledCPlusPlus, removeMatching), so
 * the comparator `operator()<Iter, Iter>` becomes `operator` where ours keeps `operator()` (as Go
 * does for a lambda's own `operator()`, which has no <…>). For both sides: `operator()` → `operator`.
 */
export const sameOperator = (name: string): string => name.replace(/operator\(\)$/, 'operator');

/**
 * A gperftools CPU profile's records as Go pprof's legacy reader leaves them (profile/
 * legacy_profile.go, cpuProfile): a second frame whose address is in all records but one in 32
 * is taken for the signal handler's and removed (twice at most), and a second frame repeating the
 * leaf's address is dropped (cleanupDuplicateLocations). Flamelens keeps every frame
 * (docs/pprof-differences.md); this replays Go's rules, not ours. 32- and 64-bit, little-endian.
 */
export function asGoReadsIt(bytes: Uint8Array): Uint8Array {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // 64-bit files: the first header word is 0 and the second (header words) is 3, 8 bytes each.
  const w = v.getBigUint64(0, true) === 0n && v.getBigUint64(8, true) === 3n ? 8 : 4;
  const word = (i: number) => (w === 8 ? v.getBigUint64(i * 8, true) : BigInt(v.getUint32(i * 4, true)));
  const records: { count: bigint; pcs: bigint[] }[] = [];
  const head = 2 + Number(word(1));
  let i = head;
  for (;;) {
    const count = word(i);
    const n = Number(word(i + 1));
    if (count === 0n && n === 1 && word(i + 2) === 0n) break;
    records.push({ count, pcs: Array.from({ length: n }, (_, k) => word(i + 2 + k)) });
    i += 2 + n;
  }
  const margin = Math.floor(records.length / 32);
  for (let iter = 0; iter < 2; iter++) {
    const second = new Map<bigint, number>();
    for (const r of records) if (r.pcs.length > 1) second.set(r.pcs[1], (second.get(r.pcs[1]) ?? 0) + 1);
    const common = [...second].find(([, c]) => c >= records.length - margin);
    if (common === undefined) continue;
    for (const r of records) if (r.pcs.length > 1 && r.pcs[1] === common[0]) r.pcs.splice(1, 1);
  }
  for (const r of records) if (r.pcs.length > 1 && r.pcs[0] === r.pcs[1]) r.pcs.splice(1, 1);
  const words: bigint[] = [];
  for (let k = 0; k < head; k++) words.push(word(k));
  for (const r of records) words.push(r.count, BigInt(r.pcs.length), ...r.pcs);
  const out = new Uint8Array(words.length * w + bytes.length - i * w);
  const o = new DataView(out.buffer);
  words.forEach((x, k) => {
    if (w === 8) o.setBigUint64(k * 8, x, true);
    else o.setUint32(k * 4, Number(x), true);
  });
  out.set(bytes.subarray(i * w), words.length * w);
  return out;
}
