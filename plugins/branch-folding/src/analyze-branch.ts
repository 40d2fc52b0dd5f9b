import { Instr, label, type Block, type Guard } from '@ptxforge/kernel';

/**
 * Ori's AnalyzeBranch (LLVM's TargetInstrInfo::analyzeBranch): what the control tail of a block does, when it is
 * one of the shapes BranchFolding knows how to rewrite. Anything else (BRX/JMX tables, a guarded EXIT, falling
 * off the end of the function, three control instructions) is "unanalyzable" and never merged or rewritten,
 * which is the spec's Gate 2.
 */
export type BranchShape =
  /** No control instruction: falls through to `fall`. */
  | { readonly kind: 'fallthrough'; readonly fall: Block }
  /** An unguarded `BRA target`. */
  | { readonly kind: 'uncond'; readonly target: Block; readonly bra: Instr }
  /** `@g BRA target` then either a fall-through to `other` or an unguarded `BRA other` (`otherBra`). */
  | { readonly kind: 'cond'; readonly guard: Guard; readonly target: Block; readonly bra: Instr; readonly other: Block; readonly otherBra?: Instr }
  /** An unguarded EXIT / RET / KILL: no successor. */
  | { readonly kind: 'return'; readonly term: Instr };

export interface AnalyzedBlock {
  readonly block: Block;
  /** Number of leading non-control instructions (the control tail starts here). */
  readonly bodyEnd: number;
  readonly shape: BranchShape;
}

const isPlainBra = (i: Instr): boolean => i.opcode === 'BRA' && i.uses.length === 1 && i.uses[0]!.kind === 'label';
const braTarget = (i: Instr): Block => (i.uses[0] as { kind: 'label'; block: Block }).block;

/** Analyze a block's control tail; undefined when it is not one of the analyzable shapes. */
export function analyzeBranch(b: Block, layoutNext: Block | undefined): AnalyzedBlock | undefined {
  const n = b.instrs.length;
  let bodyEnd = n;
  while (bodyEnd > 0 && b.instrs[bodyEnd - 1]!.isControlFlow) bodyEnd--;
  const tail = n - bodyEnd;
  if (tail === 0) return layoutNext ? { block: b, bodyEnd, shape: { kind: 'fallthrough', fall: layoutNext } } : undefined;
  const last = b.instrs[n - 1]!;
  if (tail === 1) {
    if (isPlainBra(last)) {
      if (!last.guard) return { block: b, bodyEnd, shape: { kind: 'uncond', target: braTarget(last), bra: last } };
      if (!layoutNext) return undefined;
      return { block: b, bodyEnd, shape: { kind: 'cond', guard: last.guard, target: braTarget(last), bra: last, other: layoutNext } };
    }
    if ((last.opcode === 'EXIT' || last.opcode === 'RET' || last.opcode === 'KILL') && !last.guard) {
      return { block: b, bodyEnd, shape: { kind: 'return', term: last } };
    }
    return undefined;
  }
  if (tail === 2) {
    const first = b.instrs[n - 2]!;
    if (isPlainBra(first) && first.guard && isPlainBra(last) && !last.guard) {
      return {
        block: b,
        bodyEnd,
        shape: { kind: 'cond', guard: first.guard, target: braTarget(first), bra: first, other: braTarget(last), otherBra: last },
      };
    }
  }
  return undefined;
}

/** The successor blocks an analyzed shape names (at most two). */
export function shapeSuccessors(s: BranchShape): Block[] {
  switch (s.kind) {
    case 'fallthrough':
      return [s.fall];
    case 'uncond':
      return [s.target];
    case 'cond':
      return s.target === s.other ? [s.target] : [s.target, s.other];
    case 'return':
      return [];
  }
}

/** A new unguarded `BRA target`. */
export function newBranch(target: Block): Instr {
  return new Instr('BRA', { uses: [label(target)] });
}
