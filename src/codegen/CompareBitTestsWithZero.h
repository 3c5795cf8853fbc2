// A peephole on the PTX text LLVM's NVPTX backend emits: a bit test `setp.eq.bN %p, %r, 1` of a
// register that only `and.bN %r, x, 1` defines becomes `setp.ne.bN %p, %r, 0`, which ptxas turns
// into one LOP3 with a predicate result (see CompareBitTestsWithZero.cpp for why).
#pragma once

#include <string>

namespace tilec::codegen {

/// `ptx` with every `setp.{eq,ne}.{b,s,u}N %p, %r, 1;` whose %r has exactly one definition in
/// its function, `and.bN %r, x, 1;` (so that %r is 0 or 1), rewritten as
/// `setp.{ne,eq}.{b,s,u}N %p, %r, 0;`. Both forms compute the same predicate.
std::string compareBitTestsWithZero(const std::string &ptx);

} // namespace tilec::codegen
