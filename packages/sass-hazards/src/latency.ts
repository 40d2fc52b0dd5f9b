import {
  ADA_LATENCIES, AMPERE_LATENCIES, HOPPER_LATENCIES, MACHINE_LATENCY_TABLES, TURING_LATENCIES,
  isKnownMachineOpcode, machineLatencyTableFor, machineOpTiming, machineRawLatency,
} from '@ptxforge/target-common';
import type {
  MachineLatencyTable, MachineOpTiming, MachineQueue, MachineReaderClass, MachineWriterClass,
} from '@ptxforge/kernel';
import type { HazardInstr } from './types.js';

/*
 * The latency model is the targets' data: the tables and opcode classes live in @ptxforge/target-common, each
 * target package selects its table and serves it as `LatencyModel.machine` (one source for the checker, the
 * scoreboard generator and the schedulers). This module keeps the checker's names for them.
 */

export type WriterClass = MachineWriterClass;
export type ReaderClass = MachineReaderClass;
export type VariableQueue = MachineQueue;
export type OpTiming = MachineOpTiming;
export type LatencyTable = MachineLatencyTable;

export const TURING: LatencyTable = TURING_LATENCIES;
export const AMPERE: LatencyTable = AMPERE_LATENCIES;
export const ADA: LatencyTable = ADA_LATENCIES;
export const HOPPER: LatencyTable = HOPPER_LATENCIES;
export const LATENCY_TABLES: readonly LatencyTable[] = MACHINE_LATENCY_TABLES;

export class UnknownArchError extends Error {
  readonly code = 'HAZARD_UNKNOWN_ARCH';
  constructor(arch: string) {
    super(`no latency table for ${arch} (known: ${LATENCY_TABLES.flatMap((t) => t.archs).join(', ')})`);
  }
}

export function latencyTableFor(arch: string): LatencyTable {
  const t = machineLatencyTableFor(arch);
  if (!t) throw new UnknownArchError(arch);
  return t;
}

export function rawLatency(t: LatencyTable, w: WriterClass, r: ReaderClass): number {
  return machineRawLatency(t, w, r);
}

/** Timing of one instruction under `t` (opcode overrides first, then the shared opcode map). */
export function opTiming(t: LatencyTable, ins: HazardInstr): OpTiming {
  return machineOpTiming(t, ins);
}

/** Whether the opcode is in the timing map (unknown opcodes are reported once by the checker). */
export function isKnownOpcode(op: string): boolean {
  return isKnownMachineOpcode(op);
}
