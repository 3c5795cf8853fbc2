// The distribution of an fp32 tensor of `shape` in `layout`: the codegen unit tests' way to ask
// which elements a thread holds without building a kernel.
#pragma once

#include "codegen/Distribution.h"
#include "gpu/Layout.h"

#include <vector>

namespace tilec::codegen::testing {

inline Distribution distribution(const gpu::LayoutPtr &layout, std::vector<int64_t> shape) {
  tir::Type type(tir::DType::scalar(tir::ScalarKind::F32), std::move(shape));
  return distributionOf(type.withLayout(layout));
}

} // namespace tilec::codegen::testing
