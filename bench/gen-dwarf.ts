// Deterministic large -g C++ binary for the DWARF benchmark (bench/dwarf.ts): TUS translation
// units, each with STL headers, 1500 struct types (all emitted: -fno-eliminate-unused-debug-types,
// each used in a std::map) and 300 functions whose loops inline template chains 3–8 deep
// (deep<N> → step<T, N> → K<N>::f, mix), built with `g++ -O2 -g` (DWARF 5), two compiles at a
// time. With the default 4 units the .debug_* sections total ~98 MB (.debug_info ~38 MB,
// .debug_str ~46 MB); ~4 minutes on 2 cores. The sources depend on the unit number only, and
// -fdebug-prefix-map keeps the output directory out of the DWARF, so the same compiler gives the
// same binary. Not committed (bench/out/ is ignored).
//
//   npx tsx bench/gen-dwarf.ts [OUT_DIR] [TUS]      default bench/out/dwarf, 4

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const STRUCTS = 1500;
const FUNCS = 300;
const TYPES = ['int', 'unsigned long', 'double', 'char', 'std::string', 'short', 'float', 'std::vector<int>'];

/** The source of translation unit t. */
export function unitSource(t: number): string {
  const o: string[] = ['#include <map>', '#include <string>', '#include <vector>', `namespace tu${t} {`];
  for (let k = 0; k < STRUCTS; k++) {
    const mem: string[] = ['  int m0;'];
    for (let j = 1; j < 12; j++) {
      const ty = j === 11 && k > 0 ? `S${k - 1}*` : TYPES[(k * 3 + j + t) % TYPES.length];
      mem.push(`  ${ty} m${j};`);
    }
    o.push(`struct S${k} {\n${mem.join('\n')}\n  int get() const { return m0 + ${k}; }\n};`);
  }
  o.push(
    'template <int N> struct K { static inline unsigned long f(unsigned long x) { return x * (2 * N + 1) + (x >> (N % 13 + 1)); } };',
    'static inline unsigned long mix(unsigned long x) { x ^= x >> 31; x *= 0x9e3779b97f4a7c15UL; return x ^ (x >> 29); }',
    'template <typename T, int N> inline T step(T x) { return static_cast<T>(K<N>::f(mix(x)) ^ N); }',
    'template <int N> inline unsigned long deep(unsigned long x) { return deep<N - 1>(step<unsigned long, N>(x)) + N; }',
    'template <> inline unsigned long deep<0>(unsigned long x) { return mix(x); }',
  );
  for (let i = 0; i < FUNCS; i++) {
    const s = (i * 7 + t) % STRUCTS;
    o.push(
      `__attribute__((noinline)) unsigned long fn_${i}(std::vector<unsigned long>& v, std::map<int, S${s}>& m) {`,
      `  unsigned long s = ${i} + m[${i}].get();`,
      `  for (auto& x : v) { s += deep<${(i % 6) + 3}>(x); x = step<unsigned, ${(i * 7 + t) % 89}>(s); }`,
      '  return s;',
      '}',
    );
  }
  o.push('}');
  o.push(`unsigned long run_tu${t}(std::vector<unsigned long>& v) {`, '  unsigned long s = 0;');
  for (let i = 0; i < FUNCS; i++) {
    o.push(`  { std::map<int, tu${t}::S${(i * 7 + t) % STRUCTS}> m; s += tu${t}::fn_${i}(v, m); }`);
  }
  o.push('  return s;', '}');
  return `${o.join('\n')}\n`;
}

function mainSource(tus: number): string {
  const o = ['#include <cstdio>', '#include <vector>'];
  for (let t = 0; t < tus; t++) o.push(`unsigned long run_tu${t}(std::vector<unsigned long>& v);`);
  o.push('int main() {', '  std::vector<unsigned long> v(64, 3);', '  unsigned long s = 0;');
  for (let t = 0; t < tus; t++) o.push(`  s += run_tu${t}(v);`);
  o.push('  std::printf("%lu\\n", s);', '  return 0;', '}');
  return `${o.join('\n')}\n`;
}

function compile(dir: string, src: string): Promise<void> {
  return new Promise((ok, fail) => {
    const args = ['-O2', '-g', '-fno-eliminate-unused-debug-types', `-fdebug-prefix-map=${dir}=/bench`];
    const p = spawn('g++', [...args, '-c', src, '-o', src.replace(/\.cpp$/, '.o')], {
      cwd: dir,
      stdio: 'inherit',
    });
    p.on('exit', (code) => (code === 0 ? ok() : fail(new Error(`g++ ${src} failed (${code})`))));
  });
}

export async function generateDwarfBench(outDir: string, tus: number): Promise<string> {
  const dir = resolve(outDir);
  mkdirSync(dir, { recursive: true });
  const sources: string[] = [];
  for (let t = 0; t < tus; t++) {
    const f = `tu${t}.cpp`;
    writeFileSync(join(dir, f), unitSource(t));
    sources.push(f);
  }
  writeFileSync(join(dir, 'main.cpp'), mainSource(tus));
  sources.push('main.cpp');
  // Two compiles at a time (shared machines); objects already built are kept.
  const todo = sources.filter((s) => !existsSync(join(dir, s.replace(/\.cpp$/, '.o'))));
  const worker = async () => {
    for (let s = todo.shift(); s !== undefined; s = todo.shift()) await compile(dir, s);
  };
  await Promise.all([worker(), worker()]);
  const bin = join(dir, 'dwarf-bench');
  const objs = sources.map((s) => s.replace(/\.cpp$/, '.o'));
  const r = spawnSync('g++', ['-o', bin, ...objs], { cwd: dir, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('link failed');
  return bin;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = process.argv[2] ?? 'bench/out/dwarf';
  const tus = Number(process.argv[3] ?? 4);
  const t0 = performance.now();
  const bin = await generateDwarfBench(out, tus);
  const sizes = spawnSync('size', ['-A', bin], { encoding: 'utf8' }).stdout;
  let debug = 0;
  for (const m of sizes.matchAll(/^(\.debug_\w+)\s+(\d+)/gm)) debug += Number(m[2]);
  console.log(
    `${bin}: ${(debug / 1e6).toFixed(1)} MB of .debug_* in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
}
