import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { decodeAttribute, readCubin, type Cubin } from '@ptxforge/cubin';
import { decodeVolta } from '@ptxforge/mercury-volta';
import { checkHazards, type CheckResult } from './check.js';
import { hazardFunctionFromCode, type WordsToFunctionResult } from './from-sass.js';
import type { HazardFunction } from './types.js';

const ATTR_INDIRECT_BRANCH_TARGETS = 0x34;

export function hasPtxas(): boolean {
  try {
    execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Every .ptx below `dir`, sorted (iterative walk). */
export function ptxFilesUnder(dir: string): string[] {
  const out: string[] = [];
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop()!;
    for (const e of readdirSync(d)) {
      const p = path.join(d, e);
      if (statSync(p).isDirectory()) stack.push(p);
      else if (e.endsWith('.ptx')) out.push(p);
    }
  }
  return out.sort();
}

/** Compile with the installed ptxas (-O3); undefined when ptxas rejects the file. Cached by output path. */
export function compileWithPtxas(ptx: string, arch: string, outFile: string): string | undefined {
  if (existsSync(outFile)) return outFile;
  mkdirSync(path.dirname(outFile), { recursive: true });
  try {
    execFileSync('ptxas', [`-arch=${arch}`, '-O3', ptx, '-o', outFile], { stdio: 'ignore', timeout: 120000 });
    return outFile;
  } catch {
    return undefined;
  }
}

export interface CubinCheck {
  functions: Array<{ name: string; result: CheckResult; instructions: number }>;
  undecoded: Array<{ function: string; addr: number; opcodeField: number; reason: string }>;
}

/** Every function of a Volta+ cubin decoded with the Mercury tables, in the checker's form. */
export function cubinHazardFunctions(cubin: Cubin): Array<{ fn: HazardFunction; undecoded: WordsToFunctionResult['undecoded'] }> {
  const arch = cubin.arch.name;
  const out: Array<{ fn: HazardFunction; undecoded: WordsToFunctionResult['undecoded'] }> = [];
  for (const fn of cubin.functions) {
    const indirectTargets: number[] = [];
    for (const r of fn.attributes) {
      if (r.code !== ATTR_INDIRECT_BRANCH_TARGETS) continue;
      const v = decodeAttribute(r);
      if (v.kind === 'branchTargets') for (const b of v.branches) indirectTargets.push(...b.targets);
    }
    const base = fn.symbol?.value ?? 0;
    const entries = fn.subroutines.map((s) => s.value - base);
    out.push(hazardFunctionFromCode(fn.name, fn.code, (w, a) => decodeVolta(arch, w, a), { indirectTargets, entries }));
  }
  return out;
}

/** Decode a Volta+ cubin with the Mercury tables and check every function. */
export function checkCubin(cubin: Cubin): CubinCheck {
  const arch = cubin.arch.name;
  const out: CubinCheck = { functions: [], undecoded: [] };
  for (const { fn: hf, undecoded } of cubinHazardFunctions(cubin)) {
    for (const u of undecoded) out.undecoded.push({ function: hf.name, ...u });
    out.functions.push({ name: hf.name, instructions: hf.instrs.length, result: checkHazards(hf, { arch }) });
  }
  return out;
}

export function checkCubinFile(file: string): CubinCheck {
  return checkCubin(readCubin(readFileSync(file), { file }));
}
