import { PtxforgeError, printFunction, verifyModule } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { parsePtx } from '../parser.js';
import { lowerPtx } from './module.js';

// Function addresses, indirect calls (function-address.ts, indirect-call.ts) and `.extern` functions under -c.
const SM90 = { target: { arch: 'sm_90', capabilities: { paramBase: 0x210 } } };
const lower = (text: string, relocatable = false) => lowerPtx(parsePtx(text, 'k.ptx'), { ...SM90, ...(relocatable ? { relocatable } : {}) });

function errorOf(f: () => unknown): PtxforgeError {
  try {
    f();
  } catch (e) {
    if (e instanceof PtxforgeError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

const head = '.version 8.0\n.target sm_90\n.address_size 64\n';
const funcs = `
.func (.param .b32 r) inc(.param .b32 a) { .reg .b32 %r<3>; ld.param.b32 %r1, [a]; add.s32 %r2, %r1, 1; st.param.b32 [r], %r2; ret; }
.func (.param .b32 r) dbl(.param .b32 a) { .reg .b32 %r<3>; ld.param.b32 %r1, [a]; add.s32 %r2, %r1, %r1; st.param.b32 [r], %r2; ret; }
.func (.param .b64 r) wide(.param .b64 a) { .reg .b64 %rd<2>; ld.param.b64 %rd1, [a]; st.param.b64 [r], %rd1; ret; }
.func (.param .b32 r) unused(.param .b32 a) { .reg .b32 %r<2>; ld.param.b32 %r1, [a]; st.param.b32 [r], %r1; ret; }
`;
const callThrough = (proto: string) => `
.visible .entry k(.param .u64 out, .param .u64 fp)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [fp];
  mov.u32 %r1, %tid.x;
  {
  .param .b32 a0;
  st.param.b32 [a0], %r1;
  .param .b32 r0;
  ${proto}
  call (r0), %rd1, (a0), p0;
  ld.param.b32 %r2, [r0];
  }
  ld.param.u64 %rd2, [out];
  st.global.u32 [%rd2], %r2;
  ret;
}`;

describe('function addresses and indirect calls', () => {
  it('numbers the address-taken functions 8, 16, ... in declaration order; initializers hold the numbers', () => {
    const m = lower(`${head}${funcs}.global .align 8 .u64 tab[3] = {dbl, 0, inc};\n.global .align 8 .u64 w = wide;\n${callThrough('p0 : .callprototype (.param .b32 _) _ (.param .b32 _);')}`);
    expect(verifyModule(m)).toEqual([]);
    const tab = m.vars.find((v) => v.name === 'tab')!;
    expect(Buffer.from(tab.init!).toString('hex')).toBe('1000000000000000' + '0000000000000000' + '0800000000000000');
    expect(tab.relocs).toBeUndefined();
    expect(Buffer.from(m.vars.find((v) => v.name === 'w')!.init!).toString('hex')).toBe('1800000000000000');
  });

  it('an indirect call compares with each candidate of the prototype\'s sizes and calls it directly; else KILL', () => {
    const m = lower(`${head}${funcs}.global .align 8 .u64 tab[3] = {inc, dbl, wide};\n${callThrough('p0 : .callprototype (.param .b32 _) _ (.param .b32 _);')}`);
    expect(verifyModule(m)).toEqual([]);
    const text = printFunction(m.getFunction('k')!);
    expect(text).toMatch(/ISETP\.EQ\.U64\.AND %rd1, 8, PT/);
    expect(text).toMatch(/ISETP\.EQ\.U64\.AND %rd1, 16, PT/);
    expect(text).not.toMatch(/ISETP\.EQ\.U64\.AND %rd1, 24, PT/); // wide: 64-bit parameter
    expect(text).toMatch(/CALL @inc/);
    expect(text).toMatch(/CALL @dbl/);
    expect(text).not.toMatch(/CALL @unused/); // its address is never taken
    expect(text).toMatch(/KILL/);
  });

  it('.calltargets restricts the candidates to its list', () => {
    const m = lower(`${head}${funcs}.global .align 8 .u64 tab[2] = {inc, dbl};\n${callThrough('p0 : .calltargets dbl;')}`);
    const text = printFunction(m.getFunction('k')!);
    expect(text).toMatch(/CALL @dbl/);
    expect(text).not.toMatch(/CALL @inc/);
  });

  it('mov of a function gives its number; of a kernel its symbol', () => {
    const m = lower(`${head}${funcs}.visible .entry k(.param .u64 out)\n{\n.reg .b64 %rd<4>;\nmov.u64 %rd1, dbl;\nmov.u64 %rd2, k;\nld.param.u64 %rd3, [out];\nst.global.u64 [%rd3], %rd1;\nst.global.u64 [%rd3+8], %rd2;\nret;\n}\n`);
    const text = printFunction(m.getFunction('k')!);
    expect(text).toMatch(/%rd1 = MOV 8/);
    expect(text).toMatch(/%rd2 = MOV @k/);
  });

  it('relocatable (-c): the address of a device function and indirect calls are refused, naming the construct', () => {
    const e1 = errorOf(() => lower(`${head}${funcs}.global .align 8 .u64 t = inc;\n.visible .entry k() { ret; }\n`, true));
    expect(e1.code).toBe('PTX_UNSUPPORTED');
    expect(e1.message).toMatch(/relocatable/);
    const e2 = errorOf(() => lower(`${head}${funcs}${callThrough('p0 : .callprototype (.param .b32 _) _ (.param .b32 _);')}`, true));
    expect(e2.code).toBe('PTX_UNSUPPORTED');
    expect(e2.message).toMatch(/indirect call in a relocatable/);
  });

  it('relocatable (-c): a called .extern function is the linker\'s; a declaration without .extern still needs a body', () => {
    const src = (decl: string) => `${head}${decl} (.param .b32 r) ext(.param .b32 a);\n.visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<2>;\nmov.u32 %r1, %tid.x;\n{\n.param .b32 a0;\nst.param.b32 [a0], %r1;\n.param .b32 r0;\ncall.uni (r0), ext, (a0);\nld.param.b32 %r2, [r0];\n}\nld.param.u64 %rd1, [out];\nst.global.u32 [%rd1], %r2;\nret;\n}\n`;
    expect(errorOf(() => lower(src('.extern .func'))).code).toBe('PTX_UNRESOLVED_FUNCTION');
    const m = lower(src('.extern .func'), true);
    expect(printFunction(m.getFunction('k')!)).toMatch(/CALL @ext/);
    expect(errorOf(() => lower(src('.func'), true)).code).toBe('PTX_UNRESOLVED_FUNCTION');
  });

  it('cudaGraphSetConditional is a function the driver provides (ptxas 13 accepts it without -c, as vprintf)', () => {
    const text = `${head}.extern .func cudaGraphSetConditional(.param .b64 h, .param .b32 v);
.visible .entry k(.param .u64 h)
{
.reg .b64 %rd<2>;
ld.param.u64 %rd1, [h];
{
.param .b64 a0;
st.param.b64 [a0], %rd1;
.param .b32 a1;
st.param.b32 [a1], 1;
call.uni cudaGraphSetConditional, (a0, a1);
}
ret;
}
`;
    expect(printFunction(lower(text).getFunction('k')!)).toMatch(/CALL @cudaGraphSetConditional/);
  });
});
