import {
  type Cubin,
  type CubinFunction,
  CubinError,
  ET_EXEC,
  ET_REL,
  formatAttribute,
  STB,
  STO_CUDA_ENTRY,
} from '@ptxforge/cubin';
import { codecFor, type DecodedWord, safeDecode, type WordCodec } from './codec.js';
import { type InstructionSlot, layoutForSm, splitCode, type WordLayout, wordHalves } from './layout.js';

export interface DisassembleOptions {
  /** Append each word in hex (`/* 0x... *\/`), as nvdisasm -hex does. */
  hex?: boolean;
  /** Prefix each instruction with its control info in CuAssembler notation (default true). */
  control?: boolean;
  /** Print the .nv.info attributes of each function (default true). */
  attributes?: boolean;
  /** Use this codec instead of the registered one (tests). */
  codec?: WordCodec;
}

export interface DecodedFunction {
  fn: CubinFunction;
  slots: InstructionSlot[];
  decoded: DecodedWord[];
  trailing: number;
}

/** The layout and codec for a cubin's arch; CUBIN_MALFORMED-coded error for an arch no family covers. */
export function codecForCubin(cubin: Cubin, override?: WordCodec): { layout: WordLayout; codec: WordCodec } {
  const layout = layoutForSm(cubin.arch.sm);
  if (!layout) {
    throw new CubinError(
      'CUBIN_MALFORMED',
      `${cubin.file ? cubin.file + ': ' : ''}${cubin.arch.name} (e_flags 0x${cubin.header.flags.toString(16)}) is not an SM any encoding family covers`,
    );
  }
  return { layout, codec: override ?? codecFor(cubin.arch.sm, layout) };
}

export function decodeFunction(fn: CubinFunction, layout: WordLayout, codec: WordCodec): DecodedFunction {
  const { slots, trailing } = splitCode(fn.code, layout);
  const decoded = slots.map((s) => safeDecode(codec, layout, s));
  return { fn, slots, decoded, trailing };
}

const hex4 = (n: number) => n.toString(16).padStart(4, '0');

function headerFlags(cubin: Cubin): string {
  const sm = `EF_CUDA_SM${cubin.arch.sm}`;
  const virt = cubin.arch.virtualSm ?? cubin.cuInfo?.virtualSm ?? cubin.arch.sm;
  return [...cubin.arch.flagNames, sm, `EF_CUDA_VIRTUAL_SM(EF_CUDA_SM${virt})`].join(' ');
}

function elfTypeName(t: number): string {
  return t === ET_EXEC ? 'ET_EXEC' : t === ET_REL ? 'ET_REL' : `0x${t.toString(16)}`;
}

/** Pad the instruction so that a guard ends, and the opcode starts, at column 35 as in nvdisasm. */
function instructionLine(addr: number, text: string, control: string | undefined): string {
  const guard = /^(@!?U?P[T0-9]+) /.exec(text);
  const body = guard ? text.slice(guard[0].length) : text;
  const lead = `        /*${hex4(addr)}*/`;
  const g = guard ? guard[1]! + ' ' : '';
  const pad = Math.max(1, 35 - lead.length - g.length);
  const line = `${lead}${' '.repeat(pad)}${g}${body} ;`;
  return control === undefined ? line : `[${control}] ${line}`;
}

function withHex(line: string, halves: string[], control: boolean): string[] {
  const col = control ? 110 : 88;
  const out = [`${line.padEnd(col - 1)} /* ${halves[0]} */`];
  for (let i = 1; i < halves.length; i++) out.push(`${' '.repeat(col)}/* ${halves[i]} */`);
  return out;
}

/** Disassemble a whole cubin to nvdisasm-like text (one function after the other, in section order). */
export function disassembleCubin(cubin: Cubin, opts: DisassembleOptions = {}): string {
  const { layout, codec } = codecForCubin(cubin, opts.codec);
  const showControl = opts.control !== false;
  const lines: string[] = [];
  const symName = (i: number) => cubin.symbols[i]?.name || undefined;
  lines.push(`\t.headerflags\t@"${headerFlags(cubin)}"`);
  lines.push(`\t.elftype\t@"${elfTypeName(cubin.header.type)}"`);
  lines.push(`\t// ptxforge-dis: ${cubin.arch.name}, ${layout.family} words, tables: ${codec.name}`);
  let labelNo = 0;
  for (const fn of cubin.functions) {
    const d = decodeFunction(fn, layout, codec);
    lines.push('', '');
    lines.push(`//--------------------- ${fn.text.name.padEnd(24)} --------------------------`);
    lines.push(`\t.section\t${fn.text.name},"ax",@progbits`);
    if (fn.registerCount !== undefined) lines.push(`\t.sectioninfo\t@"SHI_REGISTERS=${fn.registerCount}"`);
    lines.push(`\t.align\t${fn.text.addralign}`);
    // Labels: branch targets, then the end label that .size refers to.
    const labels = new Map<number, string>();
    for (const w of d.decoded) {
      if (w.branchTarget !== undefined && !labels.has(w.branchTarget)) labels.set(w.branchTarget, '');
    }
    for (const addr of [...labels.keys()].sort((a, b) => a - b)) labels.set(addr, `.L_x_${labelNo++}`);
    const endLabel = `.L_x_${labelNo++}`;
    const sym = fn.symbol;
    if (sym) {
      const bind = sym.bind === STB.GLOBAL ? '.global' : sym.bind === STB.WEAK ? '.weak' : undefined;
      if (bind) lines.push(`        ${bind.padEnd(16)}${sym.name}`);
      lines.push(`        ${'.type'.padEnd(16)}${sym.name},@function`);
      lines.push(`        ${'.size'.padEnd(16)}${sym.name},(${endLabel} - ${sym.name})`);
      const other = [(sym.other & STO_CUDA_ENTRY) !== 0 ? 'STO_CUDA_ENTRY' : '', 'STV_DEFAULT'].filter(Boolean);
      lines.push(`        ${'.other'.padEnd(16)}${sym.name},@"${other.join(' ')}"`);
    }
    if (opts.attributes !== false) {
      const attrs = [...fn.globalAttributes, ...fn.attributes];
      if (attrs.length) {
        lines.push(`\t// .nv.info attributes of ${fn.name}:`);
        for (const r of attrs) for (const l of formatAttribute(r, symName).split('\n')) lines.push(`\t//   ${l}`);
      }
      if (fn.shared) lines.push(`\t// ${fn.shared.name}: ${fn.shared.size} bytes`);
      if (fn.constant0) lines.push(`\t// ${fn.constant0.name}: ${fn.constant0.size} bytes`);
      for (const r of fn.relocations) {
        const add = r.addend ? ` + 0x${r.addend.toString(16)}` : '';
        lines.push(`\t// relocation /*${hex4(r.offset)}*/ ${r.typeName} ${r.symbolName}${add}`);
      }
    }
    if (sym) lines.push(`${sym.name}:`);
    lines.push(`${fn.text.name}:`);
    const subs = new Map<number, string[]>();
    for (const s of fn.subroutines) {
      let l = subs.get(s.value);
      if (!l) subs.set(s.value, (l = []));
      l.push(s.name);
    }
    const labelLines = (addr: number) => {
      for (const name of subs.get(addr) ?? []) lines.push(`${name}:`);
      const l = labels.get(addr);
      if (l) lines.push(`${l}:`);
    };
    for (let i = 0; i < d.slots.length; i++) {
      const slot = d.slots[i]!;
      const w = d.decoded[i]!;
      // A group's first instruction also carries the labels of the group start (its control word).
      if (slot.controlAddr !== undefined && slot.addr === slot.controlAddr + 8) {
        labelLines(slot.controlAddr);
        if (opts.hex) lines.push(`${' '.repeat(showControl ? 110 : 88)}/* ${wordHalves(slot.controlWord!)[0]} */`);
      }
      labelLines(slot.addr);
      let text = w.text;
      if (w.branchTarget !== undefined) {
        const l = labels.get(w.branchTarget);
        if (l) text = text.replace(new RegExp(`0x${w.branchTarget.toString(16)}\\b`), `\`(${l})`);
      }
      const line = instructionLine(slot.addr, text, showControl ? w.control : undefined);
      if (opts.hex) lines.push(...withHex(line, wordHalves(slot.word), showControl));
      else lines.push(line);
    }
    if (d.trailing) lines.push(`\t// ${d.trailing} trailing bytes do not make a whole instruction group`);
    lines.push(`${endLabel}:`);
  }
  return lines.join('\n') + '\n';
}

export interface RoundtripCounts {
  words: number;
  known: number;
  identical: number;
  /** Known words whose printed text parses and assembles back to the same bits (when the codec can parse). */
  textIdentical?: number;
  /** Unknown words by opcode field. */
  unknownByOpcode: Map<number, number>;
}

function sameBits(a: Uint32Array, b: Uint32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Decode and re-encode every word of every .text section. A word is identical when encoding its structured form
 * gives back the word (and, for maxwell/kepler, the slot's control bits).
 */
export function roundtripCubin(cubin: Cubin, codecOverride?: WordCodec): RoundtripCounts & { perFunction: Array<{ name: string } & RoundtripCounts> } {
  const { layout, codec } = codecForCubin(cubin, codecOverride);
  const total: RoundtripCounts = { words: 0, known: 0, identical: 0, unknownByOpcode: new Map() };
  if (codec.assemble) total.textIdentical = 0;
  const perFunction: Array<{ name: string } & RoundtripCounts> = [];
  for (const fn of cubin.functions) {
    const d = decodeFunction(fn, layout, codec);
    const c: RoundtripCounts = { words: 0, known: 0, identical: 0, unknownByOpcode: new Map() };
    if (codec.assemble) c.textIdentical = 0;
    for (let i = 0; i < d.slots.length; i++) {
      const slot = d.slots[i]!;
      const w = d.decoded[i]!;
      c.words++;
      if (!w.known || !w.reencode) {
        c.unknownByOpcode.set(w.opcodeField, (c.unknownByOpcode.get(w.opcodeField) ?? 0) + 1);
        continue;
      }
      c.known++;
      try {
        const back = w.reencode();
        if (sameBits(back.word, slot.word) && back.control === slot.control) c.identical++;
      } catch {
        // an encoder error counts as not identical
      }
      if (codec.assemble) {
        try {
          const text = (w.control ? `[${w.control}] ` : '') + w.text + ' ;';
          const back = codec.assemble(text, slot.addr);
          if (sameBits(back.word, slot.word) && back.control === slot.control) c.textIdentical!++;
        } catch {
          // a parse error counts as not identical
        }
      }
    }
    perFunction.push({ name: fn.name, ...c });
    total.words += c.words;
    total.known += c.known;
    total.identical += c.identical;
    if (total.textIdentical !== undefined) total.textIdentical += c.textIdentical ?? 0;
    for (const [k, v] of c.unknownByOpcode) total.unknownByOpcode.set(k, (total.unknownByOpcode.get(k) ?? 0) + v);
  }
  return { ...total, perFunction };
}

/** `N words, K known, R identical` -- the contract line of --roundtrip and sass-roundtrip. */
export function roundtripLine(c: RoundtripCounts): string {
  return `${c.words} words, ${c.known} known, ${c.identical} identical`;
}
