import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  attributeCode,
  CubinError,
  type CubinFunction,
  decodeAttribute,
  encodeNvInfo,
  looksLikeCubin,
  parseNvInfo,
  readCubin,
  relocationType,
} from './index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.join(here, '../test/fixtures/attrs/kernels.ptx');
const golden = path.resolve(here, '../../../../shared/golden');

function hasPtxas(): boolean {
  try {
    execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const ptxas = hasPtxas();

function code(e: unknown): string | undefined {
  return e instanceof CubinError ? e.code : undefined;
}
function errorOf(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

/** A 64-byte ELF64 header with the given fields; everything else zero. */
function elfHeader(opts: { cls?: number; machine?: number; osabi?: number; abi?: number; shoff?: number; shnum?: number }) {
  const b = new Uint8Array(64);
  const v = new DataView(b.buffer);
  b.set([0x7f, 0x45, 0x4c, 0x46, opts.cls ?? 2, 1, 1, opts.osabi ?? 0x41, opts.abi ?? 8]);
  v.setUint16(16, 2, true);
  v.setUint16(18, opts.machine ?? 190, true);
  v.setUint32(20, 1, true);
  v.setBigUint64(40, BigInt(opts.shoff ?? 0), true);
  v.setUint16(52, 64, true);
  v.setUint16(58, 64, true);
  v.setUint16(60, opts.shnum ?? 0, true);
  return b;
}

describe('readCubin rejects what is not a cubin with a coded error', () => {
  it('text is CUBIN_NOT_ELF', () => {
    const e = errorOf(() => readCubin(new TextEncoder().encode('.version 8.0\n'), { file: 'k.ptx' }));
    expect(code(e)).toBe('CUBIN_NOT_ELF');
    expect((e as Error).message).toMatch(/^k\.ptx: not a cubin/);
  });
  it('an empty file is CUBIN_NOT_ELF', () => {
    expect(code(errorOf(() => readCubin(new Uint8Array(0))))).toBe('CUBIN_NOT_ELF');
  });
  it('ELF32 is CUBIN_UNSUPPORTED_ELF', () => {
    expect(code(errorOf(() => readCubin(elfHeader({ cls: 1 }))))).toBe('CUBIN_UNSUPPORTED_ELF');
  });
  it('an x86-64 ELF is CUBIN_NOT_CUDA', () => {
    expect(code(errorOf(() => readCubin(elfHeader({ machine: 62 }))))).toBe('CUBIN_NOT_CUDA');
    expect(looksLikeCubin(elfHeader({ machine: 62 }))).toBe(false);
    expect(looksLikeCubin(elfHeader({}))).toBe(true);
  });
  it('a section table past the end is CUBIN_TRUNCATED', () => {
    expect(code(errorOf(() => readCubin(elfHeader({ shoff: 0x1000, shnum: 3 }))))).toBe('CUBIN_TRUNCATED');
  });
  it('a header cut short is CUBIN_TRUNCATED', () => {
    expect(code(errorOf(() => readCubin(elfHeader({}).subarray(0, 40))))).toBe('CUBIN_TRUNCATED');
  });
  it('a foreign OSABI is CUBIN_NOT_CUDA', () => {
    expect(code(errorOf(() => readCubin(elfHeader({ osabi: 0, abi: 0 }))))).toBe('CUBIN_NOT_CUDA');
  });
  it('an empty EM_CUDA ELF reads with the arch from e_flags', () => {
    const b = elfHeader({});
    new DataView(b.buffer).setUint32(48, 0x06005a04, true);
    const c = readCubin(b);
    expect(c.arch).toMatchObject({ sm: 90, name: 'sm_90', abi: 8 });
    expect(c.functions).toEqual([]);
  });
});

describe('.nv.info records', () => {
  // Records as ptxas 13 writes them for a two-parameter sm_90 kernel.
  const bytes = Uint8Array.from([
    0x04, 0x37, 0x04, 0x00, 0x82, 0x00, 0x00, 0x00, // CUDA_API_VERSION 130
    0x04, 0x17, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 0x00, 0x00, 0xf0, 0x21, 0x00, // KPARAM_INFO
    0x03, 0x1b, 0xff, 0x00, // MAXREG_COUNT 255
    0x03, 0x5f, 0x01, 0x01, // MERCURY_ISA_VERSION 1.1
    0x01, 0x04, 0x00, 0x00, // CTAIDZ_USED
    0x02, 0x4c, 0x01, 0x00, // NUM_BARRIERS 1
    0x04, 0x1c, 0x08, 0x00, 0x40, 0x00, 0x00, 0x00, 0x20, 0x01, 0x00, 0x00, // EXIT_INSTR_OFFSETS 0x40 0x120
    0x04, 0x0a, 0x08, 0x00, 0x09, 0x00, 0x00, 0x00, 0x10, 0x02, 0x10, 0x00, // PARAM_CBANK sym 9, 0x210, 0x10
  ]);
  const recs = parseNvInfo(bytes);
  it('parses every record and encodes back to the same bytes', () => {
    expect(recs.map((r) => r.code)).toEqual([0x37, 0x17, 0x1b, 0x5f, 0x04, 0x4c, 0x1c, 0x0a]);
    expect(encodeNvInfo(recs)).toEqual(bytes);
  });
  it('decodes payloads by attribute', () => {
    expect(decodeAttribute(recs[0]!)).toEqual({ kind: 'value', value: 130 });
    expect(decodeAttribute(recs[1]!)).toEqual({
      kind: 'kparam',
      params: [{ index: 0, ordinal: 1, offset: 8, size: 8, logAlignment: 0, space: 0, cbank: 0x1f, inCbank: true }],
    });
    expect(decodeAttribute(recs[2]!)).toEqual({ kind: 'value', value: 255 });
    expect(decodeAttribute(recs[3]!)).toEqual({ kind: 'version', major: 1, minor: 1 });
    expect(decodeAttribute(recs[4]!)).toEqual({ kind: 'flag' });
    expect(decodeAttribute(recs[5]!)).toEqual({ kind: 'value', value: 1 });
    expect(decodeAttribute(recs[6]!)).toEqual({ kind: 'offsets', offsets: [0x40, 0x120] });
    expect(decodeAttribute(recs[7]!)).toEqual({ kind: 'paramCbank', symbol: 9, offset: 0x210, size: 0x10 });
  });
  it('a payload running past the section is CUBIN_MALFORMED', () => {
    expect(code(errorOf(() => parseNvInfo(bytes.subarray(0, 14))))).toBe('CUBIN_MALFORMED');
    expect(code(errorOf(() => parseNvInfo(Uint8Array.from([9, 1, 0, 0]))))).toBe('CUBIN_MALFORMED');
  });
});

describe.skipIf(!existsSync(golden))('golden cubins of CUDA 12 (ELF ABI 7)', () => {
  it.each([
    ['cudatest.6.sm_61.cubin', 61],
    ['cudatest.7.sm_75.cubin', 75],
  ])('%s is sm_%i', (file, sm) => {
    const c = readCubin(readFileSync(path.join(golden, file)), { file });
    expect(c.arch).toMatchObject({ sm, abi: 7, virtualSm: sm });
    expect(c.arch.flagNames).toEqual(['EF_CUDA_TEXMODE_UNIFIED', 'EF_CUDA_64BIT_ADDRESS']);
    expect(c.functions.length).toBeGreaterThan(0);
    for (const f of c.functions) {
      expect(f.code.length % 8).toBe(0);
      expect(f.registerCount).toBeGreaterThan(0);
    }
  });
});

describe.skipIf(!ptxas)('ptxas 13 cubins (attributes derived by varying the PTX)', () => {
  const dir = ptxas ? mkdtempSync(path.join(tmpdir(), 'cubin-test-')) : '';
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const compile = (arch: string) => {
    const out = path.join(dir, `${arch}.cubin`);
    execFileSync('ptxas', [`-arch=${arch}`, fixture, '-o', out]);
    return readCubin(readFileSync(out), { file: out });
  };
  const attr = (f: CubinFunction, name: string) => {
    const c = attributeCode(name)!;
    return [...f.attributes, ...f.globalAttributes].filter((r) => r.code === c).map(decodeAttribute);
  };

  it.each(['sm_75', 'sm_80', 'sm_86', 'sm_89', 'sm_90', 'sm_100', 'sm_120'])('%s', (arch) => {
    const c = compile(arch);
    const sm = Number(arch.slice(3));
    expect(c.arch).toMatchObject({ sm, name: arch, abi: 8 });
    expect(c.cuInfo).toMatchObject({ version: 2, virtualSm: 75, toolkitVersion: 130 });
    expect(c.tkInfo?.toolName).toBe('ptxas');
    expect(c.tkInfo?.toolOptions).toContain(`-arch ${arch}`);
    const byName = new Map(c.functions.map((f) => [f.name, f]));
    expect([...byName.keys()].sort()).toEqual(['frame', 'jump', 'params3']);

    const p = byName.get('params3')!;
    expect(p.isEntry).toBe(true);
    // The private .func `twice` lives inside params3's section.
    expect(p.subroutines.map((s) => s.name)).toEqual(['$params3$twice']);
    expect(p.subroutines[0]!.value).toBeGreaterThan(0);
    expect(p.registerCount).toBeGreaterThan(0);
    expect(attr(p, 'MAX_THREADS')).toEqual([{ kind: 'dims', dims: [128, 2, 1] }]);
    // ptxas 13 records %ctaid.z use below sm_90 only.
    expect(attr(p, 'CTAIDZ_USED')).toEqual(sm < 90 ? [{ kind: 'flag' }] : []);
    expect(attr(p, 'NUM_BARRIERS')).toEqual([{ kind: 'value', value: 1 }]);
    expect(attr(p, 'CBANK_PARAM_SIZE')).toEqual([{ kind: 'value', value: 24 }]);
    const cbank = attr(p, 'PARAM_CBANK')[0];
    expect(cbank).toMatchObject({ kind: 'paramCbank', size: 24 });
    if (cbank?.kind === 'paramCbank') expect(c.symbols[cbank.symbol]!.name).toBe('.nv.constant0.params3');
    const kp = attr(p, 'KPARAM_INFO').flatMap((v) => (v.kind === 'kparam' ? v.params : []));
    expect(kp.map((k) => [k.ordinal, k.offset, k.size]).sort()).toEqual([
      [0, 0, 8],
      [1, 8, 4],
      [2, 16, 8],
    ]);
    expect(p.shared!.size).toBeGreaterThanOrEqual(256);
    expect(p.constant0!.size).toBeGreaterThanOrEqual(24);
    for (const r of c.relocations) expect(relocationType(r.typeName)).toBe(r.type);
    // EXIT_INSTR_OFFSETS point at EXIT (opcode 0x94d in bits 0..11 of a Volta+ word).
    const exits = attr(p, 'EXIT_INSTR_OFFSETS')[0];
    expect(exits?.kind).toBe('offsets');
    if (exits?.kind === 'offsets') {
      expect(exits.offsets.length).toBe(2);
      for (const o of exits.offsets) expect((p.code[o]! | (p.code[o + 1]! << 8)) & 0xfff).toBe(0x94d);
    }

    const fr = byName.get('frame')!;
    expect(attr(fr, 'REQNTID')).toEqual([{ kind: 'dims', dims: [64, 1, 1] }]);
    expect(attr(fr, 'FRAME_SIZE')).toEqual([{ kind: 'symValue', symbol: fr.symbol!.index, value: 64 }]);

    const j = byName.get('jump')!;
    const targets = attr(j, 'INDIRECT_BRANCH_TARGETS')[0];
    expect(targets?.kind === 'branchTargets' && targets.branches[0]!.targets.length).toBe(4);

    // Every attribute section re-encodes to its own bytes.
    for (const s of c.sections) {
      if (s.name === '.nv.info' || s.name.startsWith('.nv.info.') || s.name === '.nv.compat') {
        expect(Buffer.from(encodeNvInfo(parseNvInfo(s.data, s.name))).equals(s.data)).toBe(true);
      }
    }
  });

  it('ptxas -c keeps the code relocations: the sm_90 call returns through 32@lo/32@hi of its caller', () => {
    const out = path.join(dir, 'rel.cubin');
    execFileSync('ptxas', ['-arch=sm_90', '-c', fixture, '-o', out]);
    const c = readCubin(readFileSync(out));
    expect(c.header.type).toBe(1);
    const p = c.functions.find((f) => f.name === 'params3')!;
    expect(p.relocations.map((r) => r.typeName)).toEqual(
      expect.arrayContaining(['R_CUDA_ABS32_LO_32', 'R_CUDA_ABS32_HI_32']),
    );
    for (const r of p.relocations) {
      expect(r.offset % 16).toBe(0);
      expect(r.offset).toBeLessThan(p.code.length);
      expect(r.addend).toBeDefined();
    }
  });

  it('sm_90a is flagged in .nv.compat, not e_flags', () => {
    const src = readFileSync(fixture, 'utf8').replace('.target sm_75', '.target sm_90a');
    const ptx = path.join(dir, 'a.ptx');
    const out = path.join(dir, 'a.cubin');
    execFileSync('sh', ['-c', 'cat > "$1"', 'sh', ptx], { input: src });
    execFileSync('ptxas', ['-arch=sm_90a', ptx, '-o', out]);
    const a = readCubin(readFileSync(out));
    const plain = compile('sm_90');
    expect(a.header.flags).toBe(plain.header.flags);
    expect(a.compat.find((r) => r.code === 9)?.value).toBe(1);
    expect(plain.compat.find((r) => r.code === 9)?.value).toBe(0);
    expect(a.cuInfo?.virtualSm).toBe(90);
  });
});
