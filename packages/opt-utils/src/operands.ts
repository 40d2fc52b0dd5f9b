import { operandFitsKind, type ImmOperand, type Instr, type Operand, type Register, type RegWidth } from '@ptxforge/kernel';

/** Structural equality of two operands (same register and modifiers, same constant ...). */
export function sameOperand(a: Operand, b: Operand): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'reg': {
      const o = b as typeof a;
      return a.reg === o.reg && !!a.neg === !!o.neg && !!a.abs === !!o.abs && !!a.not === !!o.not;
    }
    case 'rz':
      return true;
    case 'pt':
      return !!a.not === !!(b as typeof a).not;
    case 'imm':
      return a.value === (b as typeof a).value;
    case 'cbank': {
      const o = b as typeof a;
      return a.bank === o.bank && a.offset === o.offset && a.index === o.index;
    }
    case 'sreg':
    case 'sym':
      return a.name === (b as typeof a).name;
    case 'mem': {
      const o = b as typeof a;
      return a.base === o.base && a.sym === o.sym && a.offset === o.offset;
    }
    case 'label':
      return a.block === (b as typeof a).block;
    case 'labels': {
      const o = b as typeof a;
      return a.blocks.length === o.blocks.length && a.blocks.every((x, k) => x === o.blocks[k]);
    }
  }
}

/** Key of an operand for hashing (value numbering); registers by id. */
export function operandKey(o: Operand): string {
  switch (o.kind) {
    case 'reg':
      return `r${o.reg.id}${o.neg ? '-' : ''}${o.abs ? '|' : ''}${o.not ? '!' : ''}`;
    case 'rz':
      return 'RZ';
    case 'pt':
      return o.not ? '!PT' : 'PT';
    case 'imm':
      return `#${o.value}`;
    case 'cbank':
      return `c${o.bank}:${o.offset}:${o.index?.id ?? ''}`;
    case 'sreg':
      return `SR:${o.name}`;
    case 'sym':
      return `@${o.name}`;
    case 'mem':
      return `[${o.base?.id ?? ''}+${o.sym ?? ''}+${o.offset}]`;
    case 'label':
      return `L:${o.block.label}`;
    case 'labels':
      return `LL:${o.blocks.map((b) => b.label).join(',')}`;
  }
}

/** Bits of a width in 32-bit units. */
export function widthBits(w: RegWidth): number {
  return 32 * w;
}

export function mask(bits: number): bigint {
  return (1n << BigInt(bits)) - 1n;
}

/** Value of an immediate or RZ read at `bits`, as an unsigned bit pattern; undefined for anything else. */
export function constBits(o: Operand, bits: number): bigint | undefined {
  if (o.kind === 'rz') return 0n;
  if (o.kind === 'imm' && !('neg' in o)) return BigInt.asUintN(bits, o.value);
  return undefined;
}

/**
 * An immediate holding `bits`-wide pattern `v`, written as a signed value in range so that reading it at
 * that width gives `v` whether the reader truncates or sign-extends the literal.
 */
export function immOf(v: bigint, bits: number, fmt: ImmOperand['fmt'] = 'int'): ImmOperand {
  if (fmt === 'f32' || fmt === 'f64' || fmt === 'hex') return { kind: 'imm', value: BigInt.asUintN(bits, v), fmt };
  return { kind: 'imm', value: BigInt.asIntN(bits, v), fmt: 'int' };
}

/** The single register def operand of an instruction, if it has exactly one def and it is a register. */
export function singleDefReg(i: Instr): Register | undefined {
  if (i.defs.length !== 1) return undefined;
  const d = i.defs[0]!;
  return d.kind === 'reg' ? d.reg : undefined;
}

/** Whether operand `o` is a plain register (no modifiers). */
export function isPlainReg(o: Operand): o is { kind: 'reg'; reg: Register } {
  return o.kind === 'reg' && !o.neg && !o.abs && !o.not;
}

/**
 * Which kind the opcode signature gives the use operand at `index` ('r', 'p', 's', 'x' ...), following the
 * starred repetition rules of the verifier; undefined when the signature is unknown.
 */
export function useKindAt(i: Instr, index: number): string | undefined {
  return kindAt(i.info?.uses, i.uses, index);
}

function kindAt(sig: readonly string[] | undefined, ops: readonly Operand[], index: number): string | undefined {
  if (!sig) return undefined;
  // Walk like the verifier: a starred kind swallows operands while they fit it.
  let k = 0;
  for (const spec of sig) {
    const kind = spec[0]!;
    if (spec.endsWith('*')) {
      while (k < ops.length && fitsKind(kind, ops[k]!)) {
        if (k === index) return kind;
        k++;
      }
      continue;
    }
    if (k === index) return kind;
    k++;
  }
  return undefined;
}

function fitsKind(kind: string, o: Operand): boolean {
  return operandFitsKind(kind, o);
}
