import { PtxforgeError } from '@ptxforge/kernel';
import type { Operand } from '../ast.js';
import type { FnLowerer } from './context.js';

/**
 * ptxas's verdicts on the mbarrier family and the cp.async forms that arrive on one (probed with ptxas 13.0.88
 * on one-instruction kernels; the messages are ptxas's words): the target and PTX version each form needs, the
 * modifiers each operation takes, the state space, the .b64 type and the operand shapes.
 */
const OPS = new Set(['init', 'inval', 'arrive', 'arrive_drop', 'expect_tx', 'complete_tx', 'test_wait', 'try_wait', 'pending_count']);
/** Operations with a .sem qualifier, and the one each takes. */
const SEM: Record<string, readonly string[]> = {
  arrive: ['release', 'relaxed'], arrive_drop: ['release', 'relaxed'], expect_tx: ['relaxed'], complete_tx: ['relaxed'],
  test_wait: ['acquire', 'relaxed'], try_wait: ['acquire', 'relaxed'],
};
const SPACES = new Set(['shared', 'shared::cta', 'shared::cluster']);

function fail(c: FnLowerer, code: string, message: string): never {
  throw new PtxforgeError(code, message, { pos: { file: c.mod.file, line: c.ins.pos.line, col: c.ins.pos.col } });
}

function gate(c: FnLowerer, form: string, sm: number, ptx: number): void {
  const have = c.mod.targetSm;
  const v = c.mod.ptxVersion;
  if (have !== undefined && have > 0 && have < sm) fail(c, 'PTX_TARGET_FEATURE', `${form} requires .target sm_${sm} or higher`);
  if (v !== undefined && v < ptx) fail(c, 'PTX_VERSION_FEATURE', `${form} requires PTX ISA .version ${Math.floor(ptx / 100)}.${ptx % 100} or later`);
}

function isReg(c: FnLowerer, o: Operand | undefined, bits: number | 'pred'): boolean {
  if (!o || o.kind !== 'name') return false;
  const s = c.lookup(o.name);
  if (s?.kind !== 'reg' || s.vec) return false;
  return bits === 'pred' ? s.type.kind === 'pred' : s.type.kind !== 'pred' && s.type.kind !== 'f' && s.type.bits === bits;
}
const isImm = (o: Operand | undefined): boolean => o?.kind === 'int';
const isAddr = (o: Operand | undefined): boolean => o?.kind === 'addr';

/** mbarrier.* */
export function checkMbarrier(c: FnLowerer): void {
  const mods = c.ins.mods;
  const op = mods[0] ?? '';
  if (!OPS.has(op)) fail(c, 'PTX_ILLEGAL_MODIFIER', `Unknown modifier '.${op}' for instruction 'mbarrier'`);
  const name = `mbarrier.${op}`;
  const rest = mods.slice(1);
  const parity = rest.includes('parity');
  const withTx = rest.includes('expect_tx');
  const noComplete = rest.includes('noComplete');
  for (const m of rest) {
    if (m !== 'b64' && /^[bsuf](8|16|32|64|128)$/.test(m)) fail(c, 'PTX_INSTRUCTION_TYPE', `Unexpected instruction types specified for '${name}'`);
    const ok = m === 'b64' || SPACES.has(m) || m === 'cta' || m === 'cluster' || (SEM[op]?.includes(m) ?? false) ||
      (m === 'parity' && (op === 'test_wait' || op === 'try_wait')) || (m === 'expect_tx' && (op === 'arrive' || op === 'arrive_drop')) ||
      (m === 'noComplete' && (op === 'arrive' || op === 'arrive_drop'));
    if (m === 'global' || m === 'local' || m === 'const' || m === 'param') fail(c, 'PTX_STATE_SPACE', `State space incorrect for instruction '${name}'`);
    if (!ok) fail(c, 'PTX_ILLEGAL_MODIFIER', `Illegal modifier '.${m}' for instruction '${name}'`);
  }
  if (!rest.includes('b64')) fail(c, 'PTX_INSTRUCTION_TYPE', `Unexpected instruction types specified for '${name}'`);
  // targets and versions (sm_80 / PTX 7.0 for the original set)
  gate(c, `Feature '${name}${parity ? '.parity' : ''}'`, 80, parity ? 701 : 700);
  if (op === 'try_wait') gate(c, "Feature 'mbarrier.try_wait'", 90, 708);
  if (op === 'expect_tx' || op === 'complete_tx') gate(c, `Feature '${name}'`, 90, 800);
  if (withTx) gate(c, `Feature '${name}.expect_tx'`, 90, 800);
  const semMod = rest.find((m) => m === 'release' || m === 'acquire' || m === 'relaxed');
  if (semMod) {
    const need = semMod === 'relaxed' && (op === 'try_wait' || op === 'test_wait' || op === 'arrive' || op === 'arrive_drop') ? 806 : 800;
    gate(c, `Modifier '.${semMod}' on '${name}'`, 90, need);
  }
  if (rest.includes('cta') || rest.includes('cluster')) gate(c, "Feature 'scopes on mbarrier operations'", 90, 800);
  const ops = c.ins.operands;
  const mismatch = (): never => fail(c, 'PTX_ARGUMENT_MISMATCH', `Arguments mismatch for instruction '${name}${parity ? '.parity' : ''}'`);
  switch (op) {
    case 'init':
      if (ops.length !== 2 || !isAddr(ops[0]) || !(isImm(ops[1]) || isReg(c, ops[1], 32))) mismatch();
      return;
    case 'inval':
      if (ops.length !== 1 || !isAddr(ops[0])) mismatch();
      return;
    case 'expect_tx':
    case 'complete_tx':
      if (ops.length !== 2 || !isAddr(ops[0]) || !(isImm(ops[1]) || isReg(c, ops[1], 32))) mismatch();
      return;
    case 'pending_count':
      if (ops.length !== 2 || !isReg(c, ops[0], 32) || !isReg(c, ops[1], 64)) mismatch();
      return;
    case 'arrive':
    case 'arrive_drop': {
      const count = ops[2];
      if (ops.length < 2 || ops.length > 3 || !isAddr(ops[1]) || (count && !(isImm(count) || isReg(c, count, 32)))) mismatch();
      const sink = ops[0]?.kind === 'sink';
      if (!sink && !isReg(c, ops[0], 64)) mismatch();
      if (rest.includes('shared::cluster') && !sink) fail(c, 'PTX_ARGUMENT_MISMATCH', `Sink '_' is expected as a destination operand for instruction '${name}' with '.shared::cluster'`);
      if (sink) {
        if (c.mod.ptxVersion !== undefined && c.mod.ptxVersion < 707) fail(c, 'PTX_ARGUMENT_MISMATCH', `Result discard mode is not allowed for instruction '${name}'`);
      }
      if (withTx && !count) mismatch();
      if (noComplete && !count) fail(c, 'PTX_ILLEGAL_MODIFIER', `Illegal modifier '.noComplete' for instruction '${name} without count argument'`);
      if (count && !withTx && !noComplete) gate(c, `Feature '${name} with count argument and without '.noComplete' modifier'`, 90, 708);
      return;
    }
    case 'test_wait':
    case 'try_wait': {
      const max = op === 'try_wait' ? 4 : 3;
      if (ops.length < 3 || ops.length > max || !isReg(c, ops[0], 'pred') || !isAddr(ops[1])) mismatch();
      if (parity ? !(isImm(ops[2]) || isReg(c, ops[2], 32)) : !isReg(c, ops[2], 64)) mismatch();
      if (ops[3] && !(isImm(ops[3]) || isReg(c, ops[3], 32))) mismatch();
      return;
    }
  }
}

/** cp.async.mbarrier.arrive and the cp.async.bulk family. */
export function checkAsyncCopyFamily(c: FnLowerer): void {
  const mods = c.ins.mods;
  if (mods[1] === 'mbarrier') {
    gate(c, "Feature 'cp.async.mbarrier.arrive'", 80, 700);
    if (!mods.includes('b64')) fail(c, 'PTX_INSTRUCTION_TYPE', "Unexpected instruction types specified for 'cp.async.mbarrier.arrive'");
    if (c.ins.operands.length !== 1 || !isAddr(c.ins.operands[0])) fail(c, 'PTX_ARGUMENT_MISMATCH', "Arguments mismatch for instruction 'cp.async.mbarrier.arrive'");
    return;
  }
  if (mods[1] !== 'bulk') return;
  if (mods.includes('commit_group') || mods.includes('wait_group')) {
    gate(c, `Feature 'cp.async.bulk.${mods.includes('commit_group') ? 'commit_group' : 'wait_group'}'`, 90, 800);
    return;
  }
  gate(c, "Feature 'cp.async.bulk'", 90, 800);
  if (mods.some((m) => m.startsWith('mbarrier::complete_tx'))) gate(c, "Feature '.mbarrier::complete_tx::bytes'", 90, 800);
}
