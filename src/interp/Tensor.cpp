#include "interp/Tensor.h"

#include <algorithm>

namespace tilec::interp {

std::string formatIndex(const std::vector<int64_t> &shape, int64_t index) {
  std::vector<int64_t> coordinates(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    coordinates[d] = index % shape[d];
    index /= shape[d];
  }
  std::string text = "(";
  for (size_t d = 0; d < coordinates.size(); ++d) {
    if (d != 0)
      text += ", ";
    text += std::to_string(coordinates[d]);
  }
  return text + ")";
}

void broadcastInto(const Tensor &in, const std::vector<int64_t> &shape, tir::DType dtype,
                   Tensor &out) {
  out.reset(dtype, shape);
  visitLaneType(in.laneKind(), [&](auto tag) {
    using T = decltype(tag);
    const T *source = in.lanes<T>();
    T *target = out.lanes<T>();
    const int64_t count = out.numElements();
    if (in.numElements() == 1 || shape.empty()) {
      std::fill(target, target + count, source[0]);
      return;
    }
    const size_t rank = shape.size();
    // Row-major strides of the input, 0 along the dimensions that grow.
    std::vector<int64_t> strides(rank, 0);
    int64_t stride = 1;
    for (size_t d = rank; d-- > 0;) {
      strides[d] = in.shape()[d] == 1 ? 0 : stride;
      stride *= in.shape()[d];
    }
    // Copy (or fill) one innermost row at a time, walking the outer dimensions as an odometer.
    const int64_t rowLength = shape[rank - 1];
    const int64_t rowStride = strides[rank - 1];
    std::vector<int64_t> position(rank, 0);
    int64_t sourceOffset = 0;
    for (int64_t done = 0; done < count; done += rowLength) {
      const T *row = source + sourceOffset;
      if (rowStride == 0)
        std::fill(target + done, target + done + rowLength, row[0]);
      else
        std::copy(row, row + rowLength, target + done);
      for (size_t d = rank - 1; d-- > 0;) {
        sourceOffset += strides[d];
        if (++position[d] < shape[d])
          break;
        sourceOffset -= strides[d] * shape[d];
        position[d] = 0;
      }
    }
  });
}

} // namespace tilec::interp
