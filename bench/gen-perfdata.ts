// A real perf.data of about MB megabytes for the benchmarks: bench/perfdata-prog.c (phases over
// time, threads named by what they do, call chains 6–30 deep) built with frame pointers and
// recorded by `perf record -F 20000 -g` for as long as it takes to write that much (a first short
// recording measures the rate), then `perf script` of it: the same recording as text, for
// speedscope. Needs gcc and linux-perf (perf_event_paranoid low enough, or root); the files are
// kept in bench/out and made again only when missing. Each recording keeps the program it recorded
// (its build-id is the recording's: a program built again elsewhere, in another directory, has
// another one, and would not symbolize it).
//
//   npx tsx bench/gen-perfdata.ts [MB]     (default 200) → bench/out/perfdata-MBmb.data, .perf.txt, .prog

import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const OUT = 'bench/out';

/** A recording, its perf script text, and the program it recorded (drop it to symbolize the profile). */
export const perfDataPaths = (mb: number) => ({
  data: `${OUT}/perfdata-${mb}mb.data`,
  text: `${OUT}/perfdata-${mb}mb.perf.txt`,
  prog: `${OUT}/perfdata-${mb}mb.prog`,
});

function need(tool: string, args: string[]): void {
  try {
    execFileSync(tool, args, { stdio: 'ignore' });
  } catch {
    throw new Error(
      `the perf.data benchmark records a program: it needs ${tool} (${[tool, ...args].join(' ')} failed)`,
    );
  }
}

/** Records `seconds` of `prog` into `file` (perf's build-id cache kept out of $HOME). */
function record(prog: string, file: string, seconds: number, home: string): number {
  execFileSync('perf', ['record', '-q', '-N', '-F', '20000', '-g', '-o', file, '--', prog, String(seconds)], {
    stdio: 'ignore',
    env: { ...process.env, HOME: home },
  });
  return statSync(file).size;
}

/** Makes the recording, its text and its program when one is missing; returns their paths. */
export function ensurePerfData(mb: number): ReturnType<typeof perfDataPaths> {
  const paths = perfDataPaths(mb);
  if (existsSync(paths.data) && existsSync(paths.text) && existsSync(paths.prog)) return paths;
  need('gcc', ['--version']);
  need('perf', ['--version']);
  mkdirSync(OUT, { recursive: true });
  execFileSync('gcc', [
    '-O1',
    '-g',
    '-fno-omit-frame-pointer',
    '-mno-omit-leaf-frame-pointer',
    '-fno-optimize-sibling-calls',
    '-pthread',
    '-o',
    paths.prog,
    'bench/perfdata-prog.c',
  ]);
  const home = mkdtempSync(join(tmpdir(), 'flamelens-perf-'));
  try {
    const want = mb * 1024 * 1024;
    // the rate this machine records at, then long enough for the size
    const rate = record(paths.prog, paths.data, 2, home) / 2;
    let seconds = Math.max(2, Math.ceil((want / rate) * 1.05));
    for (let tries = 0; tries < 3; tries++) {
      console.log(`recording ${seconds} s of ${paths.prog} into ${paths.data} …`);
      const size = record(paths.prog, paths.data, seconds, home);
      if (size >= want * 0.95) break;
      seconds = Math.ceil(seconds * (want / size) * 1.05);
    }
    // perf keeps the file it replaced
    rmSync(`${paths.data}.old`, { force: true });
    console.log(`perf script → ${paths.text} …`);
    const fd = openSync(paths.text, 'w');
    try {
      execFileSync('perf', ['script', '-i', paths.data], {
        stdio: ['ignore', fd, 'ignore'],
        env: { ...process.env, HOME: home },
      });
    } finally {
      closeSync(fd);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  return paths;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const mb = Number(process.argv[2] ?? 200);
  const p = ensurePerfData(mb);
  for (const f of [p.data, p.text, p.prog]) console.log(`${f}: ${statSync(f).size} bytes`);
}
