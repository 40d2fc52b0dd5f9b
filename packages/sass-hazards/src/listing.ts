import type { Guard, HazardInstr, OperandKind, RegRef, SassOperandView, ControlInfo } from './types.js';

/** The parts of one nvdisasm instruction text. */
export interface ParsedSassText {
  guard?: Guard;
  opcode: string;
  mods: string[];
  operands: SassOperandView[];
}

export class SassTextError extends Error {
  readonly code = 'SASS_TEXT_SYNTAX';
  constructor(message: string) {
    super(message);
  }
}

const REG_RE = /^(R|UR)(\d+|Z)((?:\.[A-Z0-9_]+)*)$/;
const PRED_RE = /^(P|UP)([0-6]|T)$/;

function regOperand(file: 'R' | 'UR', idx: string, suffix: string): { reg?: RegRef; kind: OperandKind } {
  const kind: OperandKind = file === 'R' ? 'reg' : 'ureg';
  if (idx === 'Z') return { kind };
  const index = Number(idx);
  if (file === 'R' && index === 255) return { kind };
  if (file === 'UR' && index === 63) return { kind };
  const count = /\.64\b/.test(suffix) ? 2 : /\.128\b/.test(suffix) ? 4 : 1;
  return { kind, reg: { file, index, count } };
}

/** Registers inside an address or a bank index: `R2.64+UR4+0x10`, `UR4`, `R2`. */
function addressRegs(inner: string): RegRef[] {
  const out: RegRef[] = [];
  const re = /\b(U?R)(\d+|Z)(\.64|\.U32|\.X\d+)?/g;
  for (let m = re.exec(inner); m; m = re.exec(inner)) {
    const r = regOperand(m[1] === 'R' ? 'R' : 'UR', m[2]!, m[3] ?? '').reg;
    if (r) out.push(r);
  }
  return out;
}

/** Splits on top-level commas and blanks (BRX R2 -0x10, CALL.REL R6 `(f)), keeping brackets and backticks whole. */
function splitOperands(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  let inLabel = false;
  const flush = (): void => {
    const t = cur.trim();
    if (t) out.push(t);
    cur = '';
  };
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '`') inLabel = true;
    if (inLabel) {
      cur += ch;
      if (ch === ')') inLabel = false;
      continue;
    }
    if (ch === '[' || ch === '(') depth++;
    else if (ch === ']' || ch === ')') depth--;
    if (depth === 0 && (ch === ',' || ch === ' ' || ch === '\t')) {
      // a blank directly after an operator keeps the expression together (`R2 -0x10` is two operands,
      // `- R2` does not occur in nvdisasm output)
      flush();
      continue;
    }
    cur += ch;
  }
  flush();
  return out;
}

export function parseOperand(raw: string): SassOperandView {
  const text = raw;
  let s = raw.replace(/\.reuse\b/g, '');
  const reuse = s.length !== raw.length;
  // sign, logical not, bit not and absolute value do not change which register is read
  s = s.replace(/^[-!~]+/, '');
  if (s.startsWith('|') && s.endsWith('|')) s = s.slice(1, -1);
  s = s.replace(/^[-!~]+/, '');
  let m = REG_RE.exec(s);
  if (m) {
    const { reg, kind } = regOperand(m[1] === 'R' ? 'R' : 'UR', m[2]!, m[3] ?? '');
    return { kind, reg, reuse, text };
  }
  m = PRED_RE.exec(s);
  if (m) {
    const kind: OperandKind = m[1] === 'P' ? 'pred' : 'upred';
    if (m[2] === 'T') return { kind, reuse, text };
    return { kind, reg: { file: m[1] === 'P' ? 'P' : 'UP', index: Number(m[2]), count: 1 }, reuse, text };
  }
  if (/^B\d+$/.test(s)) return { kind: 'cbar', reg: { file: 'B', index: Number(s.slice(1)), count: 1 }, text };
  if (/^SB\d$/.test(s)) return { kind: 'sb', value: Number(s.slice(2)), text };
  if (s === 'PR' || s === 'UPR') return { kind: 'prmask', text };
  if (/^SR(_|Z)/.test(s)) return { kind: 'sreg', text };
  if (s.startsWith('`')) return { kind: 'label', text };
  if (/^c\[/.test(s)) {
    const inner = s.slice(1);
    return { kind: 'cbank', addrRegs: addressRegs(inner), text };
  }
  if (s.startsWith('[') || s.startsWith('desc[') || s.startsWith('gdesc[')) {
    const regs = addressRegs(s);
    // desc[URx] names a 64-bit memory descriptor
    const d = /^g?desc\[(UR\d+)\]/.exec(s);
    if (d && regs.length > 0 && regs[0]!.file === 'UR') regs[0] = { ...regs[0]!, count: 2 };
    return { kind: 'mem', addrRegs: regs, text };
  }
  if (/^(0x[0-9a-f]+|-?\d+(\.\d+)?(e[-+]?\d+)?|[-+]?(INF|QNAN|NAN)|32@(lo|hi)\(.*\))$/i.test(s)) {
    const v = /^0x[0-9a-f]+$/i.test(s) ? Number.parseInt(s, 16) : Number(s);
    return { kind: 'imm', value: Number.isFinite(v) ? v : undefined, text };
  }
  return { kind: 'other', text };
}

/** Parses `@!P0 IMAD.WIDE.U32 R2, R3.reuse, 0x4, R4 ;` (nvdisasm syntax, comments and `;` optional). */
export function parseSassText(line: string): ParsedSassText {
  let s = line.replace(/\/\*.*?\*\//g, '').trim();
  s = s.replace(/;\s*$/, '').trim();
  if (!s) throw new SassTextError('empty instruction text');
  let guard: Guard | undefined;
  const g = /^@(!?)(U?P)([0-6]|T)\s+/.exec(s);
  if (g) {
    guard = { file: g[2] === 'P' ? 'P' : 'UP', index: g[3] === 'T' ? 7 : Number(g[3]), negated: g[1] === '!' };
    s = s.slice(g[0].length);
  }
  const sp = s.search(/\s/);
  const head = sp < 0 ? s : s.slice(0, sp);
  const rest = sp < 0 ? '' : s.slice(sp + 1);
  const parts = head.split('.');
  const opcode = parts[0]!;
  if (!/^[A-Z][A-Z0-9_]*$/.test(opcode)) throw new SassTextError(`bad mnemonic '${head}' in '${line}'`);
  return { guard, opcode, mods: parts.slice(1), operands: splitOperands(rest).map(parseOperand) };
}

/** A HazardInstr from listing text and a control word (targets of label operands filled by `resolve`). */
export function instrFromText(
  addr: number,
  text: string,
  control: ControlInfo,
  resolveTarget?: (label: string) => number | undefined,
): HazardInstr {
  const p = parseSassText(text);
  if (resolveTarget) {
    for (const o of p.operands) if (o.kind === 'label') o.target = resolveTarget(o.text);
  }
  return { addr, opcode: p.opcode, mods: p.mods, guard: p.guard, operands: p.operands, control, text: text.replace(/\s*;\s*$/, '') };
}
