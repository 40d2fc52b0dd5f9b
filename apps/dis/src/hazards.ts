import { decodeAttribute, type Cubin } from '@ptxforge/cubin';
import {
  checkHazards, decodeControl, formatHazard, hazardSummaryLine, instrFromText, latencyTableFor,
  type CheckResult, type Hazard, type HazardFunction, type HazardInstr,
} from '@ptxforge/sass-hazards';
import type { WordCodec } from './codec.js';
import { codecForCubin, decodeFunction } from './disassemble.js';

export interface CubinHazardReport {
  arch: string;
  functions: Array<{ name: string; instructions: number; result: CheckResult }>;
  hazards: Hazard[];
  /** Words the codec could not decode (the check of their function is incomplete). */
  undecoded: Array<{ function: string; addr: number; reason: string }>;
}

const ATTR_INDIRECT_BRANCH_TARGETS = 0x34;

/**
 * The hazard checker's view of every function of a cubin: the codec's text of each word (parsed into operands),
 * the control bits straight from the word, direct branch targets from the codec, indirect ones from
 * EIATTR_INDIRECT_BRANCH_TARGETS, and subroutines placed in the same section as extra entry points.
 */
export function hazardFunctionsOf(cubin: Cubin, codecOverride?: WordCodec): { fns: HazardFunction[]; undecoded: CubinHazardReport['undecoded'] } {
  const { layout, codec } = codecForCubin(cubin, codecOverride);
  if (layout.family !== 'volta') {
    throw Object.assign(new Error(`--check-hazards models Volta+ control words; ${cubin.arch.name} is ${layout.family}`), { code: 'HAZARD_UNSUPPORTED_ARCH' });
  }
  const fns: HazardFunction[] = [];
  const undecoded: CubinHazardReport['undecoded'] = [];
  for (const fn of cubin.functions) {
    const d = decodeFunction(fn, layout, codec);
    const instrs: HazardInstr[] = [];
    for (let i = 0; i < d.slots.length; i++) {
      const slot = d.slots[i]!;
      const w = d.decoded[i]!;
      const hi = (BigInt(slot.word[3]!) << 32n) | BigInt(slot.word[2]!);
      if (!w.known) {
        undecoded.push({ function: fn.name, addr: slot.addr, reason: w.reason ?? w.text });
        continue;
      }
      const ins = instrFromText(slot.addr, w.text, decodeControl(hi));
      if (w.branchTarget !== undefined) ins.branchTarget = w.branchTarget;
      instrs.push(ins);
    }
    const indirect: number[] = [];
    for (const r of fn.attributes) {
      if (r.code !== ATTR_INDIRECT_BRANCH_TARGETS) continue;
      const v = decodeAttribute(r);
      if (v.kind === 'branchTargets') for (const b of v.branches) indirect.push(...b.targets);
    }
    const base = fn.symbol?.value ?? 0;
    const entries = fn.subroutines.map((s) => s.value - base);
    fns.push({ name: fn.name, instrs, indirectTargets: indirect, entries });
  }
  return { fns, undecoded };
}

export function checkCubinHazards(cubin: Cubin, codecOverride?: WordCodec): CubinHazardReport {
  const arch = cubin.arch.name;
  latencyTableFor(arch);
  const { fns, undecoded } = hazardFunctionsOf(cubin, codecOverride);
  const functions = fns.map((f) => ({ name: f.name, instructions: f.instrs.length, result: checkHazards(f, { arch }) }));
  return { arch, functions, hazards: functions.flatMap((f) => f.result.hazards), undecoded };
}

/** The `--check-hazards` listing: one line per hazard, undecoded words, then exactly `N hazards`. */
export function hazardReportLines(r: CubinHazardReport): string[] {
  const lines = r.hazards.map(formatHazard);
  for (const u of r.undecoded) lines.push(`${u.function} 0x${u.addr.toString(16).padStart(4, '0')}: not checked, word not decoded (${u.reason})`);
  lines.push(hazardSummaryLine(r.hazards.length));
  return lines;
}
