#include "codegen/Distribution.h"

#include <algorithm>
#include <stdexcept>

namespace tilec::codegen {

unsigned Distribution::numElements() const {
  unsigned n = 1;
  for (unsigned e : elemsPerThread)
    n *= e;
  return n;
}

std::vector<unsigned> Distribution::multiIndex(unsigned element) const {
  std::vector<unsigned> index(rank(), 0);
  for (unsigned d : order) {
    index[d] = element % elemsPerThread[d];
    element /= elemsPerThread[d];
  }
  return index;
}

unsigned Distribution::linearIndex(const std::vector<unsigned> &index) const {
  unsigned linear = 0;
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    linear = linear * elemsPerThread[*it] + index[*it];
  return linear;
}

int64_t Distribution::offset(unsigned d, unsigned k) const {
  unsigned group = k / spt(d); // which of the thread's groups of spt consecutive elements
  return int64_t(group / reps(d)) * tile(d) + int64_t(group % reps(d)) * spt(d) * tpw(d) +
         k % spt(d);
}

std::vector<int64_t> Distribution::coordinates(unsigned lane, unsigned warp,
                                               unsigned element) const {
  unsigned rootRank = root->rank();
  std::vector<unsigned> laneIndex(rootRank), warpIndex(rootRank);
  for (unsigned r : root->order) {
    laneIndex[r] = lane % root->threadsPerWarp[r];
    lane /= root->threadsPerWarp[r];
  }
  for (unsigned r : root->warpsOrder()) {
    warpIndex[r] = warp % root->warpsPerCTA[r];
    warp /= root->warpsPerCTA[r];
  }
  std::vector<unsigned> index = multiIndex(element);
  std::vector<int64_t> coords(rank());
  for (unsigned d = 0; d < rank(); ++d) {
    unsigned r = rootDim[d];
    coords[d] = threadBase(d, laneIndex[r], warpIndex[r]) + offset(d, index[d]);
    if (wraps(d))
      coords[d] %= shape[d];
  }
  return coords;
}

bool keepsRowMajorRegisters(const Distribution &from, const Distribution &to) {
  const unsigned numWarps = from.root->numWarps();
  if (from.numElements() != to.numElements() || to.root->numWarps() != numWarps)
    return false;
  auto rowMajor = [](const std::vector<int64_t> &coords, const std::vector<int64_t> &shape) {
    int64_t position = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      position = position * shape[d] + coords[d];
    return position;
  };
  for (unsigned warp = 0; warp < numWarps; ++warp)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned e = 0; e < from.numElements(); ++e)
        if (rowMajor(from.coordinates(lane, warp, e), from.shape) !=
            rowMajor(to.coordinates(lane, warp, e), to.shape))
          return false;
  return true;
}

Distribution distributionOf(const tir::Type &type) {
  if (!type.layout)
    throw std::logic_error("tensor without a layout reached the lowering: " + type.str());
  // Peel slices down to the blocked root, remembering which root dimensions each removed.
  std::vector<const gpu::Layout *> chain;
  const gpu::Layout *layout = type.layout.get();
  while (layout->kind == gpu::LayoutKind::Slice) {
    chain.push_back(layout);
    layout = layout->parent.get();
  }
  Distribution dist;
  dist.shape = type.shape;
  // The root's dimensions, then each slice (outermost last applied) removes one.
  std::vector<unsigned> dims;
  for (unsigned d = 0; d < layout->rank(); ++d)
    dims.push_back(d);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    dist.removedRootDims.push_back(dims.at((*it)->dim));
    dims.erase(dims.begin() + (*it)->dim);
  }
  dist.rootDim = dims;
  gpu::LayoutPtr root = type.layout;
  while (root->kind == gpu::LayoutKind::Slice)
    root = root->parent;
  dist.root = root;
  for (unsigned r : root->order) {
    auto it = std::find(dims.begin(), dims.end(), r);
    if (it != dims.end())
      dist.order.push_back(static_cast<unsigned>(it - dims.begin()));
  }
  dist.elemsPerThread.resize(dist.rank());
  dist.repsInWarp.resize(dist.rank());
  for (unsigned d = 0; d < dist.rank(); ++d) {
    int64_t lanesCover = int64_t(dist.spt(d)) * dist.tpw(d);
    dist.repsInWarp[d] = static_cast<unsigned>(
        std::clamp<int64_t>(dist.shape[d] / lanesCover, 1, root->reps(dist.rootDim[d])));
    int64_t tiles = std::max<int64_t>(1, dist.shape[d] / dist.tile(d));
    dist.elemsPerThread[d] = static_cast<unsigned>(tiles * dist.spt(d) * dist.reps(d));
  }
  return dist;
}

} // namespace tilec::codegen
