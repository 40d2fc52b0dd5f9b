import {
  type DecodedInstruction,
  formatInstruction,
  isKnown,
  parseInstruction,
  type SassInstruction,
  TableCodec,
  type Word,
} from '@ptxforge/sass';
import { MAXWELL_LAYOUT } from './layout.js';
import { MAXWELL_ROWS, MAXWELL_UNGUARDED } from './rows.js';

/**
 * Archs of the family and the table archs each one reads, in lookup order. Golden vectors exist for sm_50,
 * sm_60 and sm_61; sm_52/53 (Maxwell) read sm_50's rows first, sm_62 (Pascal) sm_61's.
 */
export const MAXWELL_ARCH_ORDER: Readonly<Record<string, readonly string[]>> = {
  sm_50: ['sm_50', 'sm_60', 'sm_61'],
  sm_52: ['sm_50', 'sm_60', 'sm_61'],
  sm_53: ['sm_50', 'sm_60', 'sm_61'],
  sm_60: ['sm_60', 'sm_61', 'sm_50'],
  sm_61: ['sm_61', 'sm_60', 'sm_50'],
  sm_62: ['sm_61', 'sm_60', 'sm_50'],
};

export const MAXWELL_ARCHS = Object.keys(MAXWELL_ARCH_ORDER);

const UNGUARDED = new Set(MAXWELL_UNGUARDED);

/** Drop what nvdisasm prints that is not part of the word: `(*"..."*)` annotations and dual-issue braces. */
export function stripAnnotations(text: string): string {
  let t = text.replace(/\(\*.*?\*\)/g, '').trim();
  if (t.startsWith('{') && !t.includes('}')) t = t.slice(1).trim();
  if (/\}\s*;?$/.test(t) && !t.includes('{')) t = t.replace(/\s*\}\s*(;?)$/, '$1').trim();
  return t;
}

/**
 * nvdisasm's Maxwell/Pascal spelling of an instruction: like the Volta+ one except that `.reuse` follows the
 * operand's suffixes (`R9.H1.reuse`). (nvdisasm also puts a blank inside some constant operands,
 * `c[0x0] [0x8]`, where the operand could take a selector; that is whitespace and not reproduced.)
 */
export function formatMaxwellInstruction(ins: SassInstruction, opts: { control?: boolean } = {}): string {
  return formatInstruction(ins, opts).replace(/\.reuse((?:\.[A-Z0-9_]+)+)/g, '$1.reuse');
}

/** Parse Maxwell/Pascal text (annotations and braces dropped) into the structured form this family uses. */
export function parseMaxwellInstruction(text: string): SassInstruction {
  return parseInstruction(stripAnnotations(text));
}

/** Encoder/decoder of one Maxwell/Pascal arch over the virtual word (see MAXWELL_LAYOUT). */
export class MaxwellCodec {
  readonly table: TableCodec;
  constructor(readonly arch: string) {
    const order = MAXWELL_ARCH_ORDER[arch];
    if (!order) throw new RangeError(`${arch} is not a Maxwell/Pascal arch (${MAXWELL_ARCHS.join(', ')})`);
    this.table = new TableCodec({ archs: [...order], layout: MAXWELL_LAYOUT, rows: MAXWELL_ROWS });
  }

  decode(w: Word, addr = 0): DecodedInstruction {
    const d = this.table.decode(w, addr);
    if (isKnown(d) && UNGUARDED.has(d.opcode) && d.guard && d.guard.n === 0 && !d.guard.not) delete d.guard;
    return d;
  }

  encode(ins: SassInstruction, addr = 0): Word {
    let e = ins;
    if (UNGUARDED.has(e.opcode) && !e.guard) e = { ...e, guard: { file: 'P', n: 0, not: false } };
    return this.table.encode(e, addr);
  }
}

const cache = new Map<string, MaxwellCodec>();

/** The codec of one Maxwell/Pascal arch (built once). */
export function maxwellCodec(arch: string): MaxwellCodec {
  let c = cache.get(arch);
  if (!c) cache.set(arch, (c = new MaxwellCodec(arch)));
  return c;
}
