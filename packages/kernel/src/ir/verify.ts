import { PtxforgeError } from '../errors.js';
import { computeRpo } from '../analysis/cfg.js';
import { computeDominators } from '../analysis/dominators.js';
import { solveMaybeDefined } from '../analysis/maybe-defined.js';
import type { Block, Instr, Operand, OriFunction, OriModule, Register, SrcLoc, VarDecl } from './core.js';
import { isPredicateClass, operandRegs } from './core.js';
import { checkMachineState, type MachineIssue, type MachineVerifyOptions } from './machine.js';
import { printInstr } from './print.js';

/** One problem found by the verifier. */
export interface VerifyIssue {
  readonly code: string;
  readonly message: string;
  readonly fn: string;
  readonly block?: string;
  readonly instr?: string;
  /** Source location of the instruction, when it has one. */
  readonly loc?: SrcLoc;
}

/**
 * Structural verifier for Ori IR (run by phase 0 OriCheckInitialProgram, phase 94 FinalInspectionPass and
 * after every phase with --verify-ir). Checks:
 *  - CFG: branch targets are blocks of the function; control cannot run off the last block;
 *    control-flow instructions stand last in their block and nothing follows an unguarded one;
 *  - register table: the incrementally kept def/use sets match the instructions;
 *  - every use is reached by a definition (on some path) or is a parameter;
 *  - guards are predicates; operands fit the register classes of their positions (opcode signatures);
 *  - machine state (machine.ts): control records in range; with `machine` options, physical registers that
 *    exist in the target's register file (count, pair/quad alignment), no virtual register after allocation,
 *    a control record on every instruction after scoreboarding. Physical registers count as defined on
 *    entry (a stack pointer or an ABI register is live-in).
 */
export function verifyFunction(fn: OriFunction, machine: MachineVerifyOptions = {}): VerifyIssue[] {
  const issues: VerifyIssue[] = [];
  const add = (code: string, message: string, b?: Block, i?: Instr): void => {
    const e: { code: string; message: string; fn: string; block?: string; instr?: string; loc?: SrcLoc } = { code, message, fn: fn.name };
    if (b) e.block = b.label;
    if (i) e.instr = printInstr(i);
    if (i?.loc) e.loc = i.loc;
    issues.push(e);
  };
  if (fn.blocks.length === 0) {
    add('ORI_VERIFY_EMPTY', `function ${fn.name} has no blocks`);
    return issues;
  }
  const inFn = new Set(fn.blocks);
  const labels = new Set<string>();
  const machineIssues: MachineIssue[] = [];
  for (const b of fn.blocks) {
    if (labels.has(b.label)) add('ORI_VERIFY_CFG', `block label ${b.label} is used by two blocks`, b);
    labels.add(b.label);
    let seenCf = false;
    // Plain loops without a closure or a temporary per instruction or operand: this runs on every
    // instruction at least twice per compile (phases 0 and 94), and on a big function mostly cold.
    const instrs = b.instrs;
    const last = instrs.length - 1;
    for (let k = 0; k <= last; k++) {
      const i = instrs[k]!;
      if (i.block !== b) add('ORI_VERIFY_CFG', 'instruction does not know its block', b, i);
      const info = fn.opcodes.get(i.opcode);
      if (!info) add('ORI_VERIFY_OPCODE', `unknown opcode ${i.opcode}`, b, i);
      if (i.isControlFlow) {
        seenCf = true;
        if (i.endsFlowUnconditionally && k !== last) {
          add('ORI_VERIFY_TERMINATOR', `instructions follow the unconditional ${i.opcode}`, b, i);
        }
      } else if (seenCf) {
        add('ORI_VERIFY_TERMINATOR', `${i.opcode} follows a control-flow instruction; control flow must be last in the block`, b, i);
      }
      const uses = i.uses;
      for (let u = 0; u < uses.length; u++) {
        const o = uses[u]!;
        if (o.kind === 'label') {
          if (!inFn.has(o.block)) add('ORI_VERIFY_CFG', `target ${o.block.label} is not a block of ${fn.name}`, b, i);
        } else if (o.kind === 'labels') {
          for (const t of o.blocks) if (!inFn.has(t)) add('ORI_VERIFY_CFG', `target ${t.label} is not a block of ${fn.name}`, b, i);
        }
      }
      const g = i.guard;
      if (g && !isPredicateClass(g.reg.cls)) {
        add('ORI_VERIFY_GUARD', `guard ${g.reg.name} is a ${g.reg.cls} register, not a predicate`, b, i);
      }
      if (info?.defs && !signatureHolds(info.defs, i.defs, true)) {
        checkSignature(info.defs, i.defs, true, (m) => add('ORI_VERIFY_OPERAND', `${i.opcode} def ${m}`, b, i));
      }
      if (info?.uses && !signatureHolds(info.uses, uses, false)) {
        checkSignature(info.uses, uses, false, (m) => add('ORI_VERIFY_OPERAND', `${i.opcode} operand ${m}`, b, i));
      }
      if (i.control || machine.requireControl || machine.registerFile || machine.requirePhysical) {
        machineIssues.length = 0;
        checkMachineState(i, machine, machineIssues);
        for (const x of machineIssues) add(x.code, x.message, b, i);
      }
    }
  }
  const last = fn.blocks[fn.blocks.length - 1]!;
  if (last.fallsThrough) add('ORI_VERIFY_CFG', `control runs off the end of the function after block ${last.label}`, last);

  // Registers are numbered densely for the checks below: a register of this function by its id (its index
  // in fn.registers), any other register met in an instruction after those. Bitsets and typed arrays by
  // that number replace per-register Sets/Maps (the verifier runs on every compile, twice).
  const regs = fn.registers;
  const nOwn = regs.length;
  const foreign = new Map<Register, number>();
  const indexOf = (r: Register): number => {
    if (r.id < nOwn && regs[r.id] === r) return r.id;
    let k = foreign.get(r);
    if (k === undefined) {
      k = nOwn + foreign.size;
      foreign.set(r, k);
    }
    return k;
  };

  // Register table consistency: every (register, instruction) pair seen in the instructions must be in the
  // table with the same use count, and the table must hold no other pairs (compared by counting).
  // The fast check also numbers the foreign registers, in the order of the loop below.
  if (!checkTableFast(fn, add, indexOf)) {
    checkTableSlow(fn, add);
    for (const i of fn.instructions()) {
      for (const r of i.defRegs()) indexOf(r);
      for (const r of i.useRegs()) indexOf(r);
    }
  }

  // Uses reached by a definition on some path (forward "maybe defined" dataflow over reachable blocks). Most
  // uses are dominated by a definition (earlier in their block, or in a block that dominates theirs), which
  // settles them without dataflow: a walk over the dominator tree counts, per register, the definitions on the
  // current tree path. Only registers with a use left unsettled go through the bitset dataflow, numbered
  // densely: the dense dataflow over every register was O(blocks x registers) on big functions.
  const rpo = computeRpo(fn);
  const nRegs = nOwn + foreign.size;
  const isParam = new Uint8Array(nRegs);
  for (const r of regs) if (r.isParam || r.isPhysical) isParam[r.id] = 1;
  const hardSlot = new Int32Array(nRegs).fill(-1);
  let nHard = 0;
  {
    const dom = computeDominators(fn);
    const onPath = new Uint32Array(nRegs);
    const enter = (b: Block): void => {
      for (const i of b.instrs) {
        for (const r of i.useRegs()) {
          const x = indexOf(r);
          if (!isParam[x] && !onPath[x] && hardSlot[x]! < 0) hardSlot[x] = nHard++;
        }
        for (const r of i.defRegs()) onPath[indexOf(r)]!++;
      }
    };
    const leave = (b: Block): void => {
      for (const i of b.instrs) for (const r of i.defRegs()) onPath[indexOf(r)]!--;
    };
    // Iterative depth-first walk (the tree is as deep as the CFG is long).
    for (const root of dom.roots) {
      const stackB: Block[] = [root];
      const stackK: number[] = [0];
      enter(root);
      while (stackB.length) {
        const top = stackB.length - 1;
        const b = stackB[top]!;
        const c = dom.children.get(b)?.[stackK[top]!++];
        if (c) {
          enter(c);
          stackB.push(c);
          stackK.push(0);
        } else {
          leave(b);
          stackB.pop();
          stackK.pop();
        }
      }
    }
  }
  if (nHard === 0) return issues;
  const hardOf = (r: Register): number => hardSlot[indexOf(r)]!;
  const words = (nHard + 31) >>> 5;
  const slot = new Map<Block, number>();
  rpo.order.forEach((b, k) => slot.set(b, k));
  // out[k]: the hard registers block k defines, then (solved) those some path through its end defines
  const out = new Uint32Array(words * rpo.order.length);
  rpo.order.forEach((b, k) => {
    const base = k * words;
    for (const i of b.instrs) {
      for (const r of i.defRegs()) {
        const x = hardOf(r);
        if (x >= 0) out[base + (x >>> 5)]! |= 1 << (x & 31);
      }
    }
  });
  const predSlots = rpo.order.map((b) => b.preds.map((p) => slot.get(p)).filter((p): p is number => p !== undefined));
  solveMaybeDefined(out, predSlots, words);
  // Parameters are never hard (their uses are settled), so a block starts from its predecessors alone.
  const live = new Uint32Array(words);
  for (let k = 0; k < rpo.order.length; k++) {
    const b = rpo.order[k]!;
    live.fill(0);
    for (const p of predSlots[k]!) for (let w = 0; w < words; w++) live[w]! |= out[p * words + w]!;
    for (const i of b.instrs) {
      for (const r of i.useRegs()) {
        const x = hardOf(r);
        if (x < 0) continue;
        if (!(live[x >>> 5]! & (1 << (x & 31)))) {
          add('ORI_VERIFY_UNDEF_USE', `${r.name} is used but no definition reaches it`, b, i);
          live[x >>> 5]! |= 1 << (x & 31); // report each register once per block
        }
      }
      for (const r of i.defRegs()) {
        const x = hardOf(r);
        if (x >= 0) live[x >>> 5]! |= 1 << (x & 31);
      }
    }
  }
  return issues;
}

type AddIssue = (code: string, message: string, b?: Block, i?: Instr) => void;

/**
 * The register-table check without per-register Sets/Maps, for a function whose instructions each appear
 * once (returns false otherwise, and then the slow check decides). A register of fn.registers matches when
 * each instruction naming it is in its table with the right use count and the table has no more entries.
 */
function checkTableFast(fn: OriFunction, add: AddIssue, numberForeign: (r: Register) => number): boolean {
  const regs = fn.registers;
  const n = regs.length;
  const own = (r: Register): boolean => r.id < n && regs[r.id] === r;
  const defCount = new Uint32Array(n);
  const useCount = new Uint32Array(n);
  const bad = new Uint8Array(n);
  const seen = new Set<Instr>();
  for (const i of fn.instructions()) {
    if (seen.has(i)) return false;
    seen.add(i);
    const defs = i.defRegs();
    for (let k = 0; k < defs.length; k++) {
      const r = defs[k]!;
      if (!own(r)) {
        numberForeign(r);
        continue;
      }
      if (defs.indexOf(r) !== k) continue; // count each (register, instruction) pair once
      defCount[r.id]!++;
      if (!r.defs.has(i)) bad[r.id] = 1;
    }
    const uses = i.useRegs();
    for (let k = 0; k < uses.length; k++) {
      const r = uses[k]!;
      if (!own(r)) {
        numberForeign(r);
        continue;
      }
      if (uses.indexOf(r) !== k) continue;
      let c = 0;
      for (const x of uses) if (x === r) c++;
      useCount[r.id]!++;
      if (r.uses.get(i) !== c) bad[r.id] = 1;
    }
  }
  for (const r of regs) {
    if (bad[r.id] || defCount[r.id] !== r.defs.size || useCount[r.id] !== r.uses.size) {
      add('ORI_VERIFY_TABLE', `register table entry of ${r.name} does not match the instructions`);
    }
  }
  return true;
}

/** The register-table check by rebuilding the table (any IR, also one with an instruction listed twice). */
function checkTableSlow(fn: OriFunction, add: AddIssue): void {
  const defs = new Map<Register, Set<Instr>>();
  const uses = new Map<Register, Map<Instr, number>>();
  for (const i of fn.instructions()) {
    for (const r of i.defRegs()) {
      if (!defs.has(r)) defs.set(r, new Set());
      defs.get(r)!.add(i);
    }
    for (const r of i.useRegs()) {
      if (!uses.has(r)) uses.set(r, new Map());
      const m = uses.get(r)!;
      m.set(i, (m.get(i) ?? 0) + 1);
    }
  }
  for (const r of fn.registers) {
    const d = defs.get(r) ?? new Set();
    const u = uses.get(r) ?? new Map();
    const sameDefs = d.size === r.defs.size && [...d].every((x) => r.defs.has(x));
    const sameUses = u.size === r.uses.size && [...u].every(([x, c]) => r.uses.get(x) === c);
    if (!sameDefs || !sameUses) add('ORI_VERIFY_TABLE', `register table entry of ${r.name} does not match the instructions`);
  }
}

/** Whether `ops` fit the signature (checkSignature would report nothing), without a closure: the common case. */
function signatureHolds(sig: readonly string[], ops: readonly Operand[], isDef: boolean): boolean {
  let k = 0;
  for (let s = 0; s < sig.length; s++) {
    const spec = sig[s]!;
    const kind = spec.charAt(0);
    if (spec.charCodeAt(spec.length - 1) === 42 /* a trailing * */) {
      while (k < ops.length && fits(kind, ops[k]!, isDef)) k++;
      continue;
    }
    const o = ops[k];
    if (!o || !fits(kind, o, isDef)) return false;
    k++;
  }
  return k >= ops.length;
}

function checkSignature(sig: readonly string[], ops: readonly Operand[], isDef: boolean, report: (m: string) => void): void {
  let k = 0;
  for (let s = 0; s < sig.length; s++) {
    const spec = sig[s]!;
    const star = spec.endsWith('*');
    const kind = spec[0]!;
    if (star) {
      while (k < ops.length && fits(kind, ops[k]!, isDef)) k++;
      continue;
    }
    const o = ops[k];
    if (!o) {
      report(`${k + 1} is missing (expected ${kindName(kind)})`);
      return;
    }
    if (!fits(kind, o, isDef)) report(`${k + 1} should be ${kindName(kind)}, found ${describe(o)}`);
    k++;
  }
  if (k < ops.length) report(`${k + 1} is unexpected (${ops.length} given, at most ${k} allowed here)`);
}

/**
 * Whether operand `o` fits an opcode-signature kind ('r', 'p', 'b', 'a', 'l', 'L', 's', 'x'; see opcodes.ts),
 * as a def (`isDef`) or a use.
 */
export function operandFitsKind(kind: string, o: Operand, isDef = false): boolean {
  return fits(kind, o, isDef);
}

function fits(kind: string, o: Operand, isDef: boolean): boolean {
  switch (kind) {
    case 'x':
      return true;
    case 'p':
      return (o.kind === 'reg' && isPredicateClass(o.reg.cls)) || o.kind === 'pt';
    case 'b':
      return o.kind === 'reg' && o.reg.cls === 'B';
    case 'a':
      return o.kind === 'mem';
    case 'l':
      return o.kind === 'label';
    case 'L':
      return o.kind === 'labels';
    case 's':
      if (o.kind === 'sreg') return true;
      return fits('r', o, isDef);
    case 'r':
      if (o.kind === 'reg') return o.reg.cls === 'R' || o.reg.cls === 'UR';
      if (isDef) return o.kind === 'rz';
      return o.kind === 'rz' || o.kind === 'imm' || o.kind === 'cbank' || o.kind === 'sym';
    default:
      return false;
  }
}

function kindName(k: string): string {
  return ({ r: 'an R/UR data operand', p: 'a predicate', b: 'a B register', a: 'an address', l: 'a label', L: 'a label table', s: 'a special or data operand', x: 'an operand' } as Record<string, string>)[k] ?? k;
}
function describe(o: Operand): string {
  if (o.kind === 'reg') return `${o.reg.name} (class ${o.reg.cls})`;
  return o.kind;
}

export function verifyModule(m: OriModule, machine: MachineVerifyOptions = {}): VerifyIssue[] {
  return [...verifyVarRelocs(m), ...m.functions.flatMap((fn) => verifyFunction(fn, machine))];
}

/**
 * Address relocations of variable initializers: each names a variable visible where it is declared (a module
 * variable, or for a function's variable also that function's variables) and fits inside its variable.
 */
export function verifyVarRelocs(m: OriModule): VerifyIssue[] {
  const issues: VerifyIssue[] = [];
  const moduleVars = new Set(m.vars.map((v) => v.name));
  const check = (vars: readonly VarDecl[], visible: (n: string) => boolean, fn: string): void => {
    for (const v of vars) {
      for (const r of v.relocs ?? []) {
        const what = `relocation at ${r.offset} of @${v.name}`;
        if (!visible(r.sym)) issues.push({ code: 'ORI_VERIFY_RELOC', message: `${what} names @${r.sym}, which is not a variable`, fn });
        if (!Number.isInteger(r.offset) || r.offset < 0 || r.offset + r.size > v.size) {
          issues.push({ code: 'ORI_VERIFY_RELOC', message: `${what} (${r.size} bytes) does not fit in its ${v.size} bytes`, fn });
        }
      }
    }
  };
  check(m.vars, (n) => moduleVars.has(n), '<module>');
  for (const f of m.functions) {
    const own = new Set(f.vars.map((v) => v.name));
    check(f.vars, (n) => own.has(n) || moduleVars.has(n), f.name);
  }
  return issues;
}

/** Throw ORI_VERIFY (listing every issue) when the module is not well formed. */
export function assertValidModule(m: OriModule, when = 'verification', ignore: readonly string[] = [], machine: MachineVerifyOptions = {}): void {
  const issues = verifyModule(m, machine).filter((i) => !ignore.includes(i.code));
  if (issues.length) {
    const lines = issues.map((x) => `  [${x.code}] @${x.fn}${x.block ? ` ${x.block}` : ''}: ${x.message}${x.instr ? `\n      at: ${x.instr}` : ''}`);
    // Located at the source instruction of the first issue that has one (an internal error still points
    // at the input line it came from).
    const loc = issues.find((x) => x.loc)?.loc;
    const file = loc?.file !== undefined ? (m.files[loc.file] ?? m.sourceFile) : m.sourceFile;
    const pos = loc ? { ...(file !== undefined ? { file } : {}), line: loc.line, col: loc.col ?? 1 } : undefined;
    throw new PtxforgeError('ORI_VERIFY', `IR is not well formed (${when}):\n${lines.join('\n')}`, pos ? { pos } : {});
  }
}

