// What the tensor cores can do for a `dot`: the mma.sync (Ampere-class, sm_80 and up) and the
// wgmma (Hopper, sm_90a) instruction shapes per operand type. AccelerateMatmul asks it which dots
// to move to the tensor cores; the lowering asks it which instruction to emit.
#pragma once

#include "tir/IR.h"

#include <optional>
#include <string>

namespace tilec::gpu {

/// One mma.sync.aligned.m16n8kK instruction: the K it covers and the operand element width.
struct MmaV2Instruction {
  unsigned k = 16;
  unsigned elemBits = 16;
  /// Consecutive elements along K each thread holds of an operand row (Triton's kWidth, 0: one
  /// register's worth). Wider when the operands were loaded narrower than they are multiplied
  /// (AccelerateMatmul's `k_width`: fp32 from fp16 loads, fp16 from fp8): then each block of
  /// 8 * kWidth K values is computed by kWidth / elemsPerRegister() instructions over
  /// interleaved K, as Triton's, and the sums round in Triton's order.
  unsigned kWidth = 0;
  /// Elements of an operand packed into one 32-bit fragment register.
  unsigned elemsPerRegister() const { return 32 / elemBits; }
  /// Whether kWidth interleaves K across the instructions.
  bool interleavesK() const { return kWidth > elemsPerRegister(); }
  /// The K index, within a dot of `kSize`, of element `e` of the fragment register of K-half
  /// `half` (a0/a1 or b0: 0; a2/a3 or b1: 1) of instruction `step`, for the lanes with
  /// lane % 4 == 0; lane % 4 == q adds q * kIndexLaneStride().
  int64_t kIndex(unsigned step, unsigned half, unsigned e, int64_t kSize) const;
  int64_t kIndexLaneStride() const { return interleavesK() ? kWidth : elemsPerRegister(); }
};

/// The mma.sync instruction for `dot`'s operand and accumulator types and input precision, or
/// none when only the FMA path computes it (fp32 "ieee", fp64, mixed or odd types).
std::optional<MmaV2Instruction> mmaV2InstructionFor(const tir::Operation &dot);

/// Whether AccelerateMatmul put `dot` on mma.sync (its `engine` attribute is "mma_v2").
bool isMmaV2Dot(const tir::Operation &dot);

/// One wgmma.mma_async.sync.aligned.m64nNkK instruction: a warpgroup (4 warps) multiplies 64 rows
/// of a (from shared memory or registers) by n columns of b (shared memory) over k.
struct WgmmaInstruction {
  unsigned n = 8;
  unsigned k = 16;
  unsigned elemBits = 16;
  /// The warp grid over the dot's [M, N] tile (Triton's warpsPerTileV3): warpsM / 4 warpgroups
  /// along M times warpsN along N, each computing 64 rows by n columns per instruction.
  unsigned warpsM = 4, warpsN = 1;
};

/// Whether `arch` has wgmma (sm_90a: the instructions are specific to that target).
bool hasWgmma(const std::string &arch);

/// The wgmma instruction and warp grid for `dot` in a program of `numWarps` warps, or none when
/// only mma.sync (or the FMA path) computes it, as Triton 3.6 decides: the operand types (fp16 or
/// bf16 into fp32, fp16 into fp16; fp8 e4m3/e5m2 or tf32 into fp32 and int8 into int32), a
/// multiple of 4 warps, M a multiple of 64 and N of 16, and
/// operand tiles whose rows (along their contiguous dimension) are 32, 64 or a multiple of 128
/// bytes (the NVMMA shared layouts' swizzle widths). `feedsDot`: another dot uses the result
/// (Triton's forward slice), which puts every warp along M, as attention's first product.
/// AccelerateMatmul keeps int8 and tf32 tiles loaded along M or N on mma.sync itself.
std::optional<WgmmaInstruction> wgmmaInstructionFor(const tir::Operation &dot, unsigned numWarps,
                                                    bool feedsDot);

/// The instruction a dot AccelerateMatmul put on wgmma uses in a program of `numWarps` warps
/// (from its types, shape and accumulator layout alone).
WgmmaInstruction wgmmaInstructionOf(const tir::Operation &dot, unsigned numWarps);

/// Whether AccelerateMatmul put `dot` on wgmma (engine "wgmma").
bool isWgmmaDot(const tir::Operation &dot);

/// Whether `dot` runs on the tensor cores (either engine): its operands go through shared memory
/// tiles the software pipeliner may fill.
bool isTensorCoreDot(const tir::Operation &dot);

} // namespace tilec::gpu
