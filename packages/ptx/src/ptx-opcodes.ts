/**
 * Every PTX instruction name of ISA 1.x..9.x. The parser accepts these and reports anything else as an
 * unknown instruction; whether an instruction can be lowered is the lowering's decision (PTX_UNSUPPORTED).
 */
export const PTX_INSTRUCTIONS: ReadonlySet<string> = new Set(
  `abs activemask add addc alloca and applypriority atom bar barrier bfe bfi bfind bmsk bra brev brkpt brx call clz
  cnot copysign cos cp createpolicy cvt cvta discard div dp2a dp4a elect ex2 exit fence fma fns getctarank
  griddepcontrol isspacep istypep ld ldmatrix ldu lg2 lop3 mad mad24 madc match max mbarrier membar min mma mov
  movmatrix multimem mul mul24 nanosleep neg not or pmevent popc prefetch prefetchu prmt rcp red redux rem ret
  rsqrt sad selp set setmaxnreg setp shf shfl shl shr sin slct sqrt st stackrestore stacksave stmatrix sub subc
  suld suq sured sust szext tanh testp tex tld4 trap txq vabsdiff vabsdiff2 vabsdiff4 vadd vadd2 vadd4 vavrg2
  vavrg4 vmad vmax vmax2 vmax4 vmin vmin2 vmin4 vote vset vset2 vset4 vshl vshr vsub vsub2 vsub4 wgmma wmma xor
  tcgen05 tensormap clusterlaunchcontrol mapa`.split(/\s+/),
);
