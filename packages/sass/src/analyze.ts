import type { SassInstruction } from './model.js';

/**
 * The flat view of a structured instruction that encoding tables work with:
 * - `sig`: the operand shapes (`R,P,UR,C,M,...`), which select the table rows that may encode it;
 * - `atoms`: the numbers the word stores in bit fields (register numbers, immediates, offsets), keyed
 *   `<operand index>` or `<operand index>.<part>` (`2.b` memory base, `3.o` constant offset, ...);
 * - `tokens`: everything else that is either present or not (mnemonic modifiers `m:X`, operand flags
 *   `1:neg`, `2:reuse`, suffixes `1.H0_H0`, special names `0=SR_TID.X`).
 */
export interface FlatInstruction {
  opcode: string;
  sig: string;
  guardN: number;
  guardNot: boolean;
  guardFile: 'P' | 'UP';
  atoms: Map<string, number>;
  tokens: Set<string>;
}

const TYPE_RE = /^(U|S|F|BF|TF)\d+$/;

function addCounted(tokens: Set<string>, t: string): void {
  if (!tokens.has(t)) {
    tokens.add(t);
    return;
  }
  for (let k = 1; ; k++) {
    const u = `${t}#${k}`;
    if (!tokens.has(u)) {
      tokens.add(u);
      return;
    }
  }
}

export function flatten(ins: SassInstruction): FlatInstruction {
  const atoms = new Map<string, number>();
  const tokens = new Set<string>();
  // Data types are positional (F2F.F64.F32 converts F32 to F64): they carry their rank among the types.
  let typeRank = 0;
  for (const m of ins.mods) addCounted(tokens, TYPE_RE.test(m) ? `m:${m}^${typeRank++}` : 'm:' + m);
  const shapes: string[] = [];
  ins.operands.forEach((o, i) => {
    let shape: string;
    switch (o.k) {
      case 'reg':
        shape = o.file;
        atoms.set(String(i), o.n);
        if (o.neg) tokens.add(`${i}:neg`);
        if (o.abs) tokens.add(`${i}:abs`);
        if (o.not) tokens.add(`${i}:not`);
        if (o.reuse) tokens.add(`${i}:reuse`);
        if (o.sfxOutsideAbs) tokens.add(`${i}:sfxout`);
        if (o.sfx) for (const s of o.sfx) addCounted(tokens, `${i}.${s}`);
        break;
      case 'int':
        shape = 'I';
        atoms.set(String(i), o.v);
        break;
      case 'float':
        shape = 'F';
        atoms.set(String(i), o.v);
        if (Number.isNaN(o.v)) tokens.add(`${i}=${o.nan ?? '+QNAN'}`);
        break;
      case 'cbank':
        shape = o.reg ? (o.reg.file === 'R' ? 'Cr' : 'Cu') : 'C';
        atoms.set(`${i}.b`, o.bank);
        atoms.set(`${i}.o`, o.off);
        if (o.reg) atoms.set(`${i}.r`, o.reg.n);
        if (o.neg) tokens.add(`${i}:neg`);
        if (o.abs) tokens.add(`${i}:abs`);
        if (o.not) tokens.add(`${i}:not`);
        if (o.sfx) for (const s of o.sfx) addCounted(tokens, `${i}.${s}`);
        break;
      case 'mem':
        if (o.gdesc) {
          shape = 'Mg';
          atoms.set(`${i}.u`, o.ur ?? 63);
        } else if (o.descOnly) {
          shape = 'Mx';
          atoms.set(`${i}.d`, o.desc ?? 63);
        } else {
          shape = 'M' + (o.desc !== undefined ? 'd' : '') + (o.ur !== undefined ? 'u' : '');
          if (o.desc !== undefined) atoms.set(`${i}.d`, o.desc);
          atoms.set(`${i}.b`, o.base);
          if (o.ur !== undefined) atoms.set(`${i}.u`, o.ur);
          atoms.set(`${i}.o`, o.off);
          if (o.baseSfx) for (const s of o.baseSfx) addCounted(tokens, `${i}.${s}`);
        }
        break;
      case 'name':
        shape = 'N';
        tokens.add(`${i}=${o.name}`);
        break;
    }
    shapes.push(o.sep === ' ' ? '_' + shape : shape);
  });
  return {
    opcode: ins.opcode,
    sig: shapes.join(','),
    guardN: ins.guard ? ins.guard.n : 7,
    guardNot: ins.guard ? ins.guard.not : false,
    guardFile: ins.guard ? ins.guard.file : 'P',
    atoms,
    tokens,
  };
}
