import { Instr, RZ, type Block, type DomTree, type Loop, type LoopInfo, type Operand, type OriFunction, type Register } from '@ptxforge/kernel';
import { computeLiveness, constBits, immOf, isPlainReg } from '@ptxforge/opt-utils';

/** `i = IADD3 i, K, RZ` (any operand order): the basic induction variable update inside the loop. */
function stepOf(inc: Instr, i: Register): bigint | undefined {
  if (inc.opcode !== 'IADD3' || inc.guard || inc.mods.length || inc.defs.length !== 1 || inc.uses.length !== 3) return undefined;
  let self = 0;
  let k = 0n;
  for (const o of inc.uses) {
    if (isPlainReg(o) && o.reg === i) self++;
    else {
      const v = constBits(o, 32);
      if (v === undefined) return undefined;
      k += v;
    }
  }
  return self === 1 ? BigInt.asUintN(32, k) : undefined;
}

/** `t = IMAD i, C, inv` / `IMAD C, i, inv` / `IMUL i, C` / `SHL i, k`: t = i*C + inv with constant C. */
function derivedOf(d: Instr, i: Register): { scale: bigint; inv: Operand } | undefined {
  if (d.guard || d.defs.length !== 1 || d.defs[0]!.kind !== 'reg' || d.defs[0]!.reg.width !== 1 || d.defs[0]!.reg.cls !== 'R') return undefined;
  if (d.mods.some((m) => m !== 'U32' && m !== 'S32')) return undefined;
  const isI = (o: Operand | undefined): boolean => !!o && isPlainReg(o) && o.reg === i;
  const [a, b, c] = d.uses;
  if (d.opcode === 'IMAD' && d.uses.length === 3 && c && !(isPlainReg(c) && c.reg === i)) {
    if (isI(a) && b && constBits(b, 32) !== undefined) return { scale: constBits(b, 32)!, inv: c };
    if (isI(b) && a && constBits(a, 32) !== undefined) return { scale: constBits(a, 32)!, inv: c };
  }
  if (d.opcode === 'IMUL' && d.uses.length === 2) {
    if (isI(a) && b && constBits(b, 32) !== undefined) return { scale: constBits(b, 32)!, inv: RZ };
    if (isI(b) && a && constBits(a, 32) !== undefined) return { scale: constBits(a, 32)!, inv: RZ };
  }
  if (d.opcode === 'SHL' && d.uses.length === 2 && isI(a) && b) {
    const s = constBits(b, 32);
    if (s !== undefined && s < 32n) return { scale: 1n << s, inv: RZ };
  }
  return undefined;
}

function invariantIn(o: Operand, loop: Loop): boolean {
  if (o.kind === 'imm' || o.kind === 'rz') return true;
  if (o.kind === 'cbank') return !o.index;
  if (!isPlainReg(o)) return false;
  return [...o.reg.defs].every((d) => !loop.blockSet.has(d.block!));
}

/**
 * Phase 21 OriStrengthReduce (spec: loop passes, "induction variable strength reduction" before unrolling).
 * For a loop with a preheader, a basic induction variable `i` (one in-loop def `i = i + K`, other defs
 * outside) and a derived value `t = i*C + inv` (C constant, inv loop-invariant) in the same block `B`:
 * t becomes its own induction variable, initialised in the preheader (`t = i*C + inv`) and bumped by
 * C*K right after i's update, so the multiplication leaves the loop. Applied only where it pays for every
 * entry into the loop: i must be used in the loop only by its update and by t's def, not live after the
 * loop (so i's update dies with it), and B must run on every iteration (it dominates every latch and every
 * exit). All arithmetic is modulo 2^32, so the rewrite is exact under wrap-around. Every use of t is in B
 * after its def and before any later update of i, where t == i*C + inv holds both before and after.
 */
export function strengthReduceLoop(fn: OriFunction, loop: Loop, dom: DomTree, live: () => ReturnType<typeof computeLiveness>): number {
  const pre = loop.preheader;
  if (!pre) return 0;
  let n = 0;
  for (const b of loop.blocks) {
    if (!loop.latches.every((l) => dom.dominates(b, l)) || !loop.exits.every((e) => dom.dominates(b, e.from))) continue;
    for (const inc of [...b.instrs]) {
      if (!inc.block) continue;
      const i = inc.defRegs()[0];
      if (!i || i.cls !== 'R' || i.width !== 1) continue;
      const step = stepOf(inc, i);
      if (step === undefined) continue;
      if ([...i.defs].some((d) => d !== inc && loop.blockSet.has(d.block!))) continue;
      const inLoopUses = [...i.uses.keys()].filter((u) => loop.blockSet.has(u.block!));
      const others = inLoopUses.filter((u) => u !== inc);
      if (others.length !== 1 || i.uses.get(others[0]!) !== 1) continue;
      const d = others[0]!;
      if (d.block !== b) continue;
      const der = derivedOf(d, i);
      if (!der || !invariantIn(der.inv, loop)) continue;
      const t = d.defRegs()[0]!;
      if (t.defs.size !== 1 || t === i) continue;
      const kd = b.instrs.indexOf(d);
      const ki = b.instrs.indexOf(inc);
      const usesOk = [...t.uses.keys()].every((u) => {
        if (u.block !== b || u.opcode === 'PHI') return false;
        const ku = b.instrs.indexOf(u);
        return ku > kd && !(kd < ki && ki < ku) && u !== inc;
      });
      if (!usesOk) continue;
      const lv = live();
      if (loop.exits.some((e) => lv.isLiveIn(e.to, i))) continue;
      // Rewrite: init in the preheader, bump after the update, drop the multiply and the now-dead update.
      pre.appendBody(new Instr(d.opcode, { mods: d.mods, defs: d.defs, uses: d.uses, loc: d.loc }));
      const bump = BigInt.asUintN(32, der.scale * step);
      b.insertAfter(inc, new Instr('IADD3', { defs: d.defs, uses: [{ kind: 'reg', reg: t }, immOf(bump, 32), RZ], loc: inc.loc }));
      b.remove(d);
      // i now feeds only its own update and is dead at every exit: the update is dead.
      b.remove(inc);
      n++;
    }
  }
  return n;
}

export function strengthReduce(fn: OriFunction, loops: LoopInfo, dom: DomTree): number {
  let n = 0;
  let lv: ReturnType<typeof computeLiveness> | undefined;
  let version = -1;
  const live = (): ReturnType<typeof computeLiveness> => {
    if (!lv || version !== fn.irVersion) {
      lv = computeLiveness(fn);
      version = fn.irVersion;
    }
    return lv;
  };
  // Innermost loops first: they run most often.
  for (const loop of [...loops.all].reverse()) n += strengthReduceLoop(fn, loop, dom, live);
  return n;
}

export type { Block };
