import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCubin } from '@ptxforge/cubin';
import { encodeControl, decodeControl } from '@ptxforge/sass-hazards';
import { describe, expect, it } from 'vitest';
import { registerCodecProvider, type WordCodec } from './codec.js';
import { checkCubinHazards, hazardReportLines } from './hazards.js';
import { main } from './main.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const golden = path.resolve(here, '../../../../shared/golden');
const cubinPath = path.join(golden, 'cudatest.7.sm_75.cubin');
const tsvPath = path.join(golden, 'cudatest.7.sm_75.tsv');
const have = existsSync(cubinPath) && existsSync(tsvPath);

/**
 * A codec that knows exactly the words of the golden listing (nvdisasm's text for each 128-bit word): lets the
 * hazard check run on a real ptxas cubin before the Volta decoder tables exist.
 */
function listingCodec(): WordCodec {
  const byWord = new Map<string, string>();
  for (const line of readFileSync(tsvPath, 'utf8').split('\n').slice(1)) {
    const [, , lo, hi, , text] = line.split('\t');
    if (!text) continue;
    // control bits are not part of the key: weakened words must still decode
    const h = BigInt(hi!) & ~(0x7fffffn << 41n);
    byWord.set(`${BigInt(lo!)}:${h}`, text.replace(/\s*;\s*$/, ''));
  }
  return {
    family: 'volta',
    name: 'golden listing lookup (test)',
    decode(slot) {
      const lo = (BigInt(slot.word[1]!) << 32n) | BigInt(slot.word[0]!);
      const hi = (BigInt(slot.word[3]!) << 32n) | BigInt(slot.word[2]!);
      const text = byWord.get(`${lo}:${hi & ~(0x7fffffn << 41n)}`);
      const opcodeField = slot.word[0]! & 0xfff;
      if (!text) return { known: false, text: `UNKNOWN 0x${opcodeField.toString(16)}`, opcodeField, reason: 'not in the listing' };
      let branchTarget: number | undefined;
      if (opcodeField === 0x947) {
        const bits = ((lo >> 32n) | ((hi & 0x3ffffn) << 32n)) & ((1n << 50n) - 1n);
        branchTarget = slot.addr + 16 + Number(bits >= 1n << 49n ? bits - (1n << 50n) : bits);
      }
      return { known: true, text, opcodeField, branchTarget };
    },
  };
}

describe.skipIf(!have)('--check-hazards on the golden sm_75 cubin (needs ../shared/golden)', () => {
  it('ptxas code has no hazards', () => {
    const r = checkCubinHazards(readCubin(readFileSync(cubinPath)), listingCodec());
    expect(r.undecoded).toEqual([]);
    expect(r.functions.length).toBe(7);
    expect(hazardReportLines(r)).toEqual(['0 hazards']);
  });

  it('a lowered stall in the cubin bytes is found, with address and both instructions', () => {
    const bytes = new Uint8Array(readFileSync(cubinPath));
    const cubin = readCubin(bytes);
    const fn = cubin.functions.find((f) => f.name === '_Z7argtestPiS_S_')!;
    // IMAD R17, R17, c[0x0][0x0], R0 at 0x90 (stall 4) feeds IMAD.WIDE at 0xa0
    const at = fn.text.offset + 0x90 + 8;
    const dv = new DataView(bytes.buffer, bytes.byteOffset + at, 8);
    const hi = dv.getBigUint64(0, true);
    const ctl = decodeControl(hi);
    expect(ctl.stall).toBe(4);
    dv.setBigUint64(0, encodeControl(hi, { ...ctl, stall: 2 }), true);
    const r = checkCubinHazards(readCubin(bytes), listingCodec());
    const lines = hazardReportLines(r);
    expect(lines.at(-1)).toBe('1 hazards');
    expect(lines[0]).toContain('0x00a0: RAW R17');
    expect(lines[0]).toContain('IMAD R17, R17, c[0x0][0x0], R0');
    expect(lines[0]).toContain('stall: 2 of 4 cycles');
  });

  it('the command prints N hazards last and exits 0 on ptxas code', () => {
    registerCodecProvider((sm) => (sm === 75 ? listingCodec() : undefined));
    let out = '';
    const rc = main(['--check-hazards', cubinPath], (s) => (out += s), () => {});
    expect(out.trimEnd().split('\n').at(-1)).toBe('0 hazards');
    expect(rc).toBe(0);
  });
});
