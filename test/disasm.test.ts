// Disassembly against oracles, from fixtures only (fixtures/disasm, made by its make_fixtures.sh):
//  1. x86-64: every function of the corpus binaries has the instructions `objdump -d
//     --no-show-raw-insn` lists, at the same addresses with the same mnemonics (AT&T, and Intel
//     against `-M intel`), after the spelling differences listed in SAME_MNEMONIC.
//  2. AArch64: the same against aarch64-linux-gnu-objdump for AArch64 builds of corpus programs.
//  3. Per-instruction flat counts equal the leaf samples at each address as the corpus's
//     independent decoder (decode_gperf.py) counts them, on the 64-bit corpus profiles.

import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { disasmText, nodeDisassembler } from '../src/cli/disasm.ts';
import { nodeDemangler } from '../src/cli/open.ts';
import {
  archOf,
  countSamples,
  disassembleFunction,
  type FunctionListing,
  findFunctions,
  mappingsOf,
  namedFunction,
} from '../src/core/disasm/disasm.ts';
import type { Disassembler, Syntax } from '../src/core/disasm/engine.ts';
import { listingsFromJson, listingsToJson } from '../src/core/disasm/listing-json.ts';
import { disasmListings } from '../src/core/disasm/listings.ts';
import { parse } from '../src/core/pipeline.ts';
import { type ElfFile, readElf } from '../src/core/symbols/elf.ts';
import { shortFunctionName } from '../src/core/text/names.ts';
import { runCli } from './helpers/cli.ts';

const here = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
const D = here('./fixtures/disasm/');
const BIN = here('./fixtures/gperf/bin/');
const GPERF = here('./fixtures/gperf/');
const read = (p: string) => new Uint8Array(readFileSync(p));

let engine: Disassembler;
beforeAll(async () => {
  engine = await nodeDisassembler();
});

/** objdump's listing: per function start address, its name and [address, text] pairs. */
function readObjdump(path: string): Map<bigint, { name: string; insns: [bigint, string][] }> {
  const text = new TextDecoder().decode(gunzipSync(read(path)));
  const out = new Map<bigint, { name: string; insns: [bigint, string][] }>();
  let cur: [bigint, string][] | null = null;
  for (const line of text.split('\n')) {
    const f = /^([0-9a-f]+) <(.+)>:$/.exec(line);
    if (f) {
      cur = [];
      out.set(BigInt(`0x${f[1]}`), { name: f[2], insns: cur });
      continue;
    }
    const i = /^ +([0-9a-f]+):\t(.*)$/.exec(line);
    if (i && cur) cur.push([BigInt(`0x${i[1]}`), i[2]]);
  }
  return out;
}

const X86_PREFIXES = new Set([
  'cs',
  'ds',
  'es',
  'ss',
  'fs',
  'gs',
  'data16',
  'addr32',
  'rex',
  'rex.W',
  'rex.B',
  'rex.WB',
]);
const AARCH64_ALIASES: Record<string, string> = {
  'b.cs': 'b.hs',
  'b.cc': 'b.lo',
  uxtl: 'ushll',
  sxtl: 'sshll',
};

/**
 * The same instruction, spelled by objdump (`text`, its whole instruction text) and by Capstone
 * (`mnemonic`, `operands`). What differs in spelling only:
 *  - x86 AT&T: Capstone always writes the operand size suffix (`movq`), objdump only where no
 *    register says the size (`mov %rsp,%rbp`);
 *  - x86: objdump writes redundant segment, data16 and REX prefixes as words of their own
 *    (`cs nopw 0x0(%rax,%rax,1)`), Capstone folds them; `xchg %ax,%ax` (66 90) is Capstone's `nop`;
 *    `fucomip`/`fcomip` are Capstone's `fucompi`/`fcompi`;
 *  - AArch64: the condition aliases `b.cs`/`b.hs`, `b.cc`/`b.lo`, and `uxtl`/`ushll`, `sxtl`/`sshll`.
 */
function sameMnemonic(arch: string, text: string, mnemonic: string, operands: string): boolean {
  const words = text.split(/\s+/).filter((w) => w !== '');
  if (arch === 'aarch64') return words[0] === mnemonic || AARCH64_ALIASES[words[0]] === mnemonic;
  while (words.length > 1 && X86_PREFIXES.has(words[0])) words.shift();
  // Capstone keeps lock/rep/bnd/notrack prefixes in its mnemonic: compare the words.
  const capWords = mnemonic.split(' ');
  const od = words.slice(0, capWords.length);
  if (od.length !== capWords.length) return false;
  return capWords.every((c, k) => {
    const o = od[k];
    if (c === o || c === `${o}b` || c === `${o}w` || c === `${o}l` || c === `${o}q`) return true;
    if (o === 'xchg' && c === 'nop' && /^%?ax,\s*%?ax$/.test(operands.replace(/\s/g, ''))) return true;
    if (o === 'xchg' && c.startsWith('nop')) return /ax/.test(words.slice(1).join(' '));
    return (o === 'fucomip' && c === 'fucompi') || (o === 'fcomip' && c === 'fcompi');
  });
}

interface Compared {
  functions: number;
  instructions: number;
  mismatches: string[];
}

function compareWithObjdump(elf: ElfFile, bytes: Uint8Array, objdump: string, syntax: Syntax): Compared {
  const want = readObjdump(objdump);
  const arch = archOf(elf);
  const r: Compared = { functions: 0, instructions: 0, mismatches: [] };
  for (const sym of findFunctions(elf, /.*/)) {
    const od = want.get(sym.start);
    if (!od || od.name.replace(/@.*$/, '') !== sym.rawName) continue;
    const l = disassembleFunction(engine, elf, bytes, sym, { syntax });
    // objdump runs on to the next symbol (padding included): compare within the symbol's range.
    const expected = od.insns.filter(([a]) => a < sym.end);
    r.functions++;
    if (l.instructions.map((i) => i.address).join() !== expected.map(([a]) => a).join()) {
      r.mismatches.push(`${sym.name}: addresses differ`);
      continue;
    }
    l.instructions.forEach((ins, k) => {
      r.instructions++;
      if (!sameMnemonic(arch, expected[k][1], ins.mnemonic, ins.operands))
        r.mismatches.push(
          `${sym.name} ${ins.addressText}: objdump '${expected[k][1]}', ours '${ins.mnemonic} ${ins.operands}'`,
        );
    });
  }
  return r;
}

describe('instructions = objdump -d', () => {
  const x86 = readdirSync(`${D}x86-64`)
    .filter((f) => f.endsWith('.objdump.txt.gz'))
    .map((f) => f.replace('.objdump.txt.gz', ''));
  for (const name of x86) {
    for (const syntax of ['att', 'intel'] as const) {
      it(`x86-64 ${name} (${syntax}): the same addresses and mnemonics in every function`, () => {
        const bytes = read(`${BIN}${name}`);
        const elf = readElf(bytes, name);
        const file = syntax === 'att' ? `${name}.objdump.txt.gz` : `${name}.objdump-intel.txt.gz`;
        const r = compareWithObjdump(elf, bytes, `${D}x86-64/${file}`, syntax);
        expect(r.mismatches).toEqual([]);
        expect(r.functions).toBeGreaterThanOrEqual(3);
        expect(r.instructions).toBeGreaterThan(20);
      });
    }
  }
  for (const name of ['tiny', 'deep_recursion', 'big_synth']) {
    it(`AArch64 ${name}: the same addresses and mnemonics in every function`, () => {
      const bytes = read(`${D}aarch64/${name}`);
      const elf = readElf(bytes, name);
      expect(archOf(elf)).toBe('aarch64');
      const r = compareWithObjdump(elf, bytes, `${D}aarch64/${name}.objdump.txt.gz`, 'att');
      expect(r.mismatches).toEqual([]);
      expect(r.functions).toBeGreaterThanOrEqual(3);
    });
  }

  it("labels every direct jump's and call's target as objdump -C does, a PLT stub as `name@plt`", async () => {
    // Demangled, as the Assembly tab shows them (objdump's fixtures are not: their names are
    // demangled here). Between aliases at one address objdump and pprof choose differently
    // (`…D1Ev`, `…D2Ev`): demangled, they are one name.
    const demangle = await nodeDemangler();
    const objdumpLabel = (label: string) => {
      const m = /^(.*?)((?:@plt)?(?:\+0x[0-9a-f]+)?)$/.exec(label)!;
      return `${demangle(m[1])}${m[2]}`;
    };
    const files: [string, string, string][] = [
      ...readdirSync(`${D}x86-64`)
        .filter((f) => f.endsWith('.objdump.txt.gz'))
        .map((f): [string, string, string] => {
          const name = f.replace('.objdump.txt.gz', '');
          return [name, `${BIN}${name}`, `${D}x86-64/${f}`];
        }),
      ...['tiny', 'deep_recursion', 'big_synth'].map((n): [string, string, string] => [
        `aarch64 ${n}`,
        `${D}aarch64/${n}`,
        `${D}aarch64/${n}.objdump.txt.gz`,
      ]),
    ];
    let plt = 0;
    let labels = 0;
    for (const [name, bin, objdump] of files) {
      const bytes = read(bin);
      const elf = readElf(bytes, name);
      const want = readObjdump(objdump);
      const mismatches: string[] = [];
      for (const sym of findFunctions(elf, /.*/)) {
        const od = want.get(sym.start);
        if (!od || od.name.replace(/@.*$/, '') !== sym.rawName) continue;
        const byAddr = new Map(od.insns);
        for (const ins of disassembleFunction(engine, elf, bytes, sym, { demangle }).instructions) {
          if (ins.target === undefined) continue;
          const raw = /<([^>]+)>(?:\s+\/\/.*)?$/.exec(byAddr.get(ins.address) ?? '')?.[1];
          const label = raw === undefined ? undefined : objdumpLabel(raw);
          if (label?.endsWith('@plt')) plt++;
          if (label !== undefined) labels++;
          if (label !== ins.targetLabel)
            mismatches.push(`${name} ${ins.addressText}: objdump <${label}>, ours <${ins.targetLabel}>`);
        }
      }
      expect(mismatches).toEqual([]);
    }
    expect(plt).toBeGreaterThan(100);
    expect(labels).toBeGreaterThan(1000);
  });

  it("names the PLT's stubs as objdump does: lazy, .plt.got, .plt.sec, IRELATIVE; x86-64, i386, AArch64", () => {
    const files: [string, string][] = [
      ['cxx_demangle', `${BIN}cxx_demangle`],
      ['cxx_demangle32', `${BIN}cxx_demangle32`],
      ['tiny32', `${BIN}tiny32`],
      ['shlib_main', `${BIN}shlib_main`],
      ['libc-x86_64', here('./fixtures/sysroot/usr/lib/x86_64-linux-gnu/libc.so.6')],
      ['libc-i386', here('./fixtures/sysroot/usr/lib/i386-linux-gnu/libc.so.6')],
      ['aarch64-tiny', `${D}aarch64/tiny`],
      ['aarch64-big_synth', `${D}aarch64/big_synth`],
    ];
    for (const [name, bin] of files) {
      const want = readFileSync(`${D}plt/${name}.plt.txt`, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.replace(/^0+(?=[0-9a-f])/, '').replace(/:$/, ''));
      const elf = readElf(read(bin), name);
      const got = (elf.plt ?? []).map((p) => `${p.start.toString(16)} <${p.name}@plt>`);
      expect(got, name).toEqual(want);
    }
  });

  it('resolves direct jumps and calls to addresses and labels, as objdump prints them', () => {
    const bytes = read(`${BIN}tiny`);
    const elf = readElf(bytes, 'tiny');
    const [main] = findFunctions(elf, /^main$/);
    const l = disassembleFunction(engine, elf, bytes, main);
    const call = l.instructions.find((i) => i.targetLabel === 'alpha')!;
    expect(call.text).toBe('callq  1169 <alpha>');
    expect(call.targetIndex).toBe(-1);
    const [spin] = findFunctions(elf, /^spin$/);
    const s = disassembleFunction(engine, elf, bytes, spin);
    const back = s.instructions.find((i) => i.mnemonic === 'jne')!;
    expect(back.text).toBe('jne    114e <spin+0x15>');
    expect(s.instructions[back.targetIndex].addressText).toBe('114e');
  });

  it('says why a file cannot be disassembled', () => {
    const bytes = read(`${BIN}tiny`);
    const elf = readElf(bytes, 'tiny');
    expect(() => archOf({ ...elf, machine: 8 })).toThrow(
      /cannot disassemble machine 8: x86-64, x86 and AArch64 only/,
    );
    const [spin] = findFunctions(elf, /^spin$/);
    expect(() => disassembleFunction(engine, { ...elf, isDebugFile: true }, bytes, spin)).toThrow(
      /separate debug file holds no code/,
    );
    expect(() => disassembleFunction(engine, elf, bytes.subarray(0, 0x1000), spin)).toThrow(
      /is not in the file's loaded code/,
    );
  });
});

/** Whether `addr` is in the file's `.plt`/`.plt.sec` section (read from its section headers). */
function inPlt(elf: ElfFile, bytes: Uint8Array, addr: bigint): boolean {
  expect(elf.is64 && elf.littleEndian).toBe(true);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const shoff = Number(dv.getBigUint64(0x28, true));
  const shentsize = dv.getUint16(0x3a, true);
  const shnum = dv.getUint16(0x3c, true);
  const strndx = dv.getUint16(0x3e, true);
  const strOff = Number(dv.getBigUint64(shoff + strndx * shentsize + 0x18, true));
  for (let i = 0; i < shnum; i++) {
    const h = shoff + i * shentsize;
    let name = '';
    for (let k = strOff + dv.getUint32(h, true); bytes[k] !== 0; k++) name += String.fromCharCode(bytes[k]);
    const start = dv.getBigUint64(h + 0x10, true);
    const size = dv.getBigUint64(h + 0x20, true);
    if (name.startsWith('.plt') && addr >= start && addr < start + size) return true;
  }
  return false;
}

describe('per-instruction flat = leaf samples (decode_gperf.py)', () => {
  const profiles = readdirSync(`${D}leaves`).map((f) => f.replace('.leaves.json', ''));
  for (const p of profiles) {
    it(`${p}: every instruction's flat`, () => {
      const oracle = JSON.parse(readFileSync(`${D}leaves/${p}.leaves.json`, 'utf8')) as Record<
        string,
        Record<string, number>
      >;
      const raw = parse(read(`${GPERF}${p}.prof`), `${p}.prof`).raw;
      let compared = 0;
      for (const [binary, leaves] of Object.entries(oracle)) {
        const bytes = read(`${BIN}${binary}`);
        const elf = readElf(bytes, binary);
        const mappings = mappingsOf(raw.meta.mappings, elf);
        expect(mappings.length).toBeGreaterThan(0);
        const listings: FunctionListing[] = findFunctions(elf, /.*/).map((sym) => {
          const l = disassembleFunction(engine, elf, bytes, sym);
          countSamples(l, raw, elf, mappings);
          return l;
        });
        // The oracle's leaves, each on the instruction that holds its address (pprof's rule).
        // A leaf outside every symbol (a PLT stub: objdump's `<memcmp@plt>` is no symbol of the
        // file) is in no function's listing: it must be in none of ours either.
        const want = new Map<string, number>();
        for (const [addr, n] of Object.entries(leaves)) {
          const a = BigInt(`0x${addr}`);
          const l = listings.find((x) => a >= x.symbol.start && a < x.symbol.end);
          if (l === undefined) {
            expect(elf.symbols.names.length).toBeGreaterThan(0);
            expect(inPlt(elf, bytes, a), `${binary} 0x${addr}: outside every symbol, so in .plt`).toBe(true);
            continue;
          }
          const ins = l.instructions.filter((i) => i.address <= a).at(-1)!;
          want.set(ins.addressText, (want.get(ins.addressText) ?? 0) + n);
        }
        const got = new Map<string, number>();
        for (const l of listings)
          for (const i of l.instructions)
            if (i.flat !== 0) got.set(i.addressText, (got.get(i.addressText) ?? 0) + i.flat);
        expect(Object.fromEntries([...got].sort())).toEqual(Object.fromEntries([...want].sort()));
        compared += want.size;
      }
      expect(compared).toBeGreaterThan(0);
    });
  }
});

describe('cum and source lines', () => {
  it('cum counts a sample once per instruction, callers at PC − 1 (on the call)', () => {
    const raw = parse(read(`${GPERF}tiny.prof`), 'tiny.prof').raw;
    const bytes = read(`${BIN}tiny`);
    const elf = readElf(bytes, 'tiny');
    const [main] = findFunctions(elf, /^main$/);
    const l = disassembleFunction(engine, elf, bytes, main);
    countSamples(l, raw, elf, mappingsOf(raw.meta.mappings, elf));
    const calls = l.instructions.filter((i) => i.cum > 0);
    expect(calls.map((i) => [i.text, i.cum])).toEqual([
      ['callq  1169 <alpha>', 8],
      ['callq  1189 <beta>', 10],
    ]);
    expect([l.flat, l.cum]).toEqual([0, 18]);
    // DWARF: each line's instructions, the line's own counts.
    const line = l.lines.find((x) => x.instructions.includes(l.instructions.indexOf(calls[0])))!;
    expect(line.file).toBe('/opt/flamelens-corpus/src/tiny.c');
    expect(line.cum).toBeGreaterThanOrEqual(8);
  });
});

describe("weblist's layout: instructions grouped by source line", () => {
  it('each line lists its instructions in address order, lines by file then number, as objdump -l places them', () => {
    const bytes = read(`${BIN}cxx_demangle`);
    const elf = readElf(bytes, 'cxx_demangle');
    const [sym] = findFunctions(elf, /^main$/);
    const l = disassembleFunction(engine, elf, bytes, sym);
    expect(l.lines.length).toBeGreaterThan(3);
    for (let k = 1; k < l.lines.length; k++) {
      const [a, b] = [l.lines[k - 1], l.lines[k]];
      expect(a.file < b.file || (a.file === b.file && a.line <= b.line)).toBe(true);
    }
    l.lines.forEach((line, k) => {
      for (let j = 1; j < line.instructions.length; j++)
        expect(line.instructions[j]).toBeGreaterThan(line.instructions[j - 1]);
      for (const i of line.instructions) expect(l.instructions[i].line).toBe(k);
    });
    // objdump -l's first line for main's first instruction.
    const first = l.lines[l.instructions[0].line];
    expect(`${first.function} ${first.file}`).toBe('main /opt/flamelens-corpus/src/cxx_demangle.cpp');
  });
});

describe("each instruction's source line and function, as llvm-symbolizer names them", () => {
  it('inlined C++ functions are demangled, as the symbols are (they were shown mangled)', async () => {
    const bytes = read(`${BIN}cxx_demangle`);
    const elf = readElf(bytes, 'cxx_demangle');
    const demangle = await nodeDemangler();
    const [sym] = findFunctions(elf, /^work_sort\(\)$/, demangle);
    const l = disassembleFunction(engine, elf, bytes, sym, { demangle });
    // The oracle: per instruction, llvm-symbolizer's innermost frame (linkage name, else DWARF's
    // name, not demangled) and FILE:LINE.
    const text = new TextDecoder().decode(
      gunzipSync(read(`${D}x86-64/cxx_demangle.work_sort.llvm-symbolizer.tsv.gz`)),
    );
    const expected = new Map(
      text
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t'))
        .map(([addr, fn, at]) => [BigInt(addr), { fn, at }] as const),
    );
    expect(expected.size).toBe(l.instructions.length);
    // Compared shortened: the outermost function is DWARF's name here (work_sort), the symbol
    // table's in llvm-symbolizer's answer (work_sort()).
    let inlined = 0;
    for (const ins of l.instructions) {
      const src = l.lines[ins.line];
      const { fn, at } = expected.get(ins.address)!;
      expect(src.function, ins.addressText).not.toMatch(/^_Z/);
      expect(`${shortFunctionName(src.function)} ${src.file}:${src.line}`, ins.addressText).toBe(
        `${shortFunctionName(demangle(fn))} ${at}`,
      );
      if (fn.startsWith('_ZNSt')) inlined++;
    }
    expect(inlined).toBeGreaterThan(20);
  });
});

describe('flamelens disasm', () => {
  it("prints pprof -disasm's layout", async () => {
    const r = await runCli(['disasm', '^spin$', `${GPERF}tiny.prof`, '--binary', `${BIN}tiny`]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      [
        'Total: 18',
        'ROUTINE ======================== spin',
        '        18         18 (flat, cum)   100% of Total',
        '         .          .       1139: testq  %rdi,%rdi                        ;spin tiny.c:5',
        '         .          .       113c: je     1168 <spin+0x2f>',
        '         .          .       113e: leaq   (,%rdi,8),%rcx',
        '         .          .       1146: subq   %rdi,%rcx',
        '         .          .       1149: movl   $0,%eax',
        '         .          .       114e: movq   0x2ecb(%rip),%rdx',
        '        16         16       1155: addq   %rax,%rdx',
        '         .          .       1158: movq   %rdx,0x2ec1(%rip)',
        '         1          1       115f: addq   $7,%rax',
        '         .          .       1163: cmpq   %rcx,%rax',
        '         1          1       1166: jne    114e <spin+0x15>',
        '         .          .       1168: retq',
        '',
      ].join('\n'),
    );
  });

  it('Intel syntax, several functions, and the errors', async () => {
    const r = await runCli([
      'disasm',
      '--intel',
      'alpha|beta',
      `${GPERF}tiny.prof`,
      '--binary',
      `${BIN}tiny`,
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/ROUTINE =+ alpha\n[\s\S]*ROUTINE =+ beta\n/);
    expect(r.out).toContain('call   1139 <spin>');
    const none = await runCli(['disasm', 'nosuchfunction', `${GPERF}tiny.prof`, '--binary', `${BIN}tiny`]);
    expect(none.code).toBe(1);
    expect(none.err).toContain('no matches found for regexp: nosuchfunction');
    const nobin = await runCli(['disasm', 'spin', `${GPERF}tiny.prof`]);
    expect(nobin.code).toBe(2);
    expect(nobin.err).toContain('disasm needs the binaries: --binary PATH');
  });

  it('disasmText matches disasmListings over the same input (the CLI is a thin layer)', () => {
    const raw = parse(read(`${GPERF}tiny.prof`), 'tiny.prof').raw;
    const ls = disasmListings(engine, {
      raw,
      binaries: [{ name: 'tiny', bytes: read(`${BIN}tiny`) }],
      match: /^spin$/,
      syntax: 'att',
    });
    expect(ls.map((l) => [l.symbol.name, l.flat, l.cum])).toEqual([['spin', 18, 18]]);
    expect(disasmText(ls, 18, 'count').split('\n')[0]).toBe('Total: 18');
  });
});

describe('listings as JSON (an HTML report carries its heaviest functions disassembled)', () => {
  it('round-trip every field, 64-bit addresses included; anything else is refused', () => {
    const raw = parse(read(`${GPERF}cxx_demangle.prof`), 'cxx_demangle.prof').raw;
    const ls = disasmListings(engine, {
      raw,
      binaries: [{ name: 'cxx_demangle', bytes: read(`${BIN}cxx_demangle`) }],
      match: /./,
      syntax: 'att',
    });
    expect(ls.length).toBeGreaterThan(5);
    expect(ls.some((l) => l.instructions.some((i) => i.target !== undefined))).toBe(true);
    const json = JSON.parse(JSON.stringify(listingsToJson(ls)));
    expect(listingsFromJson(json)).toEqual(ls);
    const high = { ...ls[0], symbol: { ...ls[0].symbol, start: 0xffff_ffff_ffff_f000n } };
    expect(listingsFromJson(JSON.parse(JSON.stringify(listingsToJson([high]))))![0].symbol.start).toBe(
      0xffff_ffff_ffff_f000n,
    );
    const first = json[0] as { instructions: Record<string, unknown>[]; lines: unknown[]; arch: string };
    for (const bad of [
      { ...first, arch: 'mips' },
      { ...first, instructions: [{ ...first.instructions[0], address: '-1' }] },
      { ...first, instructions: [{ ...first.instructions[0], flat: Number.NaN }] },
      { ...first, instructions: [{ ...first.instructions[0], targetIndex: 10_000 }] },
      { ...first, instructions: [{ ...first.instructions[0], text: 7 }] },
      { ...first, lines: [{ file: 'a.c', line: 1, function: 'f', instructions: [99_999], flat: 0, cum: 0 }] },
      null,
    ])
      expect(listingsFromJson([bad])).toBeNull();
    expect(listingsFromJson('listings')).toBeNull();
  });
});

describe('the function a frame names (the Assembly tab)', () => {
  it('namedFunction finds what an exact name test finds, for every C++ symbol, skipping most undemangled', async () => {
    const demangle = await nodeDemangler();
    const elf = readElf(read(`${BIN}cxx_demangle`), 'cxx_demangle');
    const all = findFunctions(elf, /.*/, demangle);
    const shown = [...new Set(all.map((s) => shortFunctionName(s.name)))];
    expect(shown.some((n) => n.includes('::'))).toBe(true);
    let demangled = 0;
    const counting = (raw: string) => {
      demangled++;
      return demangle(raw);
    };
    for (const name of shown) {
      const exact = { test: (n: string) => n === name || shortFunctionName(n) === name };
      const want = findFunctions(elf, exact, demangle).map((s) => s.start);
      expect(want.length, name).toBeGreaterThan(0);
      expect(
        findFunctions(elf, namedFunction(name), counting).map((s) => s.start),
        name,
      ).toEqual(want);
    }
    // Each name demangled fewer symbols than the table holds (the identifier ruled the rest out).
    expect(demangled).toBeLessThan(shown.length * elf.symbols.count * 0.5);
  });
});
