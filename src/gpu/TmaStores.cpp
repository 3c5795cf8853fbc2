// TmaStores: a store through a tensor descriptor argument becomes a TMA store on Hopper.
//
// Sema gives such a store (desc.store(offsets, tile)) its bounds-checked pointers and mask, plus
// the attribute `descriptor` and the tile's offsets. Where TMA can store the tile
// (PassUtils.h, nvmmaTensorMap: two dimensions, the column offset 16-byte aligned, the box within
// TMA's limits), the store becomes tma_store(value, offsets...): the lowering writes the tile
// into shared memory in the NVMMA layout and one thread copies it out with
// cp.async.bulk.tensor, which leaves the elements outside the tensor unwritten, as the mask
// did. The value keeps the layout its producer gives it (a dot's accumulator needs no
// conversion to a coalesced layout first), so this runs before Coalesce. Elsewhere (older GPUs,
// other ranks, offsets not provably aligned) the offsets are dropped and the store stays a
// masked store.
#include "analysis/AxisInfo.h"
#include "gpu/Arch.h"
#include "gpu/PassUtils.h"
#include "gpu/Passes.h"
#include "tir/Builder.h"

namespace tilec::gpu {

using tir::OpCode;
using tir::Operation;

void runTmaStores(tir::Function &function, const std::string &arch) {
  std::vector<Operation *> stores;
  tir::walk(function, [&](Operation &op) {
    if (op.code() == OpCode::Store && op.hasAttr("descriptor"))
      stores.push_back(&op);
  });
  if (stores.empty())
    return;
  analysis::AxisInfoAnalysis axis(function);
  for (Operation *store : stores) {
    const tir::Type &tile = store->operand(1)->type();
    std::optional<tir::TensorMap> map;
    if (smVersion(arch) >= 90)
      map = nvmmaTensorMap(tile, static_cast<unsigned>(store->intAttr("descriptor")),
                           axis.info(store->operand(store->numOperands() - 1)));
    if (!map) {
      store->setOperands({store->operand(0), store->operand(1), store->operand(2)});
      store->removeAttr("descriptor");
      continue;
    }
    std::vector<tir::Value *> operands{store->operand(1)};
    for (unsigned i = 3; i < store->numOperands(); ++i)
      operands.push_back(store->operand(i));
    tir::Builder b;
    b.setInsertionPoint(store);
    b.setLoc(store->loc());
    Operation *tmaStore = b.create(OpCode::TmaStore, std::move(operands), {});
    tmaStore->setAttr("tensor_map", int64_t(addTensorMap(function, *map)));
    store->parentBlock()->remove(store);
  }
  // The pointers and the mask only the stores used.
  eraseDeadPureOps(function);
}

} // namespace tilec::gpu
