// Moves the increments of loop-carried values to the end of the loop's latch block.
#pragma once

namespace llvm {
class Module;
}

namespace tilec::codegen {

/// For every value a loop carries (a phi of the loop header) whose next value is computed in
/// the latch block by arithmetic only used by such phis (`p.next = p + 64`), moves that
/// computation just before the latch's branch. Returns whether anything moved.
///
/// Why: the software pipeliner advances its prefetch pointers before the cp.async copies that
/// read the old ones, so the old and new pointers are both live across the copies. Out of SSA
/// this costs a copy per pointer and iteration, and ptxas keeps both in registers: in the 4-warp
/// 128x128x32 GEMM it then reuses the copies' address registers while they are still being
/// read (long-scoreboard stalls in ncu's source view). After the move the increment is the
/// last use of the old value, and the phi becomes an in-place `add`, as in Triton's PTX.
bool sinkLoopIncrements(llvm::Module &module);

} // namespace tilec::codegen
