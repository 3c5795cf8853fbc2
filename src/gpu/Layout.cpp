#include "gpu/Layout.h"

#include <algorithm>
#include <numeric>
#include <sstream>

namespace tilec::gpu {

unsigned Layout::rank() const {
  if (kind == LayoutKind::Slice)
    return parent->rank() - 1;
  return static_cast<unsigned>(sizePerThread.size());
}

unsigned Layout::numWarps() const {
  if (kind == LayoutKind::Slice)
    return parent->numWarps();
  return std::accumulate(warpsPerCTA.begin(), warpsPerCTA.end(), 1u, std::multiplies<>());
}

static void printList(std::ostream &os, const std::vector<unsigned> &v) {
  os << "[";
  for (size_t i = 0; i < v.size(); ++i)
    os << (i ? ", " : "") << v[i];
  os << "]";
}

std::string Layout::str() const {
  std::ostringstream os;
  if (kind == LayoutKind::Slice) {
    os << "#slice<{dim=" << dim << ", parent=" << parent->str() << "}>";
    return os.str();
  }
  os << "#blocked<{spt=";
  printList(os, sizePerThread);
  os << ", tpw=";
  printList(os, threadsPerWarp);
  os << ", wpc=";
  printList(os, warpsPerCTA);
  os << ", order=";
  printList(os, order);
  if (std::any_of(repsInWarp.begin(), repsInWarp.end(), [](unsigned r) { return r != 1; })) {
    os << ", rep=";
    printList(os, repsInWarp);
  }
  if (!warpOrder.empty()) {
    os << ", warp_order=";
    printList(os, warpOrder);
  }
  os << "}>";
  return os.str();
}

bool Layout::operator==(const Layout &o) const {
  if (kind != o.kind)
    return false;
  if (kind == LayoutKind::Slice)
    return dim == o.dim && *parent == *o.parent;
  if (sizePerThread != o.sizePerThread || threadsPerWarp != o.threadsPerWarp ||
      warpsPerCTA != o.warpsPerCTA || order != o.order || warpsOrder() != o.warpsOrder())
    return false;
  for (unsigned d = 0; d < rank(); ++d)
    if (reps(d) != o.reps(d))
      return false;
  return true;
}

LayoutPtr makeBlocked(std::vector<unsigned> sizePerThread, std::vector<unsigned> threadsPerWarp,
                      std::vector<unsigned> warpsPerCTA, std::vector<unsigned> order,
                      std::vector<unsigned> repsInWarp, std::vector<unsigned> warpOrder) {
  auto l = std::make_shared<Layout>();
  l->kind = LayoutKind::Blocked;
  l->sizePerThread = std::move(sizePerThread);
  l->threadsPerWarp = std::move(threadsPerWarp);
  l->warpsPerCTA = std::move(warpsPerCTA);
  l->order = std::move(order);
  // Without repeats the list stays empty, so that such layouts compare and print as before.
  if (std::any_of(repsInWarp.begin(), repsInWarp.end(), [](unsigned r) { return r != 1; }))
    l->repsInWarp = std::move(repsInWarp);
  // The warp order matters only where warps go along two dimensions or more.
  auto warped =
      std::count_if(l->warpsPerCTA.begin(), l->warpsPerCTA.end(), [](unsigned w) { return w > 1; });
  if (warped > 1 && warpOrder != l->order)
    l->warpOrder = std::move(warpOrder);
  return l;
}

LayoutPtr makeSlice(unsigned dim, LayoutPtr parent) {
  auto l = std::make_shared<Layout>();
  l->kind = LayoutKind::Slice;
  l->dim = dim;
  l->parent = std::move(parent);
  return l;
}

static LayoutPtr blockedWithSizePerThread(const std::vector<int64_t> &shape, unsigned numWarps,
                                          std::vector<unsigned> spt,
                                          const std::vector<unsigned> &order);

LayoutPtr defaultBlockedLayout(const std::vector<int64_t> &shape, unsigned numWarps,
                               unsigned vectorWidth, std::vector<unsigned> order) {
  unsigned rank = static_cast<unsigned>(shape.size());
  if (order.empty())
    for (unsigned d = rank; d-- > 0;)
      order.push_back(d); // row-major: the last dimension varies fastest
  std::vector<unsigned> spt(rank, 1);

  // Each thread takes up to `vectorWidth` consecutive elements of the fastest dimension, as long
  // as that leaves enough elements for the threads of one warp to have distinct ones.
  unsigned fastest = order[0];
  int64_t total = 1;
  for (int64_t d : shape)
    total *= d;
  unsigned width = std::max(1u, vectorWidth);
  while (width > 1 && (shape[fastest] % width != 0 || total / width < 32))
    width /= 2;
  spt[fastest] = width;

  return blockedWithSizePerThread(shape, numWarps, spt, order);
}

/// The blocked layout with `spt` per thread whose lanes and warps spread along `order`.
static LayoutPtr blockedWithSizePerThread(const std::vector<int64_t> &shape, unsigned numWarps,
                                          std::vector<unsigned> spt,
                                          const std::vector<unsigned> &order) {
  unsigned rank = static_cast<unsigned>(shape.size());
  std::vector<unsigned> tpw(rank, 1), wpc(rank, 1);
  // Spread the 32 lanes of a warp, then the warps, over the dimensions, fastest first, without
  // exceeding the elements each dimension has left.
  std::vector<int64_t> remaining(rank);
  for (unsigned d = 0; d < rank; ++d)
    remaining[d] = std::max<int64_t>(1, shape[d] / spt[d]);
  auto spread = [&](unsigned count, std::vector<unsigned> &per) {
    for (unsigned i = 0; i < rank && count > 1; ++i) {
      unsigned d = order[i];
      while (count > 1 && remaining[d] > 1) {
        per[d] *= 2;
        remaining[d] /= 2;
        count /= 2;
      }
    }
    // Left-over lanes or warps (the tensor is smaller than one tile) replicate along the slowest
    // dimension.
    per[order[rank - 1]] *= count;
  };
  spread(32, tpw);
  spread(numWarps, wpc);
  return makeBlocked(spt, tpw, wpc, order);
}

LayoutPtr withoutRepsInWarp(const LayoutPtr &layout) {
  if (!layout)
    return layout;
  if (layout->kind == LayoutKind::Slice) {
    LayoutPtr parent = withoutRepsInWarp(layout->parent);
    return parent == layout->parent ? layout : makeSlice(layout->dim, parent);
  }
  if (layout->repsInWarp.empty())
    return layout;
  return makeBlocked(layout->sizePerThread, layout->threadsPerWarp, layout->warpsPerCTA,
                     layout->order, {}, layout->warpOrder);
}

LayoutPtr permuteLayout(const LayoutPtr &layout, const std::vector<int64_t> &order) {
  if (!layout || layout->kind != LayoutKind::Blocked || layout->rank() != order.size())
    return nullptr;
  unsigned rank = layout->rank();
  std::vector<unsigned> spt(rank), tpw(rank), wpc(rank), reps(rank), inverse(rank), newOrder;
  for (unsigned i = 0; i < rank; ++i) {
    unsigned from = static_cast<unsigned>(order[i]);
    spt[i] = layout->sizePerThread[from];
    tpw[i] = layout->threadsPerWarp[from];
    wpc[i] = layout->warpsPerCTA[from];
    reps[i] = layout->reps(from);
    inverse[from] = i;
  }
  for (unsigned d : layout->order)
    newOrder.push_back(inverse[d]);
  std::vector<unsigned> newWarpOrder;
  for (unsigned d : layout->warpOrder)
    newWarpOrder.push_back(inverse[d]);
  return makeBlocked(spt, tpw, wpc, newOrder, reps, newWarpOrder);
}

LayoutPtr threadPartialsLayout(const LayoutPtr &layout) {
  if (!layout || layout->kind != LayoutKind::Blocked || !layout->repsInWarp.empty())
    return nullptr;
  unsigned rank = layout->rank(), axis = rank - 1;
  std::vector<unsigned> spt = layout->sizePerThread, tpw = layout->threadsPerWarp,
                        wpc = layout->warpsPerCTA, order{rank};
  spt.push_back(spt[axis]);
  spt[axis] = 1;
  tpw.push_back(1);
  wpc.push_back(1);
  order.insert(order.end(), layout->order.begin(), layout->order.end());
  std::vector<unsigned> warpOrder;
  if (!layout->warpOrder.empty()) {
    warpOrder.push_back(rank);
    warpOrder.insert(warpOrder.end(), layout->warpOrder.begin(), layout->warpOrder.end());
  }
  return makeSlice(rank, makeBlocked(spt, tpw, wpc, order, {}, warpOrder));
}

LayoutPtr dotFmaLayout(const std::vector<int64_t> &shape, unsigned numWarps) {
  // Triton's (TritonDotPattern, converting TTIR to TTGIR): [M, N], or [B, M, N] for a batched
  // dot, each thread a block of 2 x 2 M x N elements where the threads get at least 4 elements
  // each, 4 x 4 where they get at least 16, the lanes and warps spread N first, then M, then the
  // batches. Reductions of the product add in this layout's order, so it is Triton's exactly.
  unsigned rank = static_cast<unsigned>(shape.size());
  unsigned mDim = rank - 2, nDim = rank - 1;
  int64_t threads = 32 * static_cast<int64_t>(numWarps);
  int64_t elements = 1;
  for (int64_t d : shape)
    elements *= d;
  unsigned block = elements / threads >= 16 ? 4 : elements / threads >= 4 ? 2 : 1;
  std::vector<unsigned> spt(rank, 1);
  spt[mDim] = static_cast<unsigned>(std::min<int64_t>(block, shape[mDim]));
  spt[nDim] = static_cast<unsigned>(std::min<int64_t>(block, shape[nDim]));
  std::vector<unsigned> order;
  for (unsigned d = rank; d-- > 0;)
    order.push_back(d);
  return blockedWithSizePerThread(shape, numWarps, spt, order);
}

LayoutPtr mmaV2AccumulatorLayout(unsigned warpsM, unsigned warpsN) {
  // With one warp along M, rows g and g + 8 are the first two rows of the 8-row tile's repeats
  // anyway: the layout without repsInWarp is the same, and keeps the form older passes compare.
  if (warpsM == 1)
    return makeBlocked({1, 2}, {8, 4}, {warpsM, warpsN}, {1, 0});
  return makeBlocked({1, 2}, {8, 4}, {warpsM, warpsN}, {1, 0}, {2, 1});
}

bool isMmaV2AccumulatorLayout(const Layout &layout, unsigned *warpsM, unsigned *warpsN) {
  if (layout.kind != LayoutKind::Blocked || layout.rank() != 2)
    return false;
  const bool rowPairs = layout.repsInWarp == std::vector<unsigned>{2, 1};
  if (!layout.repsInWarp.empty() && !rowPairs)
    return false;
  if (layout.sizePerThread != std::vector<unsigned>{1, 2} ||
      layout.threadsPerWarp != std::vector<unsigned>{8, 4} ||
      layout.order != std::vector<unsigned>{1, 0})
    return false;
  if (warpsM)
    *warpsM = layout.warpsPerCTA[0];
  if (warpsN)
    *warpsN = layout.warpsPerCTA[1];
  return true;
}

LayoutPtr mmaV3AccumulatorLayout(unsigned warpsM, unsigned warpsN, unsigned instructionN) {
  // One warp along N: its columns follow one another 8 at a time whatever the instruction's n
  // (the layout of every wgmma dot before warps went along N too).
  const unsigned repsN = warpsN > 1 ? instructionN / 8 : 1;
  return makeBlocked({1, 2}, {8, 4}, {warpsM, warpsN}, {1, 0}, {2, repsN}, {0, 1});
}

bool isMmaV3AccumulatorLayout(const Layout &layout, unsigned *warpsM, unsigned *warpsN) {
  if (layout.kind != LayoutKind::Blocked || layout.rank() != 2)
    return false;
  if (layout.sizePerThread != std::vector<unsigned>{1, 2} ||
      layout.threadsPerWarp != std::vector<unsigned>{8, 4} ||
      layout.order != std::vector<unsigned>{1, 0} || layout.reps(0) != 2)
    return false;
  const bool alongN = layout.warpsPerCTA[1] > 1;
  if (alongN ? layout.warpsOrder() != std::vector<unsigned>{0, 1} : layout.reps(1) != 1)
    return false;
  if (warpsM)
    *warpsM = layout.warpsPerCTA[0];
  if (warpsN)
    *warpsN = layout.warpsPerCTA[1];
  return true;
}

} // namespace tilec::gpu
