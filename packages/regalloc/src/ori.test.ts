import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseOri } from '@ptxforge/kernel';
import { registerFileFor } from '@ptxforge/target-common';
import { allocateRegisters } from './allocate.js';
import { classesFromRegisterFile } from './classes.js';
import { raFunctionFromOri } from './ori.js';
import { schedLatencyFromTable } from './sched/latency.js';
import { schedulePostRA, schedulePreRA } from './sched/schedule.js';
import { verifyAllocation } from './verify.js';

const CLASSES = classesFromRegisterFile(registerFileFor({ maxRegistersPerThread: 255, uniformRegisters: true, convergenceBarriers: true } as never));
const examples = path.resolve(__dirname, '../../../examples/ori');

const TEXT = `
.entry @k(
  .param .u64 p c[0x0][0x210]
)
{
bb0:
  %r0 = S2R SR_TID.X
  %rd0 = MOV c[0x0][0x210]
  %r1 = MOV 7
  %p0 = ISETP.GE.AND %r0, %r1, PT
  @%p0 BRA bb2
bb1:
  %r2 = MOV %r0
  @%p0 %r2 = IADD3 %r2, %r1, RZ
  STG.E [%rd0], %r2
bb2:
  EXIT
}
`;

describe('raFunctionFromOri', () => {
  it('maps registers, guarded writes, copies, constants, memory and fences', () => {
    const fn = parseOri(TEXT).functions[0]!;
    const { fn: ra, registers } = raFunctionFromOri(fn);
    expect(ra.vregs.length).toBe(registers.length);
    const b0 = ra.blocks[0]!, b1 = ra.blocks[1]!;
    expect([...b0.succs].sort()).toEqual([1, 2]);
    expect(b0.instrs[2]!.rematerializable).toBe(true); // MOV 7
    expect(b0.instrs[4]!.fence).toBe(true); // BRA
    expect(b1.instrs[0]!.copy).toBe(true);
    const guarded = b1.instrs[1]!;
    expect(guarded.defs).toEqual([]);
    expect(guarded.partialDefs).toHaveLength(1); // a predicated write keeps the old value live
    expect(b1.instrs[2]!.memory).toBe('store');
    expect(b1.instrs[2]!.memorySpace).toBe('global');
    const opts = { classes: CLASSES, reserved: { R: [1] } };
    const res = allocateRegisters(ra, opts);
    expect(verifyAllocation(res, opts)).toEqual([]);
    expect(res.assignment[registers.findIndex((r) => r.name === '%rd0')]! % 2).toBe(0);
  });

  it('allocates and schedules the example Ori functions', () => {
    if (!existsSync(examples)) return;
    const lat = schedLatencyFromTable({ LDG: 200, IMAD: 4, IADD3: 4 });
    for (const f of readdirSync(examples).filter((x) => x.endsWith('.ori')).sort()) {
      for (const fn of parseOri(readFileSync(path.join(examples, f), 'utf8')).functions) {
        const { fn: ra } = raFunctionFromOri(fn);
        const pre = schedulePreRA(ra, { latency: lat });
        const opts = { classes: CLASSES, reserved: { R: [1] }, budget: { R: 8 } };
        const res = allocateRegisters(pre.fn, opts);
        const post = schedulePostRA(res, { latency: lat });
        expect(verifyAllocation(post.result, opts), `${f} ${fn.name}`).toEqual([]);
      }
    }
  });
});
