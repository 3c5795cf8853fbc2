#include "gpu/Passes.h"

namespace tilec::gpu {

void runLayoutPasses(tir::Function &function) {
  runTmaStores(function, "sm_80"); // (no TMA: descriptor stores become plain ones)
  runCoalesce(function);
  runOptimizeGatherLayout(function);
  runAssignLayouts(function);
  runRemoveRedundantConversions(function);
  runHoistConversions(function);
}

} // namespace tilec::gpu
