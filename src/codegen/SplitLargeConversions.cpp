// Layout conversions larger than shared memory, done in pieces.
//
// A conversion goes through shared memory: every thread writes its elements, a barrier, every
// thread reads the elements of the new layout. A 256x256 fp32 accumulator converted for its
// store needs 256 KB, more than any block can use. Triton's conversions go through shared
// memory in repetitions, so Triton compiles such a kernel; tilec converts in one piece wherever
// that fits (fewer barriers), and otherwise in the fewest pieces that do, split along one
// dimension by coordinate bits that both layouts keep in registers (ConversionPieces,
// SharedTile.h).
#include "codegen/SharedMemory.h"
#include "codegen/SharedTile.h"

namespace tilec::codegen {
namespace {

/// The fewest pieces that bring the conversion from `from` to `to` within `limit` bytes: along
/// each dimension, its highest bits that both layouts keep in registers, one more at a time.
/// One piece when none does.
ConversionPieces fewestPiecesWithin(const tir::Type &from, const tir::Type &to, unsigned limit) {
  ConversionPieces best;
  for (unsigned dim = 0; dim < from.rank(); ++dim) {
    uint64_t candidates = registerBits(from, dim) & registerBits(to, dim);
    ConversionPieces pieces{dim, 0};
    for (unsigned b = 64; b-- > 0;) {
      if (!(candidates >> b & 1))
        continue;
      pieces.bits |= uint64_t(1) << b;
      if (best.bits && pieces.count() >= best.count())
        break;
      if (conversionPlan(from, to, pieces).bytes() <= limit) {
        best = pieces;
        break;
      }
    }
  }
  return best;
}

} // namespace

void splitLargeConversions(tir::Function &function, const std::string &arch) {
  const unsigned limit = maxSharedMemoryPerBlock(arch);
  tir::walk(function, [&](tir::Operation &op) {
    // Before any split, sharedMemoryBytes is the whole conversion's (none for one that
    // converts nothing).
    if (op.code() != tir::OpCode::ConvertLayout || sharedMemoryBytes(op) <= limit)
      return;
    ConversionPieces pieces = fewestPiecesWithin(op.operand(0)->type(), op.result()->type(), limit);
    if (!pieces.bits)
      return; // checkSharedMemoryLimit reports it
    op.setAttr("piece_dim", static_cast<int64_t>(pieces.dim));
    op.setAttr("piece_bits", static_cast<int64_t>(pieces.bits));
  });
}

} // namespace tilec::codegen
