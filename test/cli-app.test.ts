// The CLI and the app answer alike: `flamelens fold` (files read from disk, --binary, --granularity)
// against the app's folded export of the same files dropped together, as the worker opens a drop
// (worker/folder.ts dropFiles: the files as Blobs, read by the worker's reader, into the analysis
// seam) and exports the view (the Export menu's "Folded stacks"), on every corpus profile at each
// granularity, with the mapped objects and their separate debug files (found by build-id) given.
// Needs python3 and binutils (readelf) for the check script's list of files.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AnalysisSession } from '../src/core/analysis/session';
import type { Granularity } from '../src/core/types';
import { DEFAULT_VIEW, workerViewOf } from '../src/core/view/schema';
import { dropFiles } from '../src/worker/folder';
import { runCli } from './helpers/cli';
import { CORPUS_PROFILES } from './helpers/corpus';

const here = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
const GPERF = here('./fixtures/gperf/');
const CHECKS = here('./checks/');

/** The ELF files (mapped objects + debug files by build-id) the check script finds for a profile. */
function elfFiles(profile: string): string[] {
  const out = execFileSync('python3', [join(CHECKS, 'symbol_fidelity.py'), 'binaries', profile], {
    encoding: 'utf8',
  });
  return out.split('\n').filter((l) => l !== '');
}

/** The app's folded export of the files dropped together, shown at `granularity`. */
async function appFolded(paths: readonly string[], granularity: Granularity): Promise<string> {
  const session = new AnalysisSession();
  const files = paths.map((p) => ({ name: basename(p), data: new Blob([readFileSync(p)]) }));
  const view = workerViewOf({ ...DEFAULT_VIEW, granularity });
  await dropFiles(session, files, view, 'main', () => {});
  return session.foldedParts([]).join('');
}

const GRANULARITIES: Granularity[] = ['functions', 'lines', 'addresses'];

describe('the CLI and the app give the same folded stacks for the same files and view', () => {
  for (const name of CORPUS_PROFILES) {
    it(`${name}, at functions, lines and addresses`, async () => {
      const prof = join(GPERF, `${name}.prof`);
      const elfs = elfFiles(prof);
      expect(elfs.length).toBeGreaterThan(0);
      for (const granularity of GRANULARITIES) {
        const cli = await runCli([
          'fold',
          prof,
          ...elfs.flatMap((f) => ['--binary', f]),
          '--granularity',
          granularity,
        ]);
        expect(cli.code, cli.err).toBe(0);
        const app = await appFolded([prof, ...elfs], granularity);
        expect(app.length, `${name} at ${granularity}`).toBeGreaterThan(0);
        expect(cli.out, `${name} at ${granularity}`).toBe(app);
      }
    }, 60_000);
  }

  it('the default fold reads DWARF as the app does: inlined functions are frames of their own', async () => {
    const prof = join(GPERF, 'cxx_demangle.prof');
    const elfs = elfFiles(prof);
    const bins = elfs.flatMap((f) => ['--binary', f]);
    const withInlines = await runCli(['fold', prof, ...bins]);
    const without = await runCli(['fold', prof, ...bins, '--noinlines']);
    const frames = (text: string) =>
      new Set(text.split('\n').flatMap((l) => l.slice(0, l.lastIndexOf(' ')).split(';')));
    const inlined = [...frames(withInlines.out)].filter((f) => !frames(without.out).has(f));
    // Functions only DWARF knows were inlined (std::sort's helpers, operators) become frames.
    expect(inlined.length).toBeGreaterThan(0);
    const total = (text: string) =>
      text
        .trim()
        .split('\n')
        .reduce((t, l) => t + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    expect(total(withInlines.out)).toBe(total(without.out));
  });
});
