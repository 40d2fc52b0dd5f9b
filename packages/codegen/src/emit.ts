import type { Decoder, Encoder } from '@ptxforge/kernel';
import type { SassInstruction } from '@ptxforge/sass';
import { checkHazards, hazardInstrFromSass, type ControlInfo, type HazardFunction, type HazardInstr } from '@ptxforge/sass-hazards';
import { generateScoreboards, stallCycles } from '@ptxforge/sass-scoreboard';
import type { Assignment } from './regalloc.js';
import { DESC_UR, toSass } from './lower.js';
import { CodegenError, type MFunction, type MInstr, type VReg } from './mir.js';
import { ABI_DESC_UR, ABI_RETURN_ADDRESS_REGISTER, DRIVER_SYSCALLS } from './abi-call.js';

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
  /** Addresses of the ABI calls of driver functions (EIATTR_SYSCALL_OFFSETS). */
  syscallOffsets: number[];
}

const MMA_OPS = new Set(['HMMA', 'IMMA', 'DMMA']);

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
  const flat: Array<{ mi: MInstr }> = [];
  const blockAddr: number[] = [];
  const prologue: SassInstruction[] = [];
  // ABI calls may overwrite UR4:UR5; the descriptor then lives in UR36:UR37, which callees preserve (as ptxas)
  const descUR = fn.externs?.length ? ABI_DESC_UR : DESC_UR;
  if (fn.usesGlobalDesc) prologue.push({ opcode: 'ULDC', mods: ['64'], operands: [{ k: 'reg', file: 'UR', n: descUR }, { k: 'cbank', bank: 0, off: 0x208 }] });
  if (fn.frameBytes > 0) {
    // the stack pointer R1 from the local window's top (c[0x0][0x28]), lowered by the frame (spill slots)
    prologue.push({ opcode: 'LDC', mods: [], operands: [{ k: 'reg', file: 'R', n: 1 }, { k: 'cbank', bank: 0, off: 0x28 }] });
    prologue.push({ opcode: 'IADD3', mods: [], operands: [{ k: 'reg', file: 'R', n: 1 }, { k: 'reg', file: 'R', n: 1 }, { k: 'int', v: -fn.frameBytes }, { k: 'reg', file: 'R', n: 255 }] });
  }
  let n = prologue.length;
  // Registers (physical R numbers) a machine operand covers.
  const span = (o: MInstr['ops'][number]): [number, number] | undefined => {
    const v = o as { k: string; v?: VReg; part?: number; span?: number };
    return v.k === 'vreg' && v.v && v.v.file === 'R' ? [reg(v.v) + (v.part ?? 0), v.span ?? 1] : undefined;
  };
  // A matrix instruction's result is ready 17+ cycles after issue (fixed latency), more than one instruction's
  // 15-cycle stall field: ptxas puts a NOP between it and an immediate reader, and so do we (the scoreboard
  // generator only spreads stalls over the instructions that are there).
  const needsGap = (mi: MInstr, next: MInstr | undefined): boolean => {
    if (!next || !MMA_OPS.has(mi.opcode)) return false;
    const d = span(mi.ops[0]!);
    if (!d) return false;
    return next.ops.slice(next.ndefs).some((o) => {
      const r = span(o);
      return r !== undefined && r[0] < d[0] + d[1] && d[0] < r[0] + r[1];
    });
  };
  const order = fn.blocks.flatMap((b) => b.instrs);
  let at = 0;
  for (const b of fn.blocks) {
    blockAddr.push(n * 16);
    for (const mi of b.instrs) {
      at++;
      if (mi.abi) {
        // the return address (the word after the CALL) into R20:R21, immediately before the call
        flat.push({ mi: { opcode: 'LEPC', mods: [], ops: [{ k: 'reg', file: 'R', n: ABI_RETURN_ADDRESS_REGISTER }, { k: 'int', v: 0x10 }], ndefs: 1 } });
        n++;
      }
      flat.push({ mi });
      n++;
      if (needsGap(mi, order[at])) {
        flat.push({ mi: { opcode: 'NOP', mods: [], ops: [], ndefs: 0 } });
        n++;
      }
    }
  }
  const instrs: SassInstruction[] = [...prologue];
  const indirectBranches: EmittedFunction['indirectBranches'] = [];
  const syscallOffsets: number[] = [];
  for (const { mi } of flat) {
    const addr = instrs.length * 16;
    const s = toSass(mi, reg, (bi) => blockAddr[bi]!, addr, descUR);
    if (mi.abi && DRIVER_SYSCALLS.has(mi.abi.callee)) syscallOffsets.push(addr);
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
  const byWord = new WordTable<HazardInstr>();
  const plain: Uint8Array[] = new Array(instrs.length);
  const decoded: HazardInstr[] = instrs.map((ins, i) => {
    const bytes = encodeOne(opts.encoder, ins, i * 16, fn.name);
    plain[i] = bytes;
    let h = byWord.get(bytes);
    if (!h) {
      const d = opts.decoder.decode(bytes, 0) as SassInstruction & { unknown?: boolean };
      if (d.unknown) throw new CodegenError('CODEGEN_NO_FORM', `${fn.name}: ${ins.opcode} at 0x${(i * 16).toString(16)} does not decode after encoding`);
      h = hazardInstrFromSass(0, { ...d, operands: d.operands }, 0n);
      byWord.set(bytes, h);
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
    syscallOffsets,
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

/**
 * A map from encoded instructions (byte strings) to values without building a key per look-up: a 32-bit hash of
 * the bytes picks a short list of entries compared byte by byte.
 */
class WordTable<V> {
  private readonly buckets = new Map<number, Array<{ bytes: Uint8Array; value: V }>>();
  private static hash(b: Uint8Array): number {
    let h = 0x811c9dc5 ^ b.length;
    for (let k = 0; k < b.length; k++) h = Math.imul(h ^ b[k]!, 0x01000193);
    return h;
  }
  get(b: Uint8Array): V | undefined {
    const list = this.buckets.get(WordTable.hash(b));
    if (list) for (const e of list) if (sameBytes(e.bytes, b)) return e.value;
    return undefined;
  }
  set(b: Uint8Array, value: V): void {
    const h = WordTable.hash(b);
    let list = this.buckets.get(h);
    if (!list) this.buckets.set(h, (list = []));
    for (const e of list) {
      if (sameBytes(e.bytes, b)) {
        e.value = value;
        return;
      }
    }
    list.push({ bytes: b, value });
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

function encodeOne(enc: Encoder, ins: SassInstruction, addr: number, fn: string): Uint8Array {
  try {
    return enc.encode(ins, addr);
  } catch (e) {
    throw new CodegenError('CODEGEN_NO_FORM', `${fn}: cannot encode ${ins.opcode}${ins.mods.map((m) => `.${m}`).join('')} at 0x${addr.toString(16)}: ${(e as Error).message}`);
  }
}
