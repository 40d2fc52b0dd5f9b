import { describe, expect, it } from 'vitest';
import type { RegisterFile } from '../services.js';
import type { ControlInfo } from './core.js';
import { assignPhysicalRegisters, checkPhysical, emptyControl, formatControl, parseControl } from './machine.js';
import { parseOri } from './parse.js';
import { printFunction, printModule } from './print.js';
import { verifyFunction } from './verify.js';

const ALIGN = { 2: 2, 4: 4 };
/** An sm_90-like register file (what target-common's registerFileFor gives) and an sm_50-like one. */
const sm90File: RegisterFile = {
  classes: [
    { name: 'GPR', prefix: 'R', count: 255, zero: 255, alignment: ALIGN },
    { name: 'PRED', prefix: 'P', count: 7, zero: 7, alignment: {} },
    { name: 'UGPR', prefix: 'UR', count: 63, zero: 63, alignment: ALIGN },
    { name: 'UPRED', prefix: 'UP', count: 7, zero: 7, alignment: {} },
    { name: 'BARRIER', prefix: 'B', count: 16, alignment: {} },
  ],
};
const sm50File: RegisterFile = { classes: sm90File.classes.filter((c) => c.name === 'GPR' || c.name === 'PRED') };

const virtualText = `.entry @k(
  .param .u64 x c[0x0][0x210]
)
{
bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.GE.U32.AND %r0, 0x100, PT
  @%p0 BRA bb2
bb1:
  %rd0 = MOV c[0x0][0x210]
  %rd1 = IMAD.WIDE.U32 %r0, 0x4, %rd0
  %r1 = LDG.E.32 [%rd1]
  %ur0 = ULDC c[0x0][0x218]
  %r2 = FMUL %r1, %ur0
  STG.E.32 [%rd1], %r2
bb2:
  EXIT
}
`;

describe('control records', () => {
  it('formats and parses CuAssembler notation, reuse flags included', () => {
    const c: ControlInfo = { stall: 4, yield: true, readBarrier: undefined, writeBarrier: 1, waitMask: 0b101, reuse: 0b0010 };
    expect(formatControl(c)).toBe('B0-2---:R-:W1:Y:S04:U-1--');
    expect(parseControl('B0-2---:R-:W1:Y:S04:U-1--')).toEqual(c);
    expect(formatControl(emptyControl())).toBe('B------:R-:W-:-:S00');
    // Every field combination round-trips.
    for (let k = 0; k < 400; k++) {
      const x: ControlInfo = {
        stall: k % 16, yield: k % 3 === 0, readBarrier: k % 7 === 6 ? undefined : k % 6, writeBarrier: k % 5 === 4 ? undefined : (k * 7) % 6,
        waitMask: (k * 13) % 64, reuse: (k * 5) % 16,
      };
      expect(parseControl(formatControl(x))).toEqual(x);
    }
  });

  it('refuses malformed records with IR_BAD_CONTROL', () => {
    for (const bad of ['B------:R-:W-:-:S16', 'B1-----:R-:W-:-:S00', 'B------:R6:W-:-:S00', 'B------:R-:W-:Y', 'X------:R-:W-:-:S00']) {
      expect(() => parseControl(bad)).toThrow(expect.objectContaining({ code: 'IR_BAD_CONTROL' }));
    }
    expect(() => formatControl({ ...emptyControl(), stall: 20 })).toThrow(expect.objectContaining({ code: 'IR_BAD_CONTROL' }));
  });

  it('a bad record in Ori text is a parse error with a position', () => {
    expect(() => parseOri('.entry @k()\n{\nbb0:\n  [B------:R-:W-:-:S99] EXIT\n}\n', { file: 'k.ori' })).toThrow(
      expect.objectContaining({ code: 'ORI_BAD_CONTROL', pos: { file: 'k.ori', line: 4, col: 3 } }),
    );
  });
});

describe('physical registers', () => {
  it('parses upper-case prefixes as physical registers with class, width and number', () => {
    const fn = parseOri('.entry @k()\n{\nbb0:\n  %RD4 = MOV 0x1\n  %R5 = MOV %R4\n  %UP1 = PLOP3.LUT PT, PT, PT, 0x80, 0x0\n  EXIT\n}\n').functions[0]!;
    const rd4 = fn.getReg('%RD4')!;
    expect([rd4.isPhysical, rd4.cls, rd4.width, rd4.phys]).toEqual([true, 'R', 2, 4]);
    expect(rd4.overlaps(fn.getReg('%R5')!)).toBe(true);
    expect(rd4.overlaps(fn.getReg('%R4')!)).toBe(true);
    expect(fn.getReg('%R5')!.overlaps(fn.getReg('%R4')!)).toBe(false);
    expect(fn.physReg('UP', 1)).toBe(fn.getReg('%UP1'));
    expect(fn.physReg('R', 8, 4).name).toBe('%RQ8');
    // Physical registers count as defined on entry: no use-without-def issue for %R4.
    expect(verifyFunction(fn)).toEqual([]);
  });

  it('assigns virtual registers (pairs aligned), rewrites every operand, and the dump round-trips', () => {
    const m = parseOri(virtualText);
    const fn = m.functions[0]!;
    const r = (n: string) => fn.getReg(n)!;
    const assignment = new Map([
      [r('%r0'), 0], [r('%p0'), 0], [r('%rd0'), 2], [r('%rd1'), 2], [r('%r1'), 4], [r('%ur0'), 5], [r('%r2'), 5],
    ]);
    assignPhysicalRegisters(fn, assignment, sm90File);
    expect(verifyFunction(fn, { registerFile: sm90File, requirePhysical: true })).toEqual([]);
    // Schedule: a control record per instruction.
    let k = 0;
    for (const i of fn.instructions()) i.control = { ...emptyControl(), stall: 1 + (k++ % 4), yield: i.opcode === 'EXIT', writeBarrier: i.opcode === 'LDG' ? 0 : undefined };
    const text = printModule(m);
    expect(text).toContain('[B------:R-:W0:-:S02] %R4 = LDG.E.32 [%RD2]');
    expect(text).toContain('%UR5 = ULDC c[0x0][0x218]');
    expect(text).toContain('@%P0 BRA bb2');
    expect(printModule(parseOri(text))).toBe(text);
    expect(verifyFunction(parseOri(text).functions[0]!, { registerFile: sm90File, requirePhysical: true, requireControl: true })).toEqual([]);
  });

  it('refuses misaligned pairs, out-of-range numbers and classes the target lacks, changing nothing', () => {
    const fn = parseOri(virtualText).functions[0]!;
    const before = printFunction(fn);
    const r = (n: string) => fn.getReg(n)!;
    for (const [reg, n, file, msg] of [
      ['%rd0', 3, sm90File, 'must start at a multiple of 2'],
      ['%r0', 255, sm90File, 'beyond the 255 allocatable GPR registers'],
      ['%p0', 7, sm90File, 'beyond the 7 allocatable PRED registers'],
      ['%ur0', 0, sm50File, 'the target has no UGPR registers'],
    ] as const) {
      expect(() => assignPhysicalRegisters(fn, new Map([[r('%r1'), 8], [r(reg), n]]), file)).toThrow(
        expect.objectContaining({ code: 'IR_BAD_ASSIGNMENT', message: expect.stringContaining(msg) }),
      );
    }
    expect(printFunction(fn)).toBe(before);
    expect(checkPhysical(sm90File, 'R', 8, 4)).toBeUndefined();
    expect(checkPhysical(sm90File, 'R', 6, 4)).toContain('multiple of 4');
  });

  it('the verifier reports virtual registers after allocation, bad physical registers and missing control records', () => {
    const fn = parseOri('.entry @k()\n{\nbb0:\n  %RD3 = MOV 0x1\n  %r0 = MOV %R3\n  [B------:R-:W-:-:S01] EXIT\n}\n').functions[0]!;
    const codes = verifyFunction(fn, { registerFile: sm90File, requirePhysical: true, requireControl: true }).map((x) => `${x.code}: ${x.message}`);
    expect(codes).toEqual([
      'ORI_VERIFY_CONTROL: MOV has no control record after scoreboarding',
      'ORI_VERIFY_PHYSICAL: %RD3: a 2-register GPR value must start at a multiple of 2, not R3',
      'ORI_VERIFY_CONTROL: MOV has no control record after scoreboarding',
      'ORI_VERIFY_VIRTUAL_AFTER_RA: virtual register %r0 remains after register allocation',
    ]);
    // Without the options only the structural rules (and control ranges) apply.
    expect(verifyFunction(fn)).toEqual([]);
  });
});
