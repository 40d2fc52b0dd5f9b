import type { Hazard } from './check.js';

const hex = (a: number): string => `0x${a.toString(16).padStart(4, '0')}`;

/** One line per hazard: `func 0x00c0: RAW R5: LDG.E.SYS R5, [R18] (0x00b0) -> IADD3 R1, R5, ... : wait on SB4`. */
export function formatHazard(h: Hazard): string {
  const rel = h.kind === 'WAR' ? 'read by' : 'written by';
  return `${h.function} ${hex(h.addr)}: ${h.kind} ${h.reg} ${rel} \`${h.firstText}\` at ${hex(h.firstAddr)}, then \`${h.secondText}\`: missing ${h.missing}`;
}

/** The closing line of `--check-hazards`: exactly `N hazards`. */
export function hazardSummaryLine(n: number): string {
  return `${n} hazards`;
}
