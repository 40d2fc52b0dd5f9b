import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PtxforgeError } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { parsePtx } from './parser.js';

const fixture = (name: string): string => readFileSync(path.join(import.meta.dirname, '../test/fixtures/kernels', name), 'utf8');

function errorOf(text: string): PtxforgeError {
  try {
    parsePtx(text, 'bad.ptx');
  } catch (e) {
    if (e instanceof PtxforgeError) return e;
    throw e;
  }
  throw new Error('expected a parse error');
}

describe('parsePtx', () => {
  it('reads module directives, parameters and performance directives', () => {
    const m = parsePtx(fixture('hand_vector_add.ptx'), 'hand_vector_add.ptx');
    expect(m.version).toBe('8.0');
    expect(m.target).toEqual(['sm_90']);
    expect(m.addressSize).toBe(64);
    const f = m.functions[0]!;
    expect(f.entry).toBe(true);
    expect(f.linkage).toBe('visible');
    expect(f.params.map((p) => `${p.type} ${p.name}`)).toEqual(['u64 a', 'u64 b', 'u64 c', 'u32 n']);
    expect(f.directives.get('maxntid')).toEqual([256, 1, 1]);
  });

  it('keeps parameterized register declarations, guards, modifiers and operand forms', () => {
    const m = parsePtx(fixture('hand_vector_add.ptx'));
    const body = m.functions[0]!.body!;
    const regs = body.filter((s) => s.kind === 'var');
    expect(regs.map((r) => (r.kind === 'var' ? `${r.type}:${r.name}<${r.paramCount}>` : ''))).toEqual(['pred:%p<2>', 'f32:%f<4>', 'b32:%r<6>', 'b64:%rd<8>']);
    const bra = body.find((s) => s.kind === 'instr' && s.opcode === 'bra');
    expect(bra).toMatchObject({ guard: { name: '%p1', not: false }, operands: [{ kind: 'name', name: 'DONE' }], pos: { line: 25, col: 2 } });
    const ld = body.find((s) => s.kind === 'instr' && s.opcode === 'ld' && s.mods[0] === 'global');
    expect(ld).toMatchObject({ mods: ['global', 'f32'], operands: [{ kind: 'name', name: '%f1' }, { kind: 'addr', base: '%rd3', offset: 0n }] });
    const mov = body.find((s) => s.kind === 'instr' && s.opcode === 'mov');
    expect(mov).toMatchObject({ operands: [{ kind: 'name', name: '%r1' }, { kind: 'name', name: '%tid', comp: 'x' }] });
  });

  it('parses vectors, setp pairs, negated predicates, float literals and address offsets', () => {
    const m = parsePtx(`.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .pred %p<3>; .reg .f32 %f<5>; .reg .b64 %rd<2>;
  ld.global.v4.f32 {%f1, %f2, _, %f4}, [%rd1+-16];
  setp.lt.and.f32 %p1|%p2, %f1, 0f3F800000, !%p0;
  mov.f32 %f3, 1.5;
}`);
    const [ld, setp, mov] = m.functions[0]!.body!.filter((s) => s.kind === 'instr');
    expect(ld).toMatchObject({ operands: [{ kind: 'vec', elems: [{ name: '%f1' }, { name: '%f2' }, { kind: 'sink' }, { name: '%f4' }] }, { kind: 'addr', base: '%rd1', offset: -16n }] });
    expect(setp).toMatchObject({ operands: [{ kind: 'pair' }, { kind: 'name' }, { kind: 'float', bits: 0x3f800000n, width: 32 }, { kind: 'not', operand: { name: '%p0' } }] });
    expect(mov).toMatchObject({ operands: [{}, { kind: 'float', value: 1.5, width: 64 }] });
  });

  it('parses initializers, constant expressions and .section blocks', () => {
    const m = parsePtx(`.version 8.0
.target sm_90
.address_size 64
.global .align 4 .u32 tbl[4] = {1, 0x10, (2+3)*4, -1};
.const .f32 half = 0f3F000000;
.extern .shared .align 16 .b8 dyn[];
.section .debug_abbrev { .b8 17 .b8 1 }
`);
    expect(m.vars.map((v) => v.name)).toEqual(['tbl', 'half', 'dyn']);
    expect(m.vars[0]!.init).toMatchObject({ kind: 'list', elems: [{ value: 1n }, { value: 16n }, { value: 20n }, { value: -1n }] });
    expect(m.vars[2]).toMatchObject({ linkage: 'extern', dims: [-1], align: 16 });
  });

  it('accepts PTX 2.x prototypes without a semicolon and nested call blocks', () => {
    const m = parsePtx(`.version 2.2
.target sm_20
.visible .func f (.param .u32 a)
.entry k {
  { .param .b32 x; st.param.b32 [x], 1; call.uni f, (x); }
  exit;
}`);
    expect(m.functions.map((f) => [f.name, !!f.body])).toEqual([['f', false], ['k', true]]);
  });

  it('reports syntax errors with file:line:col, the offending token and what was expected', () => {
    const e = errorOf('.version 8.0\n.target sm_90\n.entry k()\n{\n  add.s32 %r1, %r2 %r3;\n}\n');
    expect(e.code).toBe('PTX_SYNTAX');
    expect(e.format()).toBe("bad.ptx:5:20: error PTX_SYNTAX: expected ',' or ';' after the operands of add, found '%r3'");
    expect(errorOf('.version 8.0\n.target sm_90\n.entry k()\n{\n  frobnicate.u32 %r1;\n}').format()).toBe(
      "bad.ptx:5:3: error PTX_SYNTAX: unknown instruction 'frobnicate'; expected a PTX instruction",
    );
    expect(errorOf('.version 8.0\n.target sm_90\n.entry k(\n').format()).toBe('bad.ptx:4:1: error PTX_SYNTAX: expected a parameter declaration (.param or .reg), found end of input');
    expect(errorOf('.version 8.0\n.target sm_90\n.entry k() { mov.u32 %r1, "x; }').message).toBe('unterminated string');
  });
});
