import { readFileSync } from 'node:fs';
import { isPtxforgeError } from '@ptxforge/kernel';
import { readCubin } from '@ptxforge/cubin';
import { disassembleCubin, roundtripCubin, roundtripLine } from './disassemble.js';
import { registerFamilyCodecs } from './families.js';
import { checkCubinHazards, hazardReportLines } from './hazards.js';

const USAGE = `usage: ptxforge-dis [options] FILE.cubin
  Disassemble every function of a cubin in nvdisasm's syntax (arch from the ELF header).
  --hex            append each instruction word in hex
  --no-control     omit the control info prefix ([B------:R-:W-:Y:S04])
  --no-attributes  omit the .nv.info attributes, sizes and relocations of each function
  --roundtrip      decode and re-encode every word; last line: N words, K known, R identical
  --check-hazards  check every instruction's control bits (stalls, scoreboards, waits, reuse) against the
                   arch's latency model; one line per uncovered RAW/WAR/WAW, last line: N hazards
                   (exit 1 when N > 0 or a word could not be decoded)
  -h, --help       this text`;

export function main(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s), err: (s: string) => void = (s) => process.stderr.write(s)): number {
  const files: string[] = [];
  let hex = false;
  let control = true;
  let attributes = true;
  let roundtrip = false;
  let hazards = false;
  for (const a of argv) {
    if (a === '--hex' || a === '-hex') hex = true;
    else if (a === '--no-control') control = false;
    else if (a === '--no-attributes') attributes = false;
    else if (a === '--roundtrip') roundtrip = true;
    else if (a === '--check-hazards') hazards = true;
    else if (a === '-h' || a === '--help') {
      out(USAGE + '\n');
      return 0;
    } else if (a.startsWith('-') && a !== '-') {
      err(`ptxforge-dis: error DIS_USAGE: unknown option ${a}\n${USAGE}\n`);
      return 1;
    } else files.push(a);
  }
  if (files.length !== 1) {
    err(`ptxforge-dis: error DIS_USAGE: expected one cubin file, got ${files.length}\n${USAGE}\n`);
    return 1;
  }
  const file = files[0]!;
  registerFamilyCodecs();
  try {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(file === '-' ? 0 : file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
      err(`ptxforge-dis: error DIS_READ: cannot read ${file} (${code})\n`);
      return 1;
    }
    const cubin = readCubin(bytes, { file });
    if (hazards) {
      const r = checkCubinHazards(cubin);
      for (const l of hazardReportLines(r)) out(l + '\n');
      if (r.undecoded.length) err(`ptxforge-dis: error HAZARD_UNDECODED: ${r.undecoded.length} word(s) of ${file} could not be decoded; their hazards are not checked\n`);
      return r.hazards.length > 0 || r.undecoded.length > 0 ? 1 : 0;
    }
    if (roundtrip) {
      const r = roundtripCubin(cubin);
      out(`${file}: ${cubin.arch.name}, ${cubin.functions.length} function(s)\n`);
      const unknown = [...r.unknownByOpcode].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      for (const [op, n] of unknown.slice(0, 20)) out(`unknown opcode field 0x${op.toString(16)}: ${n} word(s)\n`);
      if (unknown.length > 20) out(`... ${unknown.length - 20} more unknown opcode fields\n`);
      if (r.textIdentical !== undefined) out(`text: ${r.textIdentical} of ${r.known} known words re-parse to the same bits\n`);
      out(roundtripLine(r) + '\n');
      return 0;
    }
    out(disassembleCubin(cubin, { hex, control, attributes }));
    return 0;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('HAZARD_')) {
      err(`ptxforge-dis: error ${code}: ${(e as Error).message}\n`);
      return 1;
    }
    if (isPtxforgeError(e)) {
      err(`ptxforge-dis: ${e.format()}\n`);
      return 1;
    }
    err(`ptxforge-dis: error DIS_INTERNAL: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return 2;
  }
}

