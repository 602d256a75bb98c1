// Deterministic large -g C++ binary for the DWARF benchmark (bench/dwarf.ts): TUS translation
// units, each with STL headers, 1500 struct types (all emitted: -fno-eliminate-unused-debug-types,
// each used in a std::map) and 300 functions whose loops inline template chains 3–8 deep
// (deep<N> → step<T, N> → K<N>::f, mix), built with `g++ -O2 -g` (DWARF 5), two compiles at a
// time. With the default 4 units the .debug_* sections total ~98 MB (.debug_info ~38 MB,
// .debug_str ~46 MB); ~4 minutes on 2 cores. The sources depend on the unit number only, and
// -fdebug-prefix-map keeps the output directory out of the DWARF, so the same compiler gives the
// same binary. Not committed (bench/out/ is ignored).
//
// `ensureDwarfBench` keeps the build in bench/out/dwarf-v<GENERATOR_VERSION>-<TUS>tu with a stamp
// (generator version, units, compiler): later runs reuse it, a new generator version or compiler
// builds afresh. Bump GENERATOR_VERSION whenever the sources or flags change.
//
//   npx tsx bench/gen-dwarf.ts [TUS]      default 4: builds (or finds) the cached binary

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The version of what this file generates: part of the cache's directory name. */
export const GENERATOR_VERSION = 1;
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

function compilerVersion(): string {
  const r = spawnSync('g++', ['--version'], { encoding: 'utf8' });
  return (r.stdout ?? '').split('\n')[0] ?? '';
}

/** The cache directory of a build with `tus` units, under `outRoot`. */
export function dwarfBenchDir(outRoot = 'bench/out', tus = 4): string {
  return join(outRoot, `dwarf-v${GENERATOR_VERSION}-${tus}tu`);
}

/**
 * The large -g binary, built once into dwarfBenchDir: reused while its stamp (generator version,
 * units, compiler) matches, else built afresh (its objects removed first). The stamp is written
 * after a successful link, so an interrupted build is redone.
 */
export async function ensureDwarfBench(
  outRoot = 'bench/out',
  tus = 4,
  log: (m: string) => void = console.log,
): Promise<{ dir: string; bin: string; built: boolean }> {
  const dir = dwarfBenchDir(outRoot, tus);
  const bin = join(dir, 'dwarf-bench');
  const stamp = JSON.stringify({ version: GENERATOR_VERSION, tus, compiler: compilerVersion() });
  const stampFile = join(dir, 'stamp.json');
  if (existsSync(bin) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp)
    return { dir, bin, built: false };
  log(`building ${bin} (a large -g C++ program, ${tus} units; a few minutes, once) …`);
  if (existsSync(dir))
    for (const f of readdirSync(dir)) if (f.endsWith('.o') || f === 'stamp.json') rmSync(join(dir, f));
  await generateDwarfBench(dir, tus);
  writeFileSync(stampFile, stamp);
  return { dir, bin, built: true };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const tus = Number(process.argv[2] ?? 4);
  const t0 = performance.now();
  const { bin, built } = await ensureDwarfBench('bench/out', tus);
  const sizes = spawnSync('size', ['-A', bin], { encoding: 'utf8' }).stdout;
  let debug = 0;
  for (const m of sizes.matchAll(/^(\.debug_\w+)\s+(\d+)/gm)) debug += Number(m[2]);
  console.log(
    `${bin}: ${(debug / 1e6).toFixed(1)} MB of .debug_*${built ? ` in ${((performance.now() - t0) / 1000).toFixed(0)} s` : ' (cached)'}`,
  );
}
