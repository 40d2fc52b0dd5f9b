// The inverse direction of buildCubin: the function-level facts of a cubin (code, registers, parameters, memory,
// exits...) as a BuildCubinInput. Rebuilding a ptxas cubin from its facts and comparing section by section
// (compareCubins) is how the builder is checked against ptxas.
import type { BuildCubinInput, BuildFunction, BuildParam, BuildRelocation } from './build.js';
import { SHT, STB } from './elf.js';
import { attributeInfo, decodeAttribute, type NvInfoRecord } from './nvinfo.js';
import { layoutProfileFor } from './profile.js';
import type { Cubin, CubinFunction } from './read.js';

/** Sections whose content buildCubin does not model yet (global variables, constant data, debug info...). */
export function unsupportedSections(c: Cubin): string[] {
  const known = /^(|\.shstrtab|\.strtab|\.symtab|\.debug_frame|\.note\.nv\.(tk|cu)info|\.nv\.info(\..+)?|\.nv\.compat|\.nv\.callgraph|\.nv\.rel\.action|\.rela?\.debug_frame|\.rela\.text\..+|\.text\..+|\.nv\.shared\..+|\.nv\.local\..+|\.nv\.constant0\..+)$/;
  return c.sections.filter((s) => !known.test(s.name)).map((s) => s.name);
}

const byName = (recs: readonly NvInfoRecord[], name: string) => recs.filter((r) => attributeInfo(r.code).name === `EIATTR_${name}`);

function one(recs: readonly NvInfoRecord[], name: string): number | undefined {
  const r = byName(recs, name)[0];
  if (!r) return undefined;
  const v = decodeAttribute(r);
  return v.kind === 'value' || v.kind === 'symValue' ? v.value : undefined;
}

function offsets(recs: readonly NvInfoRecord[], name: string): number[] | undefined {
  const r = byName(recs, name)[0];
  if (!r) return undefined;
  const v = decodeAttribute(r);
  return v.kind === 'offsets' ? v.offsets : v.kind === 'raw' && v.words ? v.words : undefined;
}

function dims(recs: readonly NvInfoRecord[], name: string): [number, number, number] | undefined {
  const r = byName(recs, name)[0];
  if (!r) return undefined;
  const v = decodeAttribute(r);
  return v.kind === 'dims' && v.dims.length === 3 ? [v.dims[0]!, v.dims[1]!, v.dims[2]!] : undefined;
}

function functionFacts(c: Cubin, f: CubinFunction, keepFrame: boolean): BuildFunction {
  const reserve = layoutProfileFor(c.arch.sm)?.sharedReserve ?? 0;
  const a = f.attributes;
  const params: BuildParam[] = [];
  for (const r of byName(a, 'KPARAM_INFO')) {
    const v = decodeAttribute(r);
    if (v.kind === 'kparam') for (const p of v.params) params.push({ ordinal: p.ordinal, offset: p.offset, size: p.size, ...(p.logAlignment ? { logAlignment: p.logAlignment } : {}), ...(p.space ? { pointeeSpace: p.space } : {}) });
  }
  params.sort((x, y) => x.ordinal - y.ordinal);
  const globalOf = (name: string, sym: number | undefined) =>
    f.globalAttributes.filter((r) => attributeInfo(r.code).name === `EIATTR_${name}`).map((r) => decodeAttribute(r)).find((v) => v.kind === 'symValue' && (sym === undefined || v.symbol === sym));
  const sym = f.symbol?.index;
  const frame = globalOf('FRAME_SIZE', sym);
  const minStack = globalOf('MIN_STACK_SIZE', sym);
  const subFrame = (index: number) => {
    const r = c.nvInfo.map((x) => ({ x, v: decodeAttribute(x) })).find(({ x, v }) => attributeInfo(x.code).name === 'EIATTR_FRAME_SIZE' && v.kind === 'symValue' && v.symbol === index);
    return r && r.v.kind === 'symValue' ? r.v.value : undefined;
  };
  const relSection = c.sections.find((s) => s.name === `.rela.text.${f.name}` || s.name === `.rel.text.${f.name}`);
  const relocations: BuildRelocation[] | undefined = relSection
    ? f.relocations.map((r) => ({ offset: r.offset, type: r.type, symbol: r.symbolName, addend: r.addend ?? 0 }))
    : undefined;
  const cbankSize = one(a, 'CBANK_PARAM_SIZE');
  const out: BuildFunction = {
    name: f.name,
    kind: f.isEntry ? 'entry' : 'func',
    global: f.symbol ? f.symbol.bind !== STB.LOCAL : true,
    code: f.code,
    regCount: f.registerCount ?? 0,
    params,
    ...(cbankSize !== undefined ? { paramBytes: cbankSize } : {}),
    exitOffsets: offsets(a, 'EXIT_INSTR_OFFSETS') ?? [],
  };
  if (f.shared && f.shared.size) {
    out.sharedBytes = f.shared.size - reserve;
    out.sharedAlign = f.shared.addralign;
  }
  if (f.local && f.local.size) {
    out.localBytes = f.local.size;
    out.localAlign = f.local.addralign;
  }
  if (frame && frame.kind === 'symValue' && frame.value) out.frameSize = frame.value;
  if (minStack && minStack.kind === 'symValue' && minStack.value) out.minStackSize = minStack.value;
  const crs = one(a, 'CRS_STACK_SIZE');
  if (crs !== undefined) out.crsStackSize = crs;
  const bar = one(a, 'NUM_BARRIERS');
  if (bar) out.barriers = bar;
  const mx = one(a, 'MAXREG_COUNT');
  if (mx !== undefined && mx !== 0xff) out.maxRegCount = mx;
  const mt = dims(a, 'MAX_THREADS');
  if (mt) out.maxThreads = mt;
  const rq = dims(a, 'REQNTID');
  if (rq) out.reqntid = rq;
  if (f.subroutines.length) {
    out.subroutines = f.subroutines.map((s) => ({ name: s.name, offset: s.value, size: s.size, global: s.bind !== STB.LOCAL, ...(s.bind === STB.WEAK ? { weak: true } : {}), ...(subFrame(s.index) ? { frameSize: subFrame(s.index) } : {}) }));
  }
  if (relocations) out.relocations = relocations;
  const extra: NonNullable<BuildFunction['extra']> = {};
  const cg = offsets(a, 'COOP_GROUP_INSTR_OFFSETS');
  if (cg) extra.coopGroupInstrOffsets = cg;
  const cm = offsets(a, 'COOP_GROUP_MASK_REGIDS');
  if (cm) extra.coopGroupMaskRegids = cm;
  const iw = offsets(a, 'INT_WARP_WIDE_INSTR_OFFSETS');
  if (iw) extra.intWarpWideInstrOffsets = iw;
  const sc = offsets(a, 'SYSCALL_OFFSETS');
  if (sc) extra.syscallOffsets = sc;
  const ex = byName(a, 'EXTERNS')[0];
  if (ex) {
    const v = decodeAttribute(ex);
    if (v.kind === 'symbols') extra.externs = v.symbols.map((i) => c.symbols[i]?.name ?? '');
  }
  const ib = byName(a, 'INDIRECT_BRANCH_TARGETS')[0];
  if (ib) {
    const v = decodeAttribute(ib);
    if (v.kind === 'branchTargets') extra.indirectBranchTargets = v.branches;
  }
  const tb = one(a, 'BINDLESS_TEXTURE_BANK');
  if (tb !== undefined) extra.bindlessTextureBank = tb;
  const sb = one(a, 'BINDLESS_SURFACE_BANK');
  if (sb !== undefined) extra.bindlessSurfaceBank = sb;
  if (Object.keys(extra).length) out.extra = extra;
  if (keepFrame) {
    const fi = frameInstructionsOf(c, f);
    if (fi) out.frameInstructions = fi;
  }
  return out;
}

/** The CFA instructions of the FDE whose initial location is relocated to this function's symbol (offset 0). */
export function frameInstructionsOf(c: Cubin, f: CubinFunction): Uint8Array | undefined {
  const df = c.sections.find((s) => s.name === '.debug_frame');
  if (!df || !f.symbol) return undefined;
  const rel = c.relocations.find((r) => r.target === df.index && r.symbol === f.symbol!.index && (r.addend ?? 0) === 0);
  if (!rel) return undefined;
  const start = rel.offset - 20;
  const v = new DataView(df.data.buffer, df.data.byteOffset, df.data.byteLength);
  if (start < 0 || start + 12 > df.data.length) return undefined;
  const len = Number(v.getBigUint64(start + 4, true));
  let body = df.data.subarray(start + 12 + 24, start + 12 + len);
  let end = body.length;
  while (end > 0 && body[end - 1] === 0) end--;
  // a trailing DW_CFA_nop (0) would be lost here; padding is re-added by the builder
  body = body.subarray(0, end);
  return body;
}

/** The BuildCubinInput that describes a cubin's functions (PTX order: the reverse of ptxas's section order). */
export function buildInputOfCubin(c: Cubin, opts: { keepFrameInstructions?: boolean } = {}): BuildCubinInput {
  const fns = c.functions.filter((f) => f.symbol).map((f) => functionFacts(c, f, !!opts.keepFrameInstructions));
  fns.reverse();
  const api = c.functions.map((f) => one(f.attributes, 'CUDA_API_VERSION')).find((x) => x !== undefined);
  const tex = c.compat.find((r) => r.code === 0x02);
  const input: BuildCubinInput = {
    arch: c.arch.sm,
    functions: fns,
    ...(c.cuInfo ? { virtualSm: c.cuInfo.virtualSm, toolkitVersion: c.cuInfo.toolkitVersion } : {}),
    ...(api !== undefined ? { cudaApiVersion: api } : {}),
    ...(tex ? { compatTextureMode: tex.value } : {}),
  };
  if (c.nvInfo.some((r) => attributeInfo(r.code).name === 'EIATTR_TEXMODE_INDEPENDENT')) input.texmodeIndependent = true;
  if (c.tkInfo) input.tool = { name: c.tkInfo.toolName, version: c.tkInfo.toolVersion, branch: c.tkInfo.toolBranch, options: c.tkInfo.toolOptions };
  return input;
}

export interface SectionDifference {
  name: string;
  /** 'missing' (only in the expected file), 'extra' (only in ours), 'header' or 'data'. */
  kind: 'missing' | 'extra' | 'header' | 'data';
  detail: string;
}

/** Section-by-section differences between two cubins (matched by name; ELF and program headers as pseudo-sections). */
export function compareCubins(expected: Cubin, actual: Cubin): SectionDifference[] {
  const out: SectionDifference[] = [];
  const h1 = expected.header;
  const h2 = actual.header;
  for (const k of ['osabi', 'abiVersion', 'type', 'flags', 'shnum', 'phnum', 'shstrndx', 'shoff', 'phoff'] as const) {
    if (h1[k] !== h2[k]) out.push({ name: '<elf header>', kind: 'header', detail: `${k} ${h1[k]} vs ${h2[k]}` });
  }
  const segs = (c: Cubin) => c.segments.map((g) => `${g.type}/${g.flags}@${g.offset}+${g.filesz}/${g.memsz}`).join(' ');
  if (segs(expected) !== segs(actual)) out.push({ name: '<program headers>', kind: 'header', detail: `${segs(expected)} vs ${segs(actual)}` });
  const mine = new Map(actual.sections.map((s) => [s.name, s]));
  const theirs = new Set(expected.sections.map((s) => s.name));
  for (const s of expected.sections) {
    if (s.index === 0) continue;
    const m = mine.get(s.name);
    if (!m) {
      out.push({ name: s.name, kind: 'missing', detail: `section ${s.index}` });
      continue;
    }
    const hdr: string[] = [];
    for (const k of ['index', 'type', 'flags', 'offset', 'size', 'link', 'info', 'addralign', 'entsize'] as const) {
      if (s[k] !== m[k]) hdr.push(`${k} 0x${s[k].toString(16)} vs 0x${m[k].toString(16)}`);
    }
    if (hdr.length) out.push({ name: s.name, kind: 'header', detail: hdr.join(', ') });
    if (s.type !== SHT.NOBITS && !equalBytes(s.data, m.data)) {
      let i = 0;
      while (i < s.data.length && i < m.data.length && s.data[i] === m.data[i]) i++;
      out.push({ name: s.name, kind: 'data', detail: `first difference at byte 0x${i.toString(16)} (sizes 0x${s.data.length.toString(16)} vs 0x${m.data.length.toString(16)})` });
    }
  }
  for (const s of actual.sections) if (s.index && !theirs.has(s.name)) out.push({ name: s.name, kind: 'extra', detail: `section ${s.index}` });
  return out;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
