import type { Init, PtxModule, Statement } from '../ast.js';

/**
 * Addresses of device functions (`.func`) in a whole-program compilation (issue #16: FunctionPointers,
 * newdelete's virtual functions).
 *
 * PTX gives a function address no meaning beyond being a value that `call %rd, (...), proto` may call and
 * that compares unequal to other functions' addresses and to 0. ptxas 13 (sm_90, without -c) writes a small
 * number there: a byte offset into a per-kernel table of code offsets in constant bank 2 (slot 0 holds 1),
 * the same number in every kernel (the initializer of `.global .u64 p = f;` is that number, no relocation).
 * We freeze the numbering here, in the front end: the k-th function whose address the module takes (in
 * declaration order) has address 8*(k+1), ptxas's table stride. The value is an immediate from then on (in
 * instructions and in initializers), so the optimizer, the interpreter, code generation and the lift all see
 * the same number, and an indirect call is lowered to a comparison against each candidate followed by a
 * direct call of it (the callees are known: the whole program is here). A relocatable compilation (-c) cannot
 * do this (another object may hold functions whose address is taken): it is refused there, naming the construct.
 */
export const FUNCTION_ADDRESS_STRIDE = 8n;

/** Name → address of every `.func` with a body whose address the module takes (declaration order). */
export function planFunctionAddresses(ast: PtxModule): Map<string, bigint> {
  const funcs = new Set<string>();
  for (const f of ast.functions) if (!f.entry && f.body) funcs.add(f.name);
  const taken = new Set<string>();
  const walkInit = (i: Init | undefined): void => {
    // iterative: initializer nesting is user-controlled
    const stack: Init[] = i ? [i] : [];
    while (stack.length) {
      const x = stack.pop()!;
      if (x.kind === 'list') stack.push(...x.elems);
      else if (x.kind === 'sym' && funcs.has(x.name)) taken.add(x.name);
    }
  };
  for (const v of ast.vars) walkInit(v.init);
  for (const f of ast.functions) {
    if (!f.body) continue;
    const stack: Statement[][] = [f.body];
    while (stack.length) {
      for (const st of stack.pop()!) {
        if (st.kind === 'block') stack.push(st.body);
        else if (st.kind === 'var') walkInit(st.init);
        else if (st.kind === 'calltargets') {
          for (const n of st.funcs) if (funcs.has(n)) taken.add(n);
        } else if (st.kind === 'instr') {
          // a function named anywhere but as the target of a direct call (`mov.u64 %rd, f`)
          st.operands.forEach((o, k) => {
            if (o.kind !== 'name' || !funcs.has(o.name)) return;
            if (st.opcode === 'call' && isCallTarget(st.operands, k)) return;
            taken.add(o.name);
          });
        }
      }
    }
  }
  const out = new Map<string, bigint>();
  let k = 0n;
  for (const f of ast.functions) if (!f.entry && f.body && taken.has(f.name) && !out.has(f.name)) out.set(f.name, FUNCTION_ADDRESS_STRIDE * ++k);
  return out;
}

/** Operand k of a `call` is its target: the first operand, or the second after a result list. */
function isCallTarget(ops: readonly { kind: string }[], k: number): boolean {
  return k === (ops[0]?.kind === 'list' ? 1 : 0);
}
