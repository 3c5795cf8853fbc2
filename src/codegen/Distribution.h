// Which elements of a tensor each thread holds, in the order the lowering keeps them.
//
// A blocked layout, or a slice of one, spreads a tensor over threads as in Triton's emitIndices:
// along each dimension d of the tensor, the thread holds elemsPerThread[d] elements, the k-th at
//   coordinate = (threadBase[d] + offset(d, k)) mod shape[d]
// where threadBase depends only on the thread (lane and warp indices along the root blocked
// layout's dimension of d) and offset(d, k) = (k / spt) * tile + k % spt is a compile-time
// constant (tile = spt * tpw * wpc); with repeats in the warp (Layout.h, repsInWarp) the warp's
// spt * tpw elements come `reps` times, spt * tpw apart, before the next tile. The thread's
// elements are numbered with order[0] (the fastest dimension of the layout) varying fastest, so
// that the spt consecutive elements of a vector are consecutive in that numbering.
#pragma once

#include "gpu/Layout.h"
#include "tir/Types.h"

#include <cstdint>
#include <vector>

namespace tilec::codegen {

struct Distribution {
  std::vector<int64_t> shape;
  /// The blocked layout the tensor's layout is (a slice of).
  gpu::LayoutPtr root;
  /// For each tensor dimension, its dimension in the root layout.
  std::vector<unsigned> rootDim;
  /// Root dimensions sliced away: threads along them hold the same elements.
  std::vector<unsigned> removedRootDims;
  /// Tensor dimensions, fastest first.
  std::vector<unsigned> order;
  std::vector<unsigned> elemsPerThread;
  std::vector<unsigned> repsInWarp;

  unsigned rank() const { return static_cast<unsigned>(shape.size()); }
  unsigned numElements() const;
  unsigned spt(unsigned d) const { return root->sizePerThread[rootDim[d]]; }
  unsigned tpw(unsigned d) const { return root->threadsPerWarp[rootDim[d]]; }
  unsigned wpc(unsigned d) const { return root->warpsPerCTA[rootDim[d]]; }
  /// How many times the thread holds elements of its warp's repeats along d: the layout's
  /// repsInWarp, less where the tensor is shorter than them (a broadcast row's single row), so
  /// that a thread's first min(elemsPerThread, shape) elements along d are distinct.
  unsigned reps(unsigned d) const { return repsInWarp[d]; }
  /// Elements one warp covers along d (its lanes' elements, repeated as the layout says).
  int64_t perWarp(unsigned d) const { return int64_t(spt(d)) * tpw(d) * root->reps(rootDim[d]); }
  /// Elements one repetition of the layout covers along d.
  int64_t tile(unsigned d) const { return perWarp(d) * wpc(d); }
  /// The tile is larger than the tensor along d: coordinates wrap, threads hold copies.
  bool wraps(unsigned d) const { return tile(d) > shape[d]; }

  /// Element number -> per-dimension element index, and back.
  std::vector<unsigned> multiIndex(unsigned element) const;
  unsigned linearIndex(const std::vector<unsigned> &multiIndex) const;
  /// The compile-time part of the coordinate of the k-th element along d.
  int64_t offset(unsigned d, unsigned k) const;
  /// The thread's part of its coordinates along d (before any wrap): lane `laneIndex` and warp
  /// `warpIndex` along d's root dimension start at laneIndex * spt + warpIndex * perWarp.
  int64_t threadBase(unsigned d, unsigned laneIndex, unsigned warpIndex) const {
    return int64_t(laneIndex) * spt(d) + int64_t(warpIndex) * perWarp(d);
  }
  /// The coordinates of element `element` of the thread that is lane `lane` of warp `warp`, known
  /// at compile time (the shared-memory planner simulates a warp's accesses with it).
  std::vector<int64_t> coordinates(unsigned lane, unsigned warp, unsigned element) const;
};

/// The distribution of a tensor type with a blocked or slice layout.
Distribution distributionOf(const tir::Type &type);

/// Whether every thread holds, as its k-th element of `to`, the element at the row-major position
/// of its k-th element of `from`: a reshape between the two then moves no data (Triton's
/// tl.interleave, a join in its operands' layout reshaped to the 1-D layout of twice as many
/// elements a thread).
bool keepsRowMajorRegisters(const Distribution &from, const Distribution &to);

} // namespace tilec::codegen
