import { instrRoles, type InstrRoles } from './roles.js';
import { isKnownOpcode, latencyTableFor, opTiming, rawLatency, type LatencyTable, type OpTiming, type ReaderClass, type VariableQueue, type WriterClass } from './latency.js';
import type { ControlInfo, Guard, HazardFunction, HazardInstr, RegFile, RegRef, SassOperandView } from './types.js';

export type HazardKind = 'RAW' | 'WAR' | 'WAW' | 'REUSE';

export interface Hazard {
  kind: HazardKind;
  function: string;
  /** Address of the instruction that is not protected (the later one). */
  addr: number;
  /** Register, e.g. R4, P0, UR6. */
  reg: string;
  /** The earlier instruction (writer for RAW/WAW, reader for WAR). */
  firstAddr: number;
  firstText: string;
  secondText: string;
  /** What is missing: "stall: 3 of 5 cycles", "wait on SB2", "write scoreboard" ... */
  missing: string;
}

export interface CheckOptions {
  /** sm_75 .. sm_90 (selects the latency table) */
  arch: string;
  /** Override the table (tests, or a target's LatencyModel). */
  table?: LatencyTable;
  /**
   * Collect the slack histogram (default true). Callers that only need the hazards (the scoreboard
   * generator) turn it off; the hazards found are the same.
   */
  slack?: boolean;
}

export interface CheckResult {
  hazards: Hazard[];
  /** Opcodes without timing data (their results are treated as immediately available). */
  unknownOpcodes: string[];
  /** Per fixed-latency writer class: the smallest slack (distance - latency) seen at a consumer: headroom. */
  slack: Map<string, { min: number; samples: number; hist: Map<number, number> }>;
}

const FILE_BASE: Record<RegFile, number> = { R: 0, UR: 256, P: 512, UP: 520, B: 528 };
const FILE_OF = (key: number): string => {
  if (key < 256) return `R${key}`;
  if (key < 512) return `UR${key - 256}`;
  if (key < 520) return `P${key - 512}`;
  if (key < 528) return `UP${key - 520}`;
  return `B${key - 528}`;
};
function keysOf(r: RegRef, out: number[]): void {
  // convergence barriers (BSSY/BSYNC/BMOV) are interlocked by the convergence unit, not by the control words
  if (r.file === 'B') return;
  const base = FILE_BASE[r.file];
  for (let k = 0; k < r.count; k++) {
    const idx = r.index + k;
    // RZ / URZ never carry a dependence; wide accesses never wrap past them
    if ((r.file === 'R' && idx >= 255) || (r.file === 'UR' && idx >= 63)) break;
    out.push(base + idx);
  }
}

/** A fixed-latency result in flight. */
interface FixedEntry {
  writer: number;
  wclass: WriterClass;
  /** smallest number of cycles issued since the writer, over all paths */
  elapsed: number;
  /** the longest latency of `wclass` to any reader: the entry is dropped once `elapsed` reaches it */
  expire: number;
}
/** A scoreboard-covered result (or a variable-latency result with no scoreboard at all: sb = -1). */
interface VarEntry {
  writer: number;
  sb: number;
  /** further scoreboards whose release implies this result: set by later operations of the same in-order queue */
  alsoMask: number;
  /** smallest number of later instructions that set the same scoreboard (DEPBAR.LE SBn, N) */
  after: number;
  queue: VariableQueue;
}
/** A late source read of a variable-latency instruction (WAR), released by its read or write scoreboard. */
interface ReadEntry {
  reader: number;
  /**
   * The state's clock when the reader issued, on the path with the fewest cycles since: the cycles issued
   * since are `readElapsed` (kept as a start time, so a step advances one clock instead of every pending read).
   */
  t0: number;
  rbar: number;
  wbar: number;
  after: number;
  queue: VariableQueue;
}
interface State {
  fixed: Map<number, FixedEntry[]>;
  vars: Map<number, VarEntry[]>;
  reads: Map<number, ReadEntry[]>;
  /** Cycles issued on this path since the function entry (the time base of the read entries). */
  clock: number;
}

/** Cycles issued since a late read, saturating at 255 as a per-step count would. */
function readElapsed(st: State, e: ReadEntry): number {
  return Math.min(255, st.clock - e.t0);
}

const MAX_AFTER = 63;

function emptyState(): State {
  return { fixed: new Map(), vars: new Map(), reads: new Map(), clock: 0 };
}
function cloneState(s: State): State {
  const c = emptyState();
  c.clock = s.clock;
  for (const [k, v] of s.fixed) c.fixed.set(k, v.map((e) => ({ ...e })));
  for (const [k, v] of s.vars) c.vars.set(k, v.map((e) => ({ ...e })));
  for (const [k, v] of s.reads) c.reads.set(k, v.map((e) => ({ ...e })));
  return c;
}

/** Joins `src` into `dst` (min elapsed, min after: the weakest guarantee of any path). Returns true on change. */
function joinInto(dst: State, src: State): boolean {
  let changed = false;
  const joinMap = <E extends { after?: number; elapsed?: number }>(
    d: Map<number, E[]>,
    s: Map<number, E[]>,
    id: (e: E) => number,
  ): void => {
    for (const [k, list] of s) {
      let dl = d.get(k);
      if (!dl) {
        dl = [];
        d.set(k, dl);
      }
      for (const e of list) {
        const j = dl.find((x) => id(x) === id(e));
        if (!j) {
          dl.push({ ...e });
          changed = true;
          continue;
        }
        if (e.elapsed !== undefined && j.elapsed !== undefined && e.elapsed < j.elapsed) {
          j.elapsed = e.elapsed;
          changed = true;
        }
        const ea = (e as { alsoMask?: number }).alsoMask;
        const ja = j as { alsoMask?: number };
        if (ea !== undefined && ja.alsoMask !== undefined && (ja.alsoMask & ~ea) !== 0) {
          ja.alsoMask &= ea;
          changed = true;
        }
        if (e.after !== undefined && j.after !== undefined && e.after < j.after) {
          j.after = e.after;
          changed = true;
        }
      }
    }
  };
  joinMap(dst.fixed, src.fixed, (e) => e.writer);
  joinMap(dst.vars, src.vars, (e) => e.writer);
  // late reads: the same join on their elapsed cycles, each state on its own clock
  for (const [k, list] of src.reads) {
    let dl = dst.reads.get(k);
    if (!dl) {
      dl = [];
      dst.reads.set(k, dl);
    }
    for (const e of list) {
      const el = readElapsed(src, e);
      const j = dl.find((x) => x.reader === e.reader);
      if (!j) {
        dl.push({ ...e, t0: dst.clock - el });
        changed = true;
        continue;
      }
      if (el < readElapsed(dst, j)) {
        j.t0 = dst.clock - el;
        changed = true;
      }
      if (e.after < j.after) {
        j.after = e.after;
        changed = true;
      }
    }
  }
  return changed;
}

/** What `decode` reads from an instruction's opcode, modifiers, guard and operands (not its address or control). */
interface DecodedShape {
  roles: InstrRoles;
  timing: OpTiming;
  defKeys: number[][];
  useKeys: { keys: number[]; reader: ReaderClass; file: RegFile; address: boolean }[];
  /** R registers read late (WAR tracking) */
  lateReadKeys: number[];
  /** Some operand carries a reuse flag. */
  anyReuse: boolean;
  /** DEPBAR.LE SBk, N: k (or -1) and N. */
  depSb: number;
  depN: number;
}

function readerClassFor(ins: HazardInstr, timing: OpTiming, operand: number, address: boolean, k: number, file: RegFile): ReaderClass {
  if (file === 'UR' || file === 'UP') {
    if (ins.opcode.startsWith('U') || ins.opcode === 'R2UR') return 'uniform';
  }
  // LDC reads its index like any decoupled source; memory instructions go through the address unit
  if (address) return timing.kind === 'variable' && timing.queue !== 'const' ? 'agu' : timing.reader;
  if (ins.opcode === 'IMAD' && ins.mods.includes('WIDE')) {
    const last = ins.operands.length - 1;
    if (operand === last) return k === 0 ? 'wideCL' : 'wideCH';
    return 'wideAB';
  }
  return timing.reader;
}

function decode(t: LatencyTable, ins: HazardInstr): DecodedShape {
  const roles = instrRoles(ins);
  const timing = opTiming(t, ins);
  const defKeys: number[][] = [];
  for (const d of roles.defs) {
    const ks: number[] = [];
    keysOf(d.reg, ks);
    defKeys.push(ks);
  }
  const useKeys: DecodedShape['useKeys'] = [];
  const lateReadKeys: number[] = [];
  for (const u of roles.uses) {
    const ks: number[] = [];
    keysOf(u.reg, ks);
    // IMAD.WIDE's C operand: low and high halves have different reader latencies
    for (let k = 0; k < ks.length; k++) {
      useKeys.push({ keys: [ks[k]!], reader: readerClassFor(ins, timing, u.operand, !!u.address, k, u.reg.file), file: u.reg.file, address: !!u.address });
    }
    // read scoreboards protect vector registers only (uniform and predicate sources are read at issue)
    if (timing.kind === 'variable' && timing.lateRead && u.reg.file === 'R') for (const k of ks) lateReadKeys.push(k);
  }
  let depSb = -1;
  let depN = 0;
  if (ins.opcode === 'DEPBAR') {
    const sb = ins.operands.find((o) => o.kind === 'sb');
    const cnt = ins.operands.find((o) => o.kind === 'imm');
    if (sb && sb.value !== undefined) {
      depSb = sb.value;
      depN = cnt?.value ?? 0;
    }
  }
  return { roles, timing, defKeys, useKeys, lateReadKeys, anyReuse: ins.operands.some((o) => o.reuse), depSb, depN };
}

function isUnconditional(ins: HazardInstr): boolean {
  return !ins.guard || (ins.guard.index === 7 && !ins.guard.negated);
}

/** Successor instruction indices (CFG by address). */
function successors(fn: HazardFunction, i: number, indexOf: Map<number, number>): number[] {
  const ins = fn.instrs[i]!;
  const out: number[] = [];
  const op = ins.opcode;
  const uncond = isUnconditional(ins);
  const falls = !(uncond && (op === 'BRA' || op === 'JMP' || op === 'EXIT' || op === 'RET' || op === 'BRX' || op === 'JMX' || op === 'KILL'));
  if (op === 'BRA' || op === 'JMP' || op === 'BSSY' || op === 'BREAK') {
    // BSSY's operand is the reconvergence point: reached by BSYNC fall-through, not a jump; but a BRA.DIV / warp
    // split can reach it directly, so it is an edge for BRA/JMP only
    if (op === 'BRA' || op === 'JMP') {
      const targets = ins.branchTarget !== undefined ? [ins.branchTarget] : ins.operands.filter((o) => o.kind === 'label' && o.target !== undefined).map((o) => o.target!);
      for (const t of targets) {
        const j = indexOf.get(t);
        if (j !== undefined) out.push(j);
      }
    }
  }
  if (op === 'BRX' || op === 'JMX') for (const a of fn.indirectTargets ?? []) {
    const j = indexOf.get(a);
    if (j !== undefined) out.push(j);
  }
  if (falls && i + 1 < fn.instrs.length) out.push(i + 1);
  return out;
}

function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function regName(key: number): string {
  return FILE_OF(key);
}

/**
 * Checks every instruction's control information against the latency model: fixed-latency results need enough
 * stall cycles before their consumers, variable-latency results a scoreboard the consumer waits on, late
 * readers a read scoreboard before a later write of their sources. A forward dataflow over the function's branches
 * (joins keep the weakest guarantee) to a fixed point.
 */
export function checkHazards(fn: HazardFunction, opts: CheckOptions): CheckResult {
  return prepareHazardCheck(fn, opts).check(fn.instrs.map((ins) => ins.control));
}

/** A function prepared for checking: its instructions decoded once, checked against any control words. */
export interface PreparedHazardCheck {
  /** Check with `control[i]` as instruction i's control information (instead of `fn.instrs[i].control`). */
  check(control: readonly ControlInfo[]): CheckResult;
  /**
   * The same check, answering the hazards as compact records in `check`'s order, without their descriptions
   * (what the scoreboard generator repairs from; `describe` turns records into `check`'s hazards).
   */
  findHazards(control: readonly ControlInfo[]): HazardRecord[];
  /** `check`'s hazards of records `findHazards` answered. */
  describe(records: readonly HazardRecord[]): Hazard[];
  /** Instruction i's registers (what `instrRoles` answers) and timing (`opTiming`), as the checks read them. */
  roles(i: number): InstrRoles;
  timing(i: number): OpTiming;
}

/**
 * Decode `fn` (roles, timing, register keys, the CFG) once for repeated checks that differ only in the
 * control words: the scoreboard generator checks every repair round. Same results as checkHazards.
 */
export function prepareHazardCheck(fn: HazardFunction, opts: CheckOptions): PreparedHazardCheck {
  const t = opts.table ?? latencyTableFor(opts.arch);
  const keepSlack = opts.slack ?? true;
  const n = fn.instrs.length;
  const dec: DecodedShape[] = new Array(n);
  const indexOf = new Map<number, number>();
  const unknown = new Set<string>();
  // Instructions that share their operand list, modifiers and guard (copies of one decoded word, as code
  // generation makes them) share one decoding: the shape depends on nothing else.
  const shapes = new Map<SassOperandView[], Array<{ opcode: string; mods: string[]; guard: Guard | undefined; shape: DecodedShape }>>();
  for (let i = 0; i < n; i++) {
    const ins = fn.instrs[i]!;
    indexOf.set(ins.addr, i);
    let same = shapes.get(ins.operands);
    if (!same) shapes.set(ins.operands, (same = []));
    let shape: DecodedShape | undefined;
    for (const c of same) if (c.opcode === ins.opcode && c.mods === ins.mods && c.guard === ins.guard) shape = c.shape;
    if (!shape) {
      shape = decode(t, ins);
      same.push({ opcode: ins.opcode, mods: ins.mods, guard: ins.guard, shape });
    }
    dec[i] = shape;
    if (!isKnownOpcode(ins.opcode) && dec[i]!.defKeys.length > 0) unknown.add(ins.opcode);
  }
  let maxLat = 1;
  for (const w of Object.keys(t.raw) as WriterClass[]) {
    const r = t.raw[w];
    for (const v of Object.values(r)) if (typeof v === 'number' && v > maxLat) maxLat = v;
  }
  const succ: number[][] = new Array(n);
  const preds = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    succ[i] = successors(fn, i, indexOf);
    for (const s of succ[i]!) preds[s]!++;
  }
  const entryIdx = n > 0 ? [0] : [];
  for (const a of fn.entries ?? []) {
    const j = indexOf.get(a);
    if (j !== undefined) entryIdx.push(j);
  }
  const entries: number[] = [];
  const isEntry = new Uint8Array(n);
  for (const j of entryIdx) {
    if (isEntry[j]) continue;
    isEntry[j] = 1;
    entries.push(j);
    // an entry point is a join: never merge it into its predecessor's straight-line run
    preds[j] = (preds[j] ?? 0) + 1;
  }
  const unknownOpcodes = [...unknown].sort();
  // hazard ids name an instruction by the first index of its address
  const canon = new Int32Array(n);
  for (let i = 0; i < n; i++) canon[i] = indexOf.get(fn.instrs[i]!.addr)!;

  const run = (control: readonly ControlInfo[], slack: CheckResult['slack']): HazardRecord[] => {
    const hz = new HazardSet(fn, canon);
    const inState: (State | undefined)[] = new Array(n);
    const work: number[] = [];
    const queued = new Uint8Array(n);
    for (const j of entries) {
      inState[j] = emptyState();
      queued[j] = 1;
      work.push(j);
    }
    // Process in address order for fast convergence: a simple worklist with a priority on low indices.
    let iterations = 0;
    const limit = 64 * (n + 1);
    while (work.length > 0) {
      if (++iterations > limit) break;
      // pop the smallest index (the worklist stays small: O(branches))
      let best = 0;
      for (let w = 1; w < work.length; w++) if (work[w]! < work[best]!) best = w;
      const i = work[best]!;
      work[best] = work[work.length - 1]!;
      work.pop();
      queued[i] = 0;
      // run the straight-line run from i up to the next instruction with a branch or join
      let st = cloneState(inState[i]!);
      let k = i;
      for (;;) {
        step(t, fn, dec, control, k, st, hz, keepSlack ? slack : undefined, maxLat);
        const ss = succ[k]!;
        if (ss.length === 1 && ss[0] === k + 1 && preds[k + 1] === 1) {
          k = k + 1;
          continue;
        }
        for (let s = 0; s < ss.length; s++) {
          const j = ss[s]!;
          const src = s === ss.length - 1 ? st : cloneState(st);
          const cur = inState[j];
          let changed: boolean;
          if (!cur) {
            inState[j] = src;
            changed = true;
          } else changed = joinInto(cur, src);
          if (changed && !queued[j]) {
            queued[j] = 1;
            work.push(j);
          }
        }
        break;
      }
      st = emptyState();
    }
    // Ordered by address, then register name and kind in code-point order (not localeCompare: the first
    // localeCompare of a process initialises ICU's collator, and its order would depend on the locale), ties
    // in the order the hazards were first found. The name and kind orders are precomputed ranks.
    return hz.recs.sort((a, b) => a.addr - b.addr || regRank(a.key) - regRank(b.key) || KIND_RANK[a.kind] - KIND_RANK[b.kind]);
  };
  const describe = (records: readonly HazardRecord[]): Hazard[] => records.map((r) => describeRecord(fn, r));
  const check = (control: readonly ControlInfo[]): CheckResult => {
    const slack: CheckResult['slack'] = new Map();
    const hazards = describe(run(control, slack));
    return { hazards, unknownOpcodes: [...unknownOpcodes], slack };
  };
  return { check, findHazards: (control) => run(control, new Map()), describe, roles: (i) => dec[i]!.roles, timing: (i) => dec[i]!.timing };
}

function text(ins: HazardInstr): string {
  return ins.text ?? [ins.opcode, ...ins.mods].join('.');
}

const KIND_INDEX: Record<HazardKind, number> = { RAW: 0, WAR: 1, WAW: 2, REUSE: 3 };
/** Stall count a hazard's description reports ("stall: N of ..."), 99 for other descriptions. */
const NOT_A_STALL = 99;
/** Kinds in code-point order of their names (the order of hazards at one address and register). */
const KIND_RANK: Record<HazardKind, number> = (() => {
  const names = (Object.keys(KIND_INDEX) as HazardKind[]).sort(compareCodePoints);
  const r = {} as Record<HazardKind, number>;
  names.forEach((k, i) => (r[k] = i));
  return r;
})();
/** Register keys (FILE_BASE + index, below 1024) in code-point order of their names (R10 before R2). */
const REG_RANK: Int32Array = (() => {
  const keys = Array.from({ length: 1024 }, (_, k) => k);
  const names = keys.map(regName);
  keys.sort((a, b) => compareCodePoints(names[a]!, names[b]!));
  const r = new Int32Array(keys.length);
  keys.forEach((k, i) => (r[k] = i));
  return r;
})();
function regRank(key: number): number {
  return key < REG_RANK.length ? REG_RANK[key]! : key;
}

/** What a hazard's description says is missing (`describeRecord` builds the text). */
export type HazardMissing =
  /** a fixed-latency result read too early: `stall: a of b cycles (s1 result read as s2)` */
  | 'stall-read'
  /** a fixed-latency result overwritten too early: `stall: a of b cycles` */
  | 'stall'
  /** the consumer does not wait on scoreboard `a`: `wait on SBa` */
  | 'wait'
  /** a variable-latency writer (instruction `a`) sets no write scoreboard (RAW) */
  | 'write-sb-none'
  /** the same, reported at a later write (WAW) */
  | 'write-sb-on'
  /** a late reader (instruction `a`) sets no read scoreboard: window `b`, overwritten after `c` cycles */
  | 'read-sb'
  /** a reuse flag on a register the instruction overwrites */
  | 'reuse';

/**
 * One hazard as `findHazards` answers it: the instructions by index and address, the register by key, and what
 * is missing as a code with its numbers (`check` describes each in words). `need - elapsed` stall cycles are
 * missing for the stall kinds.
 */
export interface HazardRecord {
  kind: HazardKind;
  /** The later instruction (index, address). */
  second: number;
  addr: number;
  /** The earlier instruction (index, address). */
  first: number;
  firstAddr: number;
  /** Register key (R n: n, UR n: 256 + n, P n: 512 + n, UP n: 520 + n, B n: 528 + n). */
  key: number;
  missing: HazardMissing;
  /** stall kinds: elapsed cycles; wait: the scoreboard; scoreboard kinds: the instruction lacking one */
  a: number;
  /** stall kinds: cycles needed; read-sb: the read window */
  b: number;
  /** read-sb: cycles elapsed before the overwrite */
  c: number;
  /** stall-read: writer class and reader class */
  s1: string;
  s2: string;
  /** the stall count of the description (NOT_A_STALL for other descriptions): a later find replaces it only with fewer */
  stall: number;
  /** instruction indices by the first index of their address (hazards are one per kind, canon pair, register) */
  ca: number;
  cb: number;
}

function describeRecord(fn: HazardFunction, r: HazardRecord): Hazard {
  const second = fn.instrs[r.second]!, first = fn.instrs[r.first]!;
  let missing: string;
  switch (r.missing) {
    case 'stall-read': missing = `stall: ${r.a} of ${r.b} cycles (${r.s1} result read as ${r.s2})`; break;
    case 'stall': missing = `stall: ${r.a} of ${r.b} cycles`; break;
    case 'wait': missing = `wait on SB${r.a}`; break;
    case 'write-sb-none': missing = `write scoreboard: ${fn.instrs[r.a]!.opcode} is variable-latency and sets none`; break;
    case 'write-sb-on': missing = `write scoreboard on ${fn.instrs[r.a]!.opcode}`; break;
    case 'read-sb': missing = `read scoreboard on ${fn.instrs[r.a]!.opcode} (source read up to ${r.b} cycles after issue, overwritten after ${r.c})`; break;
    case 'reuse': missing = 'reuse flag on a register this instruction overwrites'; break;
  }
  return {
    kind: r.kind,
    function: fn.name,
    addr: second.addr,
    reg: regName(r.key),
    firstAddr: first.addr,
    firstText: text(first),
    secondText: text(second),
    missing,
  };
}

/**
 * The hazards found by one check, one per (kind, later instruction, earlier instruction, register), the
 * instructions named by the first index of their address: records are kept per later instruction (a few
 * each), in the order first found; a record is written when new or when it replaces a stall description
 * with one of fewer cycles (the fixed point may revisit with weaker state): `wants`, then `put`.
 */
class HazardSet {
  readonly recs: HazardRecord[] = [];
  private readonly at: (HazardRecord[] | undefined)[];
  private found: HazardRecord | undefined;
  private kind: HazardKind = 'RAW';
  private second = 0;
  private first = 0;
  private key = 0;
  private stall = NOT_A_STALL;
  constructor(private readonly fn: HazardFunction, private readonly canon: Int32Array) {
    this.at = new Array(canon.length);
  }
  /**
   * Whether hazard (kind, instruction `second`, instruction `first`, register `key`) with a description of
   * `stall` cycles (NOT_A_STALL otherwise) should be written: it is new, or a stall description with fewer
   * cycles than the one kept. Then `put` writes it.
   */
  wants(kind: HazardKind, second: number, first: number, key: number, stall: number): boolean {
    const ca = this.canon[second]!, cb = this.canon[first]!;
    const list = this.at[ca];
    let have: HazardRecord | undefined;
    if (list) {
      for (let k = 0; k < list.length; k++) {
        const r = list[k]!;
        if (r.cb === cb && r.key === key && r.kind === kind) {
          have = r;
          break;
        }
      }
    }
    if (have !== undefined && !(stall !== NOT_A_STALL && stall < have.stall)) return false;
    this.found = have;
    this.kind = kind;
    this.second = second;
    this.first = first;
    this.key = key;
    this.stall = stall;
    return true;
  }
  put(missing: HazardMissing, a = 0, b = 0, c = 0, s1 = '', s2 = ''): void {
    const h = this.found;
    if (h) {
      h.missing = missing;
      h.a = a;
      h.b = b;
      h.c = c;
      h.s1 = s1;
      h.s2 = s2;
      h.stall = this.stall;
      return;
    }
    const ca = this.canon[this.second]!;
    const r: HazardRecord = {
      kind: this.kind, second: this.second, addr: this.fn.instrs[this.second]!.addr, first: this.first, firstAddr: this.fn.instrs[this.first]!.addr, key: this.key,
      missing, a, b, c, s1, s2, stall: this.stall, ca, cb: this.canon[this.first]!,
    };
    this.recs.push(r);
    (this.at[ca] ??= []).push(r);
  }
}

const wclassLatencyMax = new WeakMap<LatencyTable, Map<WriterClass, number>>();
function maxLatencyOf(t: LatencyTable, w: WriterClass): number {
  let m = wclassLatencyMax.get(t);
  if (!m) {
    m = new Map();
    wclassLatencyMax.set(t, m);
  }
  let v = m.get(w);
  if (v === undefined) {
    v = 0;
    for (const x of Object.values(t.raw[w])) if (typeof x === 'number' && x > v) v = x;
    m.set(w, v);
  }
  return v;
}

/** Variable-latency sources are read within this many cycles of issue unless a table says otherwise. */
const DEFAULT_LATE_READ = 6;

function lateReadWindow(t: LatencyTable, queue: VariableQueue): number {
  return t.lateReadCycles?.[queue] ?? DEFAULT_LATE_READ;
}

function noteSlack(slack: CheckResult['slack'], key: string, sl: number): void {
  let rec = slack.get(key);
  if (!rec) slack.set(key, (rec = { min: Infinity, samples: 0, hist: new Map() }));
  rec.samples++;
  if (sl < rec.min) rec.min = sl;
  rec.hist.set(sl, (rec.hist.get(sl) ?? 0) + 1);
}

function step(
  t: LatencyTable,
  fn: HazardFunction,
  dec: DecodedShape[],
  control: readonly ControlInfo[],
  i: number,
  st: State,
  hz: HazardSet,
  slack: CheckResult['slack'] | undefined,
  maxLat: number,
): void {
  const d = dec[i]!;
  const ins = fn.instrs[i]!;
  const ctl = control[i]!;
  // 1. waits: the wait mask, and DEPBAR.LE SBk, N (at most N younger operations of SBk still outstanding)
  const waitMask = ctl.waitMask;
  const depSb = d.depSb;
  const depN = d.depN;
  if (waitMask !== 0 || depSb >= 0) {
    const released = (sb: number, after: number): boolean => sb >= 0 && ((waitMask & (1 << sb)) !== 0 || (sb === depSb && after >= depN));
    for (const [k, list] of st.vars) {
      if (list.length > 0 && list.every((e) => !released(e.sb, e.after) && (e.alsoMask & waitMask) === 0)) continue;
      const keep = list.filter((e) => !released(e.sb, e.after) && (e.alsoMask & waitMask) === 0);
      if (keep.length === 0) st.vars.delete(k);
      else if (keep.length !== list.length) st.vars.set(k, keep);
    }
    for (const [k, list] of st.reads) {
      if (list.length > 0 && list.every((e) => !released(e.rbar, e.after) && !released(e.wbar, e.after))) continue;
      const keep = list.filter((e) => !released(e.rbar, e.after) && !released(e.wbar, e.after));
      if (keep.length === 0) st.reads.delete(k);
      else if (keep.length !== list.length) st.reads.set(k, keep);
    }
  }

  // 2. sources
  for (const u of d.useKeys) {
    for (const key of u.keys) {
      const fl = st.fixed.get(key);
      if (fl) {
        for (const e of fl) {
          const need = rawLatency(t, e.wclass, u.reader);
          if (e.elapsed < need) {
            if (hz.wants('RAW', i, e.writer, key, e.elapsed)) hz.put('stall-read', e.elapsed, need, 0, e.wclass, u.reader);
          } else if (slack) {
            noteSlack(slack, `${t.name}:${e.wclass}->${u.reader}`, e.elapsed - need);
          }
        }
      }
      const vl = st.vars.get(key);
      if (vl) {
        for (const e of vl) {
          if (!hz.wants('RAW', i, e.writer, key, NOT_A_STALL)) continue;
          if (e.sb < 0) {
            hz.put('write-sb-none', e.writer);
          } else {
            hz.put('wait', e.sb);
          }
        }
      }
    }
  }

  // 3. results: WAW against pending writes, WAR against pending late reads
  const guarded = !isUnconditional(ins);
  const isVar = d.timing.kind === 'variable' || (d.timing.kind === 'redirected' && ctl.wbar !== null);
  const myQueue: VariableQueue | undefined = d.timing.kind === 'variable' || d.timing.kind === 'redirected' ? d.timing.queue : undefined;
  const fixedWriter: WriterClass | undefined = d.timing.kind === 'fixed' ? d.timing.writer : d.timing.kind === 'redirected' && ctl.wbar === null ? d.timing.writer : undefined;
  for (let di = 0; di < d.defKeys.length; di++) {
    for (const key of d.defKeys[di]!) {
      const vl = st.vars.get(key);
      if (vl) {
        for (const e of vl) {
          // results of one in-order queue land in issue order
          if (isVar && e.queue === myQueue) continue;
          if (hz.wants('WAW', i, e.writer, key, NOT_A_STALL)) {
            if (e.sb < 0) hz.put('write-sb-on', e.writer);
            else hz.put('wait', e.sb);
          }
        }
      }
      const rl = st.reads.get(key);
      if (rl) {
        for (const e of rl) {
          if (isVar && e.queue === myQueue) continue;
          if (e.reader === i) continue;
          const window = lateReadWindow(t, e.queue);
          const elapsed = readElapsed(st, e);
          if (elapsed >= window) {
            if (slack) noteSlack(slack, `${t.name}:war-${e.queue}${e.rbar < 0 ? '' : '-sb'}`, elapsed - window);
            continue;
          }
          if (hz.wants('WAR', i, e.reader, key, NOT_A_STALL)) {
            if (e.rbar < 0) hz.put('read-sb', e.reader, window, elapsed);
            else hz.put('wait', e.rbar);
          }
        }
      }
      if (fixedWriter) {
        const fl = st.fixed.get(key);
        if (fl) {
          const mine = rawLatency(t, fixedWriter, 'alu');
          for (const e of fl) {
            const theirs = rawLatency(t, e.wclass, 'alu');
            const need = Math.max(1, theirs - mine - 1);
            if (e.elapsed < need && hz.wants('WAW', i, e.writer, key, e.elapsed)) hz.put('stall', e.elapsed, need);
          }
        }
      }
    }
  }

  // register reuse cache: a value cached for the next instruction must not be overwritten by this one
  if (d.anyReuse) {
    const defSet = new Set<number>();
    for (const ks of d.defKeys) for (const k of ks) defSet.add(k);
    for (let oi = 0; oi < ins.operands.length; oi++) {
      const o = ins.operands[oi]!;
      if (!o.reuse || !o.reg) continue;
      const ks: number[] = [];
      keysOf(o.reg, ks);
      for (const k of ks) if (defSet.has(k) && hz.wants('REUSE', i, i, k, NOT_A_STALL)) hz.put('reuse');
    }
  }

  // 4. new state: scoreboard counts, then this instruction's own entries
  if (ctl.wbar !== null || ctl.rbar !== null) {
    for (const list of st.vars.values()) {
      for (const e of list) {
        if ((e.sb === ctl.wbar || e.sb === ctl.rbar) && e.after < MAX_AFTER) e.after++;
        // results of one in-order queue complete in issue order: this operation's scoreboard covers older ones
        if (ctl.wbar !== null && isVar && e.queue === myQueue) {
          // an unguarded older result behaves like this operation's (it completes no later)
          if (e.sb < 0) {
            e.sb = ctl.wbar;
            e.after = 0;
          } else if (e.sb !== ctl.wbar) e.alsoMask |= 1 << ctl.wbar;
        }
      }
    }
    for (const list of st.reads.values()) for (const e of list) if ((e.rbar === ctl.rbar || e.wbar === ctl.wbar) && e.after < MAX_AFTER) e.after++;
  }
  for (let di = 0; di < d.defKeys.length; di++) {
    for (const key of d.defKeys[di]!) {
      if (!guarded) {
        st.fixed.delete(key);
        st.vars.delete(key);
      }
      if (fixedWriter) {
        // IMAD.WIDE: low and high halves of the result have different latencies
        let w = fixedWriter;
        if (ins.opcode === 'IMAD' && ins.mods.includes('WIDE') && di === 0) {
          w = key === d.defKeys[0]![0] ? 'wideLo' : 'wideHi';
        }
        // fp64 compares (DSETP): the predicate results have their own row (ready before fp64 register results)
        if (w === 'fp64' && d.roles.defs[di]!.reg.file === 'P') w = 'fp64pred';
        const list = st.fixed.get(key) ?? [];
        list.push({ writer: i, wclass: w, elapsed: 0, expire: maxLatencyOf(t, w) });
        st.fixed.set(key, list);
      } else if (isVar || d.timing.kind === 'variable') {
        const list = st.vars.get(key) ?? [];
        list.push({ writer: i, sb: ctl.wbar ?? -1, alsoMask: 0, after: 0, queue: myQueue ?? 'misc' });
        st.vars.set(key, list);
      }
    }
  }
  if (d.lateReadKeys.length > 0 && (d.timing.kind === 'variable')) {
    for (const key of d.lateReadKeys) {
      // sources that are also results are released by the write scoreboard
      const list = st.reads.get(key) ?? [];
      list.push({ reader: i, t0: st.clock, rbar: ctl.rbar ?? -1, wbar: ctl.wbar ?? -1, after: 0, queue: d.timing.queue });
      st.reads.set(key, list);
    }
  }
  // 5. cycles pass: this instruction's stall count (at least one issue slot)
  const cyc = Math.max(1, ctl.stall);
  st.clock += cyc;
  if (!slack) {
    // A late read older than its queue's read window can no longer be overwritten too early on any path:
    // its elapsed cycles only grow, and a join keeps the smaller count of the paths that still hold it. It
    // only feeds the slack histogram; without one it is dropped, so the pending reads stay as few as the
    // window holds instead of growing with every store of the function (joins and WAR checks scan them).
    for (const [k, list] of st.reads) {
      let drop = 0;
      for (const e of list) if (readElapsed(st, e) >= lateReadWindow(t, e.queue)) drop++;
      if (drop === list.length) st.reads.delete(k);
      else if (drop > 0) st.reads.set(k, list.filter((e) => readElapsed(st, e) < lateReadWindow(t, e.queue)));
    }
  }
  for (const [k, list] of st.fixed) {
    let drop = 0;
    for (const e of list) {
      e.elapsed += cyc;
      if (e.elapsed >= e.expire) drop++;
    }
    if (drop === list.length) st.fixed.delete(k);
    else if (drop > 0) st.fixed.set(k, list.filter((e) => e.elapsed < e.expire));
  }
  void maxLat;
}
