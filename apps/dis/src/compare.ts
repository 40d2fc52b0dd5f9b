// Comparison of ptxforge-dis with NVIDIA's tools on the same cubin: instruction text against an nvdisasm (or
// cuobjdump -sass) listing, .nv.info attributes against `cuobjdump -elf`. Used by scripts/compare-nvdisasm.mjs
// on the listings a GPU session produces; nothing NVIDIA-generated is kept in the repository.
import { attributeInfo, type Cubin, decodeAttribute, type NvInfoRecord } from '@ptxforge/cubin';
import { codecForCubin, decodeFunction } from './disassemble.js';
import type { WordCodec } from './codec.js';

/** Instruction text per function and address, from an nvdisasm / cuobjdump listing. */
export type Listing = Map<string, Map<number, string>>;

/**
 * Parse an nvdisasm (`nvdisasm -c [-hex]`) or `cuobjdump -sass` listing. Branch labels (`` `(.L_x_3) ``) are
 * replaced by the address they label, so that listings with different label numbering compare equal.
 */
export function parseListing(text: string): Listing {
  const out: Listing = new Map();
  let fn: Map<number, string> | undefined;
  let pendingLabels: string[] = [];
  const perFn: Array<{ m: Map<number, string>; raw: Array<[number, string]>; labels: Map<string, number> }> = [];
  let cur: (typeof perFn)[number] | undefined;
  const begin = (name: string) => {
    fn = new Map();
    out.set(name, fn);
    cur = { m: fn, raw: [], labels: new Map() };
    perFn.push(cur);
    pendingLabels = [];
  };
  for (const line of text.split('\n')) {
    let m = /^\s*\.section\s+\.text\.([^,\s]+)/.exec(line) ?? /^\s*Function\s*:\s*(\S+)/.exec(line);
    if (m) {
      begin(m[1]!);
      continue;
    }
    if (!cur) continue;
    m = /^\s*(\.L_x_\d+|\.L_\w+):\s*$/.exec(line);
    if (m) {
      pendingLabels.push(m[1]!);
      continue;
    }
    m = /^\s*(?:\[[^\]]*\]\s*)?\/\*([0-9a-fA-F]{4,})\*\/\s*(.*)$/.exec(line);
    if (!m) continue;
    const addr = parseInt(m[1]!, 16);
    let body = m[2]!.replace(/\/\*.*?\*\//g, '').trim();
    body = body.replace(/^\{\s*/, '').replace(/\s*\}\s*$/, '').trim();
    body = body.replace(/\s*;\s*$/, '').replace(/\s*\}\s*$/, '').trim();
    for (const l of pendingLabels) cur.labels.set(l, addr);
    pendingLabels = [];
    cur.raw.push([addr, body]);
  }
  for (const f of perFn) {
    for (const [addr, body] of f.raw) {
      const resolved = body.replace(/`\((\.L_[\w]+)\)/g, (all, l: string) => {
        const a = f.labels.get(l);
        return a === undefined ? all : `0x${a.toString(16)}`;
      });
      f.m.set(addr, resolved);
    }
  }
  return out;
}

/** Whitespace-free form both sides are compared in. */
export function normalizeText(t: string): string {
  return t.replace(/\s+/g, '').replace(/;$/, '');
}

export interface TextComparison {
  instructions: number;
  identical: number;
  /** Addresses in the listing we have no instruction for (or the other way round). */
  missing: number;
  /** First differences: function, address, ours, theirs. */
  diffs: Array<{ fn: string; addr: number; ours: string; theirs: string }>;
  /** Mismatches by the listing's mnemonic. */
  byOpcode: Map<string, number>;
}

/** Compare our decoding of every function of `cubin` with a parsed listing of the same cubin. */
export function compareText(cubin: Cubin, listing: Listing, opts: { codec?: WordCodec; maxDiffs?: number } = {}): TextComparison {
  const { layout, codec } = codecForCubin(cubin, opts.codec);
  const r: TextComparison = { instructions: 0, identical: 0, missing: 0, diffs: [], byOpcode: new Map() };
  for (const fn of cubin.functions) {
    const theirs = listing.get(fn.name);
    if (!theirs) continue;
    const d = decodeFunction(fn, layout, codec);
    const ours = new Map<number, string>();
    for (let i = 0; i < d.slots.length; i++) ours.set(d.slots[i]!.addr, d.decoded[i]!.text);
    for (const [addr, t] of theirs) {
      r.instructions++;
      const o = ours.get(addr);
      if (o === undefined) {
        r.missing++;
        continue;
      }
      if (normalizeText(o) === normalizeText(t)) {
        r.identical++;
        continue;
      }
      const op = /^(?:@!?U?P\w+\s+)?([A-Z0-9_]+)/.exec(t)?.[1] ?? '?';
      r.byOpcode.set(op, (r.byOpcode.get(op) ?? 0) + 1);
      if (r.diffs.length < (opts.maxDiffs ?? 20)) r.diffs.push({ fn: fn.name, addr, ours: o, theirs: t });
    }
  }
  return r;
}

/** Attribute names and values per .nv.info section, from `cuobjdump -elf` text. */
export type ElfAttributes = Map<string, Array<{ name: string; value: string }>>;

export function parseElfAttributes(text: string): ElfAttributes {
  const out: ElfAttributes = new Map();
  let cur: Array<{ name: string; value: string }> | undefined;
  let last: { name: string; value: string } | undefined;
  for (const line of text.split('\n')) {
    const sec = /^\s*(\.nv\.info(?:\.\S+)?)\s*$/.exec(line);
    if (sec) {
      cur = [];
      out.set(sec[1]!, cur);
      last = undefined;
      continue;
    }
    if (/^\s*\.\S+\s*$/.test(line) && !/^\s*\.nv\.info/.test(line)) {
      cur = undefined; // another section
      continue;
    }
    if (!cur) continue;
    const a = /Attribute:\s*(EIATTR_\w+)/.exec(line);
    if (a) {
      last = { name: a[1]!, value: '' };
      cur.push(last);
      continue;
    }
    const v = /^\s*Value:\s*(.*)$/.exec(line);
    if (v && last) last.value = v[1]!.trim();
  }
  return out;
}

/** The numbers of a cuobjdump value (`0x60 0x170`, `Index : 0x0 ...`) in order. */
function numbers(s: string): number[] {
  return [...s.matchAll(/0x[0-9a-fA-F]+|\b\d+\b/g)].map((m) => Number(m[0]));
}

function ourNumbers(r: NvInfoRecord): number[] {
  const v = decodeAttribute(r);
  switch (v.kind) {
    case 'flag':
      return [];
    case 'value':
      return [v.value];
    case 'symValue':
      return v.symbol === undefined ? [v.value] : [v.symbol, v.value];
    case 'offsets':
      return v.offsets;
    case 'symbols':
      return v.symbols;
    case 'dims':
      return v.dims;
    case 'paramCbank':
      return [v.symbol, v.offset, v.size, ((v.size << 16) | v.offset) >>> 0];
    case 'version':
      return [v.major, v.minor];
    case 'kparam':
      return v.params.flatMap((p) => [p.index, p.ordinal, p.offset, p.size, p.logAlignment, p.space, p.cbank]);
    case 'branchTargets':
      return v.branches.flatMap((b) => [b.offset, b.tag, b.targets.length, ...b.targets]);
    case 'raw':
      return v.words ?? Array.from(v.bytes);
  }
}

export interface AttributeComparison {
  attributes: number;
  sameName: number;
  sameValue: number;
  diffs: string[];
}

/** Compare our decoding of every .nv.info section with `cuobjdump -elf`'s, record by record in order. */
export function compareAttributes(cubin: Cubin, theirs: ElfAttributes, maxDiffs = 20): AttributeComparison {
  const r: AttributeComparison = { attributes: 0, sameName: 0, sameValue: 0, diffs: [] };
  const sections: Array<[string, NvInfoRecord[]]> = [['.nv.info', cubin.nvInfo]];
  for (const f of cubin.functions) sections.push([`.nv.info.${f.name}`, f.attributes]);
  for (const [name, ours] of sections) {
    const t = theirs.get(name);
    if (!t) continue;
    for (let i = 0; i < t.length; i++) {
      r.attributes++;
      const o = ours[i];
      const on = o ? attributeInfo(o.code).name : '(none)';
      if (on !== t[i]!.name) {
        if (r.diffs.length < maxDiffs) r.diffs.push(`${name}[${i}]: ours ${on}, cuobjdump ${t[i]!.name}`);
        continue;
      }
      r.sameName++;
      const want = numbers(t[i]!.value);
      const got = ourNumbers(o!);
      // cuobjdump prints only some fields of some payloads; agree when its numbers are ours, in order.
      let k = 0;
      for (const n of got) if (k < want.length && n === want[k]) k++;
      if (k === want.length) r.sameValue++;
      else if (r.diffs.length < maxDiffs) r.diffs.push(`${name}[${i}] ${on}: ours ${got.join(' ')}, cuobjdump ${t[i]!.value}`);
    }
  }
  return r;
}
