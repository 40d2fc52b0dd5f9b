import type { RegisterFile } from '@ptxforge/kernel';
import {
  AllocationSession, allocateRegisters, classesFromRegisterFile, gprBudgetFromMaxRRegCount, type MachineScheduler, type RaFunction, type RaInstr, type RaResult, type RaStats,
  type ScheduleStats,
} from '@ptxforge/regalloc';
import { machineSuccessors } from './liveness.js';
import { schedInfo, type SchedClassifier } from './sched-info.js';
import { CodegenError, type MFunction, type MInstr, type MOperand, type VCBankOperand, type VMemOperand, type VReg, type VRegOperand, type VFile } from './mir.js';

/**
 * The adapter from the machine function to @ptxforge/regalloc (AdvancedPhaseAllocReg, phase 101): describes each
 * instruction's virtual-register defs and uses, lets the allocator colour (with coalescing and spilling), and
 * rebuilds the machine function from its answer — operands renamed to spill temporaries, STL/LDL spill code on
 * the R1-based stack frame, rematerialized constants, identity copies dropped.
 */
export interface Assignment {
  /** Physical register of each virtual register id (its first component); -1 when it no longer occurs. */
  reg: Int32Array;
  /** Registers used per file (highest index + 1). */
  used: Record<VFile, number>;
  stats: RaStats;
  /** PostSchedule (110) statistics when it ran. */
  postSchedule?: ScheduleStats;
}

export interface AllocateOptions {
  registerFile: RegisterFile;
  /** --maxrregcount: caps the reported register count (the allocator's R budget is N - 2). */
  maxrregcount?: number;
  /**
   * PostSchedule (110): list-schedule the allocated code on its physical registers (spill code included)
   * before it is rewritten; `classify` gives each instruction's memory effect and fences.
   */
  postSchedule?: { scheduler: MachineScheduler; classify: SchedClassifier };
  /** Re-colour with tighter R budgets while nothing spills (default true; see `tightenRegisterCount`). */
  tighten?: boolean;
}

/** Where each RA def/use of an instruction sits among its operands. */
export type Slot = { op: number } | { guard: true } | { abi: true };

export interface Described {
  ra: RaInstr<MInstr>;
  defSlots: Slot[];
  partialSlots: Slot[];
  useSlots: Slot[];
}

const GUARD_SLOT: Slot = Object.freeze({ guard: true });
/** An ABI call's argument or result register (abi-call.ts): not an operand, nothing to rename. */
const ABI_SLOT: Slot = Object.freeze({ abi: true });
/** `{ op: i }` slots are immutable: one object per operand position. */
const OP_SLOTS: Slot[] = [];
const opSlot = (i: number): Slot => OP_SLOTS[i] ?? (OP_SLOTS[i] = Object.freeze({ op: i }));

const isConstantOperand = (o: MOperand | undefined): boolean => {
  if (!o) return false;
  const k = (o as { k: string }).k;
  return (k === 'int' || k === 'float' || k === 'cbank') && !(o as { reg?: unknown }).reg;
};

function describe(mi: MInstr, fullyWritten: Set<number>, classify?: SchedClassifier): Described {
  const defs: number[] = [];
  const partialDefs: number[] = [];
  const uses: number[] = [];
  const defSlots: Slot[] = [];
  const partialSlots: Slot[] = [];
  const useSlots: Slot[] = [];
  if (mi.guard) {
    uses.push(mi.guard.v.id);
    useSlots.push(GUARD_SLOT);
  }
  const ops = mi.ops;
  for (let i = 0; i < ops.length; i++) {
    const o = ops[i]!;
    const k = (o as { k: string }).k;
    if (k === 'vreg') {
      const r = o as VRegOperand;
      if (i < mi.ndefs) {
        // The first unguarded write of a register in a block starts its value (pairs are written one half at a
        // time by the expansions, each of which reads what it needs of the old value no later than that write);
        // later or predicated writes of a part keep the rest live (read-modify-write).
        const whole = r.part === 0 && r.span === r.v.width;
        if (!mi.guard && (whole || !fullyWritten.has(r.v.id))) {
          defs.push(r.v.id);
          defSlots.push(opSlot(i));
          fullyWritten.add(r.v.id);
        } else {
          partialDefs.push(r.v.id);
          partialSlots.push(opSlot(i));
        }
      } else {
        uses.push(r.v.id);
        useSlots.push(opSlot(i));
      }
    } else if (k === 'vmem' && (o as VMemOperand).base) {
      uses.push((o as VMemOperand).base!.id);
      useSlots.push(opSlot(i));
    } else if (k === 'vcbank') {
      uses.push((o as VCBankOperand).index.id);
      useSlots.push(opSlot(i));
    }
  }
  // an ABI call reads its argument registers and writes its results without naming them as operands
  if (mi.abi) {
    for (const v of mi.abi.uses) {
      uses.push(v.id);
      useSlots.push(ABI_SLOT);
    }
    for (const v of mi.abi.defs) {
      defs.push(v.id);
      defSlots.push(ABI_SLOT);
      fullyWritten.add(v.id);
    }
  }
  const src = ops[mi.ndefs];
  const copy = mi.opcode === 'MOV' && !mi.guard && defs.length === 1 && uses.length === 1 && mi.ndefs === 1 && isWholeVreg(ops[0]!) && isWholeVreg(src!) &&
    (ops[0] as VRegOperand).v.width === (src as VRegOperand).v.width && !(src as VRegOperand).neg && !(src as VRegOperand).abs;
  const remat = !mi.guard && defs.length === 1 && uses.length === 0 && partialDefs.length === 0 && mi.ndefs === 1 && isWholeVreg(ops[0]!) &&
    (mi.opcode === 'MOV' || mi.opcode === 'LDC') && ops.length === 2 && isConstantOperand(src);
  // properties in the order the allocator's callers have always seen them (ref, defs, uses, partialDefs, copy,
  // rematerializable, then the scheduling facts)
  const ra: { -readonly [K in keyof RaInstr<MInstr>]: RaInstr<MInstr>[K] } = { ref: mi, defs, uses };
  if (partialDefs.length) ra.partialDefs = partialDefs;
  if (copy) ra.copy = true;
  if (remat) ra.rematerializable = true;
  if (mi.abi) ra.clobbers = mi.abi.clobbers.map((c) => ({ cls: c.file, index: c.n }));
  if (classify) {
    const info = schedInfo(mi, classify);
    ra.op = info.op;
    if (info.memory) {
      ra.memory = info.memory;
      ra.memorySpace = info.memorySpace!;
    }
    if (info.fence) ra.fence = true;
  }
  return { ra, defSlots, partialSlots, useSlots };
}

function isWholeVreg(o: MOperand): boolean {
  return (o as { k: string }).k === 'vreg' && (o as VRegOperand).part === 0 && (o as VRegOperand).span === (o as VRegOperand).v.width;
}

/** What `describeMachineFunction` answered for a function's blocks, kept to answer again where nothing changed. */
interface DescribedBlocks {
  classify: SchedClassifier | undefined;
  blocks: Array<{ instrs: readonly MInstr[]; described: Described[] }>;
}
/**
 * The last description of each machine function. Pre-RA scheduling describes the function, then allocation
 * describes it again after the reordering; a block whose instruction sequence is unchanged (same objects, same
 * order: a description depends only on the instruction and those before it in its block) keeps its answer.
 */
const lastDescription = new WeakMap<MFunction, DescribedBlocks>();

/**
 * The allocator's and the schedulers' view of a machine function: per instruction its virtual-register defs,
 * partial defs and uses (and, with `classify`, its latency class, memory effect and fences).
 */
export function describeMachineFunction(fn: MFunction, classify?: SchedClassifier): { ra: RaFunction<MInstr>; described: Map<MInstr, Described> } {
  const succs = machineSuccessors(fn);
  const described = new Map<MInstr, Described>();
  const prev = lastDescription.get(fn);
  const reuse = prev && prev.classify === classify && prev.blocks.length === fn.blocks.length ? prev.blocks : undefined;
  const kept: DescribedBlocks = { classify, blocks: [] };
  const blocks = fn.blocks.map((b, i) => {
    const old = reuse?.[i];
    let ds: Described[];
    if (old && sameSequence(old.instrs, b.instrs)) ds = old.described;
    else {
      const written = new Set<number>();
      ds = b.instrs.map((mi) => describe(mi, written, classify));
    }
    kept.blocks.push({ instrs: [...b.instrs], described: ds });
    const instrs = new Array<RaInstr<MInstr>>(ds.length);
    for (let k = 0; k < ds.length; k++) {
      described.set(b.instrs[k]!, ds[k]!);
      instrs[k] = ds[k]!.ra;
    }
    return { instrs, succs: succs[i]! };
  });
  lastDescription.set(fn, kept);
  return { ra: { vregs: fn.vregs.map((v) => ({ cls: v.file, width: v.width, ...(v.fixed !== undefined ? { fixed: v.fixed } : {}) })), blocks }, described };
}

function sameSequence(a: readonly MInstr[], b: readonly MInstr[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Most re-colourings `tightenRegisterCount` tries (each is one allocation of the function). */
export const MAX_TIGHTEN_ROUNDS = 6;

const cleanAllocation = (r: RaResult<MInstr>): boolean => r.stats.spilledVregs === 0 && r.stats.rematerializedVregs === 0 && r.stats.homedVregs === 0;

/**
 * The register count is what a kernel's occupancy depends on (ptxas reports and minimises it), but Chaitin–Briggs
 * colouring only guarantees *a* colouring within the budget: the simplify order, coalescing and pair alignment
 * can leave the highest R register above the peak pressure. While the allocation spilled nothing, colour again
 * with the budget one below the highest R register used, and keep the result when it still needs no spill,
 * rematerialisation or predicate home and removes no fewer copies.
 */
function tightenRegisterCount(ra: RaFunction<MInstr>, options: Parameters<typeof allocateRegisters>[1], first: RaResult<MInstr>, session: AllocationSession): RaResult<MInstr> {
  let res = first;
  for (let round = 0; round < MAX_TIGHTEN_ROUNDS && cleanAllocation(res); round++) {
    const used = res.usage.R?.used ?? 0;
    if (used <= 2) break;
    let trial: RaResult<MInstr>;
    try {
      // a trial that would spill is dropped, so it stops at its first spill decision (spillFree)
      trial = allocateRegisters(ra, { ...options, budget: { ...(options.budget ?? {}), R: used - 1 } }, { session, spillFree: true });
    } catch (e) {
      // RA_SPILL_NEEDED: the tighter budget needs spills; RA_UNCOLORABLE: it leaves an unspillable value no register
      const code = (e as { code?: string }).code;
      if (code === 'RA_SPILL_NEEDED' || code === 'RA_UNCOLORABLE') break;
      throw e;
    }
    if (!cleanAllocation(trial) || (trial.usage.R?.used ?? 0) >= used || trial.stats.identityCopies < res.stats.identityCopies) break;
    res = trial;
  }
  return res;
}

/** Allocate `fn`'s registers and rewrite it in place (renamed operands, spill code, no identity copies). */
const DEFAULT_MAXRREGCOUNT = 255;

export function allocateMachineFunction(fn: MFunction, opts: AllocateOptions): Assignment {
  const { ra, described } = describeMachineFunction(fn, opts.postSchedule?.classify);
  const raOptions = {
    classes: classesFromRegisterFile(opts.registerFile),
    // without --maxrregcount ptxas's cap is 255 reported registers (the cubin's register count field cannot say
    // more): R0..R252 plus its 2 extra, so the allocator's budget is 253, not the 255 the register file has
    budget: { R: gprBudgetFromMaxRRegCount(opts.maxrregcount ?? DEFAULT_MAXRREGCOUNT) },
    reserved: { R: [1], ...(fn.usesGlobalDesc ? { UR: [4, 5] } : {}) },
    // predicates beyond the P registers live in R registers (uniform ones are not selected yet)
    spillHome: { P: 'R' as const },
  };
  const session = new AllocationSession();
  let res: RaResult<MInstr> = allocateRegisters(ra, raOptions, { session });
  if (opts.tighten ?? true) res = tightenRegisterCount(ra, raOptions, res, session);
  let postSchedule: ScheduleStats | undefined;
  if (opts.postSchedule) {
    const s = opts.postSchedule.scheduler.postRA(res);
    res = s.result;
    postSchedule = s.stats;
  }
  // spill temporaries become machine vregs too
  const vregs: VReg[] = res.vregs.map((v, id) => fn.vregs[id] ?? { id, file: v.cls, width: v.width, name: `%spill${id}` });
  const R1: VReg = { id: vregs.length, file: 'R', width: 1, name: 'R1' };
  vregs.push(R1);
  const reg = new Int32Array(vregs.length);
  reg.set(res.assignment);
  reg[R1.id] = 1;
  const stack = (off: number): MOperand => ({ k: 'vmem', base: R1, wide: false, off: fn.localBytes + off });
  const sizeMods = (bytes: number): string[] => (bytes === 8 ? ['64'] : bytes === 16 ? ['128'] : []);
  fn.blocks.forEach((b, bi) => {
    const out: MInstr[] = [];
    for (const item of res.blocks[bi]!) {
      if (item.kind === 'spill-store') {
        const v = vregs[item.vreg]!;
        out.push({ opcode: 'STL', mods: sizeMods(item.bytes), ops: [stack(item.slot), { k: 'vreg', v, part: 0, span: v.width }], ndefs: 0 });
        continue;
      }
      if (item.kind === 'reload') {
        const v = vregs[item.vreg]!;
        out.push({ opcode: 'LDL', mods: sizeMods(item.bytes), ops: [{ k: 'vreg', v, part: 0, span: v.width }, stack(item.slot)], ndefs: 1 });
        continue;
      }
      if (item.kind === 'save' || item.kind === 'restore') {
        // predicates have no memory spills: more live ones than P registers keep their values in R (spillHome),
        // saved as 0/1 (`SEL Rh, RZ, 0x1, !Pv`) and restored by a compare (`ISETP.NE.U32.AND Pv, PT, Rh, RZ, PT`)
        const v = vregs[item.vreg]!;
        const h = vregs[item.home]!;
        if (v.file !== 'P' || h.file !== 'R') throw new CodegenError('CODEGEN_REGISTERS', `${fn.name}: no ${item.kind} of a ${v.file} value in ${h.file}`);
        const P = { k: 'vreg' as const, v, part: 0, span: 1 };
        const H = { k: 'vreg' as const, v: h, part: 0, span: 1 };
        const RZ: MOperand = { k: 'reg', file: 'R', n: 255 };
        const PT: MOperand = { k: 'reg', file: 'P', n: 7 };
        if (item.kind === 'save') out.push({ opcode: 'SEL', mods: [], ops: [H, RZ, { k: 'int', v: 1 }, { ...P, not: true }], ndefs: 1 });
        else out.push({ opcode: 'ISETP', mods: ['NE', 'U32', 'AND'], ops: [P, PT, H, RZ, PT], ndefs: 2 });
        continue;
      }
      const src = item.ref!;
      const d = described.get(src)!;
      if (item.kind === 'remat') {
        const v = vregs[item.vreg]!;
        out.push({ ...src, ops: [{ ...(src.ops[0] as VRegOperand), v }, ...src.ops.slice(1)] });
        continue;
      }
      if (item.identityCopy) continue;
      const ops = [...src.ops];
      let guard = src.guard;
      const put = (slot: Slot, id: number): void => {
        const v = vregs[id]!;
        if ('abi' in slot) return; // the call's fixed registers: not operands
        if ('guard' in slot) {
          guard = { ...guard!, v };
          return;
        }
        const o = ops[slot.op]!;
        if ((o as { k: string }).k === 'vmem') ops[slot.op] = { ...(o as VMemOperand), base: v };
        else if ((o as { k: string }).k === 'vcbank') ops[slot.op] = { ...(o as VCBankOperand), index: v };
        else ops[slot.op] = { ...(o as VRegOperand), v };
      };
      d.defSlots.forEach((s, k) => put(s, item.defs[k]!));
      d.partialSlots.forEach((s, k) => put(s, item.partialDefs[k]!));
      d.useSlots.forEach((s, k) => put(s, item.uses[k]!));
      out.push({ ...src, ops, ...(guard ? { guard } : {}) });
    }
    b.instrs = out;
  });
  fn.vregs = vregs;
  fn.frameBytes = fn.localBytes + res.stats.frameBytes;
  const used: Record<VFile, number> = { R: 0, P: 0, UR: 0, UP: 0, B: 0 };
  for (const [cls, u] of Object.entries(res.usage)) used[cls as VFile] = u?.used ?? 0;
  if (fn.frameBytes > 0) used.R = Math.max(used.R, 2);
  return { reg, used, stats: res.stats, ...(postSchedule ? { postSchedule } : {}) };
}

