import { describe, expect, it } from 'vitest';
import { PtxforgeError, isPtxforgeError, PTXFORGE_ERROR_BRAND } from '../errors.js';
import { AnalysisManager, defineAnalysis } from '../analysis/manager.js';
import { computeRpo } from '../analysis/cfg.js';
import { IRBuilder } from './builder.js';
import { Block, Instr, OriFunction, RZ, PT, imm, label, reg } from './core.js';
import { definePlugin } from '../plugin.js';
import { createToolchain } from '../host/toolchain.js';
import { checkOpcodes, CORE_OPCODES, opcodeInfo } from './opcodes.js';
import { parseOri } from './parse.js';
import { printFunction } from './print.js';
import { verifyFunction } from './verify.js';

const loopSrc = `.entry @k()
{
bb0:
  %r0 = MOV 0
  %r9 = S2R SR_TID.X
bb1:
  %r1 = IADD3 %r0, %r9, RZ
  %r0 = IADD3 %r1, 1, RZ
  %p0 = ISETP.LT.AND %r0, 8, PT
  @%p0 BRA bb1
bb2:
  %p1 = ISETP.EQ.AND %r0, RZ, PT
  @%p1 BRA bb4
bb3:
  %r2 = MOV %r1
bb4:
  EXIT
}
`;
const fn = (): OriFunction => parseOri(loopSrc).functions[0]!;
const labels = (bs: readonly Block[]): string[] => bs.map((b) => b.label);
const edges = (f: OriFunction): string[] => f.blocks.map((b) => `${b.label}->${labels(b.succs).join(',')}`);

describe('label map and positions', () => {
  it('getBlock follows creation, renaming and removal', () => {
    const f = fn();
    const b3 = f.getBlock('bb3')!;
    expect(b3.index).toBe(3);
    b3.label = 'tail';
    expect(f.getBlock('bb3')).toBeUndefined();
    expect(f.getBlock('tail')).toBe(b3);
    expect(() => (b3.label = 'bb1')).toThrow(/already exists/);
    const nb = f.createBlock({ after: f.getBlock('bb0')! });
    expect(nb.index).toBe(1);
    expect(f.getBlock(nb.label)).toBe(nb);
    expect(f.getBlock('bb1')!.index).toBe(2);
    expect(new Set(f.blocks.map((x) => x.label)).size).toBe(f.blocks.length); // fresh among the placed labels
    expect(nb.preds).toEqual([]); // bb0's fall-through became an explicit branch to bb1
    f.removeBlock(nb);
    expect(f.getBlock(nb.label)).toBeUndefined();
    expect(nb.placed).toBe(false);
    expect(nb.index).toBe(-1);
    expect(verifyFunction(f)).toEqual([]);
  });

  it('instruction positions stay right across insertions, removals and splits', () => {
    const f = fn();
    const b1 = f.getBlock('bb1')!;
    const [i0, i1, i2, i3] = b1.instrs;
    expect([i0, i1, i2, i3].map((i) => i!.index)).toEqual([0, 1, 2, 3]);
    const n = b1.insertBefore(i1!, new Instr('NOP'));
    expect([i0, n, i1, i2, i3].map((i) => i!.index)).toEqual([0, 1, 2, 3, 4]);
    expect(n.comesBefore(i2!)).toBe(true);
    expect(i3!.comesBefore(n)).toBe(false);
    b1.remove(i0!);
    expect(i0!.index).toBe(-1);
    expect([n, i1, i2, i3].map((i) => i!.index)).toEqual([0, 1, 2, 3]);
    const tail = f.splitBlock(b1, i2!);
    expect([i2, i3].map((i) => i!.index)).toEqual([0, 1]);
    expect(i2!.block).toBe(tail);
    expect(tail.index).toBe(b1.index + 1);
  });

  it('instruction ids are numbered per function', () => {
    const a = fn();
    const b = fn();
    const ids = (f: OriFunction) => [...f.instructions()].map((i) => i.id);
    expect(ids(a)).toEqual(ids(b));
    expect(ids(a)[0]).toBe(1);
    expect(new Set(ids(a)).size).toBe(a.instructionCount);
    expect(new Instr('NOP').id).toBe(0);
  });

  it('20k labels and long blocks answer positions and lookups', () => {
    const f = new OriFunction('big');
    const n = 20000;
    for (let k = 0; k < n; k++) f.createBlock().append(new Instr('NOP'));
    f.blocks[n - 1]!.append(new Instr('EXIT'));
    let hits = 0;
    for (let k = 0; k < n; k++) if (f.getBlock(`bb${k}`)?.index === k) hits++;
    expect(hits).toBe(n);
    const big = f.blocks[0]!;
    for (let k = 0; k < n; k++) big.append(new Instr('NOP'));
    let ok = 0;
    for (const i of big.instrs) if (big.instrs[i.index] === i) ok++;
    expect(ok).toBe(big.instrs.length);
  });
});

describe('moveInstr', () => {
  it('moves within and across blocks keeping the table and positions', () => {
    const f = fn();
    const b0 = f.getBlock('bb0')!;
    const b3 = f.getBlock('bb3')!;
    const tid = b0.instrs[1]!;
    const mov0 = b0.instrs[0]!;
    tid.moveBefore(mov0);
    expect(b0.instrs).toEqual([tid, mov0]);
    expect(labels([tid.block!])).toEqual(['bb0']);
    const copy = b3.instrs[0]!;
    copy.moveAfter(mov0);
    expect(b0.instrs).toEqual([tid, mov0, copy]);
    expect(b3.instrs).toEqual([]);
    expect(copy.index).toBe(2);
    f.moveInstr(copy, b3, 0);
    expect(b3.instrs).toEqual([copy]);
    expect(() => f.moveInstr(copy, b3, 5)).toThrow(PtxforgeError);
    expect(copy.block).toBe(b3); // a refused move leaves it where it was
    expect(verifyFunction(f)).toEqual([]);
  });

  it('moving a branch marks the CFG changed', () => {
    const f = fn();
    const b1 = f.getBlock('bb1')!;
    const v = f.cfgVersion;
    const br = b1.terminator!;
    f.moveInstr(br, f.getBlock('bb3')!);
    expect(f.cfgVersion).toBeGreaterThan(v);
    expect(labels(f.getBlock('bb3')!.succs).sort()).toEqual(['bb1', 'bb4']);
  });
});

describe('cloneRegion', () => {
  it('copies a loop with fresh labels and registers, internal edges remapped', () => {
    const f = fn();
    const b1 = f.getBlock('bb1')!;
    const before = edges(f);
    const c = f.cloneRegion([b1]);
    expect(edges(f).slice(0, before.length)).toEqual(before); // originals keep their edges
    const copy = c.blocks[0]!;
    expect(copy.index).toBe(f.blocks.length - 1);
    expect(f.getBlock(copy.label)).toBe(copy);
    // The self loop bb1 -> bb1 is a loop of the copy; the fall-through to bb2 is an explicit branch now.
    expect(labels(copy.succs).sort()).toEqual([copy.label, 'bb2'].sort());
    const r0 = f.getReg('%r0')!;
    const r9 = f.getReg('%r9')!;
    expect(c.regMap.get(r0)).toBeDefined();
    expect(c.regMap.get(r0)).not.toBe(r0);
    expect(c.regMap.has(r9)).toBe(false); // live-in: shared
    const add = c.instrMap.get(b1.instrs[0]!)!;
    expect(add.uses[1]).toEqual(reg(r9));
    expect(add.defs[0]).toEqual(reg(c.regMap.get(f.getReg('%r1')!)!));
    expect(verifyFunction(f).filter((x) => x.code !== 'ORI_VERIFY_UNDEF_USE')).toEqual([]);
  });

  it('places copies after a block and keeps the original successors (shared registers)', () => {
    const f = fn();
    const region = [f.getBlock('bb2')!, f.getBlock('bb3')!];
    const c = f.cloneRegion(region, { after: f.getBlock('bb4')!, registers: 'shared' });
    const [c2, c3] = c.blocks as [Block, Block];
    expect(c.regMap.size).toBe(0);
    expect(labels(c2.succs).sort()).toEqual(['bb4', c3.label].sort());
    expect(labels(c3.succs)).toEqual(['bb4']);
    expect(c2.index).toBe(f.getBlock('bb4')!.index + 1);
    expect(verifyFunction(f)).toEqual([]);
    // Round trip through text.
    const again = printFunction(parseOri(`${printFunction(f)}\n`).functions[0]!);
    expect(again).toBe(printFunction(f));
  });

  it('refuses a block listed twice', () => {
    const f = fn();
    const b = f.getBlock('bb2')!;
    expect(() => f.cloneRegion([b, b])).toThrow(/listed twice/);
  });

  it('clones a 4k-block chain in one call', () => {
    const f = new OriFunction('chain');
    const n = 4000;
    for (let k = 0; k < n; k++) {
      const b = f.createBlock();
      const r = f.newReg('R');
      b.append(new Instr('MOV', { defs: [reg(r)], uses: [imm(k)] }));
    }
    f.blocks[n - 1]!.append(new Instr('EXIT'));
    const c = f.cloneRegion(f.blocks.slice(0, n - 1));
    expect(c.blocks).toHaveLength(n - 1);
    expect(computeRpo(f).order.length).toBe(n);
  });
});

describe('IRBuilder', () => {
  it('builds typed instructions at insertion points', () => {
    const f = fn();
    const b3 = f.getBlock('bb3')!;
    const b = new IRBuilder(f).before(b3.instrs[0]!);
    const t = b.newReg('R');
    const i1 = b.build('IADD3', [t], [f.getReg('%r1')!, 4, RZ]);
    const p = b.newReg('P');
    const i2 = b.build('ISETP', [p], [t, 100, PT], { mods: ['LT', 'AND'] });
    expect(b3.instrs.slice(0, 2)).toEqual([i1, i2]);
    new IRBuilder(f).after(i2).build('IADD3', [t], [t, 1, RZ], { guard: p });
    expect(b3.instrs[2]!.guard?.reg).toBe(p);
    expect(t.defs.size).toBe(2);
    expect(verifyFunction(f)).toEqual([]);
  });

  it('rejects operands that do not fit the opcode signature', () => {
    const f = fn();
    const b = new IRBuilder(f).atBodyEnd(f.getBlock('bb3')!);
    const p = b.newReg('P');
    expect(() => b.build('IADD3', [p], [1, 2, RZ])).toThrow(/IADD3 def 1/);
    expect(() => b.build('BRA', [], [3])).toThrow(expect.objectContaining({ code: 'IR_BUILD_OPERAND' }));
    expect(() => b.build('NOPE', [], [])).toThrow(expect.objectContaining({ code: 'IR_BUILD_OPCODE' }));
    expect(() => new IRBuilder(f).build('NOP', [], [])).toThrow(expect.objectContaining({ code: 'IR_BUILD_NO_POINT' }));
  });
});

describe('analysis tokens', () => {
  it('are keyed by identity, not name', () => {
    let a = 0;
    let b = 0;
    const A = defineAnalysis({ name: 'same', dependsOn: 'cfg', compute: () => ++a });
    const B = defineAnalysis({ name: 'same', dependsOn: 'ir', compute: () => ++b });
    const am = new AnalysisManager();
    const f = fn();
    expect(am.get(f, A)).toBe(1);
    expect(am.get(f, B)).toBe(1);
    am.invalidate(f, [B]);
    expect(am.has(f, A)).toBe(false);
    expect(am.has(f, B)).toBe(true);
    expect(am.computeCount(A)).toBe(1);
    expect(am.computeCountsByName().get('same')).toBe(2);
    am.invalidate(f, 'cfg');
    expect(am.has(f, B)).toBe(false);
  });
});

describe('errors are recognised by brand', () => {
  it('an error from another kernel copy is a PtxforgeError', () => {
    // What a second copy of the kernel would throw: its own class, the same registered brand.
    class OtherCopyError extends Error {
      readonly [PTXFORGE_ERROR_BRAND] = true;
      constructor(readonly code: string, msg: string) {
        super(msg);
      }
    }
    const e = new OtherCopyError('X_CODE', 'from elsewhere');
    expect(isPtxforgeError(e)).toBe(true);
    expect(e instanceof PtxforgeError).toBe(true);
    expect(Symbol.for('@ptxforge/kernel:PtxforgeError')).toBe(PTXFORGE_ERROR_BRAND);
    expect(isPtxforgeError(new Error('plain'))).toBe(false);
    expect(new Error('plain') instanceof PtxforgeError).toBe(false);
    class Sub extends PtxforgeError {}
    expect(new PtxforgeError('A', 'b') instanceof Sub).toBe(false);
    expect(new Sub('A', 'b') instanceof Sub).toBe(true);
  });
});

describe('opcode tables', () => {
  const ok = { name: 'TESTOP_A', category: 'misc' as const, defs: [], uses: [] };
  it('extending is all or nothing and never changes the core table', () => {
    const clash = { name: 'IADD3', category: 'misc' as const };
    expect(() => CORE_OPCODES.extend([ok, clash])).toThrow(expect.objectContaining({ code: 'OPCODE_CONFLICT' }));
    expect(opcodeInfo('TESTOP_A')).toBeUndefined();
    expect(() => checkOpcodes([ok, { ...ok, category: 'int' as const }])).toThrow(/other properties/);
    const t = CORE_OPCODES.extend([ok, ok]);
    expect(t.get('TESTOP_A')?.category).toBe('misc');
    expect(t.get('IADD3')).toBe(CORE_OPCODES.get('IADD3'));
    expect(opcodeInfo('TESTOP_A')).toBeUndefined();
    expect(() => CORE_OPCODES._def(ok)).toThrow(expect.objectContaining({ code: 'OPCODE_TABLE_SEALED' }));
  });

  it('two toolchains with different definitions of one opcode live side by side', () => {
    const target = definePlugin({ name: 't', version: '1.0.0', api: '^1.0.0' }, {
      targets: [{ id: 't', family: 'T', archs: ['sm_90'], capabilities: { uniformRegisters: true, convergenceBarriers: true, threeInputAlu: true, packedHalf: true, warpgroupMma: true, paramBase: 0x210, maxRegistersPerThread: 255, maxSharedPerBlock: 1024 } }],
    });
    const mk = (name: string, category: 'misc' | 'int') => definePlugin({ name, version: '1.0.0', api: '^1.0.0' }, { opcodes: [{ ...ok, name: 'VENDOR_OP', category }] });
    const a = createToolchain({ plugins: [target, mk('a', 'misc')] });
    const b = createToolchain({ plugins: [target, mk('b', 'int')] });
    const src = '.entry @k()\n{\nbb0:\n  VENDOR_OP\n  EXIT\n}\n';
    expect(a.load(src, 'k.ori').functions[0]!.blocks[0]!.instrs[0]!.info?.category).toBe('misc');
    expect(b.load(src, 'k.ori').functions[0]!.blocks[0]!.instrs[0]!.info?.category).toBe('int');
    expect(() => parseOri(src)).toThrow(expect.objectContaining({ code: 'ORI_UNKNOWN_OPCODE' }));
    // A refused plugin adds nothing to its toolchain's table.
    const tc = createToolchain({ plugins: [target] });
    expect(() => tc.use(definePlugin({ name: 'bad', version: '1.0.0', api: '^1.0.0' }, { opcodes: [ok, { name: 'IADD3', category: 'misc' }] }))).toThrow(
      expect.objectContaining({ code: 'OPCODE_CONFLICT', plugin: 'bad' }),
    );
    expect(tc.registry.opcodes.get('TESTOP_A')).toBeUndefined();
    // An in-memory module built with the core ISA is read with the toolchain's table when compiled.
    const m = parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n');
    a.compile(m, { arch: 'sm_90' });
    expect(m.opcodes.get('VENDOR_OP')?.category).toBe('misc');
  });
});
