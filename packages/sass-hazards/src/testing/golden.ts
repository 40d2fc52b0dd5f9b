import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decodeControl } from '../control.js';
import { instrFromText } from '../listing.js';
import type { HazardFunction } from '../types.js';

/** ../shared/golden from this package (tests skip when it is absent). */
export const GOLDEN_DIR = fileURLToPath(new URL('../../../../../shared/golden/', import.meta.url));
export const GOLDEN_SM75 = `${GOLDEN_DIR}cudatest.7.sm_75.tsv`;
export const haveGolden = existsSync(GOLDEN_SM75);

export interface GoldenWord {
  addr: number;
  lo: bigint;
  hi: bigint;
  text: string;
}

/** Branch targets of sm_70..sm_86 BRA/BSSY/CALL.REL words: signed byte offset at bits 32..81 from the next instruction. */
function relTarget(w: GoldenWord): number {
  const bits = ((w.lo >> 32n) | ((w.hi & 0x3ffffn) << 32n)) & ((1n << 50n) - 1n);
  const off = bits >= 1n << 49n ? bits - (1n << 50n) : bits;
  return w.addr + 16 + Number(off);
}

/** Functions of a CuAssembler full-word listing (section, addr, lo64, hi64, ctrl, text). */
export function loadGoldenListing(path: string): { fn: HazardFunction; words: GoldenWord[] }[] {
  const lines = readFileSync(path, 'utf8').split('\n').slice(1).filter((l) => l.trim());
  const bySection = new Map<string, GoldenWord[]>();
  for (const l of lines) {
    const [section, addr, lo, hi, , text] = l.split('\t');
    const list = bySection.get(section!) ?? [];
    list.push({ addr: Number.parseInt(addr!, 16), lo: BigInt(lo!), hi: BigInt(hi!), text: text!.trim() });
    bySection.set(section!, list);
  }
  const out: { fn: HazardFunction; words: GoldenWord[] }[] = [];
  for (const [section, words] of bySection) out.push({ fn: functionFromWords(section.replace(/^\.text\./, ''), words), words });
  return out;
}

export function functionFromWords(name: string, words: GoldenWord[]): HazardFunction {
  return {
    name,
    instrs: words.map((w) =>
      instrFromText(w.addr, w.text, decodeControl(w.hi), () => {
        const op = (Number(w.lo & 0xfffn));
        return op === 0x947 || op === 0x945 || op === 0x944 ? relTarget(w) : undefined;
      }),
    ),
  };
}
