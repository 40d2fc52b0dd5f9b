import type { Decoder, Encoder } from '@ptxforge/kernel';
import type { SassInstruction } from '@ptxforge/sass';
import { checkHazards, hazardInstrFromSass, type ControlInfo, type HazardFunction, type HazardInstr } from '@ptxforge/sass-hazards';
import { generateScoreboards, stallCycles } from '@ptxforge/sass-scoreboard';
import type { Assignment } from './regalloc.js';
import { DESC_UR, toSass } from './lower.js';
import { CodegenError, type MFunction, type VReg } from './mir.js';

export interface EmittedFunction {
  code: Uint8Array;
  /** The instructions with their control words, in address order. */
  instrs: SassInstruction[];
  exitOffsets: number[];
  /** Sum of the body's control-word stall counts (each instruction at least one cycle; the trailing self-branch
   * and padding not counted, as `instructions`). */
  stallCycles: number;
  /** Hazards the checker still reports on the final code (0 on success). */
  hazards: number;
  /** Static instruction count (without the trailing self-branch and padding). */
  instructions: number;
  /** The BRX jump tables (`.nv.constant2.<fn>`: function-relative target addresses), when there are any. */
  constant2?: Uint8Array;
  /** Each BRX's address and its distinct targets (EIATTR_INDIRECT_BRANCH_TARGETS). */
  indirectBranches: Array<{ offset: number; targets: number[] }>;
}

export interface EmitOptions {
  arch: string;
  encoder: Encoder;
  decoder: Decoder;
}

function toHazardControl(c: SassInstruction['control']): ControlInfo {
  return c
    ? { stall: c.stall, yield: c.yieldBit === 0, wbar: c.writeBarrier === 7 ? null : c.writeBarrier, rbar: c.readBarrier === 7 ? null : c.readBarrier, waitMask: c.waitMask, reuse: c.reuse }
    : { stall: 0, yield: false, wbar: null, rbar: null, waitMask: 0, reuse: 0 };
}

/**
 * Lay out an allocated machine function, resolve branch targets, assign control words with the scoreboard
 * generator (AdvancedScoreboardsAndOpexes) and encode every instruction with the target's Encoder (the
 * MercEncodeAndDecode step: each word is decoded again and the checker reads the decoded form).
 */
export function emitFunction(fn: MFunction, asg: Assignment, opts: EmitOptions): EmittedFunction {
  const reg = (v: VReg): number => {
    const r = asg.reg[v.id]!;
    if (r < 0) throw new CodegenError('CODEGEN_REGISTERS', `${fn.name}: virtual register ${v.name} has no register`);
    return r;
  };
  const flat: Array<{ mi: import('./mir.js').MInstr }> = [];
  const blockAddr: number[] = [];
  const prologue: SassInstruction[] = [];
  if (fn.usesGlobalDesc) prologue.push({ opcode: 'ULDC', mods: ['64'], operands: [{ k: 'reg', file: 'UR', n: DESC_UR }, { k: 'cbank', bank: 0, off: 0x208 }] });
  if (fn.frameBytes > 0) {
    // the stack pointer R1 from the local window's top (c[0x0][0x28]), lowered by the frame (spill slots)
    prologue.push({ opcode: 'LDC', mods: [], operands: [{ k: 'reg', file: 'R', n: 1 }, { k: 'cbank', bank: 0, off: 0x28 }] });
    prologue.push({ opcode: 'IADD3', mods: [], operands: [{ k: 'reg', file: 'R', n: 1 }, { k: 'reg', file: 'R', n: 1 }, { k: 'int', v: -fn.frameBytes }, { k: 'reg', file: 'R', n: 255 }] });
  }
  let n = prologue.length;
  for (const b of fn.blocks) {
    blockAddr.push(n * 16);
    for (const mi of b.instrs) {
      flat.push({ mi });
      n++;
    }
  }
  const instrs: SassInstruction[] = [...prologue];
  const indirectBranches: EmittedFunction['indirectBranches'] = [];
  for (const { mi } of flat) {
    const addr = instrs.length * 16;
    const s = toSass(mi, reg, (bi) => blockAddr[bi]!, addr);
    if (mi.opcode === 'BRX') {
      const t = mi.ops.find((o) => (o as { k: string }).k === 'jtable') as { table: number };
      indirectBranches.push({ offset: addr, targets: [...new Set(fn.jumpTables[t.table]!.targets.map((b) => blockAddr[b]!))] });
    }
    instrs.push(s);
  }
  let constant2: Uint8Array | undefined;
  if (fn.jumpTables.length) {
    const last = fn.jumpTables[fn.jumpTables.length - 1]!;
    constant2 = new Uint8Array(last.offset + 4 * last.targets.length);
    const dv = new DataView(constant2.buffer);
    for (const t of fn.jumpTables) t.targets.forEach((b, i) => dv.setUint32(t.offset + 4 * i, blockAddr[b]!, true));
  }
  const body = instrs.length;
  // ptxas ends a function with a branch to itself (never reached) and pads to a 128-byte multiple with NOPs
  instrs.push({ opcode: 'BRA', mods: [], operands: [{ k: 'int', v: body * 16 }] });
  while ((instrs.length * 16) % 128) instrs.push({ opcode: 'NOP', mods: [], operands: [] });

  // encode once to obtain the canonical decoded form the checker reads, then generate the control words
  // Equal words decode to equal instructions (decoded at offset 0, so branch offsets are word bits too): each
  // distinct word is decoded and put in the checker's form once (most words of a big function repeat).
  const byWord = new Map<string, HazardInstr>();
  const plain: Uint8Array[] = new Array(instrs.length);
  const decoded: HazardInstr[] = instrs.map((ins, i) => {
    const bytes = encodeOne(opts.encoder, ins, i * 16, fn.name);
    plain[i] = bytes;
    const key = wordKey(bytes);
    let h = byWord.get(key);
    if (!h) {
      const d = opts.decoder.decode(bytes, 0) as SassInstruction & { unknown?: boolean };
      if (d.unknown) throw new CodegenError('CODEGEN_NO_FORM', `${fn.name}: ${ins.opcode} at 0x${(i * 16).toString(16)} does not decode after encoding`);
      h = hazardInstrFromSass(0, { ...d, operands: d.operands }, 0n);
      byWord.set(key, h);
    }
    return { ...h, addr: i * 16, control: { ...h.control } };
  });
  // decoding at offset 0 makes branch targets relative to 0: restore the real ones
  decoded.forEach((h, i) => {
    const t = instrs[i]!.operands.find((o) => o.k === 'int');
    if ((instrs[i]!.opcode === 'BRA') && t && t.k === 'int') h.branchTarget = t.v;
  });
  const hf: HazardFunction = { name: fn.name, instrs: decoded, ...(indirectBranches.length ? { indirectTargets: [...new Set(indirectBranches.flatMap((b) => b.targets))] } : {}) };
  const sb = generateScoreboards(hf, { arch: opts.arch });
  const code = new Uint8Array(instrs.length * 16);
  const withControl = controlPatcher(opts.encoder, fn.name);
  instrs.forEach((ins, i) => {
    const c = sb.control[i]!;
    ins.control = { stall: c.stall, yieldBit: c.yield ? 0 : 1, writeBarrier: c.wbar ?? 7, readBarrier: c.rbar ?? 7, waitMask: c.waitMask, reuse: 0 };
    withControl(ins, plain[i]!, code, i * 16);
  });
  // The generator's last round checked exactly these control words on the decoded code; only when it gave up
  // (unresolved hazards) is the final code checked again for the report.
  const hazards = sb.unresolved.length === 0 ? 0
    : checkHazards({ ...hf, instrs: decoded.map((h, i) => ({ ...h, control: toHazardControl(instrs[i]!.control) })) }, { arch: opts.arch }).hazards.length;
  const exitOffsets: number[] = [];
  instrs.forEach((ins, i) => {
    if (ins.opcode === 'EXIT') exitOffsets.push(i * 16);
  });
  return {
    code, instrs, exitOffsets, stallCycles: stallCycles(sb.control.slice(0, body)), hazards, instructions: body, ...(constant2 ? { constant2 } : {}), indirectBranches,
  };
}

/**
 * Puts control words into encoded instructions without encoding them again. A Volta+ encoder (16-byte words)
 * writes the control field last, into the same bits for every opcode, over whatever the instruction fields
 * left there (@ptxforge/sass's `writeControl`; our instructions carry no operand reuse flags, so the control
 * word is all that differs). So the word with control C is the word without control, XOR the bits C changes
 * in any other word: those are taken from a NOP, once per distinct control word of the function.
 */
function controlPatcher(enc: Encoder, fn: string): (ins: SassInstruction, plain: Uint8Array, out: Uint8Array, at: number) => void {
  // other encoders (8-byte words with separate control words) encode again
  if (enc.instructionBytes !== 16) return (ins, _plain, out, at) => out.set(encodeOne(enc, ins, at, fn), at);
  const nop: SassInstruction = { opcode: 'NOP', mods: [], operands: [] };
  const bare = encodeOne(enc, nop, 0, fn);
  const flips = new Map<number, Uint8Array>();
  return (ins, plain, out, at) => {
    const c = ins.control!;
    // stall 4 bits, yield 1, barriers 3 + 3, wait mask 6, reuse 4
    const key = c.stall | (c.yieldBit << 4) | (c.writeBarrier << 5) | (c.readBarrier << 8) | (c.waitMask << 11) | (c.reuse << 17);
    let f = flips.get(key);
    if (!f) {
      const w = encodeOne(enc, { ...nop, control: c }, 0, fn);
      f = new Uint8Array(16);
      for (let k = 0; k < 16; k++) f[k] = w[k]! ^ bare[k]!;
      flips.set(key, f);
    }
    for (let k = 0; k < 16; k++) out[at + k] = plain[k]! ^ f[k]!;
  };
}

/** A map key for one encoded instruction (its bytes as 16-bit character codes: short to build and to hash). */
function wordKey(b: Uint8Array): string {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b.byteLength === 16) {
    return String.fromCharCode(v.getUint16(0, true), v.getUint16(2, true), v.getUint16(4, true), v.getUint16(6, true),
      v.getUint16(8, true), v.getUint16(10, true), v.getUint16(12, true), v.getUint16(14, true));
  }
  let k = '';
  for (let o = 0; o + 2 <= b.byteLength; o += 2) k += String.fromCharCode(v.getUint16(o, true));
  if (b.byteLength % 2) k += String.fromCharCode(0x10000 + b[b.byteLength - 1]!);
  return k;
}

function encodeOne(enc: Encoder, ins: SassInstruction, addr: number, fn: string): Uint8Array {
  try {
    return enc.encode(ins, addr);
  } catch (e) {
    throw new CodegenError('CODEGEN_NO_FORM', `${fn}: cannot encode ${ins.opcode}${ins.mods.map((m) => `.${m}`).join('')} at 0x${addr.toString(16)}: ${(e as Error).message}`);
  }
}
