// What the tensor cores can do for a `dot`: the mma.sync (Ampere-class, sm_80 and up) instruction
// shapes per operand type. AccelerateMatmul asks it which dots to move to the tensor cores; the
// lowering asks it which instruction to emit.
#pragma once

#include "tir/IR.h"

#include <optional>
#include <string>

namespace tilec::gpu {

/// One mma.sync.aligned.m16n8kK instruction: the K it covers and the operand element width.
struct MmaV2Instruction {
  unsigned k = 16;
  unsigned elemBits = 16;
  /// Elements of an operand packed into one 32-bit fragment register.
  unsigned elemsPerRegister() const { return 32 / elemBits; }
};

/// The mma.sync instruction for `dot`'s operand and accumulator types and input precision, or
/// none when only the FMA path computes it (fp32 "ieee", fp64, mixed or odd types).
std::optional<MmaV2Instruction> mmaV2InstructionFor(const tir::Operation &dot);

/// Whether AccelerateMatmul put `dot` on the tensor cores (its `engine` attribute).
bool isMmaV2Dot(const tir::Operation &dot);

} // namespace tilec::gpu
