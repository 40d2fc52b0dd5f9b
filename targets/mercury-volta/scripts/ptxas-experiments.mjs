#!/usr/bin/env node
// Learns Volta+ forms that have no golden text by experiment: each experiment is a tiny PTX kernel written
// here, compiled with the installed ptxas for one arch, with one PTX operand or modifier varied per variant;
// the words of the varied instruction (picked by opcode field) are recorded with the text nvdisasm would
// print. The text is built from what the variant changed (a compare, a load size, a cache hint, which texture
// channels are used) plus the operand numbers read from the register fields every golden row of the same
// opcode shares; the modifier spellings are those of the sm_75..sm_90 golden rows (`LDG.E.U8.CONSTANT`,
// `FSETP.GEU.AND`, `TEX.LL ..., 0x3`). The output, vectors/<arch>-ptxas.tsv (lo64, hi64, text, source), is
// read by derive-volta-table.mjs like a golden file and checked both ways by the tests.
//
// usage: node scripts/ptxas-experiments.mjs [--ptxas PATH]   (needs ptxas 12.x/13.x; rewrites the vectors)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCubin } from '@ptxforge/cubin';
import { getBits, wordFromBytes } from '@ptxforge/sass';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const pi = args.indexOf('--ptxas');
const PTXAS = pi >= 0 ? args[pi + 1] : 'ptxas';

const R = (n) => (n === 255 ? 'RZ' : `R${n}`);
const P = (n) => (n === 7 ? 'PT' : `P${n}`);
const UR = (n) => (n === 63 ? 'URZ' : `UR${n}`);
const hex = (n) => `0x${n.toString(16)}`;

const HEAD = `.version 8.0\n.target sm_90\n.address_size 64\n`;
const headFor = (arch) => `.version 8.0\n.target ${arch}\n.address_size 64\n`;

// ------------------------------------------------------------------ experiments
const EXPERIMENTS = [];

// VIADD with a uniform second source: in a block reduction ptxas keeps `ctaid.x + param` (ctaid read by S2UR,
// the sum live to the end) as one VIADD R, R, UR (opcode 0xc36, the UR variant of the immediate form 0x836);
// `param - ctaid` negates the UR (bit 63, as IADD3's UR operand).
for (const [op, neg] of [
  ['add.s32 %r3, %r1, %r2;', ''],
  ['sub.s32 %r3, %r1, %r2;', '-'],
]) {
  EXPERIMENTS.push({
    id: `viadd-ur ${op}`,
    opcode: 0xc36,
    ptx: `${HEAD}.visible .entry k(.param .u64 sum, .param .u64 data, .param .u64 ranges, .param .s32 n, .param .s32 off)
{
  .reg .u32 %r<20>; .reg .u64 %rd<20>; .reg .f32 %f<8>; .reg .pred %p<6>;
  .shared .align 4 .b8 buf[256];
  mov.u64 %rd1, buf;
  ld.param.s32 %r1, [off];
  cvt.s32.u32 %r2, %ctaid.x;
  ${op}
  cvt.s64.s32 %rd2, %r3;
  ld.param.u64 %rd3, [ranges];
  mul.wide.s32 %rd4, %r3, 8;
  add.u64 %rd5, %rd3, %rd4;
  ldu.global.v2.u32 {%r4,%r5}, [%rd5+0];
  cvt.s32.u32 %r8, %tid.x;
  mul.wide.s32 %rd7, %r8, 4;
  add.u64 %rd8, %rd1, %rd7;
  setp.le.s32 %p1, %r5, %r8;
  @%p1 bra ZERO;
  ld.param.u64 %rd9, [data];
  add.s32 %r11, %r4, %r8;
  mul.wide.s32 %rd11, %r11, 4;
  add.u64 %rd12, %rd9, %rd11;
  ld.global.f32 %f1, [%rd12+0];
  st.shared.f32 [%rd8+0], %f1;
  bra.uni SYNC;
ZERO:
  mov.f32 %f2, 0f00000000;
  st.shared.f32 [%rd8+0], %f2;
SYNC:
  bar.sync 0;
  mov.u32 %r12, %ntid.x;
  shr.u32 %r14, %r12, 1;
  setp.eq.u32 %p2, %r14, 0;
  @%p2 bra DONE;
LOOP:
  setp.ge.u32 %p3, %r8, %r14;
  @%p3 bra SKIP;
  ld.shared.f32 %f3, [%rd8+0];
  add.u32 %r16, %r8, %r14;
  mul.wide.u32 %rd14, %r16, 4;
  add.u64 %rd15, %rd1, %rd14;
  ld.shared.f32 %f4, [%rd15+0];
  add.f32 %f5, %f3, %f4;
  st.shared.f32 [%rd8+0], %f5;
SKIP:
  bar.sync 0;
  shr.u32 %r14, %r14, 1;
  setp.ne.u32 %p4, %r14, 0;
  @%p4 bra LOOP;
DONE:
  setp.ne.s32 %p5, %r8, 0;
  @%p5 bra EXIT;
  ld.shared.f32 %f6, [buf+0];
  ld.param.u64 %rd16, [sum];
  mul.lo.u64 %rd17, %rd2, 4;
  add.u64 %rd18, %rd16, %rd17;
  st.global.f32 [%rd18+0], %f6;
EXIT:
  exit;
}
`,
    text: (f) => `VIADD ${R(f(16, 8))}, ${R(f(24, 8))}, ${neg}${UR(f(32, 6))} ;`,
  });
}

// FSETP with an f32 immediate (opcode 0x80b) or a register: every compare, combined AND/OR/XOR with a predicate. With two
// predicate results ptxas keeps the PTX compare as written (with one it may invert it).
const CMPS = ['lt', 'eq', 'le', 'gt', 'ne', 'ge', 'num', 'nan', 'ltu', 'equ', 'leu', 'gtu', 'neu', 'geu'];
// the same with a register second source (opcode 0x20b): the compare, boolean and .FTZ fields are shared
for (const [src, opcode, srcText] of [
  ['0f42F60000', 0x80b, () => '123'],
  ['%f2', 0x20b, (f) => R(f(32, 8))],
])
for (const cmp of CMPS) {
  for (const bop of ['and', 'or', 'xor']) {
    for (const ftz of ['', '.ftz']) {
      if (ftz && bop !== 'and') continue;
      EXPERIMENTS.push({
        id: `fsetp ${cmp}.${bop}${ftz} ${src}`,
        opcode,
        ptx: `${HEAD}.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<20>; .reg .f32 %f<5>; .reg .b64 %rd<8>; .reg .pred %p<5>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd5, [in];
  mov.u32 %r2, %tid.x;
  cvta.to.global.u64 %rd2, %rd1; cvta.to.global.u64 %rd6, %rd5;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3; add.s64 %rd7, %rd6, %rd3;
  ld.global.f32 %f1, [%rd7];
  ld.global.u32 %r5, [%rd7+4];
  ld.global.f32 %f2, [%rd7+8];
  setp.ne.u32 %p3, %r5, 0;
  setp.${cmp}.${bop}${ftz}.f32 %p1|%p2, %f1, ${src}, %p3;
  selp.u32 %r3, 7, 3, %p1;
  selp.u32 %r4, 9, 1, %p2;
  add.u32 %r3, %r3, %r4;
  st.global.u32 [%rd4], %r3;
  ret;
}
`,
        text: (f) =>
          `FSETP.${cmp.toUpperCase()}.${ftz ? 'FTZ.' : ''}${bop.toUpperCase()} ${P(f(81, 3))}, ${P(f(84, 3))}, ${R(f(24, 8))}, ${srcText(f)}, ${f(90, 1) ? '!' : ''}${P(f(87, 3))} ;`,
      });
    }
  }
}

// LDG sizes with cache qualifiers (opcode 0x981). Spellings and order from the sm_80/86 golden rows:
// LDG.E[.EF|.EL|.NA][.LTC128B][.U8|.S8|.U16|.S16|.64|.128][.CONSTANT|.STRONG.GPU|.STRONG.SYS].
const LDG_SIZES = [
  ['u8', '.U8', '%r3', 'u8'],
  ['s8', '.S8', '%r3', 's8'],
  ['u16', '.U16', '%r3', 'u16'],
  ['s16', '.S16', '%r3', 's16'],
  ['u32', '', '%r3', 'u32'],
  ['u64', '.64', '%rd8', 'u64'],
  ['v4.u32', '.128', '{%r3,%r4,%r5,%r6}', 'v4.u32'],
];
const LDG_QUALS = [
  ['', '', ''],
  ['.nc', '', '.CONSTANT'],
  ['.cg', '', '.STRONG.GPU'],
  ['.cv', '', '.STRONG.SYS'],
  ['.cs', '.EF', ''],
  ['.L1::evict_last', '.EL', ''],
  ['.L1::no_allocate', '.NA', ''],
  ['.L2::128B', '.LTC128B', ''],
  ['.nc.L2::128B', '.LTC128B', '.CONSTANT'],
];
for (const [ty, size, reg, sty] of LDG_SIZES) {
  for (const [q, pre, post] of LDG_QUALS) {
    EXPERIMENTS.push({
      id: `ldg ld.global${q}.${ty}`,
      opcode: 0x981,
      ptx: `${HEAD}.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<20>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd5, [in];
  mov.u32 %r2, %tid.x;
  cvta.to.global.u64 %rd2, %rd1; cvta.to.global.u64 %rd6, %rd5;
  mul.wide.u32 %rd3, %r2, 16;
  add.s64 %rd4, %rd2, %rd3; add.s64 %rd7, %rd6, %rd3;
  ld.global${q}.${ty} ${reg}, [%rd7+16];
  st.global.${sty} [%rd4], ${reg};
  ret;
}
`,
      // the '.E' and the '.64' address suffix are fixed in every sm_90 LDG of this shape
      text: (f) => {
        const dst = f(16, 8);
        const off = f(40, 24);
        return `LDG.E${pre}${size}${post} ${R(dst)}, desc[${UR(f(32, 6))}][${R(f(24, 8))}.64${off ? `+${hex(off)}` : ''}] ;`;
      },
    });
  }
}

// TEX / TLD with the texture in a uniform register (opcodes 0xf60 / 0xf66). ptxas 13 emits no `.SCR` for
// sm_90 (bit 60, the .SCR bit of the sm_75..86 rows, stays clear); 1D textures become 2D TEX; the channels
// the program reads are the write mask at bits 72..75, printed last unless it is 0xf (the golden
// `TEX.SCR.LL RZ, R16, R6, R0, 0x0, 0x5a, 2D, 0x3`).
const TEX_USES = [
  ['st.global.v4.f32 [%rd1], {%f0,%f1,%f2,%f3};', 0xf],
  ['st.global.f32 [%rd1], %f0;', 0x1],
  ['st.global.v2.f32 [%rd1], {%f0,%f1};', 0x3],
  ['st.global.v2.f32 [%rd1], {%f0,%f1}; st.global.f32 [%rd1+8], %f2;', 0x7],
  ['st.global.f32 [%rd1], %f3;', 0x8],
];
const TEX_DIMS = { 2: '2D', 4: '3D', 6: 'CUBE', 10: 'ARRAY_2D', 8: 'ARRAY_1D' };
const texText = (name, mods, f, withRb) => {
  const mask = f(72, 4);
  const dim = TEX_DIMS[f(60, 4)] ?? (name === 'TLD' ? (f(60, 4) === 0 ? '1D' : undefined) : undefined);
  if (!dim) return undefined;
  const rb = withRb ? `${R(f(32, 8))}, ` : '';
  return `${name}${mods} ${R(f(64, 8))}, ${R(f(16, 8))}, ${R(f(24, 8))}, ${rb}${UR(f(40, 6))}, ${hex(f(46, 14))}, ${dim}${mask === 0xf ? '' : `, ${hex(mask)}`} ;`;
};
for (const [geo, coords, ctype] of [
  ['1d', '{%f10}', 'f32'],
  ['2d', '{%f10,%f9}', 'f32'],
  ['3d', '{%f10,%f9,%f8,%f8}', 'f32'],
  ['a1d', '{%r1,%f10}', 'f32'],
  ['a2d', '{%r1,%f10,%f9,%f9}', 'f32'],
  ['cube', '{%f10,%f9,%f8,%f8}', 'f32'],
]) {
  // texel offsets (`], {%r2, %r3}`: .AOFFI, bit 76) and a depth compare (`], %f8`: .DC, bit 78), on 2D
  const extras = geo === '2d' ? [['', ''], [', {%r2, %r3}', '.AOFFI'], [', %f8', '.DC']] : [['', '']];
  for (const [extra, xmod] of extras)
  for (const [use] of TEX_USES) {
    EXPERIMENTS.push({
      id: `tex tex.${geo}.v4.f32.${ctype}${extra} ${use}`,
      opcode: 0xf60,
      ptx: `${HEAD}.global .texref tex;
.visible .entry k(.param .u64 out, .param .f32 cx, .param .u32 ci)
{
  .reg .b32 %r<20>; .reg .f32 %f<12>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.f32 %f8, [cx];
  ld.param.u32 %r8, [ci];
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f9, %r1;
  add.f32 %f10, %f8, %f9;
  add.s32 %r2, %r8, 1;
  add.s32 %r3, %r8, -1;
  tex.${geo}.v4.f32.${ctype} {%f0, %f1, %f2, %f3}, [tex, ${coords}]${extra};
  ${use}
  ret;
}
`,
      text: (f) => texText('TEX', `.LL${xmod}`, f, true),
    });
  }
}
for (const [geo, coords] of [
  ['1d', '{%r9}'],
  ['2d', '{%r9,%r1}'],
]) {
  const extras = geo === '2d' ? [['', ''], [', {%r2, %r3}', '.AOFFI']] : [['', '']];
  for (const [extra, xmod] of extras)
  for (const [use] of TEX_USES) {
    EXPERIMENTS.push({
      id: `tld tex.${geo}.v4.f32.s32${extra} ${use}`,
      opcode: 0xf66,
      ptx: `${HEAD}.global .texref tex;
.visible .entry k(.param .u64 out, .param .u32 ci)
{
  .reg .b32 %r<20>; .reg .f32 %f<12>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r8, [ci];
  mov.u32 %r1, %tid.x;
  add.s32 %r9, %r8, %r1;
  add.s32 %r2, %r8, 1;
  add.s32 %r3, %r8, -1;
  tex.${geo}.v4.f32.s32 {%f0, %f1, %f2, %f3}, [tex, ${coords}]${extra};
  ${use}
  ret;
}
`,
      // a 1D fetch leaves the second coordinate RZ and nvdisasm omits it (golden `TLD.SCR.LZ R12, R8, R4,
      // UR6, 0x0, 1D`); 2D prints it
      text: (f) => texText('TLD', `.LZ${xmod}`, f, f(60, 4) !== 0 || f(32, 8) !== 255),
    });
  }
}

// IMAD.WIDE with a 64-bit addend, signed or .U32 multiply (bit 73), the addend negated (bit 75: `a*b - c`), an
// immediate (opcode 0x825) or a register multiplier (0x225). sm_90 words.
for (const [mul, u] of [['mul.wide.s32', ''], ['mul.wide.u32', '.U32']]) {
  for (const [b, opcode, bText] of [
    ['4', 0x825, () => '0x4'],
    ['12', 0x825, () => '0xc'],
    ['%r4', 0x225, (f) => R(f(32, 8))],
  ]) {
    for (const [op, neg] of [['sub.s64 %rd10, %rd9, %rd8;', '-'], ['add.s64 %rd10, %rd9, %rd8;', '']]) {
      EXPERIMENTS.push({
        id: `imad-wide ${mul} ${b} ${op}`,
        opcode,
        ptx: `${HEAD}.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<8>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd5, [in];
  mov.u32 %r2, %tid.x;
  cvta.to.global.u64 %rd2, %rd1; cvta.to.global.u64 %rd6, %rd5;
  mul.wide.u32 %rd3, %r2, 16;
  add.s64 %rd7, %rd6, %rd3;
  ld.global.u64 %rd8, [%rd7];
  ld.global.u32 %r3, [%rd7+8];
  ld.global.u32 %r4, [%rd7+12];
  ${mul} %rd9, %r3, ${b};
  ${op}
  add.s64 %rd4, %rd2, %rd3;
  st.global.u64 [%rd4], %rd10;
  ret;
}
`,
        // only the word of the varied multiply (the address arithmetic is IMAD.WIDE.U32 ... 0x10 with no negation)
        text: (f) => (f(32, 32) === 16 && opcode === 0x825 ? undefined : `IMAD.WIDE${f(73, 1) ? '' : '.U32'} ${R(f(16, 8))}, ${R(f(24, 8))}, ${bText(f)}, ${f(75, 1) ? '-' : ''}${R(f(64, 8))} ;`),
      });
    }
  }
}

// BAR with a barrier number and a thread count (opcode 0xb1d): the number at 54..57, the count at 42..53,
// a count of 0 (all threads) not printed; `bar.arrive` is BAR.ARV; .DEFER_BLOCKING is bit 80 (ptxas 13 sets it
// for sm_80+). The same layout on sm_75..sm_90.
for (const arch of ['sm_75', 'sm_80', 'sm_86', 'sm_90']) {
  for (const [ptx, text] of [
    ['bar.sync 0;', (f) => `BAR.SYNC${f(80, 1) ? '.DEFER_BLOCKING' : ''} ${hex(f(54, 4))} ;`],
    ['bar.sync 1;', (f) => `BAR.SYNC${f(80, 1) ? '.DEFER_BLOCKING' : ''} ${hex(f(54, 4))} ;`],
    ['bar.sync 6;', (f) => `BAR.SYNC${f(80, 1) ? '.DEFER_BLOCKING' : ''} ${hex(f(54, 4))} ;`],
    ['bar.sync 15;', (f) => `BAR.SYNC${f(80, 1) ? '.DEFER_BLOCKING' : ''} ${hex(f(54, 4))} ;`],
    ['bar.sync 10, 64;', (f) => `BAR.SYNC${f(80, 1) ? '.DEFER_BLOCKING' : ''} ${hex(f(54, 4))}, ${hex(f(42, 12))} ;`],
    ['bar.sync 1, 32;', (f) => `BAR.SYNC${f(80, 1) ? '.DEFER_BLOCKING' : ''} ${hex(f(54, 4))}, ${hex(f(42, 12))} ;`],
    ['bar.sync 3, 96;', (f) => `BAR.SYNC${f(80, 1) ? '.DEFER_BLOCKING' : ''} ${hex(f(54, 4))}, ${hex(f(42, 12))} ;`],
    ['bar.sync 15, 1024;', (f) => `BAR.SYNC${f(80, 1) ? '.DEFER_BLOCKING' : ''} ${hex(f(54, 4))}, ${hex(f(42, 12))} ;`],
    ['bar.sync 5, 4064;', (f) => `BAR.SYNC${f(80, 1) ? '.DEFER_BLOCKING' : ''} ${hex(f(54, 4))}, ${hex(f(42, 12))} ;`],
    ['bar.arrive 2, 64;', (f) => `BAR.ARV ${hex(f(54, 4))}, ${hex(f(42, 12))} ;`],
    ['bar.arrive 7, 352;', (f) => `BAR.ARV ${hex(f(54, 4))}, ${hex(f(42, 12))} ;`],
    ['bar.arrive 12, 4064;', (f) => `BAR.ARV ${hex(f(54, 4))}, ${hex(f(42, 12))} ;`],
  ]) {
    EXPERIMENTS.push({
      id: `bar ${ptx}`,
      arch,
      opcode: 0xb1d,
      ptx: `${headFor(arch)}.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  .shared .b32 s[64];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  st.shared.u32 [s], %r1;
  ${ptx}
  ld.shared.u32 %r2, [s+4];
  st.global.u32 [%rd1], %r2;
  ret;
}
`,
      text,
    });
  }
}

// ------------------------------------------------------------------ run
const dir = mkdtempSync(join(tmpdir(), 'ptxforge-exp-'));
const rowsByArch = new Map();
let n = 0;
try {
  for (const e of EXPERIMENTS) {
    const arch = e.arch ?? 'sm_90';
    const rows = rowsByArch.get(arch) ?? new Map();
    rowsByArch.set(arch, rows);
    const src = join(dir, 'k.ptx');
    const out = join(dir, 'k.cubin');
    writeFileSync(src, e.ptx);
    execFileSync(PTXAS, [`-arch=${arch}`, src, '-o', out], { stdio: ['ignore', 'ignore', 'pipe'] });
    const cubin = readCubin(new Uint8Array(readFileSync(out)));
    for (const fn of cubin.functions) {
      for (let off = 0; off + 16 <= fn.code.length; off += 16) {
        const w = wordFromBytes(fn.code, off, 128);
        if ((w[0] & 0xfff) !== e.opcode) continue;
        const text = e.text((pos, width) => getBits(w, pos, width));
        if (!text) continue;
        const lo = ((BigInt(w[1] >>> 0) << 32n) | BigInt(w[0] >>> 0)).toString(16).padStart(16, '0');
        const hi = ((BigInt(w[3] >>> 0) << 32n) | BigInt(w[2] >>> 0)).toString(16).padStart(16, '0');
        const key = `${lo}${hi}`;
        if (!rows.has(key)) rows.set(key, `0x${lo}\t0x${hi}\t${text}\tptxas ${arch}: ${e.id}`);
        n++;
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
for (const [arch, rows] of [...rowsByArch].sort()) {
  const outFile = resolve(here, `../vectors/${arch}-ptxas.tsv`);
  const lines = [...rows.values()].sort((a, b) => a.split('\t')[2].localeCompare(b.split('\t')[2]) || a.localeCompare(b));
  writeFileSync(outFile, `lo64\thi64\ttext\tsource\n${lines.join('\n')}\n`);
  console.log(`ptxas-experiments: ${arch}: ${rows.size} distinct words -> ${outFile}`);
}
console.log(`ptxas-experiments: ${EXPERIMENTS.length} experiments, ${n} words`);
