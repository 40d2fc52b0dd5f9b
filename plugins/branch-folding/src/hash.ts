import type { Instr, Operand } from '@ptxforge/kernel';

/** FNV-1a of a string, 32-bit: a stable stand-in for LLVM's opcode number. */
function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < s.length; k++) {
    h ^= s.charCodeAt(k);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Hash of one operand's register / immediate value (spec: "first two operands' register/immediate values"). */
function hashOperand(o: Operand): number {
  switch (o.kind) {
    case 'reg':
      return (o.reg.id * 4 + (o.neg ? 1 : 0) + (o.not ? 2 : 0)) >>> 0;
    case 'imm':
      return Number(o.value & 0xffffffffn);
    case 'cbank':
      return (o.bank * 0x10000 + o.offset) >>> 0;
    case 'mem':
      return ((o.base?.id ?? 0) * 31 + o.offset) >>> 0;
    case 'sreg':
    case 'sym':
      return hashString(o.name);
    case 'label':
      return hashString(o.block.label);
    case 'pt':
      return o.not ? 3 : 2;
    case 'rz':
      return 1;
    case 'labels':
      return o.blocks.length;
  }
}

const mulAdd = (h: number, v: number): number => (Math.imul(h, 37) + v) >>> 0;

/**
 * HashMachineInstr (spec): opcode, number of operands and the first two operands, combined with ×37.
 * Coarse on purpose: it only buckets candidates, ComputeCommonTailLength decides.
 */
export function hashInstr(i: Instr): number {
  const ops = [...i.defs, ...i.uses];
  let h = hashString(i.fullOpcode);
  h = mulAdd(h, ops.length);
  if (ops.length >= 1) h = mulAdd(h, hashOperand(ops[0]!));
  if (ops.length >= 2) h = mulAdd(h, hashOperand(ops[1]!));
  return h;
}
