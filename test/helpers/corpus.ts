// The corpus's gperftools profiles (../shared/corpus/gperf, copied under test/fixtures/gperf), by name.
import { mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
export const CORPUS_PROFILES = [
  'tiny',
  'tiny_preload',
  'tiny_f1000',
  'tiny32',
  'cxx_demangle',
  'cxx_demangle32',
  'deep_recursion',
  'deep_recursion32',
  'threads',
  'threads_ptt',
  'shlib',
  'big_synth_small',
];

/**
 * A copy of the machine the corpus profiles were recorded on, under `dir`, made of symlinks: its
 * /usr (test/fixtures/sysroot/usr) and the corpus programs where they ran (/opt/flamelens-corpus/bin).
 * For `flamelens bundle --root` and the shell script's ROOT. Returns the root.
 */
export function corpusMachine(dir: string): string {
  const fix = resolve('test/fixtures');
  const root = join(dir, 'root');
  mkdirSync(join(root, 'opt/flamelens-corpus/bin'), { recursive: true });
  symlinkSync(join(fix, 'sysroot/usr'), join(root, 'usr'));
  for (const f of readdirSync(join(fix, 'gperf/bin')))
    symlinkSync(join(fix, 'gperf/bin', f), join(root, 'opt/flamelens-corpus/bin', f));
  return root;
}
