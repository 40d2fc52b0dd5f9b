import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PtxforgeError, printFunction, verifyModule } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { parsePtx } from '../parser.js';
import { lowerPtx } from './module.js';

const dir = path.join(import.meta.dirname, '../../test/fixtures/kernels');
const fixture = (name: string): string => readFileSync(path.join(dir, name), 'utf8');
const SM90 = { target: { arch: 'sm_90', capabilities: { paramBase: 0x210 } } };
const SM70 = { target: { arch: 'sm_70', capabilities: { paramBase: 0x160 } } };
const kernel70 = (body: string, params: string): string => kernel(body, params).replace('.target sm_90', '.target sm_70');
const lower = (text: string, opts = SM90) => lowerPtx(parsePtx(text, 'k.ptx'), opts);
const kernel = (body: string, params = '.param .u64 out'): string =>
  `.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(${params})\n{\n${body}\n}\n`;

function errorOf(f: () => unknown): PtxforgeError {
  try {
    f();
  } catch (e) {
    if (e instanceof PtxforgeError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

describe('lowerPtx', () => {
  it('lowers a kernel to SASS-like Ori with constant-bank parameters and PTX lines', () => {
    const m = lower(fixture('hand_vector_add.ptx'));
    expect(verifyModule(m)).toEqual([]);
    expect(printFunction(m.functions[0]!)).toBe(`.entry @vector_add(
  .param .u64 .align 8 a c[0x0][0x210],
  .param .u64 .align 8 b c[0x0][0x218],
  .param .u64 .align 8 c c[0x0][0x220],
  .param .u32 .align 4 n c[0x0][0x228]
)
{
  .maxntid 256, 1, 1
bb0:
  %r1 = S2R SR_TID.X {line=19 col=2}
  %r2 = S2R SR_CTAID.X {line=20 col=2}
  %r3 = MOV c[0x0][0x0] {line=21 col=2}
  %r4 = IMAD %r2, %r3, %r1 {line=22 col=2}
  %r5 = MOV c[0x0][0x228] {line=23 col=2}
  %p1 = ISETP.GE.U32.AND %r4, %r5, PT {line=24 col=2}
  @%p1 BRA DONE {line=25 col=2}
bb1:
  %rd1 = IMAD.WIDE.U32 %r4, 4, RZ {line=26 col=2}
  %rd2 = MOV c[0x0][0x210] {line=27 col=2}
  %rd3 = IADD3 %rd2, %rd1, RZ {line=28 col=2}
  %r0 = LDG.E.32 [%rd3] {line=29 col=2}
  %rd4 = MOV c[0x0][0x218] {line=30 col=2}
  %rd5 = IADD3 %rd4, %rd1, RZ {line=31 col=2}
  %r6 = LDG.E.32 [%rd5] {line=32 col=2}
  %r7 = FADD %r0, %r6 {line=33 col=2}
  %rd6 = MOV c[0x0][0x220] {line=34 col=2}
  %rd7 = IADD3 %rd6, %rd1, RZ {line=35 col=2}
  STG.E.32 [%rd7], %r7 {line=36 col=2}
DONE:
  EXIT {line=38 col=2}
}`);
  });

  it('lowers address initializers of variables to relocations (PTX >= 3.1: state-space address unless generic())', () => {
    const text = `.version 6.5\n.target sm_75\n.address_size 64
.const .u64 x = 1;
.global .u32 y[4] = {4,5,6};
.const .u64 p[3] = { x, generic(y)+8, y+4 };
.global .u32 q[2] = { 7, y };
.visible .entry k() { ret; }
`;
    const m = lower(text);
    expect(verifyModule(m)).toEqual([]);
    const p = m.vars.find((v) => v.name === 'p')!;
    expect(p.relocs).toEqual([
      { offset: 0, size: 8, sym: 'x', addend: 0 },
      { offset: 8, size: 8, sym: 'y', addend: 8, generic: true },
      { offset: 16, size: 8, sym: 'y', addend: 4 },
    ]);
    expect(Buffer.from(p.init!).toString('hex')).toBe('00'.repeat(24));
    const q = m.vars.find((v) => v.name === 'q')!;
    expect(q.relocs).toEqual([{ offset: 4, size: 4, sym: 'y', addend: 0 }]);
    expect(Buffer.from(q.init!).toString('hex')).toBe('0700000000000000');
    // before PTX 3.1 every name is implicitly generic()
    const legacy = lower(text.replace('.version 6.5', '.version 3.0').replace('sm_75', 'sm_30'));
    expect(legacy.vars.find((v) => v.name === 'p')!.relocs!.every((r) => r.generic)).toBe(true);
    expect(errorOf(() => lower(text.replace('{ x,', '{ nowhere,'))).code).toBe('PTX_SEMANTIC');
    expect(errorOf(() => lower(text.replace('.global .u32 q[2]', '.global .u16 q[2]'))).code).toBe('PTX_UNSUPPORTED');
  });

  it('places parameters at the target paramBase with natural alignment', () => {
    const m = lower(kernel70('ret;', '.param .u8 a, .param .u64 b, .param .align 16 .b8 s[20], .param .u32 c'), SM70);
    expect(m.functions[0]!.params.map((p) => p.cbank!.offset)).toEqual([0x160, 0x168, 0x170, 0x184]);
  });

  it('keeps .pragma "nounroll" on the loop header and every instruction on its PTX line', () => {
    const m = lower(fixture('nounroll_loop.ptx'));
    const fn = m.functions[0]!;
    expect(fn.blocks.filter((b) => b.attrs.has('nounroll')).map((b) => b.label)).toEqual(['$L__BB0_2']);
    expect([...fn.instructions()].every((i) => i.loc && i.loc.line > 0)).toBe(true);
  });

  it('lowers calls: .reg and .param arguments, predicate results, nested scopes, undefined reads', () => {
    const m = lower(fixture('hand_calls.ptx'));
    expect(verifyModule(m)).toEqual([]);
    const text = printFunction(m.getFunction('calls')!);
    // Registers of `%r<N>` ranges the body never names are not made: fresh temporaries take free names.
    expect(text).toContain('%r3, %r5 = CALL @add_and_test, %r1, %r2 {line=33 col=2}');
    expect(text).toContain('%p1 = ISETP.NE.U32.AND %r5, RZ, PT {line=33 col=2}');
    expect(text).toContain('%rd4 = CALL @twice, %rd0 {line=46 col=3}');
    expect(text).toContain('%r0 = UNDEF');
    expect(printFunction(m.getFunction('add_and_test')!)).toContain('%r3 = SEL 1, RZ, %p0 {line=11 col=2}\n  RET %r2, %r3');
  });

  it('lowers 64-bit integer arithmetic faithfully', () => {
    const m = lower(kernel(`.reg .b64 %rd<6>; .reg .b32 %r<3>;
  ld.param.u64 %rd1, [out];
  mul.lo.s64 %rd2, %rd1, 3;
  sub.s64 %rd3, %rd2, %rd1;
  shr.s64 %rd4, %rd3, 7;
  mul.wide.s32 %rd5, %r1, -2;
  cvt.u32.u64 %r2, %rd4;
  ret;`));
    const text = printFunction(m.functions[0]!);
    expect(text).toContain('%rd2 = IMAD %rd1, 3, RZ');
    expect(text).toContain('%rd3 = IADD3 %rd2, ~%rd1, 1');
    expect(text).toContain('%rd4 = SHR.S64 %rd3, 7');
    expect(text).toContain('%rd5 = IMAD.WIDE %r1, -2, RZ');
    expect(text).toContain('%r2 = I2I.U32.U64 %rd4');
  });

  it('lowers every committed fixture to IR the kernel verifier accepts', () => {
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.ptx'))) {
      expect(verifyModule(lower(fixture(f))), f).toEqual([]);
    }
  });

  it('refuses unsupported constructs with a located PTX_UNSUPPORTED error naming them', () => {
    const e = errorOf(() => lower(kernel('.reg .b64 %rd<2>;\n  sured.b.add.2d.u32.trap [%rd1, {%r1, %r1}], %r1;')));
    expect(e.format()).toBe("k.ptx:7:3: error PTX_UNSUPPORTED: texture/surface instruction 'sured.b.add.2d.u32.trap' is not supported by the PTX front end");
    const e2 = errorOf(() => lower(kernel('.reg .f32 %f<3>;\n  min.xorsign.abs.f32 %f1, %f2, %f2;')));
    expect(e2.format()).toBe('k.ptx:7:3: error PTX_UNSUPPORTED: the .xorsign modifier of min is not supported by the PTX front end');
  });

  it('reports semantic errors at the instruction', () => {
    const e = errorOf(() => lower(kernel('  add.s32 %r1, %r2, %r3;')));
    expect(e.format()).toBe("k.ptx:6:3: error PTX_SEMANTIC: add.s32: '%r2' is not declared");
    const e2 = errorOf(() => lower(kernel('  bra NOWHERE;')));
    expect(e2.format()).toBe("k.ptx:6:3: error PTX_SEMANTIC: bra: label 'NOWHERE' is not defined in this function");
  });

  it('lowers brx.idx to BRX over the .branchtargets blocks and keeps .loc as a dbg flag', () => {
    const m = lower(`.version 8.0
.target sm_90
.address_size 64
.file 1 "k.cu"
.visible .entry k(.param .u32 sel, .param .u64 out)
{
  .reg .b32 %r<3>; .reg .b64 %rd<2>;
  .loc 1 7 3
  ld.param.u32 %r1, [sel];
  ld.param.u64 %rd1, [out];
  ts: .branchtargets L0, L1;
  brx.idx %r1, ts;
L0:
  mov.u32 %r2, 10;
  bra.uni DONE;
L1:
  mov.u32 %r2, 20;
DONE:
  st.global.u32 [%rd1], %r2;
  ret;
}`);
    expect(verifyModule(m)).toEqual([]);
    expect(m.files).toEqual(['k.cu']);
    const text = printFunction(m.functions[0]!);
    expect(text).toContain('BRX %r1, (L0, L1) {line=12 col=3 dbg.0.7.3}');
    expect(text).toContain('BRA.U DONE {line=15 col=3 dbg.0.7.3}');
  });

  it('marks every loop header for a function-level .pragma "nounroll"', () => {
    const m = lower(kernel(`.reg .pred %p<2>; .reg .b32 %r<3>;
  .pragma "nounroll";
  mov.u32 %r1, 0;
A:
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 10;
  @%p1 bra A;
B:
  add.u32 %r1, %r1, 2;
  setp.lt.u32 %p1, %r1, 100;
  @%p1 bra B;
  ret;`));
    expect(m.functions[0]!.blocks.filter((b) => b.attrs.has('nounroll')).map((b) => b.label)).toEqual(['A', 'B']);
  });
});
