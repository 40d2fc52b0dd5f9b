import { PtxforgeError } from '../errors.js';
import {
  Block, Instr, Register, imm, label, reg, type ControlInfo, type Guard, type Operand, type OriFunction, type RegClass,
  type RegWidth, type SrcLoc,
} from './core.js';
import { operandFitsKind } from './verify.js';

/**
 * What the builder accepts where an operand goes: an Operand, a Register (read or written as is),
 * a number or bigint (an integer immediate) or a Block (a label).
 */
export type OperandLike = Operand | Register | Block | number | bigint;

/** Options of one built instruction. */
export interface BuildOptions {
  mods?: readonly string[];
  guard?: Guard | Register | undefined;
  loc?: SrcLoc | undefined;
  flags?: Iterable<string>;
  control?: ControlInfo | undefined;
}

/** Turn an OperandLike into an Operand. */
export function toOperand(x: OperandLike): Operand {
  if (x instanceof Register) return reg(x);
  if (x instanceof Block) return label(x);
  if (typeof x === 'number' || typeof x === 'bigint') {
    if (typeof x === 'number' && !Number.isInteger(x)) {
      throw new PtxforgeError('IR_BUILD_OPERAND', `${x} is not an integer; build float immediates with f32imm()`);
    }
    return imm(x);
  }
  return x;
}

type Point = { block: Block; ref: Instr | undefined; where: 'before' | 'after' | 'end' | 'bodyEnd' };

/**
 * A small instruction builder with an insertion point (MLIR's OpBuilder / LLVM's IRBuilder in spirit):
 *
 *   const b = new IRBuilder(fn).before(instr);
 *   const t = b.newReg('R');
 *   b.build('IADD3', [t], [x, 1, RZ]);          // inserted before `instr`; the point stays before `instr`
 *
 * Instructions go through the mutation API (register table, positions, CFG stay right). Operand lists are
 * checked against the opcode's signature, so a malformed instruction fails at the line that builds it
 * (IR_BUILD_OPERAND) rather than in a later verifier run. Instructions built at an `after` point keep
 * their order: each new one goes after the previous one.
 */
export class IRBuilder {
  private point: Point | undefined;

  constructor(readonly fn: OriFunction) {}

  /** Insert before `i`. */
  before(i: Instr): this {
    if (!i.block) throw new PtxforgeError('IR_NOT_IN_BLOCK', `IRBuilder.before: ${i.opcode} is not in a block`);
    this.point = { block: i.block, ref: i, where: 'before' };
    return this;
  }
  /** Insert after `i` (successive instructions follow each other). */
  after(i: Instr): this {
    if (!i.block) throw new PtxforgeError('IR_NOT_IN_BLOCK', `IRBuilder.after: ${i.opcode} is not in a block`);
    this.point = { block: i.block, ref: i, where: 'after' };
    return this;
  }
  /** Append at the end of `b` (after any control flow: use for terminators). */
  atEnd(b: Block): this {
    this.point = { block: b, ref: undefined, where: 'end' };
    return this;
  }
  /** Append to the body of `b`, before its control-flow tail. */
  atBodyEnd(b: Block): this {
    this.point = { block: b, ref: undefined, where: 'bodyEnd' };
    return this;
  }
  /** The block instructions currently go into. */
  get block(): Block | undefined {
    return this.point?.block;
  }
  newReg(cls: RegClass, width: RegWidth = 1): Register {
    return this.fn.newReg(cls, width);
  }

  /** Insert an already built (detached) instruction at the insertion point. */
  insert(i: Instr): Instr {
    const p = this.point;
    if (!p) throw new PtxforgeError('IR_BUILD_NO_POINT', 'IRBuilder: set an insertion point (before/after/atEnd/atBodyEnd) first');
    if (p.block.fn !== this.fn) throw new PtxforgeError('IR_FOREIGN_BLOCK', `IRBuilder: block ${p.block.label} is not in ${this.fn.name}`);
    switch (p.where) {
      case 'before':
        p.block.insertBefore(p.ref!, i);
        break;
      case 'after':
        p.block.insertAfter(p.ref!, i);
        p.ref = i;
        break;
      case 'end':
        p.block.append(i);
        break;
      case 'bodyEnd':
        p.block.appendBody(i);
        break;
    }
    return i;
  }

  /** Build `[@guard] defs = OPCODE.MODS uses` and insert it at the insertion point. */
  build(opcode: string, defs: readonly OperandLike[], uses: readonly OperandLike[], opts: BuildOptions = {}): Instr {
    const info = this.fn.opcodes.get(opcode);
    if (!info) throw new PtxforgeError('IR_BUILD_OPCODE', `IRBuilder: unknown opcode ${opcode}`);
    const d = defs.map(toOperand);
    const u = uses.map(toOperand);
    if (info.defs) checkOperands(opcode, 'def', info.defs, d, true);
    if (info.uses) checkOperands(opcode, 'operand', info.uses, u, false);
    const g = opts.guard instanceof Register ? { reg: opts.guard, not: false } : opts.guard;
    if (g && g.reg.cls !== 'P' && g.reg.cls !== 'UP') {
      throw new PtxforgeError('IR_BUILD_OPERAND', `IRBuilder: guard ${g.reg.name} of ${opcode} is not a predicate`);
    }
    return this.insert(
      new Instr(opcode, { guard: g, mods: opts.mods ?? [], defs: d, uses: u, loc: opts.loc, flags: opts.flags ?? [], control: opts.control }),
    );
  }
}

function checkOperands(opcode: string, what: string, sig: readonly string[], ops: readonly Operand[], isDef: boolean): void {
  let k = 0;
  for (const spec of sig) {
    const kind = spec[0]!;
    if (spec.endsWith('*')) {
      while (k < ops.length && operandFitsKind(kind, ops[k]!, isDef)) k++;
      continue;
    }
    const o = ops[k];
    if (!o || !operandFitsKind(kind, o, isDef)) {
      throw new PtxforgeError('IR_BUILD_OPERAND', `IRBuilder: ${opcode} ${what} ${k + 1} ${o ? `(${o.kind}) does not fit` : 'is missing for'} signature kind '${kind}'`);
    }
    k++;
  }
  if (k < ops.length) throw new PtxforgeError('IR_BUILD_OPERAND', `IRBuilder: ${opcode} takes at most ${k} ${what}s here, ${ops.length} given`);
}
