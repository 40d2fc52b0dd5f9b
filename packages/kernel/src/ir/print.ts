import type { Block, Instr, Operand, OriFunction, OriModule, VarDecl, FuncParam } from './core.js';
import { formatControl } from './machine.js';
import { getComments, getTrailingComments } from './parse.js';

/** Ori text printer. The output is canonical: parsing it and printing again gives the same bytes. */

function hex(n: number | bigint): string {
  const v = BigInt(n);
  return v < 0n ? `-0x${(-v).toString(16)}` : `0x${v.toString(16)}`;
}

export function printOperand(o: Operand): string {
  switch (o.kind) {
    case 'reg': {
      let s = o.reg.name;
      if (o.abs) s = `|${s}|`;
      if (o.not) s = (o.reg.cls === 'P' || o.reg.cls === 'UP' ? '!' : '~') + s;
      if (o.neg) s = `-${s}`;
      return s;
    }
    case 'rz':
      return o.uniform ? 'URZ' : 'RZ';
    case 'pt':
      return o.not ? '!PT' : 'PT';
    case 'imm':
      switch (o.fmt) {
        case 'f32':
          return `0f${BigInt.asUintN(32, o.value).toString(16).toUpperCase().padStart(8, '0')}`;
        case 'f64':
          return `0d${BigInt.asUintN(64, o.value).toString(16).toUpperCase().padStart(16, '0')}`;
        case 'hex':
          return hex(o.value);
        default:
          return o.value.toString();
      }
    case 'cbank':
      return o.index
        ? `c[${hex(o.bank)}][${o.index.name}${o.offset ? (o.offset < 0 ? '-' : '+') + hex(Math.abs(o.offset)) : ''}]`
        : `c[${hex(o.bank)}][${hex(o.offset)}]`;
    case 'sreg':
      return o.name;
    case 'label':
      return o.block.label;
    case 'labels':
      return `(${o.blocks.map((b) => b.label).join(', ')})`;
    case 'sym':
      return `@${o.name}`;
    case 'mem': {
      const parts: string[] = [];
      if (o.base) parts.push(o.base.name);
      if (o.sym !== undefined) parts.push(`@${o.sym}`);
      let s = parts.join('+');
      if (o.offset !== 0 || parts.length === 0) {
        if (parts.length === 0) s = hex(o.offset);
        else s += o.offset < 0 ? `-${hex(-o.offset)}` : `+${hex(o.offset)}`;
      }
      return `[${s}]`;
    }
  }
}

export function printInstr(i: Instr): string {
  let s = i.control ? `[${formatControl(i.control)}] ` : '';
  if (i.guard) s += `@${i.guard.not ? '!' : ''}${i.guard.reg.name} `;
  if (i.defs.length) s += `${i.defs.map(printOperand).join(', ')} = `;
  s += i.fullOpcode;
  if (i.uses.length) s += ` ${i.uses.map(printOperand).join(', ')}`;
  const attrs: string[] = [];
  if (i.loc) {
    attrs.push(`line=${i.loc.line}`);
    if (i.loc.col !== undefined) attrs.push(`col=${i.loc.col}`);
    if (i.loc.file !== undefined) attrs.push(`file=${i.loc.file}`);
  }
  if (i._flags) for (const f of i._flags) attrs.push(f);
  if (attrs.length) s += ` {${attrs.join(' ')}}`;
  return s;
}

function printVar(v: VarDecl): string {
  let s = `.${v.space}`;
  if (v.extern) s = `.extern ${s}`;
  else if (v.visible) s = `.visible ${s}`;
  s += ` .align ${v.align} .b8 @${v.name}[${v.size}]`;
  if (v.init) s += ` = hex"${Buffer.from(v.init).toString('hex')}"`;
  if (v.relocs?.length) {
    const rs = v.relocs.map((r) => {
      const sym = r.generic ? `generic(@${r.sym})` : `@${r.sym}`;
      const add = r.addend > 0 ? `+${hex(r.addend)}` : r.addend < 0 ? `-${hex(-r.addend)}` : '';
      return `${hex(r.offset)} .b${r.size * 8} ${sym}${add}`;
    });
    s += ` relocs(${rs.join(', ')})`;
  }
  return s;
}

function printParam(p: FuncParam): string {
  let s = `.param .${p.type}`;
  if (p.align !== undefined) s += ` .align ${p.align}`;
  s += ` ${p.name}`;
  if (p.count) s += `[${p.count}]`;
  if (p.cbank) s += ` c[${hex(p.cbank.bank)}][${hex(p.cbank.offset)}]`;
  if (p.reg) s += ` ${p.reg.name}`;
  return s;
}

export function printBlock(b: Block): string {
  const lines = [...getComments(b), `${b.label}:${b.attrs.size ? ` {${[...b.attrs].join(' ')}}` : ''}`];
  for (const i of b.instrs) {
    for (const c of getComments(i)) lines.push(`  ${c}`);
    lines.push(`  ${printInstr(i)}`);
  }
  return lines.join('\n');
}

export function printFunction(fn: OriFunction): string {
  const out: string[] = [...getComments(fn)];
  const head = `.${fn.kind} @${fn.name}`;
  if (fn.params.length === 0) out.push(`${head}()`);
  else {
    out.push(`${head}(`);
    fn.params.forEach((p, k) => out.push(`  ${printParam(p)}${k + 1 < fn.params.length ? ',' : ''}`));
    out.push(')');
  }
  if (fn.results.length) out[out.length - 1] += ` -> (${fn.results.map((r) => r.name).join(', ')})`;
  out.push('{');
  for (const [k, v] of fn.directives) out.push(`  .${k} ${v.join(', ')}`);
  for (const v of fn.vars) out.push(`  ${printVar(v)}`);
  for (const b of fn.blocks) out.push(printBlock(b));
  for (const c of getTrailingComments(fn)) out.push(`  ${c}`);
  out.push('}');
  return out.join('\n');
}

export function printModule(m: OriModule): string {
  const out: string[] = [...getComments(m)];
  if (m.target) out.push(`.target ${m.target}`);
  m.files.forEach((f, k) => out.push(`.file ${k} ${JSON.stringify(f)}`));
  for (const v of m.vars) out.push(printVar(v));
  for (const fn of m.functions) {
    if (out.length) out.push('');
    out.push(printFunction(fn));
  }
  const trailing = getTrailingComments(m);
  if (trailing.length) out.push('', ...trailing);
  return `${out.join('\n')}\n`;
}
