// A peephole on the PTX text LLVM's NVPTX backend emits: `mul.wide` whose only use is a 64-bit
// add in the same basic block becomes one `mad.wide` (see FuseWideMultiplyAdd.cpp for why).
#pragma once

#include <string>

namespace tilec::codegen {

/// `ptx` with every `mul.wide.{s,u}32 %rdP, A, B;` whose product is used once, by an
/// `add.s64 %rdS, %rdP, C;` (or `C, %rdP`) later in the same basic block, with neither A nor B
/// redefined in between, rewritten as `mad.wide.{s,u}32 %rdS, A, B, C;` at the add. The two
/// forms compute the same 64-bit value.
std::string fuseWideMultiplyAdds(const std::string &ptx);

} // namespace tilec::codegen
