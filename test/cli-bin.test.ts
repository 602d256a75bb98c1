// The built command line (dist-cli/flamelens.mjs, what the package's `bin` names) gives what the
// CLI gives in-process: folded stacks, demangled symbols (its wasm travels beside it), exit codes.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli';

const BIN = 'dist-cli/flamelens.mjs';
const PROF = 'test/fixtures/gperf/cxx_demangle.prof';
const ELF = 'test/fixtures/gperf/bin/cxx_demangle';

beforeAll(() => {
  execFileSync('node', ['scripts/build-cli.mjs'], { stdio: 'inherit' });
}, 60_000);

describe('the built flamelens binary', () => {
  it('folds and symbolizes as the in-process CLI does', async () => {
    const args = ['fold', PROF, '--binary', ELF];
    const out = execFileSync('node', [BIN, ...args], { encoding: 'utf8' });
    expect(out).toBe((await runCli(args)).out);
    // Short names by default, as pprof; full ones with --full-names.
    expect(out).toContain(';(anonymous namespace)::Circle::area 72\n');
    const full = execFileSync('node', [BIN, ...args, '--full-names'], { encoding: 'utf8' });
    expect(full).toContain('(anonymous namespace)::Circle::area(int) const');
  });

  it('disassembles with the Capstone module and wasm copied beside it, and prints the call graph', async () => {
    const args = ['disasm', 'Circle::area', PROF, '--binary', ELF];
    const out = execFileSync('node', [BIN, ...args], { encoding: 'utf8' });
    expect(out).toBe((await runCli(args)).out);
    expect(out).toContain('ROUTINE ======================== (anonymous namespace)::Circle::area(int) const');
    const dot = ['dot', 'test/fixtures/pprof/corpus/tiny.pb.gz'];
    expect(execFileSync('node', [BIN, ...dot], { encoding: 'utf8' })).toBe((await runCli(dot)).out);
  });

  it('runs through a symlink, as npm bin links and npx start it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'flamelens-bin-'));
    try {
      const link = join(dir, 'flamelens');
      symlinkSync(join(process.cwd(), BIN), link);
      const r = spawnSync('node', [link, 'info', PROF], { encoding: 'utf8' });
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout).format).toBe('gperftools');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 1 with the message for a bad file, 2 for bad usage', () => {
    const bad = spawnSync('node', [BIN, 'fold', 'test/fixtures/bad/empty.prof'], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/empty file \(at byte 0\)/);
    expect(spawnSync('node', [BIN, 'frobnicate'], { encoding: 'utf8' }).status).toBe(2);
  });
});
