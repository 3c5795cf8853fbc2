#include "gpu/Passes.h"

namespace tilec::gpu {

void runLayoutPasses(tir::Function &function) {
  runCoalesce(function);
  runAssignLayouts(function);
  runRemoveRedundantConversions(function);
}

} // namespace tilec::gpu
