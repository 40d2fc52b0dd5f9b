import { describe, expect, it } from 'vitest';
import { Instr, OriFunction, PtxforgeError, reg, regPrefix } from '../index.js';

describe('register names (getOrCreateReg, newReg, regPrefix)', () => {
  it('reads class, width and physical number from the prefix, as /^%([a-zA-Z]+)(\\d+)$/ did', () => {
    const fn = new OriFunction('k');
    const cases: Array<[string, string, number, number | undefined]> = [
      ['%r5', 'R', 1, undefined], ['%rd12', 'R', 2, undefined], ['%rq0', 'R', 4, undefined], ['%p3', 'P', 1, undefined],
      ['%ur7', 'UR', 1, undefined], ['%urd2', 'UR', 2, undefined], ['%urq4', 'UR', 4, undefined], ['%up1', 'UP', 1, undefined],
      ['%b0', 'B', 1, undefined], ['%R4', 'R', 1, 4], ['%RD10', 'R', 2, 10], ['%UR3', 'UR', 1, 3], ['%P0', 'P', 1, 0], ['%UP6', 'UP', 1, 6],
    ];
    for (const [name, cls, width, phys] of cases) {
      const r = fn.getOrCreateReg(name);
      expect([r.name, r.cls, r.width, r.phys]).toEqual([name, cls, width, phys]);
      expect(fn.getOrCreateReg(name)).toBe(r);
    }
  });

  it('refuses names that are not a known prefix and digits, with IR_BAD_REGISTER', () => {
    const fn = new OriFunction('k');
    for (const bad of ['%Rd1', '%rD1', '%x5', '%r', '%5', 'r5', '%r5a', '%r-1', '%r 1', '%', '', '%rr1', '%R04']) {
      let err: unknown;
      try {
        fn.getOrCreateReg(bad);
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(PtxforgeError);
      expect((err as PtxforgeError).code, bad).toBe('IR_BAD_REGISTER');
    }
    // a virtual register number may have leading zeros (it is a name), a physical one may not
    expect(fn.getOrCreateReg('%r007').phys).toBeUndefined();
  });

  it('newReg skips names getOrCreateReg took and links defs and uses of placed instructions', () => {
    const fn = new OriFunction('k');
    fn.getOrCreateReg('%r0');
    fn.getOrCreateReg('%r2');
    expect([fn.newReg('R', 1).name, fn.newReg('R', 1).name, fn.newReg('R', 1).name]).toEqual(['%r1', '%r3', '%r4']);
    expect(fn.newReg('P').name).toBe('%p0');
    expect(fn.newReg('UR', 2).name).toBe('%urd0');
    expect(regPrefix('R', 4)).toBe('rq');
    expect(() => regPrefix('P', 2)).toThrow(/no register prefix/);
    const b = fn.createBlock();
    const a = fn.getOrCreateReg('%r0');
    const p = fn.newReg('P');
    const d = fn.newReg('R', 1);
    const i = b.append(new Instr('IADD3', { guard: { reg: p, not: false }, defs: [reg(d)], uses: [reg(a), reg(a), { kind: 'mem', base: a, offset: 0 }] }));
    expect(d.defs.has(i)).toBe(true);
    expect(a.uses.get(i)).toBe(3);
    expect(p.uses.get(i)).toBe(1);
    b.remove(i);
    expect(d.defs.size + a.uses.size + p.uses.size).toBe(0);
  });
});
