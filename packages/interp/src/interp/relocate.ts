import type { VarDecl } from '@ptxforge/kernel';
import { InterpError } from './errors.js';
import { LWINBASE, SWINBASE } from './memory.js';
import type { SymInfo } from './program.js';

/** Where an initialized variable's bytes were placed: its global-memory copy and, for .const, its bank-3 copy. */
export interface PlacedInit {
  readonly v: VarDecl;
  /** Symbols visible to the variable's initializer (its function's variables first, then the module's). */
  readonly lookup: (name: string) => SymInfo | undefined;
  readonly copies: Array<{ bytes: Uint8Array; at: number }>;
}

/**
 * Fill in the address relocations of variable initializers (VarDecl.relocs, docs/ori-semantics.md
 * "Variables") once every variable has an address: the address of `sym` in its own space (global/const: the
 * global address; shared/local: the window offset), or with `generic` its generic address (window base +
 * offset for shared/local), plus the addend, stored little endian in 4 or 8 bytes (truncated).
 */
export function applyRelocations(placed: readonly PlacedInit[]): void {
  for (const { v, lookup, copies } of placed) {
    for (const r of v.relocs ?? []) {
      const s = lookup(r.sym);
      if (!s) throw new InterpError('bad-launch', `the initializer of @${v.name} holds the address of @${r.sym}, which is not a variable`);
      let value = BigInt(s.address) + BigInt(r.addend);
      if (r.generic && s.space === 'shared') value += BigInt(SWINBASE);
      if (r.generic && s.space === 'local') value += BigInt(LWINBASE);
      value = BigInt.asUintN(8 * r.size, value);
      for (const { bytes, at } of copies) {
        for (let b = 0; b < r.size; b++) {
          const k = at + r.offset + b;
          if (k < bytes.length) bytes[k] = Number((value >> BigInt(8 * b)) & 0xffn);
        }
      }
    }
  }
}
