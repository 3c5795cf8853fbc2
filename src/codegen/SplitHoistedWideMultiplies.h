// A peephole on the PTX text LLVM's NVPTX backend emits: a `mul.wide` by a power of two whose
// product is read only in other basic blocks (an offset hoisted out of a loop) becomes a widening
// `cvt` and a `shl` (see SplitHoistedWideMultiplies.cpp for why).
#pragma once

#include <string>

namespace tilec::codegen {

/// `ptx` with every unguarded `mul.wide.{s,u}32 %rdP, %rX, 2^k;` (k >= 1) whose product %rdP has
/// no other definition in its function and is read only in basic blocks other than the
/// multiplication's rewritten as `cvt.{s64.s32,u64.u32} %rdP, %rX; shl.b64 %rdP, %rdP, k;`. Both
/// forms compute the same 64-bit value.
std::string splitHoistedWideMultiplies(const std::string &ptx);

} // namespace tilec::codegen
