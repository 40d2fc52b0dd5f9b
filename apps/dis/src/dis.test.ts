import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCubin } from '@ptxforge/cubin';
import { afterAll, describe, expect, it } from 'vitest';
import { codecFor, safeDecode, type WordCodec } from './codec.js';
import { registerFamilyCodecs } from './families.js';
import { disassembleCubin, roundtripCubin } from './disassemble.js';
import { bits64, layoutForSm, splitCode, wordHalves } from './layout.js';
import { main } from './main.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const golden = path.resolve(here, '../../../../shared/golden');
const fixture = path.resolve(here, '../../../packages/cubin/test/fixtures/attrs/kernels.ptx');

function run(argv: string[]) {
  let out = '';
  let err = '';
  const rc = main(
    argv,
    (s) => (out += s),
    (s) => (err += s),
  );
  return { rc, out, err };
}

function hasPtxas(): boolean {
  try {
    execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('ptxforge-dis command line', () => {
  it('a file that is not a cubin is a clear error with exit code 1', () => {
    const r = run([fixture]);
    expect(r.rc).toBe(1);
    expect(r.err).toMatch(/error CUBIN_NOT_ELF: .*kernels\.ptx: not a cubin/);
    expect(r.out).toBe('');
  });
  it('a missing file is exit code 1', () => {
    const r = run(['/nonexistent/x.cubin']);
    expect(r.rc).toBe(1);
    expect(r.err).toContain('DIS_READ');
  });
  it('usage errors are exit code 1', () => {
    expect(run([]).rc).toBe(1);
    expect(run(['--bogus', 'x']).rc).toBe(1);
    expect(run(['--help']).rc).toBe(0);
  });
});

describe('word layouts', () => {
  it('families by SM', () => {
    expect(layoutForSm(30)?.family).toBe('kepler');
    expect(layoutForSm(35)?.family).toBe('kepler');
    expect(layoutForSm(52)?.family).toBe('maxwell');
    expect(layoutForSm(61)?.family).toBe('maxwell');
    expect(layoutForSm(90)?.family).toBe('volta');
    expect(layoutForSm(120)?.family).toBe('volta');
    expect(layoutForSm(20)).toBeUndefined();
  });

  it.skipIf(!existsSync(golden))('maxwell groups split like the sm_61 golden words (instruction and control word)', () => {
    const cubin = readCubin(readFileSync(path.join(golden, 'cudatest.6.sm_61.cubin')));
    const layout = layoutForSm(cubin.arch.sm)!;
    const rows = readFileSync(path.join(golden, 'cudatest.6.sm_61.tsv'), 'utf8').trim().split('\n').slice(1);
    const bySection = new Map(cubin.functions.map((f) => [f.text.name, splitCode(f.code, layout).slots]));
    let checked = 0;
    for (const row of rows) {
      const [section, addr, inst, ctrl, slot, cuasm] = row.split('\t');
      const s = bySection.get(section!)!.find((x) => x.addr === Number(addr));
      expect(s, `${section} ${addr}`).toBeDefined();
      expect(wordHalves(s!.word)[0]).toBe(inst);
      expect(wordHalves(s!.controlWord!)[0]).toBe(ctrl);
      expect(s!.addr - s!.controlAddr! - 8).toBe(8 * Number(slot));
      // The slot's 21 control bits: stall 0..3, yield 4 (0 = Y), write barrier 5..7, read 8..10, wait 11..16.
      const c = s!.control!;
      const bar = (x: number) => (x === 7 ? '-' : String(x));
      let wait = 'B';
      for (let i = 0; i < 6; i++) wait += bits64(Uint32Array.of(c, 0), 11 + i, 1) ? String(i) : '-';
      const text = `${wait}:R${bar((c >>> 8) & 7)}:W${bar((c >>> 5) & 7)}:${(c >>> 4) & 1 ? '-' : 'Y'}:S${String(c & 15).padStart(2, '0')}`;
      expect(text).toBe(cuasm);
      checked++;
    }
    expect(checked).toBe(rows.length);
  });
});

describe('with the family codecs', () => {
  it.skipIf(!existsSync(golden))('the golden sm_61 cubin decodes with the Maxwell/Pascal tables', () => {
    const r = run(['--roundtrip', path.join(golden, 'cudatest.6.sm_61.cubin')]);
    expect(r.rc).toBe(0);
    const m = /^(\d+) words, (\d+) known, (\d+) identical$/.exec(r.out.trimEnd().split('\n').at(-1)!)!;
    const [words, known, identical] = [Number(m[1]), Number(m[2]), Number(m[3])];
    expect(words).toBe(492);
    expect(known / words).toBeGreaterThan(0.95);
    expect(identical / known).toBeGreaterThan(0.95);
    const text = run([path.join(golden, 'cudatest.6.sm_61.cubin')]).out;
    expect(text).toContain('MOV R1, c[0x0][0x20] ;');
    expect(text).toMatch(/\[B------:R-:W-:-:S06\]\s+\/\*0008\*\//);
  });
});

describe.skipIf(!existsSync(golden))('bit-flip sweeps (PPoPP 2017) decode without a crash', () => {
  it.each([
    ['opcode_sm35.sass', 35],
    ['opcode_sm52.sass', 52],
  ])('%s', (file, sm) => {
    registerFamilyCodecs();
    const layout = layoutForSm(sm)!;
    const codec = codecFor(sm, layout);
    let words = 0;
    for (const line of readFileSync(path.join(golden, file), 'utf8').split('\n')) {
      const m = /\/\*\s*0x([0-9a-f]{16})\s*\*\/\s*$/.exec(line);
      if (!m) continue;
      const word = Uint32Array.of(parseInt(m[1]!.slice(8), 16), parseInt(m[1]!.slice(0, 8), 16));
      const d = safeDecode(codec, layout, { addr: 8, word, control: 0, controlAddr: 0, controlWord: new Uint32Array(2) });
      expect(d.text.length).toBeGreaterThan(0);
      if (!d.known) expect(d.text).toMatch(/^UNKNOWN 0x[0-9a-f]+$/);
      words++;
    }
    expect(words).toBeGreaterThan(1000);
  });
});

describe('disassembly with a codec', () => {
  // A two-opcode codec for the app's own logic (labels, control, round trip): NOP 0x918 and BRA 0x947 with a
  // byte offset from the next instruction in bits 32..63 (sm_70 style). It is test scaffolding, not a table.
  const testCodec: WordCodec = {
    family: 'volta',
    name: 'test',
    decode(slot) {
      const op = slot.word[0]! & 0xfff;
      const control = `B------:R-:W-:${(slot.word[3]! >>> 13) & 1 ? '-' : 'Y'}:S${String((slot.word[3]! >>> 9) & 15).padStart(2, '0')}`;
      const word = Uint32Array.from(slot.word);
      if (op === 0x918) return { known: true, text: 'NOP', opcodeField: op, control, reencode: () => ({ word }) };
      if (op === 0x947) {
        const target = slot.addr + 16 + (slot.word[1]! | 0);
        return {
          known: true,
          text: `BRA 0x${target.toString(16)}`,
          opcodeField: op,
          control,
          branchTarget: target,
          reencode: () => ({ word }),
        };
      }
      return { known: false, text: `UNKNOWN 0x${op.toString(16)}`, opcodeField: op };
    },
  };
  const dir = hasPtxas() ? mkdtempSync(path.join(tmpdir(), 'dis-test-')) : '';
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(!dir)('prints functions, registers, attributes, labels; --roundtrip counts', () => {
    const out = path.join(dir, 'k.cubin');
    execFileSync('ptxas', ['-arch=sm_90', fixture, '-o', out]);
    const cubin = readCubin(readFileSync(out), { file: out });
    const text = disassembleCubin(cubin, { codec: testCodec, hex: true });
    expect(text).toContain('\t.headerflags\t@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM75)"');
    for (const f of cubin.functions) {
      expect(text).toContain(`\t.section\t.text.${f.name},"ax",@progbits`);
      expect(text).toContain(`\t.sectioninfo\t@"SHI_REGISTERS=${f.registerCount}"`);
    }
    expect(text).toContain('//   EIATTR_MAX_THREADS: 128 2 1');
    expect(text).toContain('//   EIATTR_CUDA_API_VERSION: 0x82');
    expect(text).toContain('$params3$twice:');
    expect(text).toMatch(/\[B------:R-:W-:[Y-]:S\d\d\]\s+\/\*[0-9a-f]{4}\*\/\s+NOP ;\s+\/\* 0x[0-9a-f]{16} \*\//);
    expect(text).toMatch(/BRA `\(\.L_x_\d+\) ;/);
    expect(text).toMatch(/UNKNOWN 0x[0-9a-f]+ ;/);
    const r = roundtripCubin(cubin, testCodec);
    const words = cubin.functions.reduce((n, f) => n + f.code.length / 16, 0);
    expect(r.words).toBe(words);
    expect(r.known).toBeGreaterThan(0);
    expect(r.identical).toBe(r.known);
    expect(r.known + [...r.unknownByOpcode.values()].reduce((a, b) => a + b, 0)).toBe(words);
  });

  it.skipIf(!dir)('the command prints the round-trip contract line last', () => {
    const out = path.join(dir, 'k75.cubin');
    execFileSync('ptxas', ['-arch=sm_75', fixture, '-o', out]);
    const r = run(['--roundtrip', out]);
    expect(r.rc).toBe(0);
    const last = r.out.trimEnd().split('\n').at(-1)!;
    expect(last).toMatch(/^\d+ words, \d+ known, \d+ identical$/);
    const d = run(['--hex', out]);
    expect(d.rc).toBe(0);
    expect(d.out).toContain('.text.params3:');
  });
});
