// The built command line (dist-cli/flamelens.mjs, what the package's `bin` names) gives what the
// CLI gives in-process: folded stacks, demangled symbols (its wasm travels beside it), exit codes.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli';

const BIN = 'dist-cli/flamelens.mjs';
const PROF = 'test/fixtures/gperf/cxx_demangle.prof';
const ELF = 'test/fixtures/gperf/bin/cxx_demangle';
/** A profile whose folded text (1.1 MB one frame per address) is many times what a pipe holds. */
const BIG = 'test/fixtures/pprof/corpus/big_synth_small.pb.gz';

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

  it('a pipe closed early (`fold big.pb.gz | head -1`) ends quietly with status 0', async () => {
    const whole = await runCli(['fold', '--addresses', BIG]);
    expect(whole.out.length).toBeGreaterThan(1 << 20);
    const r = spawnSync('bash', ['-c', `set -o pipefail; node ${BIN} fold --addresses ${BIG} | head -1`], {
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(whole.out.slice(0, whole.out.indexOf('\n') + 1));
  });

  it('stops writing when its reader goes, and exits 0 without a word', async () => {
    const child = spawn('node', [BIN, 'fold', '--addresses', BIG], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    let read = 0;
    const status = await new Promise<number | null>((done) => {
      child.stdout.on('data', (d: Buffer) => {
        read += d.length;
        // The first chunk read, the reader leaves.
        child.stdout.destroy();
      });
      child.on('close', (code) => done(code));
    });
    expect(err).toBe('');
    expect(status).toBe(0);
    expect(read).toBeLessThan(1 << 20);
  });

  it('reads a profile piped to it as `-`', async () => {
    const args = ['fold', '-', '--binary', ELF];
    const r = spawnSync('node', [BIN, ...args], { input: readFileSync(PROF), encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe((await runCli(['fold', PROF, '--binary', ELF])).out);
  });
});
