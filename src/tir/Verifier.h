// Checks the invariants of TIR: operand counts and types per opcode, values defined before use and
// visible in scope, one terminator per block, layouts (when present) of the tensor's rank.
// The driver runs it after every pass; a failure is a compiler bug and is reported as one.
#pragma once

#include "tir/IR.h"

#include <string>

namespace tilec::tir {

/// Returns an empty string when `function` is well formed, else the first problem found.
std::string verify(const Function &function);

} // namespace tilec::tir
